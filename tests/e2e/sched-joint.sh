#!/usr/bin/env bash
# Joint analysis: profilers as event sources inside trace and multi-trace,
# merged by time with tracepoints. pp-record -e 'profile/-F 500/,...' records
# what the profile module needs; trace prints profile lines with stacks
# beside sched_switch; task-state as a source gives the helper's N sleeps of
# 20 ms; multi-trace pairs a source with a tracepoint.
set -u
. "$(dirname "$0")/lib.bash"
B=${PP_BUILD:?}
N=5
T=$(mktemp -d /tmp/pp-e2e-joint.XXXXXX)
trap 'rm -rf "$T"' EXIT
need_root "for perf events"
need_perf
need_event sched:sched_switch sched:sched_waking syscalls:sys_enter_nanosleep syscalls:sys_enter_clock_nanosleep
need_tool taskset util-linux
# the shell and sleep guarantee context switches even on an idle machine,
# where a lone spinner may never be switched out; the spinners write the CPU
# time they got (a loaded machine gives less than their 0.4 s of wall time)
PP_SPIN_CPU_FILE=$T/cpu "$B/pp-record" -q -o "$T/p" -e 'profile/-F 500/,sched:sched_switch' -- \
	sh -c "$B/tests/helpers/spin 0.2; sleep 0.05; $B/tests/helpers/spin 0.2" >/dev/null 2>"$T/err" ||
	fail_err "$T/err" "pp-record -e 'profile/-F 500/,sched:sched_switch'"
"$B/pp-analyze" info "$T/p" | grep -q '^  cpu-clock' || { echo "no cpu-clock in the file"; exit 1; }
out=$("$B/pp-analyze" trace -e 'profile/-F 500/,sched:sched_switch' "$T/p")
p=$(echo "$out" | grep -c ': profile: cpu-clock ip ')
s=$(echo "$out" | grep -c ': sched:sched_switch: ')
# 500 Hz over the spinners' CPU time (~200 samples on an idle machine)
cpu=$(awk '{ s += $1 } END { print s + 0 }' "$T/cpu")
want=$((cpu / 2))
[ "$want" -ge 10 ] || { echo "trace: the spinners got only $cpu ms of CPU"; exit 1; }
[ "$p" -ge $((want * 6 / 10)) ] && [ "$p" -le $((want * 13 / 10 + 10)) ] ||
	{ echo "trace: $p profile samples, want ~$want ($cpu ms of CPU at 500 Hz)"; exit 1; }
[ "$s" -ge 1 ] || { echo "trace: no sched_switch beside the samples"; exit 1; }
echo "$out" | grep -A3 ': profile: ' | grep -q 'spin_alpha\|spin_beta' || { echo "profile lines lack stacks"; exit 1; }
# time order across the two kinds
echo "$out" | grep -o '\] [0-9]*\.[0-9]*:' | tr -d ']:' | sort -c -n || { echo "trace output out of time order"; exit 1; }
if "$B/pp-analyze" stat -e 'profile/-F 500/' "$T/p" >/dev/null 2>&1; then
	echo "stat accepted a profiler source"; exit 1
fi
if "$B/pp-analyze" trace -e 'profile/--bogus/' "$T/p" >/dev/null 2>&1; then
	echo "bad source option accepted"; exit 1
fi
# task-state as a source (system-wide, so both sides of each switch are seen)
"$B/pp-record" -q -a -g -o "$T/s" -e 'task-state,syscalls:sys_enter_nanosleep,syscalls:sys_enter_clock_nanosleep' -- \
	taskset -c 0 "$B/tests/helpers/sched-sleep" $N 20 >/dev/null 2>"$T/err" || fail_err "$T/err" "pp-record -e task-state,..."
# 20 ms each, plus the wake-up latency of a busy 2-core VM (24-25 ms seen idle,
# more beside a scheduler load): S intervals of 20 ms up to 1 s
n=$("$B/pp-analyze" trace -e 'task-state/-S --filter sched-sleep/' "$T/s" |
	grep -cE ': task-state: S ([2-9][0-9]|[1-9][0-9]{2})(\.[0-9]+)?ms')
[ "$n" = $N ] || { echo "trace -e task-state: $n S intervals of ~20 ms, want $N"; exit 1; }
"$B/pp-analyze" trace -e 'task-state/-S --filter sched-sleep/' "$T/s" | grep -q sched_sleep_once ||
	{ echo "task-state source events lack the blocking stack"; exit 1; }
c=$("$B/pp-analyze" multi-trace -e 'syscalls:sys_enter_*nanosleep' -e 'task-state/-S --filter sched-sleep/' --json "$T/s" |
	grep -o '"calls":[0-9]*' | cut -d: -f2 | awk '{ s += $1 } END { print s + 0 }')
[ "$c" = $N ] || { echo "multi-trace nanosleep -> task-state: $c pairs, want $N"; exit 1; }
echo "ok: $p profile samples beside $s switches; $N task-state S intervals as a source"
