#!/usr/bin/env bash
# Load on `dw serve` (MCP Streamable HTTP) from wrk on loopback: N concurrent sessions, each
# connection calling one read-only tool as fast as it can. Reports calls/s and latency percentiles.
# Loopback only; bounded by DURATION.
# usage: bench/http_load.sh DW_BINARY WORKSPACE_DIR [DURATION=10s] [CONNECTIONS=32] [THREADS=2] [TOOL]
#   TOOL describe_workspace (default; the product tool, called with probe=false) or
#   test_simple_text (the transport alone: `dw serve --conformance-fixtures`, a constant answer)
set -euo pipefail
dw=${1:?usage: http_load.sh DW_BINARY WORKSPACE_DIR [DURATION] [CONNECTIONS] [THREADS]}
ws=${2:?workspace dir}
duration=${3:-10s}
conns=${4:-32}
threads=${5:-2}
tool=${6:-describe_workspace}
case $tool in
  describe_workspace) mode=(--workspace "$ws" serve); args='{"probe":false}' ;;
  test_simple_text) mode=(serve --conformance-fixtures); args='{}' ;;
  *) echo "http_load: TOOL must be describe_workspace or test_simple_text" >&2; exit 2 ;;
esac
command -v wrk >/dev/null || { echo "http_load: wrk is missing (apt-get install wrk)" >&2; exit 2; }

tmp=$(mktemp -d)
"$dw" "${mode[@]}" --listen 127.0.0.1:0 >"$tmp/serve.out" 2>"$tmp/serve.err" &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$tmp"' EXIT
for _ in $(seq 100); do grep -q listening "$tmp/serve.out" && break; sleep 0.05; done
port=$(sed -n 's/.*127.0.0.1:\([0-9]*\)\/mcp.*/\1/p' "$tmp/serve.out")
[ -n "$port" ] || { echo "http_load: dw serve did not start: $(cat "$tmp/serve.err")" >&2; exit 1; }
url="http://127.0.0.1:$port/mcp"

# One MCP session per connection.
ids=()
for i in $(seq "$conns"); do
  id=$(curl -s -D - -o /dev/null -X POST "$url" -H 'Content-Type: application/json' \
    -H 'Accept: application/json, text/event-stream' \
    -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"wrk","version":"1"}}}' \
    | tr -d '\r' | sed -n 's/^[Mm]cp-[Ss]ession-[Ii]d: //p')
  [ -n "$id" ] || { echo "http_load: initialize gave no session id" >&2; exit 1; }
  curl -s -o /dev/null -X POST "$url" -H 'Content-Type: application/json' \
    -H 'Accept: application/json, text/event-stream' -H "Mcp-Session-Id: $id" \
    -H 'MCP-Protocol-Version: 2025-11-25' -d '{"jsonrpc":"2.0","method":"notifications/initialized"}'
  ids+=("\"$id\"")
done

cat > "$tmp/load.lua" <<LUA
local sessions = {$(IFS=,; echo "${ids[*]}")}
local counter = 0
local thread_count = 0
function setup(thread)
  thread:set("offset", thread_count)
  thread_count = thread_count + 1
end
function init(args)
  counter = offset or 0
end
request = function()
  counter = counter + 1
  local sid = sessions[(counter % #sessions) + 1]
  local body = '{"jsonrpc":"2.0","id":' .. counter .. ',"method":"tools/call","params":{"name":"$tool","arguments":$args}}'
  return wrk.format("POST", nil, {
    ["Content-Type"] = "application/json",
    ["Accept"] = "application/json, text/event-stream",
    ["Mcp-Session-Id"] = sid,
    ["MCP-Protocol-Version"] = "2025-11-25"}, body)
end
done = function(summary, latency, requests)
  local secs = summary.duration / 1e6
  io.write(string.format("calls: %d in %.1f s = %.0f calls/s; errors: connect %d read %d write %d status %d timeout %d\n",
    summary.requests, secs, summary.requests / secs, summary.errors.connect, summary.errors.read,
    summary.errors.write, summary.errors.status, summary.errors.timeout))
  io.write(string.format("latency: p50 %.2f ms  p90 %.2f ms  p99 %.2f ms  max %.2f ms\n",
    latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(99) / 1000,
    latency.max / 1000))
end
LUA
echo "dw serve on $url: $tool, $conns sessions, $threads wrk threads, $duration"
wrk -t"$threads" -c"$conns" -d"$duration" -s "$tmp/load.lua" "$url" | sed -n '/^calls:/,$p'
