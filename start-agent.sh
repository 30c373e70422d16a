#!/usr/bin/env bash
# Starts one Data Workers agent over MCP stdio, from any working directory:
#   claude mcp add --scope user dw-incidents -- "$(pwd)/start-agent.sh" dw-incidents
# Builds dw first when the binary is missing (build output on stderr only; stdout is the protocol).
# The workspace is $DW_WORKSPACE, else the current directory.
set -euo pipefail
root=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
agents="dw-incidents dw-quality dw-context-catalog dw-connectors dw-schema"
name=${1:-}
case " $agents " in
  *" $name "*) ;;
  *)
    echo "start-agent.sh: unknown agent '${name}'. The agents are:" >&2
    for a in $agents; do echo "  $a" >&2; done
    echo "usage: start-agent.sh AGENT" >&2
    exit 2;;
esac
shift
bin="$root/build/dw"
if [ ! -x "$bin" ]; then
  echo "start-agent.sh: building dw (first start)..." >&2
  DW_BUILD_TARGETS=dw "$root/scripts/build.sh" "$root/build" >&2 </dev/null
fi
exec "$bin" mcp "$name" "$@"
