#!/usr/bin/env python3
"""Soak of `dw serve` (docs/RELIABILITY.md): MCP sessions and an OpenLineage stream at once.

    bench/soak.py --dw build/dw --workspace DIR [--seconds 600] [--sessions 64]

Starts `dw --workspace DIR serve --listen 127.0.0.1:0`, then for --seconds runs --sessions MCP
clients (each: initialize, then tools/list and search_assets/get_asset/trace calls in a loop; every
50th request it drops its session with DELETE and opens a new one; one client in eight reads its
answers slowly, one in eight disconnects mid-response now and then) and one OpenLineage client
posting events as fast as it is answered. Every minute it records the p50/p99 latency of the MCP
calls and of the intake, the server's resident memory (VmRSS) and its open descriptors
(/proc/PID/fd). Fails (exit 1) on any error answer, on RSS growth over 5% from the first minute to
the last, on descriptors growing, or on a p99 in the last minute over twice the first minute's.
Prints a table and a JSON summary line.
"""
import argparse
import http.client
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import threading
import time

ap = argparse.ArgumentParser()
ap.add_argument("--dw", required=True)
ap.add_argument("--workspace", required=True)
ap.add_argument("--seconds", type=int, default=600)
ap.add_argument("--sessions", type=int, default=64)
args = ap.parse_args()

proc = subprocess.Popen([args.dw, "--workspace", args.workspace, "serve", "--listen", "127.0.0.1:0"],
                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
line = proc.stdout.readline()
port = int(line.rsplit(":", 1)[1].split("/")[0])
pid = proc.pid

lock = threading.Lock()
samples = {"mcp": [], "lineage": []}   # (t, seconds) per answered request, this minute
errors = []
stop = time.monotonic() + args.seconds
counts = {"mcp": 0, "lineage": 0, "dropped_sessions": 0, "cut_mid_response": 0}


def record(kind, started):
    with lock:
        samples[kind].append(time.monotonic() - started)
        counts[kind] += 1


def fail(what):
    with lock:
        if len(errors) < 20:
            errors.append(what)


HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


def rpc(conn, sid, mid, method, params):
    body = json.dumps({"jsonrpc": "2.0", "id": mid, "method": method, "params": params})
    h = dict(HEADERS)
    if sid:
        h["Mcp-Session-Id"] = sid
        h["MCP-Protocol-Version"] = "2025-11-25"
    conn.request("POST", "/mcp", body, h)
    return conn.getresponse()


def mcp_client(n):
    rnd = random.Random(n)
    slow = n % 8 == 1
    cutter = n % 8 == 2
    while time.monotonic() < stop:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        try:
            started = time.monotonic()
            r = rpc(conn, None, 1, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                                   "clientInfo": {"name": "soak", "version": "1"}})
            r.read()
            if r.status != 200:
                fail(f"initialize: HTTP {r.status}")
                return
            sid = r.getheader("Mcp-Session-Id")
            record("mcp", started)
            conn.request("POST", "/mcp", json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
                         dict(HEADERS, **{"Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-11-25"}))
            conn.getresponse().read()
            for i in range(2, 52):
                if time.monotonic() >= stop:
                    break
                call = rnd.choice([("tools/list", {}),
                                   ("tools/call", {"name": "search_assets", "arguments": {"query": "loyalty"}}),
                                   ("tools/call", {"name": "get_asset", "arguments": {"id": "flink://flink/points-balance"}}),
                                   ("tools/call", {"name": "trace_cross_platform_lineage",
                                                   "arguments": {"asset": "kafka://prod/points-events"}})])
                started = time.monotonic()
                r = rpc(conn, sid, i, *call)
                if cutter and rnd.random() < 0.05:
                    r.read(10)            # read a little, then hang up mid-response
                    conn.close()
                    with lock:
                        counts["cut_mid_response"] += 1
                    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                    continue
                if slow:
                    data = b""
                    while True:
                        chunk = r.read(256)
                        if not chunk:
                            break
                        data += chunk
                        time.sleep(0.002)
                else:
                    data = r.read()
                if r.status != 200:
                    fail(f"{call[0]}: HTTP {r.status} {data[:200]!r}")
                    continue
                text = data.decode()
                if text.startswith("event:") or text.startswith("data:"):
                    text = [l[5:] for l in text.splitlines() if l.startswith("data:")][-1]
                msg = json.loads(text)
                if "error" in msg or msg.get("result", {}).get("isError"):
                    fail(f"{call}: {text[:300]}")
                record("mcp", started)
            conn.request("DELETE", "/mcp", headers={"Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-11-25"})
            conn.getresponse().read()
            with lock:
                counts["dropped_sessions"] += 1
        except (OSError, http.client.HTTPException, ValueError) as e:
            fail(f"mcp client {n}: {e!r}")
            time.sleep(0.1)
        finally:
            conn.close()


