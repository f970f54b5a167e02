#!/usr/bin/env bash
# rundelay ground truth: on one CPU two rd-spinner threads burn the CPU while
# rd-waiter sleeps 2 ms N times. rundelay must count at least N waits for
# rd-waiter (one per wakeup) and milliseconds of queueing for the spinners,
# which take turns on the CPU.
set -u
. "$(dirname "$0")/lib.bash"
B=${PP_BUILD:?}
N=50
T=$(mktemp -d /tmp/pp-e2e-rd.XXXXXX)
trap 'rm -rf "$T"' EXIT
need_root "for perf events"
need_event sched:sched_switch sched:sched_waking sched:sched_wakeup_new
"$B/pp-record" -a -e sched:sched_switch,sched:sched_waking,sched:sched_wakeup_new \
	-o "$T/t" -- "$B/tests/helpers/sched-spin-wait" $N 2 0 >/dev/null 2>"$T/err" ||
	fail_err "$T/err" "pp-record -a -e sched:sched_switch,sched:sched_waking,sched:sched_wakeup_new"
out=$("$B/pp-analyze" rundelay --filter 'rd-*' --perins --json "$T/t") ||
	{ echo "rundelay failed"; exit 1; }
echo "$out"
wcalls=$(echo "$out" | grep '"rd-waiter"' | grep -o '"calls":[0-9]*' | cut -d: -f2)
stotal=$(echo "$out" | grep '"rd-spinner"' | grep -o '"total":[0-9]*' | cut -d: -f2 | awk '{ s += $1 } END { printf "%.0f\n", s }')
[ "${wcalls:-0}" -ge $N ] || { echo "rd-waiter waits '$wcalls', want >= $N"; exit 1; }
[ "$stotal" -gt 10000000 ] || { echo "spinners queued only $stotal ns"; exit 1; }
n=$("$B/pp-analyze" rundelay --filter 'rd-spinner' --than 500us "$T/t" | grep -c 'waited')
[ "$n" -gt 0 ] || { echo "--than 500us printed nothing"; exit 1; }
echo "ok: rd-waiter $wcalls waits, spinners queued $stotal ns"
