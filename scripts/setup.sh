#!/usr/bin/env bash
# Installs what building and testing Data Workers needs on Debian 12: only the packages that are
# missing (apt-get), then the pinned Node tools for the MCP client checks (npm, into a cache folder
# outside the source tree). Safe to run again: it does nothing when everything is there.
#   scripts/setup.sh            build and test dependencies
#   scripts/setup.sh --no-node  skip the Node tools (the demo does not need them)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

packages=(
  g++ cmake ninja-build pkg-config git
  nlohmann-json3-dev libyaml-cpp-dev libsqlite3-dev sqlite3 libpq-dev postgresql
  libcurl4-openssl-dev libcpp-httplib-dev libcli11-dev libspdlog-dev libfmt-dev libssl-dev
  libjemalloc-dev libgtest-dev libgmock-dev libbenchmark-dev wrk curl ca-certificates
  clang libclang-rt-14-dev lld ccache python3
)
with_node=1
[ "${1:-}" = "--no-node" ] && with_node=0
# chromium: the desk's browser test drives Debian's Chromium (playwright-core, no browser download).
[ $with_node = 1 ] && packages+=(nodejs npm chromium)

missing=()
for p in "${packages[@]}"; do
  # nodejs/npm may come from elsewhere (a machine image's own Node): a working command is enough.
  case $p in nodejs) command -v node >/dev/null && continue;; npm) command -v npm >/dev/null && continue;; esac
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  sudo_cmd=""
  [ "$(id -u)" = 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

if [ $with_node = 1 ]; then
  "$here/node-tools.sh" >&2
fi
