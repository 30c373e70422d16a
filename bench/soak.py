#!/usr/bin/env python3
"""Soak of `dw serve` (docs/RELIABILITY.md): MCP sessions and an OpenLineage stream at once.

    bench/soak.py --dw build/dw --workspace DIR [--seconds 600] [--sessions 64]

Starts `dw --workspace DIR serve --listen 127.0.0.1:0`, then for --seconds runs --sessions MCP
clients (each: initialize, then tools/list and search_assets/get_asset/trace calls in a loop; every
50th request it drops its session with DELETE and opens a new one) and one OpenLineage client
posting events as fast as it is answered. One MCP client in eight is a slow reader and one in eight
disconnects mid-response (see SlowBatch and CutBatch for what makes each real from the server's
side, and how each is counted). Every minute it records the p50/p99 latency of the MCP calls and
of the intake, the errors, the server's resident memory (VmRSS), its open descriptors
(/proc/PID/fd) and threads. Fails (exit 1) on any error answer, on RSS growth over 5% from the
first minute to the last, on more descriptors once the clients have gone than before they came (or
more threads once the server's pools have let their idle threads go, 40 s later), on
a p99 in the last minute over twice the first minute's, or when the slow readers or the
disconnects did not happen as intended. Prints a table and a JSON summary line.
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

# The kernel's ceiling on a socket's send buffer: a response larger than this plus the client's
# receive buffer cannot all be handed to the kernel, so the server's writer must wait for the
# client (or meet its hang-up) while it is still writing.
with open("/proc/sys/net/ipv4/tcp_wmem") as f:
    SNDBUF_MAX = int(f.read().split()[2])
RCVBUF = 8192                 # what the slow readers and cutters ask for (the kernel may double it)
PIPELINED = 160               # tools/list requests sent at once on one connection (~37 KB answers each)

proc = subprocess.Popen([args.dw, "--workspace", args.workspace, "serve", "--listen", "127.0.0.1:0"],
                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
line = proc.stdout.readline()
port = int(line.rsplit(":", 1)[1].split("/")[0])
pid = proc.pid

lock = threading.Lock()
samples = {"mcp": [], "lineage": []}   # (t, seconds) per answered request, this minute
errors = []
stop = time.monotonic() + args.seconds
counts = {"mcp": 0, "lineage": 0, "dropped_sessions": 0, "errors": 0,
          "slow_batches": 0, "slow_answers": 0, "slow_bytes": 0, "slow_seconds": 0.0, "slow_server_waited": 0, "slow_longest_gap_s": 0.0,
          "cuts": 0, "cut_mid_response": 0, "cut_undelivered_bytes": 0, "abandoned_sessions": 0}
errors_this_period = [0]


def record(kind, started):
    with lock:
        samples[kind].append(time.monotonic() - started)
        counts[kind] += 1


def fail(what):
    with lock:
        counts["errors"] += 1
        errors_this_period[0] += 1
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


class RawConnection:
    """One HTTP/1.1 connection on a plain socket with a small receive buffer, so that what the
    client does not read stays on the server's side of the connection."""

    def __init__(self):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, RCVBUF)
        self.sock.settimeout(30)
        self.sock.connect(("127.0.0.1", port))
        self.buf = b""
        self.received = 0
        self.last_read = time.monotonic()
        self.longest_gap = 0.0   # the longest time between two reads: a client stalled longer than
                                 # the server's write timeout (5 s) is one the server may drop

    def send_rpc(self, sid, mid, method, params):
        body = json.dumps({"jsonrpc": "2.0", "id": mid, "method": method, "params": params}).encode()
        head = ("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
                "Accept: application/json, text/event-stream\r\nContent-Length: %d\r\n" % (port, len(body)))
        if sid:
            head += "Mcp-Session-Id: %s\r\nMCP-Protocol-Version: 2025-11-25\r\n" % sid
        return (head + "\r\n").encode() + body

    def recv_some(self, n):
        now = time.monotonic()
        self.longest_gap = max(self.longest_gap, now - self.last_read)
        chunk = self.sock.recv(n)
        self.last_read = time.monotonic()
        if not chunk:
            raise ConnectionError("the server closed the connection after %d bytes; the client's longest pause "
                                  "between two reads was %.1f s" % (self.received, self.longest_gap))
        self.received += len(chunk)
        self.buf += chunk

    def response(self, chunk=65536, pause=0.0):
        """Reads one whole response (Content-Length framing): (status, headers, body)."""
        while b"\r\n\r\n" not in self.buf:
            self.recv_some(chunk)
            time.sleep(pause)
        head, rest = self.buf.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        headers = {l.split(":", 1)[0].strip().lower(): l.split(":", 1)[1].strip() for l in lines[1:] if ":" in l}
        if "content-length" not in headers:
            raise ValueError("an answer without Content-Length: %r" % head[:200])
        length = int(headers["content-length"])
        self.buf = rest
        while len(self.buf) < length:
            self.recv_some(chunk)
            time.sleep(pause)
        body, self.buf = self.buf[:length], self.buf[length:]
        return status, headers, body

    def initialize(self):
        self.sock.sendall(self.send_rpc(None, 1, "initialize", {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "soak-raw", "version": "1"}}))
        status, headers, _ = self.response()
        if status != 200 or "mcp-session-id" not in headers:
            raise ValueError("initialize on a raw connection: HTTP %d" % status)
        sid = headers["mcp-session-id"]
        note = json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode()
        self.sock.sendall(("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
                           "Accept: application/json, text/event-stream\r\nContent-Length: %d\r\n"
                           "Mcp-Session-Id: %s\r\nMCP-Protocol-Version: 2025-11-25\r\n\r\n" % (port, len(note), sid)).encode()
                          + note)
        self.response()
        return sid

    def close(self):
        self.sock.close()


