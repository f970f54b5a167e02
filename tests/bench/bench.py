#!/usr/bin/env python3
"""pp against perf, side by side, on the same machine and workload.

Usage: tests/bench/bench.py BUILD_DIR      (as root; BENCH_QUICK=1 for one short round)

Every figure is a median over rounds; recorders run in alternating order so drift
hits all of them alike. Prints one table with pp/perf ratios and exits 0: it is a
measurement, not a test (it exits non-zero only when a tool fails to run).
"""
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

BUILD = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
QUICK = os.environ.get("BENCH_QUICK") == "1"
ROUNDS = 1 if QUICK else int(os.environ.get("BENCH_ROUNDS", "3"))
LOOPS = "300" if QUICK else "3000"
WORKLOAD = ["perf", "bench", "sched", "messaging", "-p", "-g", "4", "-l", LOOPS]
EVENTS = "sched:sched_switch,sched:sched_wakeup"
PP_RECORD = os.path.join(BUILD, "pp-record")
PP_ANALYZE = os.path.join(BUILD, "pp-analyze")
TMP = tempfile.mkdtemp(prefix="pp-bench.")
TIME = "/usr/bin/time"


def die(msg):
    print("bench: " + msg, file=sys.stderr)
    sys.exit(1)


def cpu_ns(pid):
    """CPU time (ns) a live process's threads have run so far (schedstat)."""
    total = 0
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/schedstat" % (pid, tid)) as f:
                total += int(f.read().split()[0])
        except (OSError, ValueError, IndexError):
            pass
    return total


def peak_rss_kib(pid):
    """Peak RSS (KiB) of a live process since its exec (VmHWM). wait4's
    ru_maxrss would count the pages of the forked Python before the exec."""
    try:
        with open("/proc/%d/status" % pid) as f:
            m = re.search(r"^VmHWM:\s+(\d+) kB", f.read(), re.M)
            return int(m.group(1)) if m else 0
    except OSError:
        return 0


def run_workload(pid=None):
    """Run the workload; returns its wall seconds. With @pid (a recorder),
    also the recorder's CPU seconds per second from 2 s into the workload to
    its end, past the first sight of its processes: (wall, rate or None)."""
    t0 = time.monotonic()
    w = subprocess.Popen(WORKLOAD, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    rate = None
    if pid is not None:
        try:
            w.wait(timeout=2)
        except subprocess.TimeoutExpired:
            c0, m0 = cpu_ns(pid), time.monotonic()
            w.wait()
            c1, m1 = cpu_ns(pid), time.monotonic()
            rate = (c1 - c0) / 1e9 / (m1 - m0) if m1 > m0 + 1 else None
    if w.wait() != 0:
        die("workload failed: %s" % " ".join(WORKLOAD))
    wall = time.monotonic() - t0
    return (wall, rate) if pid is not None else wall


def measure_recorder(cmd, out):
    """Start a system-wide recorder, run the workload, stop it with SIGINT.
    Returns (workload seconds, recorder CPU seconds, recorder peak RSS KiB
    up to the stop signal, its output, recorder CPU seconds after start-up,
    recorder CPU seconds per second in steady state or None). CPU comes from the
    kernel's accounting of the reaped process (wait4), to the microsecond;
    "after start-up" leaves out what it spent before the workload began
    (loading, snapshot), which a long recording amortises; "steady state"
    is the rate from 2 s into the workload to its end, which a long
    recording pays for every second."""
    for f in (out, out + ".old"):
        if os.path.exists(f):
            os.unlink(f)
    log = open(os.path.join(TMP, "rec.log"), "w")
    p = subprocess.Popen(cmd, stdout=log, stderr=log, cwd=TMP)
    deadline = time.monotonic() + 15
    while not os.path.exists(out) and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)             # let it settle: events enabled, snapshot written
    startup = cpu_ns(p.pid) / 1e9
    wall, rate = run_workload(p.pid)
    time.sleep(0.2)
    rss = peak_rss_kib(p.pid)
    os.kill(p.pid, signal.SIGINT)
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    log.close()
    text = open(os.path.join(TMP, "rec.log")).read()
    if p.returncode not in (0, -signal.SIGINT) or not os.path.exists(out):
        die("recorder failed (%d): %s\n%s" % (p.returncode, " ".join(cmd), text[-2000:]))
    cpu = ru.ru_utime + ru.ru_stime
    return wall, cpu, rss, text, cpu - startup, rate


def pp_counts(path):
    out = subprocess.run([PP_ANALYZE, "info", path], capture_output=True, text=True).stdout
    ev = sum(int(n) for n in re.findall(r"^\s+\w+:\w+\s+(\d+)$", out, re.M))
    lost = 0
    m = re.search(r"^lost:\s+(.*)$", out, re.M)
    if m and "none" not in m.group(1):
        lost = sum(int(n) for n in re.findall(r"(\d+) (?:events|records|samples)", m.group(1))) or \
            sum(int(n) for n in re.findall(r"\d+", m.group(1)))
    return ev, lost


