#!/usr/bin/env python3
# Sum kmemleak/kmemprof --json rows by the function their stacks hold:
#   kmem-check.py [-x SYM]... FILE FUNC...   prints "FUNC COUNT BYTES" per FUNC (objects
# for kmemleak rows, calls for kmemprof rows; 0 0 when no row holds FUNC),
# then "summary KEY VALUE" lines of the summary object. -x SYM: leave out the
# rows whose stack holds SYM (allocate_slab: a slab cache growing by a page).
import json
import sys

args, exclude = sys.argv[1:], []
while args and args[0] == "-x":
    exclude.append(args[1])
    args = args[2:]
rows, summary = [], {}
for line in open(args[0]):
    d = json.loads(line)
    if d["type"].endswith("_summary"):
        summary = d
    elif d["type"].endswith("_stack"):
        if not any(f.get("sym") in exclude for f in d["stack"]):
            rows.append(d)
for func in args[1:]:
    n = b = 0
    for r in rows:
        if any(f.get("sym") == func for f in r["stack"]):
            n += r.get("objects", r.get("calls", 0))
            b += r["bytes"]
    print(func, n, b)
for k, v in summary.items():
    print("summary", k, v)
