#!/usr/bin/env python3
"""Builds the seed corpus of every fuzz target from the project's own files (docs/RELIABILITY.md).

    tests/fuzz/make_seeds.py OUT_DIR

writes OUT_DIR/<target>/<name> for each target: the reference bodies the simulators follow
(tests/graph/testdata, examples/*/sim), the example workspaces, flows, FlinkDeployment manifests,
scenarios and series, the
schema compatibility corpus, the hostile inputs of the MCP tests (their raw-string literals), and
the hand-written seeds under tests/fuzz/seeds/<target>/. Targets whose input starts with selector
bytes (platform_responses, schema, cron_duration) get seeds with those bytes in front. Run again,
it rewrites the same files.
"""
import hashlib
import json
import pathlib
import re
import sys

root = pathlib.Path(__file__).resolve().parents[2]
out = pathlib.Path(sys.argv[1])


def put(target, data, name=None):
    if isinstance(data, str):
        data = data.encode()
    d = out / target
    d.mkdir(parents=True, exist_ok=True)
    (d / (name or hashlib.sha1(data).hexdigest()[:16])).write_bytes(data)


def files(pattern):
    return sorted(p for p in root.glob(pattern) if p.is_file() and "build" not in p.parts[len(root.parts)])


# Hand-written seeds, copied as they are.
for d in sorted((root / "tests/fuzz/seeds").glob("*")):
    for f in sorted(d.glob("*")):
        put(d.name, f.read_bytes(), f.name)

# JSON documents: OpenLineage events, a dbt manifest.
for f in files("tests/graph/testdata/OL-*.json"):
    put("openlineage", f.read_bytes(), f.name)
    put("http_request", b"POST /api/v1/lineage HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Content-Length: %d\r\n\r\n" % len(f.read_bytes()) + f.read_bytes(), f.name)
    # The same event through `dw serve`'s whole HTTP path (http_serve: the token it requires).
    put("http_serve", b"POST /api/v1/lineage HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Authorization: Bearer fuzz-token-0123456789abcdef\r\nContent-Type: application/json\r\n"
        b"Content-Length: %d\r\n\r\n" % len(f.read_bytes()) + f.read_bytes(), "intake-" + f.name)
for f in files("tests/graph/testdata/dbt-manifest-*.json") + files("tests/schema/testdata/**/manifest.json"):
    put("dbt_manifest", f.read_bytes(), f.name)

# YAML: workspaces, Kestra flows, scenarios; CSV series.
for f in files("examples/**/dataworkers.yaml") + files("tests/schema/testdata/**/dataworkers.yaml"):
    put("workspace", f.read_bytes())
for f in files("examples/ev-kestra/flows/**/*.yml") + files("examples/ev-kestra/flows/**/*.yaml"):
    put("kestra_flow", f.read_bytes(), f.name)
for f in files("examples/**/manifests/*.yaml") + files("examples/scenarios/*/files/*.yaml"):
    put("flink_manifests", f.read_bytes(), f.name)
for f in files("examples/scenarios/*/scenario.yaml"):
    put("scenario", f.read_bytes(), f.parent.name)
for f in files("examples/scenarios/*/history/*.csv"):
    put("series_csv", f.read_bytes()[:8192], f.name)

# SQL: the sql/ folders of the scenarios and the warehouse scripts of the examples.
for f in files("examples/**/*.sql"):
    put("sql_table_refs", f.read_bytes()[:8192], f.name)

# Platform bodies: the reference bodies (tests/fuzz/seeds/platform_responses/, copied from the
# platforms' documentation with their selector bytes) above, and the simulator scripts' objects,
# each a fine start for every call.
for f in files("examples/**/sim/*.json"):
    for s in range(0, 22, 3):
        put("platform_responses", bytes([s, 0]) + f.read_bytes()[:4096], f"{s}-{f.parent.parent.name}-{f.name}")

# Schemas: each pair of the compatibility corpus as earlier NUL later, with its format and level.
levels = ["NONE", "BACKWARD", "BACKWARD_TRANSITIVE", "FORWARD", "FORWARD_TRANSITIVE", "FULL", "FULL_TRANSITIVE"]
for corpus in ("avro_pairs.json", "json_schema_pairs.json"):
    for case in json.loads((root / "tests/schema/corpus" / corpus).read_text())["cases"]:
        fmt = 1 if case.get("schema_type", "AVRO") == "JSON" else 0
        lvl = levels.index(case["level"]) if case.get("level") in levels else 1
        earlier = case["previous"][-1]["schema"] if case.get("previous") else case["schema"]
        text = lambda s: s if isinstance(s, str) else json.dumps(s)
        put("schema", bytes([fmt | (lvl << 1)]) + text(earlier).encode() + b"\0" + text(case["schema"]).encode())

