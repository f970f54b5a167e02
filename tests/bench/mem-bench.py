#!/usr/bin/env python3
"""make bench, memory profilers: what recording libc's allocators costs.

A malloc-heavy workload (tests/helpers/mem-leaks 0 0 N: N each of malloc,
calloc, aligned_alloc and memalign, 3N reallocs, all freed) runs alone, then
under `pp-record kmemleak --user -p PID` (uprobes and uretprobes with
registers). Prints the workload slowdown, the recorder's CPU, the events
and the file size, medians over BENCH_ROUNDS rounds (BENCH_QUICK=1: one
short round). Run as root.
"""
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

B = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
HELPER = os.path.join(B, "tests/helpers/mem-leaks")
REC = os.path.join(B, "pp-record")
QUICK = os.environ.get("BENCH_QUICK") == "1"
N = 20000 if QUICK else 200000
ROUNDS = 1 if QUICK else int(os.environ.get("BENCH_ROUNDS", "3"))
TMP = tempfile.mkdtemp(prefix="pp-membench.")


def die(msg):
    print("mem-bench: " + msg, file=sys.stderr)
    sys.exit(1)


def cpu_ns(pid):
    total = 0
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/schedstat" % (pid, tid)) as f:
                total += int(f.read().split()[0])
        except (OSError, ValueError, IndexError):
            pass
    return total


def workload(wait=None):
    env = dict(os.environ)
    if wait:
        env["PP_WAIT"] = wait
    return subprocess.Popen([HELPER, "0", "0", str(N)], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def alone():
    t0 = time.monotonic()
    if workload().wait() != 0:
        die("workload failed")
    return time.monotonic() - t0


def recorded(rnd):
    out = os.path.join(TMP, "m%d.trace" % rnd)
    go = os.path.join(TMP, "go%d" % rnd)
    w = workload(go)
    log = open(os.path.join(TMP, "rec.log"), "w")
    p = subprocess.Popen([REC, "kmemleak", "--user", "-p", str(w.pid), "-o", out],
                         stdout=log, stderr=log)
    deadline = time.monotonic() + 15
    while not os.path.exists(out) and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)
    c0 = cpu_ns(p.pid)
    t0 = time.monotonic()
    open(go, "w").close()
    if w.wait() != 0:
        die("workload failed")
    wall = time.monotonic() - t0
    time.sleep(0.2)
    os.kill(p.pid, signal.SIGINT)
    _, status, ru = os.wait4(p.pid, 0)
    log.close()
    text = open(os.path.join(TMP, "rec.log")).read()
    if not os.path.exists(out):
        die("recorder failed:\n" + text[-2000:])
    cpu = ru.ru_utime + ru.ru_stime - c0 / 1e9
    m = re.search(r"(\d+) events recorded", text)
    events = int(m.group(1)) if m else 0
    size = os.path.getsize(out)
    os.unlink(out)
    return wall, cpu, events, size


def med(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]


def main():
    if os.geteuid() != 0:
        die("needs root (uprobes)")
    if not os.path.exists(HELPER):
        die("no %s (make test-bins)" % HELPER)
    base, rows = [], []
    for rnd in range(ROUNDS):
        base.append(alone())
        rows.append(recorded(rnd))
    b = med(base)
    wall = med([r[0] for r in rows])
    cpu = med([r[1] for r in rows])
    events = med([r[2] for r in rows])
    size = med([r[3] for r in rows])
    allocs = 7 * N
    print("\nmemory profilers: %d allocations and their frees (mem-leaks 0 0 %d), %d round(s)"
          % (allocs, N, ROUNDS))
    print("%-34s %14s" % ("", "uprobe mode"))
    print("%-34s %14.2f" % ("workload alone (s)", b))
    print("%-34s %14.2f" % ("workload slowdown (x)", wall / b if b else 0))
    print("%-34s %14.2f" % ("recorder CPU after start-up (s)", cpu))
    print("%-34s %14d" % ("events recorded", events))
    print("%-34s %14.1f" % ("file size (MiB)", size / 1048576.0))
    print("%-34s %14.1f" % ("bytes per allocation", size / float(allocs)))
    print("(the BPF mode of issue 18, with which these compare, is not built yet)")


main()