def perf_counts(path):
    out = subprocess.run(["perf", "report", "--stats", "-i", path], capture_output=True,
                         text=True).stdout
    ev = 0
    lost = 0
    for sect in re.split(r"\n(?=\S.* stats:)", out):
        if sect.startswith("sched:") or sect.startswith("cpu-clock"):
            m = re.search(r"SAMPLE events:\s+(\d+)", sect)
            ev += int(m.group(1)) if m else 0
            m = re.search(r"LOST_SAMPLES events:\s+(\d+)", sect)
            lost += int(m.group(1)) if m else 0
    dump = subprocess.run(["perf", "report", "-D", "-i", path], capture_output=True,
                          text=True).stdout
    lost += sum(int(n) for n in re.findall(r"PERF_RECORD_LOST .*?lost (\d+)", dump))
    return ev, lost


def time_cmd(cmd, stdout=subprocess.DEVNULL):
    """CPU-free wall time and peak RSS (KiB) of a command."""
    t0 = time.monotonic()
    r = subprocess.run([TIME, "-f", "RUSAGE %U %S %M"] + cmd, stdout=stdout,
                       stderr=subprocess.PIPE, text=True)
    wall = time.monotonic() - t0
    m = re.search(r"RUSAGE ([\d.]+) ([\d.]+) (\d+)", r.stderr)
    if r.returncode != 0 or not m:
        die("command failed: %s\n%s" % (" ".join(cmd), r.stderr[-2000:]))
    return wall, int(m.group(3))


def med(xs):
    return statistics.median(xs) if xs else float("nan")


