#!/usr/bin/env bash
# Claude Code itself (npm @anthropic-ai/claude-code) with a throwaway HOME: `claude mcp add` each
# of the five agents, then `claude mcp list` must report every one connected.
# usage: tests/node/claude_mcp_list.sh START_AGENT_SH
# Prints "claude: N passed, M failed" last.
set -uo pipefail
start_agent=${1:?usage: claude_mcp_list.sh START_AGENT_SH}
root=$(cd "$(dirname "$0")/../.." && pwd)
source <("$root/scripts/node-tools.sh" --env)
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
ws="$home/workspace"
cp -R "$root/examples/loyalty-flink" "$ws"
export HOME="$home" DW_WORKSPACE="$ws"
# No model is called: `mcp add` and `mcp list` only edit config and health-check the servers.
export DISABLE_AUTOUPDATER=1 DISABLE_TELEMETRY=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1
agents="dw-incidents dw-quality dw-context-catalog dw-connectors dw-schema"
cd "$home"
for a in $agents; do
  claude mcp add --scope user "$a" -- "$start_agent" "$a" >/dev/null 2>&1 || echo "claude mcp add $a failed"
done
out=$(timeout 120 claude mcp list 2>&1)
echo "$out"
passed=0; failed=0
for a in $agents; do
  if echo "$out" | grep -E "^$a: " | grep -q "Connected"; then passed=$((passed + 1)); else
    echo "FAIL $a is not reported connected"; failed=$((failed + 1)); fi
done
echo "claude: $passed passed, $failed failed"
[ $failed = 0 ]