def slow_batch(rnd):
    """A slow reader: PIPELINED tools/list requests at once on its own session, their answers
    (~6 MB) read 16 KB at a time with a pause between reads (~1.6 MB/s). The answers exceed the
    kernel's send-buffer ceiling plus the client's receive buffer, so the server's writer waits on
    this client for most of the batch (counted in slow_server_waited when the byte count proves
    it). Every answer must be a 200 carrying the tool list, in order."""
    conn = RawConnection()
    try:
        sid = conn.initialize()
        started = time.monotonic()
        conn.received = 0
        conn.longest_gap = 0.0
        conn.sock.sendall(b"".join(conn.send_rpc(sid, 100 + i, "tools/list", {}) for i in range(PIPELINED)))
        for i in range(PIPELINED):
            status, _, body = conn.response(chunk=16384, pause=0.01)
            msg = json.loads(body)
            if status != 200 or msg.get("id") != 100 + i or not msg.get("result", {}).get("tools"):
                fail("slow reader: answer %d: HTTP %d %r" % (i, status, body[:200]))
                return
        took = time.monotonic() - started
        conn.sock.sendall(("DELETE /mcp HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nMcp-Session-Id: %s\r\n"
                           "MCP-Protocol-Version: 2025-11-25\r\nContent-Length: 0\r\n\r\n" % (port, sid)).encode())
        conn.response()
        with lock:
            counts["slow_batches"] += 1
            counts["slow_answers"] += PIPELINED
            counts["slow_bytes"] += conn.received
            counts["slow_seconds"] += took
            counts["slow_server_waited"] += conn.received > SNDBUF_MAX + 2 * RCVBUF
            counts["slow_longest_gap_s"] = max(counts["slow_longest_gap_s"], round(conn.longest_gap, 2))
    finally:
        conn.close()


def cut_batch(rnd):
    """A disconnect mid-response: PIPELINED tools/list requests on a session of its own, 16 to 256
    KB of the answers read, then the connection closed with the rest unread (the kernel answers
    with a reset) and the session abandoned without DELETE, as a client that crashed would. It is
    counted in cut_mid_response only when more bytes were left undelivered than the kernel could
    have held for the server (its send-buffer ceiling plus the client's receive buffer): the
    server was then still writing answers of this connection when the client went."""
    conn = RawConnection()
    try:
        sid = conn.initialize()
        conn.received = 0
        sent = b"".join(conn.send_rpc(sid, 100 + i, "tools/list", {}) for i in range(PIPELINED))
        conn.sock.sendall(sent)
        status, _, body = conn.response(chunk=16384)
        if status != 200:
            fail("cut client: first answer HTTP %d %r" % (status, body[:200]))
            return
        want = rnd.randint(16384, 262144)
        while conn.received < want:
            conn.recv_some(16384)
        total = PIPELINED * (len(body) + 120)   # answers of the same size, plus their heads
        undelivered = total - conn.received
        with lock:
            counts["cuts"] += 1
            counts["abandoned_sessions"] += 1
            if undelivered > SNDBUF_MAX + 2 * RCVBUF:
                counts["cut_mid_response"] += 1
                counts["cut_undelivered_bytes"] += undelivered
    finally:
        conn.close()


