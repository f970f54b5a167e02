#!/usr/bin/env bash
# --json is JSON Lines for every profiler: each one `pp-analyze list` names is
# run with --json (and with --json --than where it takes --than) on
# recordings made here, every line of stdout is parsed by Python's json and
# checked against the schema of spec/pp-analyze.md (section JSON): its type,
# the members that type always has, and the types the run must produce (the
# outliers of a --than run, the stacks of -g). A workload runs under a comm
# with a quote, a backslash and a byte that is not UTF-8, so its name goes
# through the escaping in comm members and in tracepoint string fields.
# A profiler with no case below, or whose help does not list --json, fails.
set -u
B=${PP_BUILD:?PP_BUILD not set}
H=$B/tests/helpers
. "$(dirname "$0")/lib.bash"
need_root "for perf events"
T=$(mktemp -d /tmp/pp-e2e-json.XXXXXX)
BP= BR=
trap 'kill $BP $BR 2>/dev/null; [ -n "${BLK_DEV:-}" ] && losetup -d "$BLK_DEV"; rm -rf "$T"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
unavailable=" "		# profilers whose kernel or hardware feature was found missing before recording

# The schema: per profiler, per type, the members every object of it has.
cat > "$T/check.py" <<'EOF'
import json, sys
task = ["comm", "pid", "tid", "cpu"]
hist = ["calls", "total", "min", "p50", "p95", "p99", "max"]
agg = ["comm", "pid", "tid", "total", "count", "avg", "max", "kernel_stack", "user_stack"]
schema = {
    "trace": {"event": task + ["event"], "source": task + ["source", "event", "start_ts", "text"],
              "lost": ["cpu", "count", "last_ts", "source"]},
    "stat": {"count": ["event", "count", "interval_ns", "partial"]},
    "profile": {"row": ["event", "symbol", "dso", "kernel", "self_samples", "total_samples",
                        "self_pct", "total_pct", "samples"],
                "folded": ["event", "frames", "samples"]},
    "top": {"row": ["key"]},
    "num-dist": {"row": ["event", "field", "avg"] + hist,
                 "outlier": task + ["event", "field", "value"]},
    "task-state": {"row": ["state"] + hist, "outlier": ["comm", "tid", "state", "duration"]},
    "rundelay": {"row": ["avg"] + hist,
                 "outlier": ["comm", "tid", "cause", "from_cpu", "cpu", "duration"]},
    "syscalls": {"row": ["syscall", "id", "calls", "total", "min", "avg", "p99", "max", "errors"],
                 "outlier": task + ["syscall", "id", "duration", "ret"]},
    "multi-trace": {"row": ["pair"] + hist, "outlier": ["pair", "key", "duration"]},
    "oncpu": {"row": ["comm", "tid", "cpu", "oncpu", "runs"]},
    "hrcount": {"row": ["event", "start_ts", "bucket_ns", "total", "max", "counts"]},
    "percpu-stat": {"row": ["cpu", "cs", "migrations", "syscalls", "irqs", "softirqs",
                            "faults-user", "faults-kernel"],
                    "total": ["cs", "migrations", "syscalls", "irqs", "softirqs",
                              "faults-user", "faults-kernel"]},
    "nested-trace": {"row": ["function", "calls", "total", "self", "avg", "p99", "max", "self_max"]},
    "offcpu": {"summary": ["total", "stacks", "duration", "windows", "dropped", "stacks_lost"],
               "stack": agg + ["state"]},
    "lock": {"summary": ["total", "stacks", "duration", "windows", "dropped", "stacks_lost"],
             "lock": ["comm", "pid", "addr", "wait", "waits", "max", "threads"],
             "stack": agg + ["addr", "waker"]},
    "page-faults": {"fault": task + ["addr", "ip", "sym"],
                    "process": ["pid", "comm", "faults", "lo", "hi"]},
    "breakpoint": {"hit": task + ["breakpoint", "addr", "ip", "sym"],
                   "site": ["breakpoint", "comm", "pid", "tid", "ip", "sym", "hits"]},
    "convert": {"summary": ["format", "output", "events", "lost"]},
    "kmemleak": {"kmemleak_summary": ["when", "bytes", "objects", "stacks", "allocations",
                                      "frees", "frees_before_recording", "uncertain_objects",
                                      "uncertain_bytes", "lost_windows"],
                 "kmemleak_stack": ["bytes", "objects", "oldest_age_ns", "comms", "stack"]},
    "kmemprof": {"kmemprof_summary": ["when", "bytes", "calls", "stacks", "allocations"],
                 "kmemprof_stack": ["bytes", "calls", "comms", "stack"]},
    "blktrace": {"blktrace": ["dev", "name", "op", "requests", "stages", "Q2C"],
                 "outlier": ["dev", "name", "op", "sector", "nr_sector", "latency"]},
    "kvm-exit": {"kinds": ["kernel", "user", "has_kvm_exit", "has_kvm_entry"],
                 "row": ["kind", "reason", "calls", "latency"],
                 "outlier": ["comm", "tid", "kind", "reason", "duration"]},
    "kvmmmu": {"role": ["role", "created", "found", "zapped"],
               "maps": ["faults", "mapped", "fast", "split"],
               "latency": ["stage"] + hist, "summary": ["kvm_mmu_get_page"]},
    "llcstat": {"row": ["cpu", "cache-references", "cache-misses", "LLC_hit_pct"]},
    "tlbstat": {"row": ["cpu", "dTLB-loads", "dTLB-load-misses", "dTLB_hit_pct", "iTLB_hit_pct"]},
    "ldlat-loads": {"ldlat_summary": ["loads", "not_loads", "under_than", "latency"],
                    "ldlat": ["by", "key"] + hist},
    "sched-migrate": {"row": ["comm", "tid", "migrations"], "cpus": ["from", "to", "migrations"],
                      "migration": ["comm", "tid", "prio", "from", "to", "by", "by_tid"]},
    "hrtimer": {"sample": task + ["count", "period"],
                "summary": ["ticks", "hits", "events", "than", "period"]},
}

