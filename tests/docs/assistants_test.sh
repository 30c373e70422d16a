#!/usr/bin/env bash
# docs/assistants.md is a test: every block fenced as `json test` must parse, and every server it
# configures must answer as its client would reach it. A stdio entry (`command`, `args`, `env`) is
# started as written, with the page's placeholder paths set to this checkout and a fresh
# workspace, and must answer initialize and list its agent's tools; an HTTP entry (`url`) is called
# on a `dw serve` started here (the page's port 8808 becomes the one it got) and must do the same.
# usage: tests/docs/assistants_test.sh BUILD_DIR   (CTest, label unit; 77 = skipped when the
# checkout's build/dw, which start-agent.sh runs, is not built)
set -uo pipefail
build=$(cd "${1:?usage: assistants_test.sh BUILD_DIR}" && pwd)
root=$(cd "$(dirname "$0")/../.." && pwd)
[ -x "$root/build/dw" ] || { echo "$root/build/dw is not built (start-agent.sh would build it): skipped"; exit 77; }
work=$(mktemp -d)
serve_pid=""
cleanup() { [ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null && wait "$serve_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
"$build/dw" init "$work/shop-dw" --name shop >/dev/null || { echo "dw init failed"; exit 1; }
"$build/dw" --workspace "$work/shop-dw" serve --listen 127.0.0.1:0 >"$work/serve.out" 2>"$work/serve.err" &
serve_pid=$!
for _ in $(seq 100); do grep -q "listening on" "$work/serve.out" && break; sleep 0.1; done
port=$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\)/mcp.*|\1|p' "$work/serve.out")
[ -n "$port" ] || { echo "dw serve did not start: $(cat "$work/serve.err")"; exit 1; }
exec python3 - "$root" "$work/shop-dw" "$port" <<'PY'
import json, os, re, subprocess, sys, urllib.request

root, workspace, port = sys.argv[1], sys.argv[2], sys.argv[3]
page = os.path.join(root, "docs", "assistants.md")
text = open(page, encoding="utf-8").read()
# Each ```json test block with the line its JSON starts on.
blocks = [(text[:m.start()].count("\n") + 2, m.group(1))
          for m in re.finditer(r"^```json test\n(.*?)^```", text, flags=re.S | re.M)]
failures = []
fail = failures.append
if not blocks:
    fail("no ```json test block in docs/assistants.md")

AGENT_TOOL = {"dw-incidents": "diagnose_incident", "dw-quality": "run_quality_check",
              "dw-context-catalog": "blast_radius_analysis", "dw-connectors": "get_change_timeline",
              "dw-schema": "check_compatibility"}
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "assistants-doc-test", "version": "1"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
LIST = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}

def localize(s):
    return (s.replace("/abs/path/to/data-workers", root).replace("/abs/path/to/shop-dw", workspace)
             .replace("127.0.0.1:8808", "127.0.0.1:" + port))

def tool_names(answer):
    return {t["name"] for t in answer.get("result", {}).get("tools", [])}

def want_tools(where, name, names, agent_hint):
    agent = next((a for a in AGENT_TOOL if a in agent_hint), None)
    expected = {"describe_workspace"} | ({AGENT_TOOL[agent]} if agent else set(AGENT_TOOL.values()))
    missing = expected - names
    if missing:
        fail(f"{where}: server {name} lists no {sorted(missing)} (it listed {sorted(names)})")

def stdio(where, name, entry):
    if not os.path.isabs(entry["command"]):
        fail(f"{where}: server {name}: the command is not an absolute path")
    env = dict(os.environ)
    env.pop("DW_WORKSPACE", None)
    env.update(entry.get("env", {}))
    feed = "".join(json.dumps(m) + "\n" for m in (INIT, INITIALIZED, LIST))
    try:
        out = subprocess.run([entry["command"]] + entry.get("args", []), input=feed, env=env, cwd="/",
                             capture_output=True, text=True, timeout=60)
    except Exception as e:  # not found, not executable, timed out
        fail(f"{where}: server {name} did not run: {e}")
        return
    answers = [json.loads(l) for l in out.stdout.splitlines() if l.strip()]
    listed = next((a for a in answers if a.get("id") == 2), None)
    if listed is None:
        fail(f"{where}: server {name} did not answer tools/list (stderr: {out.stderr[-400:]})")
        return
    want_tools(where, name, tool_names(listed), " ".join(entry.get("args", [])))

def http(where, name, entry):
    url = entry["url"]
    def post(msg, session=None):
        req = urllib.request.Request(url, data=json.dumps(msg).encode(), method="POST", headers={
            "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
            **({"Mcp-Session-Id": session} if session else {})})
        with urllib.request.urlopen(req, timeout=30) as r:
            body = r.read().decode()
            return r.headers.get("Mcp-Session-Id"), (json.loads(body) if body.strip() else {})
    try:
        session, _ = post(INIT)
        post(INITIALIZED, session)
        _, listed = post(LIST, session)
    except Exception as e:
        fail(f"{where}: server {name} at {url}: {e}")
        return
    want_tools(where, name, tool_names(listed), url.rsplit("/", 1)[-1])

servers = 0
for line, raw in blocks:
    where = f"docs/assistants.md:{line}"
    try:
        doc = json.loads(localize(raw))
    except json.JSONDecodeError as e:
        fail(f"{where}: not JSON: {e}")
        continue
    entries = doc.get("mcpServers", doc.get("servers"))
    if not isinstance(entries, dict) or not entries:
        fail(f"{where}: neither mcpServers nor servers names a server")
        continue
    for name, entry in entries.items():
        servers += 1
        if "command" in entry:
            stdio(where, name, entry)
        elif "url" in entry:
            http(where, name, entry)
        else:
            fail(f"{where}: server {name} has neither command nor url")
for f in failures:
    print("FAILED:", f)
print(f"assistants: {servers} server(s) in {len(blocks)} block(s), {len(failures)} failure(s)")
sys.exit(1 if failures else 0)
PY