def mcp_client(n):
    rnd = random.Random(n)
    slow = n % 8 == 1
    cutter = n % 8 == 2
    while slow and time.monotonic() < stop:
        try:
            slow_batch(rnd)
        except (OSError, ValueError) as e:
            fail(f"slow reader {n}: {e!r}")
            time.sleep(0.1)
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
                if cutter and rnd.random() < 0.01:
                    try:
                        cut_batch(rnd)
                    except (OSError, ValueError) as e:
                        fail(f"cut client {n}: {e!r}")
                started = time.monotonic()
                r = rpc(conn, sid, i, *call)
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


def fd_kinds():
    """What the server's descriptors point at, sockets and pipes by kind ("socket", "pipe")."""
    kinds = []
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        kinds.append(target.split(":")[0] if target.startswith(("socket:", "pipe:", "anon_inode:")) else target)
    return sorted(kinds)


def warm_up():
    """One of each request the soak makes, before the baseline is taken: the store, the graph and
    whatever else the server opens on first use are open when the descriptors are first counted."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    r = rpc(conn, None, 1, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                          "clientInfo": {"name": "soak-warm-up", "version": "1"}})
    r.read()
    sid = r.getheader("Mcp-Session-Id")
    for i, call in enumerate([("tools/list", {}),
                              ("tools/call", {"name": "search_assets", "arguments": {"query": "loyalty"}}),
                              ("tools/call", {"name": "get_asset", "arguments": {"id": "flink://flink/points-balance"}}),
                              ("tools/call", {"name": "trace_cross_platform_lineage",
                                              "arguments": {"asset": "kafka://prod/points-events"}})]):
        rpc(conn, sid, 2 + i, *call).read()
    conn.request("DELETE", "/mcp", headers={"Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-11-25"})
    conn.getresponse().read()
    conn.request("POST", "/api/v1/lineage", json.dumps({
        "eventType": "COMPLETE", "eventTime": "2026-11-24T15:00:00Z",
        "run": {"runId": "0190c0de-0000-7000-8000-ffffffffffff"},
        "job": {"namespace": "soak", "name": "warm-up", "facets": {"jobType": {"integration": "FLINK"}}},
        "inputs": [], "outputs": []}), {"Content-Type": "application/json"})
    conn.getresponse().read()
    conn.close()


def pct(xs, p):
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * len(xs)))] * 1000


warm_up()
time.sleep(7)   # the warm-up's connection ends after the keep-alive idle timeout (5 s)
rss_base, fds_base, tasks_base = proc_stat()   # before the soak's clients connect
kinds_base = fd_kinds()
threads = [threading.Thread(target=mcp_client, args=(i,), daemon=True) for i in range(args.sessions)]
threads.append(threading.Thread(target=lineage_client, daemon=True))
for t in threads:
    t.start()
minutes = []
print("before clients: rss_kb %d fds %d threads %d" % (rss_base, fds_base, tasks_base), flush=True)
print("minute  mcp/s  mcp_p50  mcp_p99  ol/s  ol_p50  ol_p99  errors  slow  cuts  rss_kb  fds  threads", flush=True)
period = 60 if args.seconds >= 120 else max(1, args.seconds // 4)
m = 0
while time.monotonic() < stop:
    time.sleep(min(period, max(0.0, stop - time.monotonic())))
    with lock:
        mcp, ol = samples["mcp"], samples["lineage"]
        samples["mcp"], samples["lineage"] = [], []
        errs, errors_this_period[0] = errors_this_period[0], 0
        slow_now, cuts_now = counts["slow_batches"], counts["cut_mid_response"]
    rss, fds, tasks = proc_stat()
    if m == 0:
        kinds_first = fd_kinds()
    m += 1
    row = {"minute": m, "mcp_per_s": len(mcp) / period, "mcp_p50_ms": pct(mcp, .5), "mcp_p99_ms": pct(mcp, .99),
           "ol_per_s": len(ol) / period, "ol_p50_ms": pct(ol, .5), "ol_p99_ms": pct(ol, .99),
           "errors": errs, "slow_batches": slow_now - (minutes[-1]["slow_total"] if minutes else 0),
           "cuts_mid_response": cuts_now - (minutes[-1]["cuts_total"] if minutes else 0),
           "slow_total": slow_now, "cuts_total": cuts_now,
           "rss_kb": rss, "fds": fds, "threads": tasks}
    minutes.append(row)
    print("%6d %6.0f %8.1f %8.1f %5.0f %7.1f %7.1f %7d %5d %5d %7d %4d %8d" % (
        m, row["mcp_per_s"], row["mcp_p50_ms"], row["mcp_p99_ms"], row["ol_per_s"], row["ol_p50_ms"],
        row["ol_p99_ms"], errs, row["slow_batches"], row["cuts_mid_response"], rss, fds, tasks), flush=True)
for t in threads:
    t.join(timeout=40)
# The keep-alive connections the clients left end after the server's idle timeout (5 s).
time.sleep(7)
rss_end, fds_end, tasks_end = proc_stat()
kinds_end = fd_kinds()
# The server's thread pools let their extra threads go after 30 s without work
# (net/worker_pool.h): once they have, the threads must be back to what they were before the
# clients came.
time.sleep(33)
_, _, tasks_idle = proc_stat()
proc.terminate()
proc.wait(timeout=30)

first, last = minutes[0], minutes[-1]
problems = list(errors)
growth = (last["rss_kb"] - first["rss_kb"]) / first["rss_kb"]
if growth > 0.05:
    problems.append(f"RSS grew {growth:.1%} from the first minute to the last")
if counts["errors"]:
    problems.append(f"{counts['errors']} error(s)")


def connections(kinds):
    return [k for k in kinds if k in ("socket", "pipe", "anon_inode")]


def files(kinds):
    return [k for k in kinds if k not in ("socket", "pipe", "anon_inode")]


# Connections (sockets, pipes, event descriptors) must be back to what the server held before the
# clients came. Files may be opened once under load (the store's background checkpointer opens its
# own connection to the file at the first checkpoint due): no more of them than at the end of the
# first minute.
if len(connections(kinds_end)) > len(connections(kinds_base)):
    problems.append(f"descriptors: {len(connections(kinds_base))} sockets and pipes before the clients, "
                    f"{len(connections(kinds_end))} after they had gone")
if len(files(kinds_end)) > len(files(kinds_first)):
    extra = list(files(kinds_end))
    for k in files(kinds_first):
        if k in extra:
            extra.remove(k)
    problems.append(f"descriptors: {len(files(kinds_first))} files open after the first minute, "
                    f"{len(files(kinds_end))} after the clients had gone (new: {extra})")
if tasks_end > max(m["threads"] for m in minutes):
    problems.append(f"threads: {tasks_end} after the clients had gone, more than at any minute")
# One thread may be new for good: the store's background checkpointer, started with its own
# connection to the file at the first checkpoint due (store/sqlite_wal_checkpointer.h), which shows
# as one more descriptor of state.db.
checkpointer = sum(k.endswith("state.db") for k in kinds_end) - sum(k.endswith("state.db") for k in kinds_base)
if tasks_idle > tasks_base + max(0, checkpointer):
    problems.append(f"threads: {tasks_base} before the clients, {tasks_idle} 40 s after they had gone"
                    f" ({max(0, checkpointer)} for the store's checkpointer)")
if args.sessions >= 3 and (counts["slow_server_waited"] == 0 or counts["cut_mid_response"] == 0):
    problems.append("the slow readers or the mid-response disconnects did not happen as intended: " +
                    f"{counts['slow_server_waited']} slow batches made the server wait, "
                    f"{counts['cut_mid_response']} cuts left the server writing")
for k in ("mcp_p99_ms", "ol_p99_ms"):
    if last[k] > 2 * first[k] + 5:
        problems.append(f"{k}: {last[k]:.1f} in the last period against {first[k]:.1f} in the first")
summary = {"seconds": args.seconds, "sessions": args.sessions, "requests": counts, "errors": counts["errors"],
           "rss_growth": round(growth, 4), "rss_before": rss_base, "rss_first": first["rss_kb"],
           "rss_last": last["rss_kb"], "fds_before": fds_base, "fds_first": first["fds"], "fds_after": fds_end,
           "fd_files_before": files(kinds_base), "fd_files_after": files(kinds_end),
           "fd_connections_before": len(connections(kinds_base)), "fd_connections_after": len(connections(kinds_end)),
           "threads_before": tasks_base, "threads_after": tasks_end, "threads_idle": tasks_idle, "checkpointer_started": checkpointer > 0, "sndbuf_max": SNDBUF_MAX, "problems": problems}
print(json.dumps(summary))
sys.exit(1 if problems else 0)
