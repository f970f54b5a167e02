#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compare `pp-analyze convert --to=perf-script` with `perf script` for the
events both recorded of one task (pp-record running perf record, or the
other way round, on the same workload).

usage: perf-script-diff.py PERF.txt PP.txt COMM [MAX_UNKNOWN_PCT]

Takes the blocks (header line and its stack lines) whose comm is COMM from
both. They must be as many, and equal line by line except:
- the time, which each tool's own perf event stamps a few microseconds
  apart: it must differ by less than 5 ms;
- a stack frame pp prints as [unknown] where perf names a symbol, at the
  same address and DSO (a symbol pp's file does not hold, such as ld.so's
  local _start): allowed on at most MAX_UNKNOWN_PCT percent of the frame
  lines (default 10);
- a frame perf prints as "[unknown] ([unknown])" (no mapping: perf forgets a
  process's maps at its exec, and a task switched out inside execve() after
  its comm changed still runs the old image) where pp names a symbol in a
  DSO: pp prints its map-relative address, perf the raw one. Allowed on as
  many frame lines, and counted.
Prints the first differences and exits 1, "ok ..." and 0 otherwise.
"""
import re
import sys

TIME = re.compile(r" (\d+)\.(\d{6}): ")


def blocks(path, comm):
    out = []
    for b in open(path).read().split("\n\n"):
        lines = [l for l in b.split("\n") if l]
        if lines and lines[0].split()[0] == comm:
            out.append(lines)
    return out


def main():
    perf, pp, comm = sys.argv[1:4]
    pct = float(sys.argv[4]) if len(sys.argv) > 4 else 10.0
    a, b = blocks(perf, comm), blocks(pp, comm)
    bad = []
    if len(a) != len(b) or not a:
        sys.exit("FAIL: perf script has %d events of %s, pp %d" % (len(a), comm, len(b)))
    frames = unknown = named = 0
    for x, y in zip(a, b):
        tx, ty = TIME.search(x[0]), TIME.search(y[0])
        if not tx or not ty:
            bad.append("no time in %r / %r" % (x[0], y[0]))
            continue
        dt = abs(int(tx.group(1) + tx.group(2)) - int(ty.group(1) + ty.group(2)))
        if dt >= 5000:
            bad.append("times %s and %s differ by %d us" % (tx.group(0), ty.group(0), dt))
        if TIME.sub(" T: ", x[0]) != TIME.sub(" T: ", y[0]):
            bad.append("header:\n  perf: %s\n  pp:   %s" % (x[0], y[0]))
        # pp cuts the junk end of a frame-pointer walk (issue 17) that perf
        # prints as [unknown] frames: only then may pp's stack be shorter
        if len(y) < len(x) and all("[unknown]" in f for f in x[len(y):]):
            x = x[:len(y)]
        if len(x) != len(y):
            bad.append("stack of %d frames, pp %d:\n  %s" % (len(x) - 1, len(y) - 1, x[0]))
            continue
        for fx, fy in zip(x[1:], y[1:]):
            frames += 1
            if fx == fy:
                continue
            px, py = fx.split(), fy.split()
            if py[1] == "[unknown]" and px[0] == py[0] and px[-1] == py[-1]:
                unknown += 1
                continue
            if px[1:] == ["[unknown]", "([unknown])"] and py[1] != "[unknown]" and \
               py[-1].startswith("(/"):
                named += 1
                continue
            bad.append("frame:\n  perf: %s\n  pp:   %s" % (fx, fy))
    if frames and 100.0 * unknown / frames > pct:
        bad.append("%d of %d frames unnamed by pp where perf names them" % (unknown, frames))
    if frames and 100.0 * named / frames > pct:
        bad.append("%d of %d frames named by pp where perf has no mapping" % (named, frames))
    for m in bad[:10]:
        print("FAIL: " + m)
    if bad:
        sys.exit(1)
    print("ok: %d events of %s, %d stack frames equal to perf script (%d named by perf only, "
          "%d by pp only)" % (len(a), comm, frames, unknown, named))


main()
