#!/usr/bin/env python3
"""pp against perf and trace-cmd, side by side, on the same machine and workload.

Usage: tests/bench/bench.py BUILD_DIR      (as root; BENCH_QUICK=1 for one short round;
       BENCH_ONLY=stacks for the user-stack tables alone)

Every figure is a median over rounds; recorders run in alternating order so drift
hits all of them alike. Prints tables with pp/perf and pp/trace-cmd ratios and
exits 0: it is a measurement, not a test. A recorder or replayer that crashed
(killed by a signal, an assertion, no output or an output its own tool cannot
read) is shown as "crashed" instead of a figure and a ratio; the bench exits
non-zero only when pp itself fails or the workload cannot run.
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
ONLY = os.environ.get("BENCH_ONLY", "")     # "stacks": only the user-stack tables
ROUNDS = 1 if QUICK else int(os.environ.get("BENCH_ROUNDS", "5"))
REPLAYS = ROUNDS if QUICK else max(ROUNDS, 5)    # a replay is short: more runs, less noise
LOOPS = "300" if QUICK else "3000"
WORKLOAD = ["perf", "bench", "sched", "messaging", "-p", "-g", "4", "-l", LOOPS]
EVENTS = "sched:sched_switch,sched:sched_wakeup"
PP_RECORD = os.path.join(BUILD, "pp-record")
PP_ANALYZE = os.path.join(BUILD, "pp-analyze")
RATE_GEN = os.path.join(BUILD, "bench", "rate-gen")
TMP = tempfile.mkdtemp(prefix="pp-bench.")
TIME = "/usr/bin/time"
CRASHED = "crashed"
HAVE_TC = bool(shutil.which("trace-cmd"))


def die(msg):
    print("bench: " + msg, file=sys.stderr)
    sys.exit(1)


def tree(pid):
    """@pid and its descendants (trace-cmd forks one reader per CPU)."""
    kids = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            kids.setdefault(ppid, []).append(int(d))
        except (OSError, ValueError, IndexError):
            pass
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(kids.get(p, []))
    return out


def cpu_ns(pid):
    """CPU time (ns) a live process tree's threads have run so far (schedstat)."""
    total = 0
    for p in tree(pid):
        try:
            tids = os.listdir("/proc/%d/task" % p)
        except OSError:
            continue
        for tid in tids:
            try:
                with open("/proc/%d/task/%s/schedstat" % (p, tid)) as f:
                    total += int(f.read().split()[0])
            except (OSError, ValueError, IndexError):
                pass
    return total


def peak_rss_kib(pid):
    """Peak RSS (KiB) of a live process tree since its exec (VmHWM, summed).
    wait4's ru_maxrss would count the pages of the forked Python before the exec."""
    total = 0
    for p in tree(pid):
        try:
            with open("/proc/%d/status" % p) as f:
                m = re.search(r"^VmHWM:\s+(\d+) kB", f.read(), re.M)
                total += int(m.group(1)) if m else 0
        except OSError:
            pass
    return total


