#!/usr/bin/env bash
# offcpu counts the waits of a thread that wakes on an idle CPU, where perf
# does not see it come back. On this VM a thread switched in from the idle
# task of CPU 1 has no sched_switch in perf's ring (perf delivers nothing in
# the idle task's context here), so a tests/helpers/bpf-waits waiter moved to
# CPU 1, while the rest of the helper stays on CPU 0, shows few or none of
# its N switch-ins in a sched_switch recording of the same run. The BPF
# program sees them: offcpu must count exactly N waits through pp_wait_here.
# (Where the tracepoint itself is skipped, now and then, the entry still
# open at the thread's next switch-out is counted there: test-bpf-offcpu.)
set -u
B=${PP_BUILD:?PP_BUILD not set}
H=$B/tests/helpers/bpf-waits
N=200
skip() { echo "skip: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
[ "$(id -u)" = 0 ] || skip "needs root for BPF"
[ -x "$H" ] || skip "$H not built"
[ -r /sys/kernel/btf/vmlinux ] || skip "kernel without BTF: BPF programs cannot load here"
command -v taskset >/dev/null || skip "no taskset"
[ "$(nproc)" -ge 2 ] || skip "needs CPUs 0 and 1"
T=$(mktemp -d /tmp/pp-e2e-idle.XXXXXX)
hp= rp= sp=
cleanup() {
	exec 3>&-
	[ -n "$rp" ] && kill -INT "$rp" 2>/dev/null
	[ -n "$sp" ] && kill -INT "$sp" 2>/dev/null
	[ -n "$hp" ] && kill "$hp" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

mkfifo "$T/in"
taskset -c 0 "$H" $N <"$T/in" >"$T/out" &
hp=$!
exec 3>"$T/in"
for _ in $(seq 300); do [ -s "$T/out" ] && break; sleep 0.1; done
read -r P W _ <"$T/out" || fail "the helper did not start"
taskset -pc 1 "$W" >/dev/null || fail "cannot move thread $W to CPU 1"
"$B/pp-record" -q -o "$T/t" offcpu -p "$P" 2>"$T/err" &
rp=$!
# beside it, perf's view: every sched_switch of the waiter, system-wide
"$B/pp-record" -q -a -o "$T/sw" -e "sched:sched_switch/prev_pid==$W||next_pid==$W/" 2>"$T/err2" &
sp=$!
# go once the recorder holds its sched_switch link and the other its rings
for _ in $(seq 300); do
	grep -qs '^tp_name:[[:space:]]*sched_switch$' /proc/$rp/fdinfo/* &&
		ls -l /proc/$sp/fd 2>/dev/null | grep -q perf_event && break
	kill -0 $rp 2>/dev/null || { cat "$T/err"; fail "pp-record offcpu exited"; }
	kill -0 $sp 2>/dev/null || { cat "$T/err2"; fail "pp-record -e sched:sched_switch exited"; }
	sleep 0.1
done
grep -qs '^tp_name:[[:space:]]*sched_switch$' /proc/$rp/fdinfo/* ||
	{ cat "$T/err"; fail "pp-record offcpu did not attach in 30 s"; }
sleep 0.2
echo go >&3
for _ in $(seq 300); do grep -q '^done' "$T/out" && break; sleep 0.1; done
grep -q '^done' "$T/out" || fail "the helper is stuck"
kill -INT $rp $sp
wait $rp || { cat "$T/err"; fail "pp-record offcpu failed"; }
rp=
wait $sp || { cat "$T/err2"; fail "pp-record -e sched:sched_switch failed"; }
sp=
exec 3>&-
wait $hp
hp=

"$B/pp-analyze" offcpu "$T/t" >"$T/off.txt" 2>&1 || { cat "$T/off.txt"; fail "pp-analyze offcpu"; }
"$B/pp-analyze" trace "$T/sw" >"$T/trace.txt" 2>&1 || { cat "$T/trace.txt"; fail "pp-analyze trace"; }
ins=$(grep -c "next_pid=$W " "$T/trace.txt")
outs=$(grep -c "prev_pid=$W .*prev_state=S " "$T/trace.txt")
n=$(awk -v h="pp-waiter $P/$W state S:" -f "$(dirname "$0")/offcpu-waits.awk" "$T/off.txt")
echo "perf's sched_switch: $outs S switch-outs and $ins switch-ins of thread $W; offcpu counts $n waits"
[ "$n" = $N ] || { cat "$T/off.txt"; fail "offcpu counts $n waits through pp_wait_here, want $N"; }
echo "ok: $N waits"
