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
