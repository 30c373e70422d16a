#!/usr/bin/env bash
# Runs the commands of a documentation page, so that a page that tells a reader what to type is a
# test of the product (docs/quickstart.md is one).
#
#   scripts/doc-commands.sh PAGE.md
#
# The blocks fenced as ```sh test (or ```sh test exit=N) run in page order, in one bash process, in
# the current directory and environment: a `cd` or a variable set in one block holds in the next,
# as it would in the reader's terminal. Every other block (```sh, ```yaml, ...) is only shown to the
# reader. A block runs with `set -e -o pipefail`, so its first failing command ends the run; a block
# marked exit=N must end with exit code N (a one-command block whose failure is the point, such as
# `dw check` finding a bad row). Each block is echoed with its line in the page before it runs.
# Exits 0 when every block ended as expected; else 1, naming the failing command's line in the
# page (or the block's, for a block that ended with another code than its exit=N); 2 for a page that
# cannot be read or holds no test block.
set -uo pipefail
page=${1:-}
if [ -z "$page" ] || [ ! -r "$page" ]; then
  echo "usage: scripts/doc-commands.sh PAGE.md   (a readable Markdown page)" >&2
  exit 2
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Split the page: block N's text into $work/N.sh, and "N LINE EXIT" into $work/index.
awk -v dir="$work" '
  BEGIN { n = 0; inside = 0 }
  /^```/ {
    if (inside) { inside = 0; close(file); next }
    if ($0 ~ /^```sh[ \t]+test([ \t]|$)/) {
      n++; inside = 1; file = dir "/" n ".sh"; printf "" > file
      want = 0
      if (match($0, /exit=[0-9]+/)) want = substr($0, RSTART + 5, RLENGTH - 5)
      print n, NR + 1, want >> (dir "/index")
      next
    }
    skipping = !skipping; next
  }
  inside { print >> file }
' "$page"
if [ ! -s "$work/index" ]; then
  echo "doc-commands: $page has no \`\`\`sh test block" >&2
  exit 2
fi

# One driver runs the blocks in turn in one shell, so state carries over. A block expected to end
# with 0 runs under `set -e`: its first failing command ends the driver, and the EXIT trap names the
# block. A block expected to end otherwise runs without it and its last exit code is compared.
driver="$work/driver.sh"
{
  # ERR fires inside the sourced block with LINENO counting from the block's first line.
  echo 'set -o pipefail; current=""; failed_at=""'
  echo 'trap '\''[ -n "$current" ] && failed_at=$((current + LINENO - 1))'\'' ERR'
  echo 'trap '\''rc=$?; if [ $rc != 0 ] && [ -n "$current" ]; then echo "doc-commands: $DW_DOC_PAGE:${failed_at:-$current}: a command failed (exit code $rc)" >&2; fi'\'' EXIT'
  while read -r n line want; do
    echo "current=$line; failed_at=''; echo '--- $page:$line' >&2; sed 's/^/    /' '$work/$n.sh' >&2"
    if [ "$want" = 0 ]; then
      echo "set -e; source '$work/$n.sh'; set +e"
    else
      echo "source '$work/$n.sh'; rc=\$?"
      echo "if [ \$rc != $want ]; then echo \"doc-commands: $page:$line: the block ended with exit code \$rc, the page expects $want\" >&2; current=''; exit 1; fi"
    fi
  done <"$work/index"
  echo "current=''; echo 'doc-commands: $page: every block ran as the page says' >&2"
} >"$driver"
DW_DOC_PAGE=$page bash "$driver" </dev/null
rc=$?
[ $rc = 0 ] || exit 1
