#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check a pp --pprof file with the real client, `go tool pprof`, against
pp's own folded stacks of the same run.

usage: pprof-check.py PROFILE FOLDED SAMPLE_INDEX [--no-total] [--label KEY:VALUE]...
                      [--mapping PATH:BUILDID]...

- the sum of SAMPLE_INDEX over `go tool pprof -raw` equals the sum of the
  folded weights exactly (unless --no-total: a value not in the folded unit);
- every function's flat share in `go tool pprof -top` is its share as the
  innermost frame of the folded stacks (kernel "_[k]" suffix dropped),
  within 0.05 percentage points (pprof rounds to two decimals, and a name
  listed twice, once per file, is summed);
- each --label appears on some sample, each --mapping is listed with its
  build-id.
Prints one line per failure and exits 1; "ok ..." and 0 otherwise.
"""
import collections
import os
import subprocess
import sys


def pprof(*args):
    env = dict(os.environ)
    env.setdefault("HOME", "/tmp")
    r = subprocess.run(["go", "tool", "pprof", *args], capture_output=True, text=True, env=env)
    if r.returncode:
        sys.exit("FAIL: go tool pprof %s: %s" % (" ".join(args), r.stderr.strip()))
    return r.stdout


def main():
    prof, folded, index = sys.argv[1:4]
    labels, mappings = [], []
    rest = sys.argv[4:]
    check_total = "--no-total" not in rest
    rest = [a for a in rest if a != "--no-total"]
    while rest:
        opt, val = rest[0], rest[1]
        (labels if opt == "--label" else mappings).append(val)
        rest = rest[2:]

    leaf = collections.Counter()
    total = 0
    for line in open(folded):
        line = line.rstrip("\n")
        if not line:
            continue
        stack, w = line.rsplit(" ", 1)
        f = stack.split(";")[-1]
        if f.endswith("_[k]"):
            f = f[:-4]
        leaf[f] += int(w)
        total += int(w)
    if not total:
        sys.exit("FAIL: %s holds no weight" % folded)

    bad = []
    raw = pprof("-raw", prof)
    lines = raw.splitlines()
    start = lines.index("Samples:")
    types = [t.replace("[dflt]", "").split("/")[0] for t in lines[start + 1].split()]
    col = types.index(index)
    psum = 0
    for l in lines[start + 2:]:
        if not l.strip() or not l.startswith(" "):
            break
        if ":" in l and l.strip()[0].isdigit():
            psum += int(l.split(":")[0].split()[col])
    if check_total and psum != total:
        bad.append("total %s: pprof %d, folded %d" % (index, psum, total))
    for lab in labels:
        k, v = lab.split(":", 1)
        if "%s:[%s]" % (k, v) not in raw:
            bad.append("no sample labelled %s:[%s]" % (k, v))
    mlines = raw[raw.index("Mappings"):] if "Mappings" in raw else ""
    for m in mappings:
        path, bid = m.rsplit(":", 1)
        if not any(path in l and bid in l for l in mlines.splitlines()):
            bad.append("no mapping of %s with build-id %s" % (path, bid))

    top = pprof("-top", "-sample_index=" + index, "-nodecount=1000000", "-nodefraction=0",
                "-edgefraction=0", prof)
    flat = collections.Counter()
    seen = False
    for l in top.splitlines():
        if l.strip().startswith("flat"):
            seen = True
            continue
        if not seen or not l.strip():
            continue
        parts = l.split(None, 5)
        flat[parts[5]] += float(parts[1].rstrip("%"))
    checked = 0
    for f in set(leaf) | set(flat):
        want = 100.0 * leaf[f] / total
        if abs(flat[f] - want) > 0.05:
            bad.append("%s: pprof flat %.2f%%, folded %.2f%%" % (f, flat[f], want))
        checked += 1
    for b in bad:
        print("FAIL: " + b)
    if bad:
        sys.exit(1)
    print("ok: %s: %d functions' shares and the %s total (%d) agree with %s"
          % (prof, checked, index, total, folded))


main()