def frames(v, where):
    assert isinstance(v, list), where + " is not an array"
    for f in v:
        assert set(f) == {"ip", "sym", "dso"}, where + ": frame %r" % f
        assert f["ip"].startswith("0x"), where + ": ip %r" % f["ip"]

def walk(o, where):	# every stack in the object, nested ones included
    for k, v in o.items():
        if k in ("stack", "kernel_stack", "user_stack"):
            frames(v, where + "." + k)
        elif isinstance(v, dict):
            walk(v, where + "." + k)
        elif isinstance(v, list):
            for i, x in enumerate(v):
                if isinstance(x, dict):
                    walk(x, "%s.%s[%d]" % (where, k, i))

def check(prof, want, members, stream):
    want = [w for w in want if w]
    members = [m for m in members if m]
    seen, found, n = set(), set(), 0

    for n, line in enumerate(stream, 1):
        where = "line %d" % n
        try:
            o = json.loads(line.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as e:
            raise AssertionError("%s is not JSON (%s): %r" % (where, e, line[:200]))
        assert isinstance(o, dict), where + " is not an object"
        t = o.get("type")
        assert t in schema[prof], "%s: type %r is none of %s" % (where, t, list(schema[prof]))
        need = ["time", "ts"] + schema[prof][t]
        missing = [m for m in need if m not in o]
        assert not missing, "%s (%s): no %s in %s" % (where, t, missing, line[:300])
        assert isinstance(o["ts"], int) and isinstance(o["time"], str), where + ": time/ts"
        walk(o, where)
        seen.add(str(t))
        found.update(m for m in members if m in o)
    assert n, "no output"
    for w in want:
        assert w in seen, "no %r object in %d lines (saw %s)" % (w, n, sorted(map(str, seen)))
    for m in members:
        assert m in found, "no object has a %r member" % m
    return "%d lines, types %s" % (n, sorted(map(str, seen)))

# one line per run: LABEL, PROFILER, TYPES, MEMBERS, OUTPUT (tab-separated)
bad = 0
for job in open(sys.argv[1]):
    label, prof, want, members, path = job.rstrip("\n").split("\t")
    try:
        with open(path, "rb") as f:
            print("ok %s: %s" % (label, check(prof, want.split(","), members.split(","), f)))
    except AssertionError as e:
        print("FAIL: %s: %s" % (label, e))
        bad = 1
sys.exit(bad)
EOF

# --- recordings ---
W="$T/$(printf 'j"s\\\377x')"
ln -s "$H/sched-syscalls" "$W"
# system-wide scheduler and syscall events with stacks while the workloads run
W=$W "$B/pp-record" -q -a -g -o "$T/sched" \
	-e 'sched:sched_switch,sched:sched_waking,sched:sched_wakeup_new,raw_syscalls:sys_enter,raw_syscalls:sys_exit' \
	-- sh -c '"$W" 50 20; "$1" 10 2' sh "$H/sched-sleep" >/dev/null 2>"$T/err" ||
	{ cat "$T/err"; bad "pp-record of the scheduler events"; }
"$B/pp-analyze" info "$T/sched" | grep -q 'raw_syscalls:sys_exit' || bad "no sys_exit in the recording"
M=$(cd "$H" && pwd)/sched-nested
if [ -e $PMU_DEVS/uprobe ]; then
	"$B/pp-record" -q -o "$T/nested" -e "uprobe:nest_outer@$M,uretprobe:nest_outer@$M,uprobe:nest_inner@$M,uretprobe:nest_inner@$M" \
		-- "$M" 3 >/dev/null 2>"$T/err" || { cat "$T/err"; bad "pp-record of uprobes for nested-trace"; }
	"$B/pp-record" -q -o "$T/mem" kmemleak --user -- "$H/mem-leaks" 3 100 10 >/dev/null 2>"$T/err" ||
		{ cat "$T/err"; bad "pp-record kmemleak --user"; }
else
	echo "nested-trace, kmemleak, kmemprof: no uprobe PMU in this kernel"; unavailable+="nested-trace kmemleak kmemprof "
fi
if [ -r /sys/kernel/btf/vmlinux ]; then
	"$B/pp-record" -q -o "$T/offcpu" offcpu -- sleep 0.2 >/dev/null 2>"$T/err" ||
		{ cat "$T/err"; bad "pp-record offcpu"; }
	"$B/pp-record" -q -o "$T/lock" lock -- "$H/bpf-contend" >/dev/null 2>"$T/err" ||
		{ cat "$T/err"; bad "pp-record lock"; }
else
	echo "offcpu, lock: kernel without BTF, BPF programs cannot load here"
	unavailable+="offcpu lock "
fi
"$B/pp-record" -q -o "$T/prof" profile -F 499 -- "$H/spin" 0.5 >/dev/null 2>"$T/err" ||
	{ cat "$T/err"; bad "pp-record profile"; }
"$B/pp-record" -q -g -o "$T/pf" page-faults -- "$H/sched-touch" 20 >/dev/null 2>"$T/err" ||
	{ cat "$T/err"; bad "pp-record page-faults"; }
# a write breakpoint on a helper's global, written 10 times once told to
# (perf stat, not pp, says whether hardware breakpoints fire here)
if ( need_hw_breakpoints "$H/sched-bpwrite" ) >"$T/bpcheck"; then
"$H/sched-bpwrite" 10 > "$T/addr" & BP=$!
for _ in $(seq 50); do [ -s "$T/addr" ] && break; sleep 0.1; done
"$B/pp-record" -q -g -o "$T/bp" -p $BP breakpoint "0x$(cat "$T/addr")/8:w" 2>"$T/err" & BR=$!
# the file is in place once the events are on
for _ in $(seq 1200); do [ -e "$T/bp" ] || ! kill -0 $BR 2>/dev/null && break; sleep 0.05; done
if kill -0 $BR 2>/dev/null; then
	kill -USR1 $BP; wait $BP; BP=
	sleep 0.3
	kill -INT $BR; wait $BR; BR=
	"$B/pp-analyze" breakpoint --summary "$T/bp" 2>/dev/null | grep -q bp_write_once ||
		bad "pp-record breakpoint: no hit in bp_write_once"
else
	cat "$T/err"; bad "pp-record breakpoint ended early"
fi
else
	echo "breakpoint: $(cat "$T/bpcheck")"; unavailable+="breakpoint "
fi

# the catalog: block requests of dd's direct writes, a KVM guest (or none), bursts
# (to a loop device, as e2e/blktrace.sh: a direct write to a file may fall
# back to buffered I/O, written back after the recording ended)
truncate -s 4M "$T/blkimg"
BLK_DEV=$(losetup -f --show "$T/blkimg" 2>/dev/null) || BLK_DEV=
if [ -z "$BLK_DEV" ]; then
	dd if=/dev/zero of="$T/blkf" bs=4k count=20 2>/dev/null && sync "$T/blkf"
fi
"$B/pp-record" -q -o "$T/blk" blktrace -g -- dd if=/dev/zero of="${BLK_DEV:-$T/blkf}" bs=4k count=20 \
	oflag=direct conv=notrunc >/dev/null 2>"$T/err" || { cat "$T/err"; bad "pp-record blktrace"; }
# kvm-pio exits 77 without /dev/kvm: the recordings then hold no guest, which the cases accept
if [ -d "$TRACEFS/events/kvm" ] && [ -d "$TRACEFS/events/kvmmmu" ]; then
	"$B/pp-record" -q -o "$T/kvm" kvm-exit -- "$H/kvm-pio" 5 >/dev/null 2>"$T/err"
	[ -s "$T/kvm" ] || { cat "$T/err"; bad "pp-record kvm-exit"; }
	"$B/pp-record" -q -o "$T/mmu" kvmmmu -- "$H/kvm-pio" 5 >/dev/null 2>"$T/err"
	[ -s "$T/mmu" ] || { cat "$T/err"; bad "pp-record kvmmmu"; }
else
	echo "kvm-exit, kvmmmu: no kvm tracepoints in this kernel"; unavailable+="kvm-exit kvmmmu "
fi
"$B/pp-record" -q -o "$T/hrt" hrtimer -e syscalls:sys_enter_getppid --period 1ms -- "$H/hrtimer-burst" 2 30 20 \
	>/dev/null 2>"$T/err" || { cat "$T/err"; bad "pp-record hrtimer"; }
if have_pmu; then
	for p in llcstat tlbstat; do
		"$B/pp-record" -q -o "$T/$p" $p -- "$H/spin" 0.2 >/dev/null 2>"$T/err" ||
			{ cat "$T/err"; bad "pp-record $p"; }
	done
else
	echo "llcstat, tlbstat: no hardware PMU on this host"; unavailable+="llcstat tlbstat "
fi

if [ "$(nproc)" -ge 2 ]; then
	"$B/pp-record" -q -g -o "$T/mig" sched-migrate -- "$H/migrate-n" 4 >/dev/null 2>"$T/err" ||
		{ cat "$T/err"; bad "pp-record sched-migrate"; }
else
	echo "sched-migrate: one CPU, no task can move"; unavailable+="sched-migrate "
fi

# memory-load samples need PEBS or IBS: a trace of known ones written by the unit test
"$B/tests/test-ldlat" write "$T/ldlat" || bad "test-ldlat write"

# --- cases: PROFILER|ARGUMENTS|TYPES THAT MUST APPEAR|MEMBERS THAT MUST APPEAR ---
S=$T/sched
cases=(
	"trace|-e sched:sched_switch,raw_syscalls:sys_enter $S|event|stack,fields"
	"trace|-e task-state// $S|source|"
	"stat|-e sched:sched_switch --perins $S|count|cpu"
	"profile|$T/prof|row|"
	"profile|--folded -i 200 $T/prof|folded|slice"
	"top|-e sched:sched_switch//key=prev_comm/ $S|row|"
	"top|-e sched:sched_switch//key=prev_pid/comm=prev_comm/ $S|row|comm"
	"num-dist|-e sched:sched_switch//num=prev_prio/ -i 100 $S|row|"
	"num-dist|--than 1 -e sched:sched_switch//num=prev_prio/ $S|row,outlier|"
	"task-state|--perins -i 50 $S|row|comm,tid"
	"task-state|-g --than 1us $S|row,outlier|stack"
	"rundelay|--perins $S|row|comm,tid"
	"rundelay|--than 1us $S|row,outlier|"
	"syscalls|--perins $S|row|comm,pid"
	"syscalls|--than 1us -g $S|row,outlier|stack"
	"multi-trace|-e raw_syscalls:sys_enter -e raw_syscalls:sys_exit --perins $S|row|key"
	"multi-trace|-e raw_syscalls:sys_enter -e raw_syscalls:sys_exit --than 1us --detail $S|row,outlier|events"
	"oncpu|-i 50 $S|row|"
	"hrcount|-e sched:sched_switch $S|row|"
	"percpu-stat|-i 50 $S|row,total|"
	"nested-trace|$T/nested|row|"
	"offcpu|$T/offcpu|summary,stack|"
	"lock|$T/lock|summary,lock,stack|"
	"page-faults|$T/pf|fault,process|stack"
	"page-faults|--summary $T/pf|process|"
	"breakpoint|$T/bp|hit,site|stack"
	"convert|--to=chrome -o $T/conv.json $S|summary|cpu_slices,state_slices,instants"
	"convert|--to=perf-script -o $T/conv.txt $S|summary|frames"
	"kmemleak|$T/mem|kmemleak_summary,kmemleak_stack|"
	"kmemprof|-i 1000 $T/mem|kmemprof_summary,kmemprof_stack|"
	"blktrace|$T/blk|blktrace|"
	"blktrace|--than 0 $T/blk|blktrace,outlier|stack"
	"kvm-exit|--perins $T/kvm|kinds|"
	"kvm-exit|--than 0 $T/kvm|kinds|"
	"kvmmmu|--perins $T/mmu|summary|"
	"llcstat|$T/llcstat|row|"
	"tlbstat|$T/tlbstat|row|"
	"ldlat-loads|$T/ldlat|ldlat_summary,ldlat|"
	"ldlat-loads|--than 100 --addr -i 5 $T/ldlat|ldlat_summary,ldlat|"
	"hrtimer|-e syscalls:sys_enter_getppid --than 5 $T/hrt|sample,summary|stack"
	"sched-migrate|--filter pp-migrate $T/mig|row,cpus|"
	"sched-migrate|--detail -g -i 1000 $T/mig|row,cpus,migration|stack"
)

# Every profiler is covered, and says it takes --json (and --than when it does).
for p in $("$B/pp-analyze" list | awk '/^profilers:/ { on = 1; next } /^[a-z]/ { on = 0 } on { print $1 }'); do
	opts=$("$B/pp-analyze" "$p" help 2>&1 | grep '^common options accepted:')
	case "$opts" in *" --json"*) ;; *) bad "$p: --json not accepted ($opts)"; continue ;; esac
	printf '%s\n' "${cases[@]}" | grep -q "^$p|" || bad "$p: no case in $0"
	case "$opts" in *" --than"*)
		printf '%s\n' "${cases[@]}" | grep -q "^$p|.*--than" || bad "$p takes --than: no --than case in $0" ;;
	esac