# MCP messages: the hostile inputs of the MCP tests (their raw-string literals), one per line, and
# a whole session.
for f in files("tests/mcp/*_test.cc"):
    for m in re.finditer(r'R"\((.*?)\)"', f.read_text(), re.S):
        if m.group(1).lstrip().startswith(("{", "[")):
            put("jsonrpc", m.group(1))

# Signed approval links (approval_link): tokens as SignApprovalLink makes them, signed here with
# the target's fixed test key (not a secret), behind selector byte 0 (the whole token), their
# payloads behind 1 (the target signs them), and fields behind 2; the hostile tokens of the desk's
# tests; payloads with the wrong types, huge numbers, far expiries and unknown fields.
import base64
import hmac

link_key = b"dw-fuzz-approval-link-test-key-0123456789"


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=")


def signed(payload):
    body = b"v1." + b64url(payload)
    return body + b"." + b64url(hmac.new(link_key, body, "sha256").digest())


def canonical(obj):
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


link = {"approver": "data-owner@example.com", "proposal": "P-hold-payments-20261124", "version": 2,
        "exp_ms": 1795615200000, "nonce": "3f9a0c1e5b7d2468ace013579bdf2468"}
payloads = [canonical(link), canonical({**link, "version": 1, "exp_ms": 0}),
            canonical({**link, "approver": "pager@example.com", "scope": "extra"}),
            json.dumps(link, indent=2).encode()]
for k, v in [("version", 0), ("version", -1), ("version", 2**63 - 1), ("version", 2**64 - 1), ("version", "2"),
             ("version", 2.5), ("exp_ms", 2**63 - 1), ("exp_ms", -2**63), ("exp_ms", 9223372036855),
             ("exp_ms", 1e300), ("exp_ms", None), ("approver", 7), ("nonce", ["a"]), ("proposal", {"id": "P"})]:
    payloads.append(canonical({**link, k: v}))
payloads += [b"{}", b"[]", b"null", b'{"approver":"a"', b'{"approver":"\\ud800","proposal":"P","version":1,'
             b'"exp_ms":1,"nonce":"n"}', canonical({k: v for k, v in link.items() if k != "nonce"})]
for p in payloads:
    put("approval_link", b"\x00" + signed(p))
    put("approval_link", b"\x01" + p)
token = signed(canonical(link))
for t in [token[:-1], token[:40], token.replace(b"v1.", b"v2."), token + b"=", token[:-2] + b"AA",
          b"v1." + token.split(b".")[1] + b"!." + token.split(b".")[2], b"v1.abc.def", b"garbage", b"v1..", b""]:
    put("approval_link", b"\x00" + t)
put("approval_link", b"\x02" + b"data-owner@example.com\\\nP-hold-payments\\\nnonce-1\\\n" + bytes(16))

# Desk requests (desk_requests): "target\ncookie\nform", from the desk's links and forms and the
# hostile requests of its tests.
desk_targets = ["/", "/incidents", "/?domain=payments&severity=SEV1&status=open", "/?domain=nowhere",
                "/?severity=SEV9", "/?status=open&status=closed", "/?colour=red", "/?severity=2&status=resolved",
                "/incidents/inc-20261124-1402-payments-fct_orders", "/incidents/nope",
                "/assets?q=fct_&kind=table&owner=payments-team&domain=payments", "/assets?q=%3Cscript%3E",
                "/assets?size=3", "/assets/table%3A%2F%2Fmain%2Fmember_balances", "/receipts", "/receipts/7",
                "/receipts/x7", "/receipts/0", "/receipts/0000000000000000012", "/receipts/export.json",
                "/approve/" + token.decode(), "/approve/garbage", "/decide/P-hold", "/session",
                "/?q=" + "x" * 300, "/assets?q=a%ZZb&kind=%", "/?domain=pay+ments&domain="]
forms = ["verdict=approve&reason=hold+it&csrf=4f1c2a", "verdict=deny&reason=no&version=1&csrf=4f1c2a",
         "verdict=approve&version=0&csrf=", "verdict=maybe&csrf=", "a=1&a=2", "%zz=1", "reason=%E2%9C%93&&version=12"]
cookies = ["dw_csrf=4f1c2a", "dw_session=abc; dw_csrf=4f1c2a", "", " dw_csrf=; dw_csrf=x"]
for i, t in enumerate(desk_targets):
    put("desk_requests", "\n".join([t, cookies[i % len(cookies)], forms[i % len(forms)]]))