def main():
    if os.geteuid() != 0:
        die("run as root (system-wide recording)")
    for tool in ("perf", TIME, PP_RECORD, PP_ANALYZE):
        if not shutil.which(tool) and not os.path.exists(tool):
            die("missing %s" % tool)
    if not os.path.exists("/sys/kernel/tracing/events"):
        subprocess.run(["mount", "-t", "tracefs", "nodev", "/sys/kernel/tracing"])

    recorders = {
        "pp-record": lambda o: [PP_RECORD, "-q", "-a", "-e", EVENTS, "-o", o],
        "pp-record -z": lambda o: [PP_RECORD, "-q", "-a", "-e", EVENTS, "-o", o, "-z"],
        "perf record": lambda o: ["perf", "record", "-q", "-a", "-e", EVENTS, "-o", o],
        "perf record -z": lambda o: ["perf", "record", "-q", "-a", "-z", "-e", EVENTS, "-o", o],
    }
    res = {name: {"slow": [], "ev": [], "lost": [], "bpe": [], "cpu": [], "rss": []}
           for name in recorders}
    base = []
    files = {}
    print("bench: %d round(s) of `%s`, recording %s system-wide" %
          (ROUNDS, " ".join(WORKLOAD), EVENTS), flush=True)
    for rnd in range(ROUNDS):
        order = list(recorders)
        if rnd % 2:
            order.reverse()
        base.append(run_workload())
        for name in order:
            ext = ".trace" if name.startswith("pp") else ".data"
            out = os.path.join(TMP, name.replace(" ", "_") + ext)
            wall, cpu, rss, _, _, _ = measure_recorder(recorders[name](out), out)
            ev, lost = pp_counts(out) if ext == ".trace" else perf_counts(out)
            r = res[name]
            r["slow"].append(wall)
            r["ev"].append(ev)
            r["lost"].append(lost)
            r["bpe"].append(os.path.getsize(out) / max(ev, 1))
            r["cpu"].append(cpu * 1e9 / max(ev, 1))
            r["rss"].append(rss)
            files[name] = out
        base.append(run_workload())
        print("  round %d done" % (rnd + 1), flush=True)
    b = med(base)

    # cpu-clock -g sampling at 999 Hz on the same workload.
    samp = {
        "pp-record -F 999 -g": lambda o: [PP_RECORD, "-q", "-a", "-F", "999", "-g", "-o", o],
        "perf record -F 999 -g": lambda o: ["perf", "record", "-q", "-a", "-F", "999", "-g",
                                            "-e", "cpu-clock", "-o", o],
    }
    sres = {name: {"slow": [], "ev": [], "lost": [], "bpe": [], "cpu": [], "rss": []}
            for name in samp}
    for rnd in range(ROUNDS):
        order = list(samp)
        if rnd % 2:
            order.reverse()
        for name in order:
            ext = ".trace" if name.startswith("pp") else ".data"
            out = os.path.join(TMP, name.replace(" ", "_") + ext)
            wall, cpu, rss, _, _, _ = measure_recorder(samp[name](out), out)
            if ext == ".trace":
                info = subprocess.run([PP_ANALYZE, "info", out], capture_output=True,
                                      text=True).stdout
                ev = sum(int(n) for n in re.findall(r"^\s+cpu-clock\s+(\d+)$", info, re.M))
                lost = pp_counts(out)[1]
            else:
                ev, lost = perf_counts(out)
            r = sres[name]
            r["slow"].append(wall)
            r["ev"].append(ev)
            r["lost"].append(lost)
            r["bpe"].append(os.path.getsize(out) / max(ev, 1))
            r["cpu"].append(cpu * 1e9 / max(ev, 1))
            r["rss"].append(rss)
            files[name] = out

    # Off-CPU profile: BPF aggregation in the kernel vs recording every
    # sched_switch (with its stack) and sched_wakeup for task-state.
    offres = {name: {"slow": [], "bytes": [], "cpu": [], "run": [], "rate": []}
              for name in ("offcpu", "switches")}
    offcmd = {
        "offcpu": lambda o: [PP_RECORD, "-q", "-a", "-o", o, "offcpu"],
        "switches": lambda o: [PP_RECORD, "-q", "-a", "-e",
                               "sched:sched_switch//stack/,sched:sched_wakeup", "-o", o],
    }
    have_btf = os.path.exists("/sys/kernel/btf/vmlinux")
    for rnd in range(ROUNDS if have_btf else 0):
        for name in (("offcpu", "switches") if rnd % 2 == 0 else ("switches", "offcpu")):
            out = os.path.join(TMP, "off-" + name + ".trace")
            wall, cpu, rss, _, run, rate = measure_recorder(offcmd[name](out), out)
            offres[name]["slow"].append(wall)
            offres[name]["bytes"].append(os.path.getsize(out))
            offres[name]["cpu"].append(cpu)
            offres[name]["run"].append(run)
            if rate is not None:
                offres[name]["rate"].append(rate)

    # Analyzer memory must not grow with the file: the same analysis on a
    # file of N events and one of 10 N (getppid events of a helper).
    big_n = 100000 if QUICK else 1000000
    getppid = os.path.join(BUILD, "tests", "helpers", "getppid-n")
    mem = {}
    if os.path.exists(getppid):
        for n in (big_n, big_n * 10):
            out = os.path.join(TMP, "big-%d.trace" % n)
            subprocess.run([PP_RECORD, "-q", "-e", "syscalls:sys_enter_getppid", "-o", out,
                            "--", getppid, str(n)], check=True)
            mem[n] = {
                "size": os.path.getsize(out),
                "stat": time_cmd([PP_ANALYZE, "stat", out]),
                "trace": time_cmd([PP_ANALYZE, "trace", out]),
            }
            os.unlink(out)

    # Replay of the same events, ns per event.
    pp_trace, perf_data = files["pp-record"], files["perf record"]
    ev_pp = med(res["pp-record"]["ev"])
    ev_perf = med(res["perf record"]["ev"])
    rep = {}
    # What starting any command through time_cmd costs (Python's fork, exec of
    # /usr/bin/time, its fork): not the tools' work, and a third of a 15 ms
    # replay. Subtracted from every replay's wall time.
    launch = med([time_cmd(["/bin/true"])[0] for _ in range(5)])
    for name, cmd, n in (
            ("pp-analyze trace", [PP_ANALYZE, "trace", pp_trace], ev_pp),
            ("perf script", ["perf", "script", "-i", perf_data], ev_perf),
            ("pp-analyze stat", [PP_ANALYZE, "stat", pp_trace], ev_pp),
            ("pp-analyze profile", [PP_ANALYZE, "profile", files["pp-record -F 999 -g"]],
             med(sres["pp-record -F 999 -g"]["ev"])),
            ("perf report --stdio", ["perf", "report", "--stdio", "-i",
                                     files["perf record -F 999 -g"]],
             med(sres["perf record -F 999 -g"]["ev"]))):
        walls, rsss = [], []
        for _ in range(ROUNDS):
            w, rss = time_cmd(cmd)
            walls.append(w)
            rsss.append(rss)
        rep[name] = (max(med(walls) - launch, 0) * 1e9 / max(n, 1), med(rsss))

    def row(label, pp, perf, fmt="%.1f", lower_better=True):
        ratio = pp / perf if perf else float("nan")
        print("%-34s %12s %12s %9.2fx" % (label, fmt % pp, fmt % perf, ratio))

    print()
    print("tracepoints %s, system-wide, median of %d" % (EVENTS, ROUNDS))
    print("%-34s %12s %12s %10s" % ("", "pp-record", "perf record", "pp/perf"))
    pp, pf, pz, ppz = (res["pp-record"], res["perf record"], res["perf record -z"],
                       res["pp-record -z"])
    row("workload slowdown (x alone)", med(pp["slow"]) / b, med(pf["slow"]) / b, "%.3f")
    row("events", med(pp["ev"]), med(pf["ev"]), "%.0f")
    row("lost events", med(pp["lost"]), med(pf["lost"]), "%.0f")
    row("bytes per event", med(pp["bpe"]), med(pf["bpe"]), "%.2f")
    row("recorder CPU ns per event", med(pp["cpu"]), med(pf["cpu"]), "%.0f")
    row("recorder peak RSS KiB", med(pp["rss"]), med(pf["rss"]), "%.0f")
    print("%-34s %12s %12s %10s" % ("", "pp-record -z", "perf -z", "pp/perf"))
    row("workload slowdown (x alone)", med(ppz["slow"]) / b, med(pz["slow"]) / b, "%.3f")
    row("lost events", med(ppz["lost"]), med(pz["lost"]), "%.0f")
    row("bytes per event", med(ppz["bpe"]), med(pz["bpe"]), "%.2f")
    row("recorder CPU ns per event", med(ppz["cpu"]), med(pz["cpu"]), "%.0f")
    print()
    print("cpu-clock -F 999 -g, system-wide, median of %d" % ROUNDS)
    sp, sf = sres["pp-record -F 999 -g"], sres["perf record -F 999 -g"]
    row("workload slowdown (x alone)", med(sp["slow"]) / b, med(sf["slow"]) / b, "%.3f")
    row("samples", med(sp["ev"]), med(sf["ev"]), "%.0f")
    row("lost samples", med(sp["lost"]), med(sf["lost"]), "%.0f")
    row("bytes per sample", med(sp["bpe"]), med(sf["bpe"]), "%.2f")
    row("recorder CPU ns per sample", med(sp["cpu"]), med(sf["cpu"]), "%.0f")
    print()
    print("replay, ns per event (output to /dev/null), median of %d, less %.1f ms to launch"
          " any command" % (ROUNDS, launch * 1e3))
    print("%-34s %12s %12s %10s" % ("", "pp-analyze", "perf", "pp/perf"))
    row("trace vs perf script", rep["pp-analyze trace"][0], rep["perf script"][0], "%.0f")
    row("stat vs perf script", rep["pp-analyze stat"][0], rep["perf script"][0], "%.0f")
    row("profile vs perf report --stdio", rep["pp-analyze profile"][0],
        rep["perf report --stdio"][0], "%.0f")
    row("trace peak RSS KiB", rep["pp-analyze trace"][1], rep["perf script"][1], "%.0f")
    if have_btf:
        print()
        print("off-CPU profile, system-wide, median of %d" % ROUNDS)
        print("%-34s %12s %12s %10s" % ("", "pp offcpu", "sched+stack", "ratio"))
        o, w = offres["offcpu"], offres["switches"]
        row("workload slowdown (x alone)", med(o["slow"]) / b, med(w["slow"]) / b, "%.3f")
        row("file bytes", med(o["bytes"]), med(w["bytes"]), "%.0f")
        row("recorder CPU ms, whole run", med(o["cpu"]) * 1e3, med(w["cpu"]) * 1e3, "%.1f")
        row("recorder CPU ms after start-up", med(o["run"]) * 1e3, med(w["run"]) * 1e3, "%.1f")
        if o["rate"] and w["rate"]:
            row("recorder CPU ms/s, steady state", med(o["rate"]) * 1e3, med(w["rate"]) * 1e3,
                "%.2f")
    if mem:
        print()
        print("analyzer on growing files (getppid events): peak RSS must not grow")
        print("%-34s %12s %12s %10s" % ("", "%d ev" % big_n, "%d ev" % (big_n * 10), "ratio"))
        small, large = mem[big_n], mem[big_n * 10]
        row("file bytes", small["size"], large["size"], "%.0f")
        row("pp-analyze stat peak RSS KiB", small["stat"][1], large["stat"][1], "%.0f")
        row("pp-analyze trace peak RSS KiB", small["trace"][1], large["trace"][1], "%.0f")
        row("pp-analyze stat ns/event", small["stat"][0] * 1e9 / big_n,
            large["stat"][0] * 1e9 / (big_n * 10), "%.0f")
        row("pp-analyze trace ns/event", small["trace"][0] * 1e9 / big_n,
            large["trace"][0] * 1e9 / (big_n * 10), "%.0f")
    fb = os.path.join(BUILD, "bench", "format-bench")
    if os.path.exists(fb):
        print()
        print("format library on the perf.data records above (format-bench):")
        sys.stdout.flush()
        subprocess.run([fb, perf_data], check=False)
    shutil.rmtree(TMP, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
