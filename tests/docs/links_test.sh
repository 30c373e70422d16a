#!/usr/bin/env bash
# Every link of README.md and docs/ leads somewhere: a Markdown link to a file of the repository
# (relative to the page) must name a file that exists, and one with a #fragment a heading of that
# page (GitHub's anchors: lower case, punctuation dropped, spaces as '-'); a path the text names in
# backticks as docs/NAME.md must exist too. Links to other sites are not followed.
# usage: tests/docs/links_test.sh   (CTest, label unit)
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
exec python3 - "$root" <<'PY'
import os, re, sys

root = sys.argv[1]
pages = [os.path.join(root, "README.md")]
for d, _, files in os.walk(os.path.join(root, "docs")):
    pages += [os.path.join(d, f) for f in files if f.endswith(".md")]

def anchors(path, cache={}):
    if path not in cache:
        found, seen, fenced = set(), {}, False
        for line in open(path, encoding="utf-8"):
            if line.startswith("```"):
                fenced = not fenced
            if fenced:
                continue
            m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
            if not m:
                continue
            slug = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
            n = seen.get(slug, 0)
            seen[slug] = n + 1
            found.add(slug if n == 0 else f"{slug}-{n}")
        cache[path] = found
    return cache[path]

def strip_code_blocks(text):
    return re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)

failures, checked = [], 0
for page in sorted(pages):
    rel_page = os.path.relpath(page, root)
    text = strip_code_blocks(open(page, encoding="utf-8").read())
    for target in re.findall(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", text):
        if re.match(r"^[a-z]+:", target):
            continue
        checked += 1
        path, _, frag = target.partition("#")
        dest = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
        if not os.path.exists(dest):
            failures.append(f"{rel_page}: link to {target}: {os.path.relpath(dest, root)} does not exist")
        elif frag and dest.endswith(".md") and frag not in anchors(dest):
            failures.append(f"{rel_page}: link to {target}: no heading #{frag} in {os.path.relpath(dest, root)}")
    for named in re.findall(r"`(docs/[\w./-]+\.md)(?:#[\w-]+)?`", text):
        checked += 1
        if not os.path.exists(os.path.join(root, named)):
            failures.append(f"{rel_page}: names `{named}`, which does not exist")
for f in failures:
    print("FAILED:", f)
print(f"links: {checked} checked in {len(pages)} pages, {len(failures)} broken")
sys.exit(1 if failures else 0)
PY