def run_workload(pid=None, cmd=None):
    """Run the workload; returns its wall seconds. With @pid (a recorder),
    also the recorder's CPU seconds per second from 2 s into the workload to
    its end, past the first sight of its processes: (wall, rate or None)."""
    t0 = time.monotonic()
    w = subprocess.Popen(cmd or WORKLOAD, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
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
        die("workload failed: %s" % " ".join(cmd or WORKLOAD))
    wall = time.monotonic() - t0
    return (wall, rate) if pid is not None else wall


class Crash(Exception):
    pass


def started(out, logpath):
    """Whether a recorder is recording: its output exists (pp, perf) or it
    said so (trace-cmd writes per-CPU files, the output only at the end)."""
    if os.path.exists(out) or os.path.exists(out + ".cpu0"):
        return True
    try:
        return "Hit Ctrl^C" in open(logpath).read()
    except OSError:
        return False


def measure_recorder(cmd, out, ok=(0,), workload=None):
    """Start a system-wide recorder, run the workload, stop it with SIGINT.
    Returns a dict: wall (workload seconds), cpu (recorder CPU seconds,
    process tree), rss (peak RSS KiB up to the stop signal), run (CPU seconds
    after start-up), rate (CPU seconds per second in steady state or None),
    wl (the workload's stdout with @workload). Raises Crash when the recorder
    died of a signal or exited with a status not in @ok, or left no output.
    CPU comes from the kernel's accounting of the reaped process (wait4: it
    includes its reaped children), to the microsecond; "after start-up"
    leaves out what it spent before the workload began (loading, snapshot),
    which a long recording amortises; "steady state" is the rate from 2 s
    into the workload to its end, which a long recording pays every second."""
    for f in os.listdir(TMP):
        if f.startswith(os.path.basename(out)):
            os.unlink(os.path.join(TMP, f))
    logpath = os.path.join(TMP, "rec.log")
    log = open(logpath, "w")
    p = subprocess.Popen(cmd, stdout=log, stderr=log, cwd=TMP)
    deadline = time.monotonic() + 20
    while not started(out, logpath) and time.monotonic() < deadline and p.poll() is None:
        time.sleep(0.05)
    time.sleep(0.5)             # let it settle: events enabled, snapshot written
    res = {"wl": None}
    if p.poll() is None:
        res["startup"] = cpu_ns(p.pid) / 1e9
        if workload:
            t0 = time.monotonic()
            c0 = cpu_ns(p.pid)
            r = subprocess.run(workload, capture_output=True, text=True)
            res["wall"] = time.monotonic() - t0
            res["rate"] = (cpu_ns(p.pid) - c0) / 1e9 / res["wall"]
            res["wl"] = r.stdout
        else:
            res["wall"], res["rate"] = run_workload(p.pid)
        time.sleep(0.2)
        res["rss"] = peak_rss_kib(p.pid)
        try:
            os.kill(p.pid, signal.SIGINT)
        except ProcessLookupError:
            pass
    _, status, ru = os.wait4(p.pid, 0)
    rc = os.waitstatus_to_exitcode(status)
    log.close()
    text = open(logpath).read()
    if rc < 0 and rc != -signal.SIGINT:
        raise Crash("%s killed by signal %d: %s" % (cmd[0], -rc, text.strip()[-300:]))
    if rc >= 0 and rc not in ok:
        raise Crash("%s exited %d: %s" % (cmd[0], rc, text.strip()[-300:]))
    if "wall" not in res:
        raise Crash("%s stopped before the workload: %s" % (cmd[0], text.strip()[-300:]))
    if not os.path.exists(out) or not os.path.getsize(out):
        raise Crash("%s left no output" % cmd[0])
    res["cpu"] = ru.ru_utime + ru.ru_stime
    res["run"] = res["cpu"] - res["startup"]
    res["text"] = text
    return res


def pp_counts(path):
    r = subprocess.run([PP_ANALYZE, "info", path], capture_output=True, text=True)
    if r.returncode != 0:
        raise Crash("pp-analyze info failed: " + r.stderr.strip()[-300:])
    out = r.stdout
    ev = sum(int(n) for n in re.findall(r"^\s+\w+:\w+\s+(\d+)$", out, re.M))
    lost = 0
    m = re.search(r"^lost:\s+(.*)$", out, re.M)
    if m and "none" not in m.group(1):
        lost = sum(int(n) for n in re.findall(r"(\d+) (?:events|records|samples)", m.group(1))) or \
            sum(int(n) for n in re.findall(r"\d+", m.group(1)))
    return ev, lost


def perf_counts(path):
    r = subprocess.run(["perf", "report", "--stats", "-i", path], capture_output=True, text=True)
    if r.returncode != 0 or "stats:" not in r.stdout:
        raise Crash("perf report --stats failed (%d): %s" % (r.returncode, r.stderr.strip()[-300:]))
    ev = 0
    lost = 0
    for sect in re.split(r"\n(?=\S.* stats:)", r.stdout):
        if re.match(r"(sched|syscalls):|cpu-clock", sect):
            m = re.search(r"SAMPLE events:\s+(\d+)", sect)
            ev += int(m.group(1)) if m else 0
            m = re.search(r"LOST_SAMPLES events:\s+(\d+)", sect)
            lost += int(m.group(1)) if m else 0
    dump = subprocess.run(["perf", "report", "-D", "-i", path], capture_output=True,
                          text=True).stdout
    lost += sum(int(n) for n in re.findall(r"PERF_RECORD_LOST .*?lost (\d+)", dump))
    return ev, lost


def tc_counts(path, names=("sched_switch", "sched_wakeup")):
    """Events in a trace.dat (its report's lines naming them) and lost
    events: the rings' overruns and drops in the file's statistics, or the
    LOST EVENTS marks of the report, whichever is more."""
    pat = re.compile(r"\s(?:%s):" % "|".join(names))
    ev = 0
    marks = 0
    p = subprocess.Popen(["trace-cmd", "report", "-i", path], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True, errors="replace")
    for line in p.stdout:
        if pat.search(line):
            ev += 1
        elif "LOST" in line or "DROPPED" in line:
            m = re.search(r"(\d+) EVENTS (?:LOST|DROPPED)|LOST (\d+) EVENTS", line)
            marks += int(next(g for g in m.groups() if g)) if m else 0
    if p.wait() != 0:
        raise Crash("trace-cmd report failed (%d)" % p.returncode)
    st = subprocess.run(["trace-cmd", "report", "--stat", "-i", path], capture_output=True,
                        text=True, errors="replace").stdout
    stat = sum(int(n) for n in re.findall(r"^(?:overrun|dropped events):\s+(\d+)", st, re.M))
    return ev, max(stat, marks)


def time_cmd(cmd, stdout=subprocess.DEVNULL):
    """Wall time, peak RSS (KiB) and CPU seconds (user + system) of a
    command. The RSS is /usr/bin/time's figure (a child forked from Python
    would carry Python's own peak); the CPU is the kernel's accounting of
    the reaped /usr/bin/time, which includes its command's (wait4: to the
    microsecond, where /usr/bin/time prints 10 ms steps). None if it failed."""
    t0 = time.monotonic()
    p = subprocess.Popen([TIME, "-f", "RUSAGE %M"] + cmd, stdout=stdout,
                         stderr=subprocess.PIPE)
    err = p.stderr.read().decode(errors="replace")
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    p.stderr.close()
    m = re.search(r"RUSAGE (\d+)", err)
    if os.waitstatus_to_exitcode(status) != 0 or not m:
        print("bench: %s failed (%d): %s" % (cmd[0], os.waitstatus_to_exitcode(status),
                                            err.strip()[-300:]), file=sys.stderr)
        return None
    return wall, int(m.group(1)), ru.ru_utime + ru.ru_stime


def med(xs):
    return statistics.median(xs) if xs else float("nan")


def fmt_cell(v, fmt):
    if v is None:
        return "n/a"
    if v == CRASHED:
        return CRASHED
    return fmt % v


def ratio(a, b):
    if not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
        return CRASHED if CRASHED in (a, b) else "n/a"
    return "%.2fx" % (a / b) if b else "n/a"


def row(label, pp, perf, tc, fmt="%.1f"):
    print("%-32s %12s %12s %12s %9s %9s" % (label, fmt_cell(pp, fmt), fmt_cell(perf, fmt),
                                            fmt_cell(tc, fmt), ratio(pp, perf), ratio(pp, tc)))


def header(title, a, b, c, r1="pp/perf", r2="pp/tc"):
    print()
    print(title)
    print("%-32s %12s %12s %12s %9s %9s" % ("", a, b, c, r1, r2))


class Runs:
    """One recorder's figures over rounds; a crash in any round marks it."""

    def __init__(self):
        self.v = {}
        self.crash = None

    def add(self, **kw):
        for k, x in kw.items():
            self.v.setdefault(k, []).append(x)

    def get(self, k, scale=1.0):
        if self.crash:
            return CRASHED
        xs = [x for x in self.v.get(k, []) if x is not None]
        return med(xs) * scale if xs else None


file_ev = {}


def record_round(name, cmd, out, counts, ok, res, files):
    r = res[name]
    try:
        m = measure_recorder(cmd, out, ok)
        ev, lost = counts(out)
    except Crash as e:
        print("  %s crashed: %s" % (name, e), flush=True)
        if name.startswith("pp-record"):
            die("pp-record failed: %s" % e)
        r.crash = str(e)
        return
    r.add(wall=m["wall"], ev=ev, lost=lost, bpe=os.path.getsize(out) / max(ev, 1),
          cpu=m["cpu"] * 1e9 / max(ev, 1), rss=m["rss"],
          run=m["run"] * 1e9 / max(ev, 1), run_s=m["run"])
    if m.get("rate") is not None and ev:
        # steady state: CPU per second from 2 s in, over the run's mean sample rate
        r.add(steady=m["rate"] * 1e9 / (ev / m["wall"]))
    files[name] = out
    # the file kept is this round's: replay divides by its own events
    file_ev[name] = ev


def idle_round(name, cmd, out, ok, res):
    """The recorder's idle cost: what it spends recording nothing (2 s of
    sleep), as a rate per second and a fixed part (its stop: disabling the
    events, unmapping the rings, the file's index and footer, the exit).
    Then its marginal cost per event in each round: CPU after start-up less
    that idle cost over the same time, divided by the events."""
    r = res[name]
    if r.crash:
        return
    try:
        m = measure_recorder(cmd, out, ok, workload=["sleep", "2"])
    except Crash as e:
        print("  %s crashed idle: %s" % (name, e), flush=True)
        return
    idle = m["rate"]
    # "run" spans the workload and the 0.2 s before the stop signal
    fixed = max(m["run"] - idle * (m["wall"] + 0.2), 0)
    r.add(idle_fixed=fixed * 1e3)
    for run_s, wall, ev in zip(r.v.get("run_s", []), r.v.get("wall", []), r.v.get("ev", [])):
        r.add(marginal=max(run_s - idle * (wall + 0.2) - fixed, 0) * 1e9 / max(ev, 1))


def frontier(tool, cmd_of, counts):
    """Ramp the getppid event rate; the highest rate recorded with 0 lost
    (and every event there) and the recorder's CPU at that rate."""
    secs = "1" if QUICK else "2"
    rates = [100000, 400000, 1600000] if QUICK else \
        [100000, 200000, 400000, 800000, 1200000, 1600000, 2400000, 3200000, 4800000,
         6400000, 8000000, 9600000, 11200000, 12800000, 14400000, 16000000]
    best = None
    flat = 0
    for rate in rates:
        out = os.path.join(TMP, "front-" + tool.replace(" ", "") +
                           (".trace" if tool.startswith("pp") else ".dat"))
        try:
            m = measure_recorder(cmd_of(out), out, (0, 1) if tool == "trace-cmd" else (0,),
                                 workload=[RATE_GEN, str(rate), secs])
            ev, lost = counts(out)
        except Crash as e:
            print("  frontier %s at %d/s crashed: %s" % (tool, rate, e), flush=True)
            return best if best else CRASHED
        mm = re.search(r"calls (\d+) seconds ([\d.]+)", m["wl"] or "")
        if not mm:
            die("rate-gen failed")
        calls, wsecs = int(mm.group(1)), float(mm.group(2))
        achieved = calls / wsecs
        missing = max(calls - ev, 0)
        print("  frontier %-9s %8d/s asked, %8.0f/s made, %d lost, %d missing, CPU %.0f ms/s"
              % (tool, rate, achieved, lost, missing, m["rate"] * 1e3), flush=True)
        if lost or missing:
            return best if best else (0.0, m["rate"], False)
        if not best or achieved > best[0]:
            best = (achieved, m["rate"], False)
            flat = 0
        elif achieved < rate * 0.9:
            # The generator made no more than before: on a busy machine one
            # slow step is noise, two in a row its limit.
            flat += 1
            if flat == 2:
                break
    # No loss up to the highest rate the generator made: the frontier is
    # above it ("+" in the table).
    return (best[0], best[1], True) if best else CRASHED


# The outermost frames of a whole user stack: the process's entry, or a
# thread's (glibc's clone3/clone, whose CFI ends the chain); in a stripped
# binary the entry has no name, and the frame it called is the sign.
STACK_ROOTS = ("_start", "clone3", "__clone3", "clone", "__clone", "__clone_internal")
ENTRY_CALLEES = ("__libc_start_main", "start_thread")


def whole_share(path):
    """Of the file's samples with a user stack, the share whose outermost
    user frame is an entry point, from `pp-analyze trace -g` (kernel frames
    are named (kernel.kallsyms) or [kernel...])."""
    p = subprocess.Popen([PP_ANALYZE, "trace", "-g", path], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True, errors="replace")
    user = whole = 0
    last = prev = None

    def done(last, prev):
        if last is None:
            return 0, 0
        ok = last in STACK_ROOTS or (prev or "").startswith(ENTRY_CALLEES)
        return 1, 1 if ok else 0

    for line in p.stdout:
        if not line.startswith("\t"):
            u, w = done(last, prev)
            user, whole, last, prev = user + u, whole + w, None, None
            continue
        f = line.split()
        if len(f) >= 3 and "kernel" not in f[-1]:
            last, prev = f[1], last
    u, w = done(last, prev)
    if p.wait() != 0:
        raise Crash("pp-analyze trace -g failed on %s" % path)
    return (whole + w) / (user + u) if user + u else None


def stack_modes(samp_ev):
    """User stacks three ways on one workload, recorded system-wide: plain
    -g (the kernel-side walker), --call-graph fp, --call-graph dwarf; for
    cpu-clock -F 999 and for sched_switch. Per mode: the workload's slowdown
    (against runs alone just before and after), recorder CPU and file bytes
    per sample, and the share of user stacks that reach an entry point
    (from the last round's file)."""
    modes = {"pp-record -g": ["-g"], "pp-record --call-graph fp": ["--call-graph", "fp"],
             "pp-record --call-graph dwarf": ["--call-graph", "dwarf"]}
    kinds = {"cpu-clock -F 999": (["-F", "999"], samp_ev),
             "sched_switch": (["-e", "sched:sched_switch"], lambda p: pp_counts(p))}
    out = {}
    for kind, (ev_args, counts) in kinds.items():
        runs = {m: Runs() for m in modes}
        last = {}
        for rnd in range(ROUNDS):
            order = list(modes) if rnd % 2 == 0 else list(modes)[::-1]
            base = [run_workload()]
            for m in order:
                f = os.path.join(TMP, "stacks-%s.trace" % m.split()[-1])
                record_round(m, [PP_RECORD, "-q", "-a"] + ev_args + modes[m] + ["-o", f], f,
                             counts, (0,), runs, last)
            base.append(run_workload())
            for m in order:
                runs[m].add(slow=runs[m].v["wall"][-1] * 2 / (base[0] + base[1]))
        for m in modes:
            runs[m].add(whole=whole_share(last[m]))
        out[kind] = runs
        print("  stacks: %s done" % kind, flush=True)
    return out


def pp_samples(path):
    """(cpu-clock samples, lost) of a pp file."""
    r = subprocess.run([PP_ANALYZE, "info", path], capture_output=True, text=True)
    if r.returncode != 0:
        raise Crash("pp-analyze info failed")
    ev = sum(int(n) for n in re.findall(r"^\s+cpu-clock\s+(\d+)$", r.stdout, re.M))
    return ev, pp_counts(path)[1]


def print_stacks(stk, slow):
    """The user-stack tables of stack_modes()' runs."""
    for kind, runs in stk.items():
        header("user stacks, %s, system-wide, median of %d" % (kind, ROUNDS),
               "-g (walker)", "fp", "dwarf", "-g/fp", "-g/dwarf")
        g, fp, dw = (runs["pp-record -g"], runs["pp-record --call-graph fp"],
                     runs["pp-record --call-graph dwarf"])
        row("workload slowdown (x alone)", slow(g), slow(fp), slow(dw), "%.3f")
        row("samples", g.get("ev"), fp.get("ev"), dw.get("ev"), "%.0f")
        row("lost samples", g.get("lost"), fp.get("lost"), dw.get("lost"), "%.0f")
        row("bytes per sample", g.get("bpe"), fp.get("bpe"), dw.get("bpe"), "%.2f")
        row("recorder CPU ns per sample", g.get("cpu"), fp.get("cpu"), dw.get("cpu"), "%.0f")
        row("  after start-up", g.get("run"), fp.get("run"), dw.get("run"), "%.0f")
        row("  steady state (2 s in)", g.get("steady"), fp.get("steady"), dw.get("steady"),
            "%.0f")
        row("user stacks whole, %", g.get("whole", 100), fp.get("whole", 100),
            dw.get("whole", 100), "%.1f")


def main():
    if os.geteuid() != 0:
        die("run as root (system-wide recording)")
    for tool in ("perf", TIME, PP_RECORD, PP_ANALYZE):
        if not shutil.which(tool) and not os.path.exists(tool):
            die("missing %s" % tool)
    if not os.path.exists("/sys/kernel/tracing/events"):
        subprocess.run(["mount", "-t", "tracefs", "nodev", "/sys/kernel/tracing"])
    if not HAVE_TC:
        print("bench: trace-cmd not installed (scripts/install-deps.sh): its columns say n/a")
    if ONLY == "stacks":    # the user-stack tables alone (issue work on the walker)
        print("bench: %d round(s) of `%s`, user stacks three ways" % (ROUNDS, " ".join(WORKLOAD)),
              flush=True)
        print_stacks(stack_modes(pp_samples), lambda runs: runs.get("slow"))
        return

    # perf record: -B, else perf 6.1 dies with a build-id assertion at exit
    # on this kernel. trace-cmd: -d --no-filter (no function tracer; its
    # own threads are not filtered out), and it exits 1 at teardown after
    # writing a good file: its status 1 is accepted, the file is checked.
    tc_ev = []
    for e in EVENTS.split(","):
        tc_ev += ["-e", e]
    recorders = {
        "pp-record": lambda o: [PP_RECORD, "-q", "-a", "-e", EVENTS, "-o", o],
        "pp-record -z": lambda o: [PP_RECORD, "-q", "-a", "-e", EVENTS, "-o", o, "-z"],
        "perf record": lambda o: ["perf", "record", "-B", "-q", "-a", "-e", EVENTS, "-o", o],
        "perf record -z": lambda o: ["perf", "record", "-B", "-q", "-a", "-z", "-e", EVENTS,
                                     "-o", o],
    }
    if HAVE_TC:
        recorders["trace-cmd zstd"] = lambda o: ["trace-cmd", "record", "-q", "-d", "--no-filter",
                                                 "--compression", "zstd"] + tc_ev + ["-o", o]
    res = {name: Runs() for name in recorders}
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
            if res[name].crash:
                continue
            ext = ".trace" if name.startswith("pp") else ".dat"
            out = os.path.join(TMP, name.replace(" ", "_") + ext)
            counts = pp_counts if name.startswith("pp") else \
                perf_counts if name.startswith("perf") else tc_counts
            record_round(name, recorders[name](out), out, counts,
                         (0, 1) if name.startswith("trace-cmd") else (0,), res, files)
        base.append(run_workload())
        # the slowdown against this round's own runs alone, before and after:
        # the host's drift between rounds (10% here) stays out of it
        for name in order:
            if not res[name].crash:
                res[name].add(slow=res[name].v["wall"][-1] * 2 / (base[-2] + base[-1]))
        print("  round %d done" % (rnd + 1), flush=True)
    b = med(base)
    for name in recorders:
        ext = ".trace" if name.startswith("pp") else ".dat"
        out = os.path.join(TMP, "idle-" + name.replace(" ", "_") + ext)
        idle_round(name, recorders[name](out), out,
                   (0, 1) if name.startswith("trace-cmd") else (0,), res)

    # cpu-clock -g sampling at 999 Hz on the same workload.
    samp = {
        "pp-record -F 999 -g": lambda o: [PP_RECORD, "-q", "-a", "-F", "999", "-g", "-o", o],
        "perf record -F 999 -g": lambda o: ["perf", "record", "-B", "-q", "-a", "-F", "999", "-g",
                                            "-e", "cpu-clock", "-o", o],
    }

    sres = {name: Runs() for name in samp}
    for rnd in range(ROUNDS):
        order = list(samp)
        if rnd % 2:
            order.reverse()
        for name in order:
            if sres[name].crash:
                continue
            ext = ".trace" if name.startswith("pp") else ".dat"
            out = os.path.join(TMP, name.replace(" ", "_") + ext)
            record_round(name, samp[name](out), out,
                         pp_samples if ext == ".trace" else perf_counts, (0,), sres, files)

    stk = stack_modes(pp_samples)

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
            try:
                m = measure_recorder(offcmd[name](out), out)
            except Crash as e:
                die("pp-record failed: %s" % e)
            offres[name]["slow"].append(m["wall"])
            offres[name]["bytes"].append(os.path.getsize(out))
            offres[name]["cpu"].append(m["cpu"])
            offres[name]["run"].append(m["run"])
            if m["rate"] is not None:
                offres[name]["rate"].append(m["rate"])

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
    rep = {}
    # What starting any command through time_cmd costs (Python's fork, exec of
    # /usr/bin/time, its fork): not the tools' work, and a quarter of a 20 ms
    # replay. Subtracted from every replay's wall and CPU time.
    starts = [time_cmd(["/bin/true"]) for _ in range(5)]
    launch = med([t[0] for t in starts])
    launch_cpu = med([t[2] for t in starts])

    def replay(name, cmd, runs, file_key):
        if file_key not in files or runs.crash:
            rep[name] = (CRASHED if runs.crash else None, None, None)
            return
        n = file_ev[file_key]
        walls, rsss, cpus = [], [], []
        for _ in range(REPLAYS):
            t = time_cmd(cmd)
            if t is None:
                rep[name] = (CRASHED, CRASHED, CRASHED)
                return
            walls.append(t[0])
            rsss.append(t[1])
            cpus.append(t[2])
        rep[name] = (max(med(walls) - launch, 0) * 1e9 / max(n, 1), med(rsss),
                     max(med(cpus) - launch_cpu, 0) * 1e9 / max(n, 1))

    replay("pp-analyze trace", [PP_ANALYZE, "trace", files.get("pp-record", "")],
           res["pp-record"], "pp-record")
    replay("perf script", ["perf", "script", "-i", files.get("perf record", "")],
           res["perf record"], "perf record")
    if HAVE_TC:
        replay("trace-cmd report", ["trace-cmd", "report", "-i", files.get("trace-cmd zstd", "")],
               res["trace-cmd zstd"], "trace-cmd zstd")
    replay("pp-analyze stat", [PP_ANALYZE, "stat", files.get("pp-record", "")],
           res["pp-record"], "pp-record")
    replay("pp-analyze profile", [PP_ANALYZE, "profile", files.get("pp-record -F 999 -g", "")],
           sres["pp-record -F 999 -g"], "pp-record -F 999 -g")
    replay("perf report --stdio", ["perf", "report", "--stdio", "-i",
                                   files.get("perf record -F 999 -g", "")],
           sres["perf record -F 999 -g"], "perf record -F 999 -g")

    # The loss frontier: getppid events at rising rates, system-wide.
    front = {}
    if os.path.exists(RATE_GEN):
        getppid_ev = "syscalls:sys_enter_getppid"
        fr = {
            "pp": (lambda o: [PP_RECORD, "-q", "-a", "-e", getppid_ev, "-o", o], pp_counts),
            # tracepoints through a tracefs instance, as trace-cmd reads them
            "pp --ftrace": (lambda o: [PP_RECORD, "-q", "-a", "--ftrace", "-e", getppid_ev,
                                       "-o", o], pp_counts),
            "perf": (lambda o: ["perf", "record", "-B", "-q", "-a", "-e", getppid_ev, "-o", o],
                     perf_counts),
        }
        if HAVE_TC:
            fr["trace-cmd"] = (lambda o: ["trace-cmd", "record", "-q", "-d", "--no-filter",
                                          "--compression", "zstd", "-e", getppid_ev, "-o", o],
                               lambda p: tc_counts(p, ("sys_enter_getppid",)))
        for tool, (cmd_of, counts) in fr.items():
            front[tool] = frontier(tool, cmd_of, counts)

    tc = res.get("trace-cmd zstd", Runs())
    tcv = (lambda k, s=1.0: tc.get(k, s)) if HAVE_TC else (lambda k, s=1.0: None)

    def slow(runs):
        if runs.v.get("slow"):
            return runs.get("slow")
        v = runs.get("wall")
        return v / b if isinstance(v, float) else v

    header("tracepoints %s, system-wide, median of %d" % (EVENTS, ROUNDS),
           "pp-record", "perf record", "trace-cmd")
    pp, pf, pz, ppz = (res["pp-record"], res["perf record"], res["perf record -z"],
                       res["pp-record -z"])
    row("workload slowdown (x alone)", slow(pp), slow(pf), slow(tc) if HAVE_TC else None, "%.3f")
    row("events", pp.get("ev"), pf.get("ev"), tcv("ev"), "%.0f")
    row("lost events", pp.get("lost"), pf.get("lost"), tcv("lost"), "%.0f")
    row("bytes per event", pp.get("bpe"), pf.get("bpe"), tcv("bpe"), "%.2f")
    row("recorder CPU ns per event", pp.get("cpu"), pf.get("cpu"), tcv("cpu"), "%.0f")
    row("  after start-up", pp.get("run"), pf.get("run"), tcv("run"), "%.0f")
    row("  marginal (less idle cost)", pp.get("marginal"), pf.get("marginal"), tcv("marginal"),
        "%.0f")
    row("  idle cost: stop, ms", pp.get("idle_fixed"), pf.get("idle_fixed"), tcv("idle_fixed"),
        "%.1f")
    row("recorder peak RSS KiB", pp.get("rss"), pf.get("rss"), tcv("rss"), "%.0f")
    header("archival (zstd), same workload", "pp-record -z", "perf -z", "trace-cmd")
    row("workload slowdown (x alone)", slow(ppz), slow(pz), slow(tc) if HAVE_TC else None,
        "%.3f")
    row("events", ppz.get("ev"), pz.get("ev"), tcv("ev"), "%.0f")
    row("lost events", ppz.get("lost"), pz.get("lost"), tcv("lost"), "%.0f")
    row("bytes per event", ppz.get("bpe"), pz.get("bpe"), tcv("bpe"), "%.2f")
    row("recorder CPU ns per event", ppz.get("cpu"), pz.get("cpu"), tcv("cpu"), "%.0f")
    row("  after start-up", ppz.get("run"), pz.get("run"), tcv("run"), "%.0f")
    row("  marginal (less idle cost)", ppz.get("marginal"), pz.get("marginal"),
        tcv("marginal"), "%.0f")
    row("  idle cost: stop, ms", ppz.get("idle_fixed"), pz.get("idle_fixed"),
        tcv("idle_fixed"), "%.1f")
    header("cpu-clock -F 999 -g, system-wide, median of %d" % ROUNDS,
           "pp-record", "perf record", "")
    sp, sf = sres["pp-record -F 999 -g"], sres["perf record -F 999 -g"]
    row("workload slowdown (x alone)", slow(sp), slow(sf), None, "%.3f")
    row("samples", sp.get("ev"), sf.get("ev"), None, "%.0f")
    row("lost samples", sp.get("lost"), sf.get("lost"), None, "%.0f")
    row("bytes per sample", sp.get("bpe"), sf.get("bpe"), None, "%.2f")
    row("recorder CPU ns per sample", sp.get("cpu"), sf.get("cpu"), None, "%.0f")
    print_stacks(stk, slow)
    header("replay, ns per event (output to /dev/null), median of %d, less %.1f ms (%.1f ms of"
           " CPU) to launch any command" % (REPLAYS, launch * 1e3, launch_cpu * 1e3),
           "pp-analyze", "perf", "trace-cmd")
    tcr = rep.get("trace-cmd report", (None, None, None))
    row("trace vs script/report", rep["pp-analyze trace"][0], rep["perf script"][0], tcr[0],
        "%.0f")
    row("  CPU ns per event (user+sys)", rep["pp-analyze trace"][2], rep["perf script"][2],
        tcr[2], "%.0f")
    row("stat vs script/report", rep["pp-analyze stat"][0], rep["perf script"][0], tcr[0],
        "%.0f")
    row("profile vs perf report --stdio", rep["pp-analyze profile"][0],
        rep["perf report --stdio"][0], None, "%.0f")
    row("trace peak RSS KiB", rep["pp-analyze trace"][1], rep["perf script"][1], tcr[1], "%.0f")
    if front:
        def fcell(t, i, s=1.0):
            v = front.get(t)
            if v is None or v == CRASHED:
                return v
            return v[i] * s

        header("loss frontier: getppid events/s, system-wide, highest rate with 0 lost"
               " (of %s/s asked)" % ("100k..1.6M" if QUICK else "100k..16M"),
               "pp-record", "perf record", "trace-cmd")
        row("events/s recorded, 0 lost", fcell("pp", 0), fcell("perf", 0), fcell("trace-cmd", 0),
            "%.0f")
        row("  pp-record --ftrace", fcell("pp --ftrace", 0), fcell("perf", 0),
            fcell("trace-cmd", 0), "%.0f")
        row("recorder CPU ms/s at that rate", fcell("pp", 1, 1e3), fcell("perf", 1, 1e3),
            fcell("trace-cmd", 1, 1e3), "%.1f")
        row("  pp-record --ftrace", fcell("pp --ftrace", 1, 1e3), fcell("perf", 1, 1e3),
            fcell("trace-cmd", 1, 1e3), "%.1f")
        def per_ev(t):
            v = fcell(t, 0)
            return fcell(t, 1, 1e9) / v if isinstance(v, float) and v > 0 else v
        row("recorder CPU ns/event there", per_ev("pp"), per_ev("perf"), per_ev("trace-cmd"),
            "%.0f")
        row("  pp-record --ftrace", per_ev("pp --ftrace"), per_ev("perf"), per_ev("trace-cmd"),
            "%.0f")
        for t in front:
            if isinstance(front[t], tuple) and front[t][2]:
                print("  %s lost nothing up to the generator's limit (%.0f/s): its frontier is"
                      " above" % (t, front[t][0]))
    if have_btf:
        header("off-CPU profile, system-wide, median of %d" % ROUNDS, "pp offcpu", "sched+stack",
               "")
        o, w = offres["offcpu"], offres["switches"]
        row("workload slowdown (x alone)", med(o["slow"]) / b, med(w["slow"]) / b, None, "%.3f")
        row("file bytes", med(o["bytes"]), med(w["bytes"]), None, "%.0f")
        row("recorder CPU ms, whole run", med(o["cpu"]) * 1e3, med(w["cpu"]) * 1e3, None, "%.1f")
        row("recorder CPU ms after start-up", med(o["run"]) * 1e3, med(w["run"]) * 1e3, None,
            "%.1f")
        if o["rate"] and w["rate"]:
            row("recorder CPU ms/s, steady state", med(o["rate"]) * 1e3, med(w["rate"]) * 1e3,
                None, "%.2f")
    if mem and all(mem[n]["stat"] and mem[n]["trace"] for n in mem):
        header("analyzer on growing files (getppid events): peak RSS must not grow",
               "%d ev" % big_n, "%d ev" % (big_n * 10), "")
        small, large = mem[big_n], mem[big_n * 10]
        row("file bytes", small["size"], large["size"], None, "%.0f")
        row("pp-analyze stat peak RSS KiB", small["stat"][1], large["stat"][1], None, "%.0f")
        row("pp-analyze trace peak RSS KiB", small["trace"][1], large["trace"][1], None, "%.0f")
        row("pp-analyze stat ns/event", small["stat"][0] * 1e9 / big_n,
            large["stat"][0] * 1e9 / (big_n * 10), None, "%.0f")
        row("pp-analyze trace ns/event", small["trace"][0] * 1e9 / big_n,
            large["trace"][0] * 1e9 / (big_n * 10), None, "%.0f")
    fb = os.path.join(BUILD, "bench", "format-bench")
    if os.path.exists(fb) and not pf.crash and "perf record" in files:
        print()
        print("format library on the perf.data records above (format-bench):")
        sys.stdout.flush()
        subprocess.run([fb, files["perf record"]], check=False)
    crashed = [n for d in (res, sres) for n, r in d.items() if r.crash]
    if crashed:
        print()
        for n in crashed:
            print("crashed: %s: %s" % (n, (res.get(n) or sres.get(n)).crash))
    shutil.rmtree(TMP, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
