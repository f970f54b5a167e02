#!/usr/bin/env python3
"""make bench, heap profilers side by side: pp's sampled mode against heaptrack.

One malloc-heavy workload (tests/helpers/heap-truth MIB touch shuffle:
16,384 * MIB mallocs of 64 bytes, 1,024 * MIB blocks of 16 to 4240 bytes
through six allocators, each written, read and freed a random while later,
and 4 * MIB blocks of 256 KiB leaked; MIB 1280 is 22.3 million allocations,
about a second alone) runs
  - alone,
  - under heaptrack (Debian's: every call, with its backtrace),
  - under `pp-record kmemleak --user --sample -- CMD` (one sample per 512 KiB),
  - under `pp-record kmemleak --user --bpf -- CMD` (every call trapped, paired
    in the kernel),
and the table gives, per column: the workload's own time (it measures the
work itself, so a profiler's start-up and exit are not in it) and the
slowdown, the whole run's wall time, the CPU of every process (workload and
profiler) and what the profiler added to it,
the profiler's own CPU where it is a process of its own, the file's bytes,
and the peak resident memory of the largest process. Then the targets of
the sampled mode: a slowdown of at most 1.10, at least 10 times less
added time than heaptrack's, a file at most 1/100 of heaptrack's.

BENCH_QUICK=1: MIB 8 and one round. BENCH_HEAP_BPF=0 leaves the BPF mode
out (about 15 us per call here: minutes at full size). Run as root.
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

B = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
HELPER = os.path.join(B, "tests/helpers/heap-truth")
REC = os.path.join(B, "pp-record")
QUICK = os.environ.get("BENCH_QUICK") == "1"
MIB = 8 if QUICK else 1280
ROUNDS = 1 if QUICK else int(os.environ.get("BENCH_ROUNDS", "3"))
BPF = os.environ.get("BENCH_HEAP_BPF", "1") != "0"
WORK = [HELPER, str(MIB), "touch", "shuffle", "time"]
TMP = tempfile.mkdtemp(prefix="pp-heapbench.")
HZ = os.sysconf("SC_CLK_TCK")


def die(msg):
    print("heap-bench: " + msg, file=sys.stderr)
    sys.exit(1)


def self_cpu(pid):
    """The CPU of exited (not yet reaped) process @pid itself, without its children."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / HZ


def run(cmd, own_cpu=False):
    """Run @cmd; return its wall s, CPU s of it and its children, its own CPU s, peak RSS KiB,
    and the workload's own time (it prints "heap-truth: S s")."""
    log = open(os.path.join(TMP, "log"), "w")
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=log)
    os.waitid(os.P_PID, p.pid, os.WEXITED | os.WNOWAIT)
    wall = time.monotonic() - t0
    own = self_cpu(p.pid) if own_cpu else None
    _, status, ru = os.wait4(p.pid, 0)
    log.close()
    text = open(os.path.join(TMP, "log")).read()
    if status != 0:
        die("%s failed:\n%s" % (" ".join(cmd), text[-2000:]))
    m = re.search(r"heap-truth: ([0-9.]+) s", text)
    if not m:
        die("%s: the workload did not say its time:\n%s" % (" ".join(cmd), text[-2000:]))
    return wall, ru.ru_utime + ru.ru_stime, own, ru.ru_maxrss, float(m.group(1))


def med(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]


def median_runs(make_cmd, rounds, own_cpu=False, out=None):
    rows, size = [], 0
    for r in range(rounds):
        for f in glob.glob(out + "*") if out else []:
            os.unlink(f)
        rows.append(run(make_cmd(), own_cpu))
        if out:
            files = glob.glob(out + "*")
            if not files:
                die("no output file " + out)
            size = sum(os.path.getsize(f) for f in files)
    r = [med([x[i] for x in rows]) if rows[0][i] is not None else None for i in range(5)]
    return r[:4] + [size, r[4]]


def main():
    if os.geteuid() != 0:
        die("needs root (uprobes)")
    for f in (HELPER, REC, os.path.join(B, "libpp-heap.so")):
        if not os.path.exists(f):
            die("no %s (make all test-bins)" % f)
    cols = [("alone", lambda: WORK, ROUNDS, False, None)]
    ht = shutil.which("heaptrack")
    if ht:
        hout = os.path.join(TMP, "ht")
        cols.append(("heaptrack", lambda: [ht, "-o", hout] + WORK, 1, False, hout))
    else:
        print("heap-bench: no heaptrack (Debian heaptrack): its column is left out", file=sys.stderr)
    sout = os.path.join(TMP, "s.trace")
    cols.append(("pp --sample", lambda: [REC, "-q", "kmemleak", "--user", "--sample", "-o", sout, "--"] + WORK,
                 ROUNDS, True, sout))
    if BPF:
        bout = os.path.join(TMP, "b.trace")
        cols.append(("pp --bpf", lambda: [REC, "-q", "kmemleak", "--user", "--bpf", "-o", bout, "--"] + WORK,
                     1, True, bout))
    res = {}
    for name, cmd, rounds, own, out in cols:
        res[name] = median_runs(cmd, rounds, own, out)
    base = res["alone"]
    allocs = MIB * (16384 + 1024 + 4)
    names = [c[0] for c in cols]
    print("\nheap profilers: %d allocations (heap-truth %d touch shuffle), alone and sampled: median of %d"
          % (allocs, MIB, ROUNDS))
    print("%-30s" % "" + "".join("%14s" % n for n in names))

    def row(label, fn, fmt):
        cells = []
        for n in names:
            v = fn(res[n])
            cells.append(("%14s" % "-") if v is None else (fmt % v))
        print("%-30s" % label + "".join(cells))

    row("workload time (s)", lambda r: r[5], "%14.3f")
    row("workload slowdown (x)", lambda r: r[5] / base[5], "%14.2f")
    row("whole run, start to exit (s)", lambda r: r[0], "%14.2f")
    row("CPU, all processes (s)", lambda r: r[1], "%14.2f")
    row("CPU added (s)", lambda r: r[1] - base[1], "%14.2f")
    row("profiler process CPU (s)", lambda r: r[2], "%14.2f")
    row("file (KiB)", lambda r: r[4] / 1024.0 if r[4] else None, "%14.1f")
    row("peak RSS, largest (MiB)", lambda r: r[3] / 1024.0, "%14.1f")
    s = res["pp --sample"]
    slow = s[5] / base[5]
    line = "sampled mode: slowdown %.2f (target <= 1.10)" % slow
    if "heaptrack" in res:
        h = res["heaptrack"]
        added_s, added_h = s[5] - base[5], h[5] - base[5]
        line += ", %s less added time than heaptrack (target >= 10x), a file %.0fx smaller (target >= 100x)" % (
            ("%.0fx" % (added_h / added_s)) if added_s > 0 else "infinitely", h[4] / float(s[4]))
    print(line)
    shutil.rmtree(TMP, ignore_errors=True)


if __name__ == "__main__":
    main()