done

n=0
: > "$T/jobs"
for c in "${cases[@]}"; do
	IFS='|' read -r p args types members <<< "$c"
	case "$unavailable" in *" $p "*) echo "not run: $p $args: its kernel or hardware feature is missing"; continue ;; esac
	n=$((n + 1))
	# shellcheck disable=SC2086
	"$B/pp-analyze" "$p" --json $args > "$T/out.$n" 2>"$T/stderr"
	rc=$?
	[ $rc = 0 ] || { bad "pp-analyze $p --json $args: exit $rc: $(head -3 "$T/stderr")"; continue; }
	printf 'pp-analyze %s --json %s\t%s\t%s\t%s\t%s\n' "$p" "$args" "$p" "$types" "$members" \
		"$T/out.$n" >> "$T/jobs"
done
# every output checked by one python (a start costs seconds on a loaded host)
python3 "$T/check.py" "$T/jobs" || fail=1

# the odd comm came out escaped, as itself
"$B/pp-analyze" trace --json -e raw_syscalls:sys_enter "$S" | grep -F -q '"comm":"j\"s\\\ufffdx"' ||
	bad "trace --json: the comm j\"s\\<ff>x is not escaped as \"j\\\"s\\\\\\ufffdx\""
"$B/pp-analyze" trace --json -e sched:sched_switch "$S" | grep -F -q '"prev_comm":"j\"s\\\ufffdx"' ||
	bad "trace --json: the prev_comm field j\"s\\<ff>x is not escaped"

[ $fail = 0 ] || exit 1
echo "ok: $n --json runs, every line JSON with its members"
