#!/usr/bin/env python3
"""make bench, memory profilers: what recording libc's allocators costs.

A malloc-heavy workload (tests/helpers/mem-leaks 0 0 N: N each of malloc,
calloc, aligned_alloc, memalign and posix_memalign, 3N reallocs, all freed)
runs alone, then under `pp-record kmemleak --user -p PID` (uprobes and
uretprobes with registers: a record per call) and under `pp-record kmemleak
--user --bpf -p PID` (the same probes, paired and summed in the kernel).
Prints, per mode, the workload slowdown, the recorder's CPU, the events and
the file size, medians over BENCH_ROUNDS rounds (BENCH_QUICK=1: one short
round), and checks the BPF mode's targets: at most half the uprobe mode's
slowdown, a file at least 10 times smaller. Run as root.
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
    w = workload()
    _, status, ru = os.wait4(w.pid, 0)
    if status != 0:
        die("workload failed")
    return time.monotonic() - t0, ru.ru_utime + ru.ru_stime


def recorded(rnd, bpf):
    out = os.path.join(TMP, "m%d%s.trace" % (rnd, "b" if bpf else "u"))
    go = os.path.join(TMP, "go%d%s" % (rnd, "b" if bpf else "u"))
    w = workload(go)
    # Popen returns once exec() is done, before the dynamic loader maps
    # libc: pp-record -p would find no allocator to probe
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        with open("/proc/%d/maps" % w.pid) as f:
            if "libc" in f.read():
                break
        time.sleep(0.01)
    log = open(os.path.join(TMP, "rec.log"), "w")
    p = subprocess.Popen([REC, "kmemleak", "--user"] + (["--bpf"] if bpf else []) +
                         ["-p", str(w.pid), "-o", out], stdout=log, stderr=log)
    deadline = time.monotonic() + 15
    while not os.path.exists(out) and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)
    c0 = cpu_ns(p.pid)
    t0 = time.monotonic()
    open(go, "w").close()
    _, status, wru = os.wait4(w.pid, 0)
    if status != 0:
        die("workload failed")
    wall = time.monotonic() - t0
    wcpu = wru.ru_utime + wru.ru_stime
    # at once: after its -p target exits pp-record polls its rings' EPOLLHUP
    # in a busy loop until stopped, CPU that is not the recording's
    os.kill(p.pid, signal.SIGINT)
    _, status, ru = os.wait4(p.pid, 0)
    log.close()
    text = open(os.path.join(TMP, "rec.log")).read()
    if not os.path.exists(out):
        die("recorder failed:\n" + text[-2000:])
    cpu = ru.ru_utime + ru.ru_stime - c0 / 1e9
    m = re.search(r"(\d+) events recorded", text)
    events = int(m.group(1)) if m else 0
    m = re.search(r"(\d+) aggregated stacks", text)
    if bpf and m:
        events = int(m.group(1))
    size = os.path.getsize(out)
    os.unlink(out)
    return wall, cpu, events, size, wcpu


def med(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]


def main():
    if os.geteuid() != 0:
        die("needs root (uprobes)")
    if not os.path.exists(HELPER):
        die("no %s (make test-bins)" % HELPER)
    base, rows = [], {False: [], True: []}
    for rnd in range(ROUNDS):
        base.append(alone())
        for bpf in (False, True):
            rows[bpf].append(recorded(rnd, bpf))
    b = med([x[0] for x in base])
    bcpu = med([x[1] for x in base])
    res = {}
    for bpf in (False, True):
        res[bpf] = [med([x[i] for x in rows[bpf]]) for i in range(5)]
    allocs = 8 * N
    up, bp = res[False], res[True]
    print("\nmemory profilers: %d allocations and their frees (mem-leaks 0 0 %d), %d round(s)"
          % (allocs, N, ROUNDS))
    print("%-34s %14s %14s" % ("", "uprobe mode", "BPF mode"))
    print("%-34s %14.2f %14.2f" % ("workload alone (s)", b, b))
    print("%-34s %14.2f %14.2f" % ("workload recorded (s)", up[0], bp[0]))
    print("%-34s %14.1f %14.1f" % ("workload slowdown (x)", up[0] / b if b else 0,
                                   bp[0] / b if b else 0))
    print("%-34s %14.2f %14.2f" % ("workload CPU added (s)", up[4] - bcpu, bp[4] - bcpu))
    print("%-34s %14.2f %14.2f" % ("recorder CPU after start-up (s)", up[1], bp[1]))
    print("%-34s %14d %14d" % ("events / aggregates recorded", up[2], bp[2]))
    print("%-34s %14.3f %14.3f" % ("file size (MiB)", up[3] / 1048576.0, bp[3] / 1048576.0))
    print("%-34s %14.1f %14.2f" % ("bytes per allocation", up[3] / float(allocs),
                                   bp[3] / float(allocs)))
    # the BPF mode's targets: half the slowdown (the time and CPU the probes
    # add to the workload), a tenth of the file
    ratio_t = (bp[0] - b) / (up[0] - b) if up[0] > b else 0
    ratio_c = (bp[4] - bcpu) / (up[4] - bcpu) if up[4] > bcpu else 0
    print("BPF mode vs uprobe mode: %.2f of the added time, %.2f of the added CPU "
          "(target <= 0.5), a %.0fx smaller file (target >= 10x)"
          % (ratio_t, ratio_c, up[3] / float(bp[3] or 1)))


main()