def lineage_client():
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    n = 0
    while time.monotonic() < stop:
        n += 1
        ev = {"eventType": "COMPLETE", "eventTime": "2026-11-24T15:00:00Z",
              "run": {"runId": "0190c0de-0000-7000-8000-%012d" % n},
              "job": {"namespace": "soak", "name": "job-%d" % (n % 500), "facets": {"jobType": {"integration": "FLINK"}}},
              "inputs": [{"namespace": "kafka://broker:9092", "name": "in-%d" % (n % 500)}],
              "outputs": [{"namespace": "kafka://broker:9092", "name": "out-%d" % (n % 500)}]}
        started = time.monotonic()
        try:
            conn.request("POST", "/api/v1/lineage", json.dumps(ev), {"Content-Type": "application/json"})
            r = conn.getresponse()
            r.read()
            if r.status != 201:
                fail(f"lineage: HTTP {r.status}")
            record("lineage", started)
        except (OSError, http.client.HTTPException) as e:
            fail(f"lineage: {e!r}")
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)


def proc_stat():
    rss = 0
    with open(f"/proc/{pid}/status") as f:
        for l in f:
            if l.startswith("VmRSS:"):
                rss = int(l.split()[1])
    return rss, len(os.listdir(f"/proc/{pid}/fd")), len(os.listdir(f"/proc/{pid}/task"))


def pct(xs, p):
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * len(xs)))] * 1000


threads = [threading.Thread(target=mcp_client, args=(i,), daemon=True) for i in range(args.sessions)]
threads.append(threading.Thread(target=lineage_client, daemon=True))
for t in threads:
    t.start()
minutes = []
print("minute  mcp/s  mcp_p50  mcp_p99  ol/s  ol_p50  ol_p99  rss_kb  fds  threads", flush=True)
period = 60 if args.seconds >= 120 else max(1, args.seconds // 4)
m = 0
while time.monotonic() < stop:
    time.sleep(min(period, max(0.0, stop - time.monotonic())))
    with lock:
        mcp, ol = samples["mcp"], samples["lineage"]
        samples["mcp"], samples["lineage"] = [], []
    rss, fds, tasks = proc_stat()
    m += 1
    row = {"minute": m, "mcp_per_s": len(mcp) / period, "mcp_p50_ms": pct(mcp, .5), "mcp_p99_ms": pct(mcp, .99),
           "ol_per_s": len(ol) / period, "ol_p50_ms": pct(ol, .5), "ol_p99_ms": pct(ol, .99),
           "rss_kb": rss, "fds": fds, "threads": tasks}
    minutes.append(row)
    print("%6d %6.0f %8.1f %8.1f %5.0f %7.1f %7.1f %7d %4d %8d" % (
        m, row["mcp_per_s"], row["mcp_p50_ms"], row["mcp_p99_ms"], row["ol_per_s"], row["ol_p50_ms"],
        row["ol_p99_ms"], rss, fds, tasks), flush=True)
for t in threads:
    t.join(timeout=40)
time.sleep(1)
rss_end, fds_end, tasks_end = proc_stat()
proc.terminate()
proc.wait(timeout=30)

first, last = minutes[0], minutes[-1]
problems = list(errors)
growth = (last["rss_kb"] - first["rss_kb"]) / first["rss_kb"]
if growth > 0.05:
    problems.append(f"RSS grew {growth:.1%} from the first minute to the last")
if fds_end > first["fds"] + 2:
    problems.append(f"descriptors grew from {first['fds']} to {fds_end} after the clients ended")
for k in ("mcp_p99_ms", "ol_p99_ms"):
    if last[k] > 2 * first[k] + 5:
        problems.append(f"{k}: {last[k]:.1f} in the last period against {first[k]:.1f} in the first")
summary = {"seconds": args.seconds, "sessions": args.sessions, "requests": counts, "errors": len(errors),
           "rss_growth": round(growth, 4), "fds_first": first["fds"], "fds_after": fds_end,
           "threads_after": tasks_end, "problems": problems}
print(json.dumps(summary))
sys.exit(1 if problems else 0)
