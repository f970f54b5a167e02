#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Structural check of `pp-analyze convert --to=chrome` output against
`pp-analyze task-state --perins --json` of the same file.

usage: chrome-check.py TRACE.json TASK-STATE.jsonl [COMM]

- the file is JSON with a traceEvents array whose events all have the
  members their phase needs (X: ts, dur >= 0; i: ts, s; C: args numbers;
  M: args.name);
- per thread and state, the number of state slices and their summed
  duration equal task-state's calls and total exactly;
- the CPU tracks: no two slices on one CPU overlap, and when COMM is given
  its threads have CPU slices and a thread_name.
Prints one line per failure and exits 1, "ok ..." and 0 otherwise.
"""
import collections
import json
import sys

NAMES = {"running": "R", "runnable": "R+", "sleeping": "S", "uninterruptible": "D",
         "stopped": "T", "idle": "I", "dead": "X"}
CPU_PID = 0x7fffff00


def ns(us):
    # "ts" and "dur" are microseconds with three decimals: exact in a double here
    return round(float(us) * 1000)


def main():
    trace, ts_rows = sys.argv[1:3]
    comm = sys.argv[3] if len(sys.argv) > 3 else None
    bad = []
    ev = json.load(open(trace))["traceEvents"]
    slices = collections.defaultdict(lambda: [0, 0])
    cpu = collections.defaultdict(list)
    names = {}
    for e in ev:
        ph = e.get("ph")
        if ph == "X":
            if "ts" not in e or e.get("dur", -1) < 0:
                bad.append("X without ts/dur: %s" % e)
                continue
            if e.get("cat") == "state":
                k = (e["tid"], NAMES[e["name"]])
                slices[k][0] += 1
                slices[k][1] += ns(e["dur"])
            elif e.get("cat") == "cpu":
                cpu[e["tid"]].append((ns(e["ts"]), ns(e["ts"]) + ns(e["dur"]), e["args"]["tid"]))
        elif ph == "i":
            if "ts" not in e or e.get("s") not in ("t", "p", "g"):
                bad.append("instant without ts/s: %s" % e)
        elif ph == "C":
            if not all(isinstance(v, (int, float)) for v in e["args"].values()):
                bad.append("counter with a non-number: %s" % e)
        elif ph == "M":
            if e["name"] == "thread_name":
                names[e["tid"]] = e["args"]["name"]
        else:
            bad.append("unexpected phase %s" % ph)
    rows = 0
    for line in open(ts_rows):
        r = json.loads(line)
        if r.get("type") != "row" or "tid" not in r:
            continue
        rows += 1
        got = slices.pop((r["tid"], r["state"]), [0, 0])
        if got != [r["calls"], r["total"]]:
            bad.append("tid %d %s: chrome %d slices %d ns, task-state %d calls %d ns"
                       % (r["tid"], r["state"], got[0], got[1], r["calls"], r["total"]))
    for k, v in slices.items():
        if v[0]:
            bad.append("tid %d %s: %d slices task-state does not count" % (k[0], k[1], v[0]))
    for c, sl in cpu.items():
        sl.sort()
        for a, b in zip(sl, sl[1:]):
            if b[0] < a[1]:
                bad.append("CPU %d: slices overlap at %d" % (c, b[0]))
                break
    if comm:
        tids = {t for t, n in names.items() if n == comm}
        if not tids:
            bad.append("no thread_name %s" % comm)
        elif not any(s[2] in tids for sl in cpu.values() for s in sl):
            bad.append("no CPU slice of %s" % comm)
    for b in bad[:20]:
        print("FAIL: " + b)
    if bad:
        sys.exit(1)
    print("ok: %s: %d task-state rows match the state slices; %d CPU tracks, %d slices"
          % (trace, rows, len(cpu), sum(len(s) for s in cpu.values())))


main()
