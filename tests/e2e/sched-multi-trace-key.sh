#!/usr/bin/env bash
# multi-trace's join key (spec/pp-analyze.md, multi-trace): key=pid names the
# event's own pid field when it has one. tests/helpers/sched-wakee wakes its
# child exactly N times from the parent; sched_waking//key=pid/ ->
# sched_switch//key=next_pid/ must pair every wakeup with the child's
# switch-in: N pairs under the child's pid (the sample's pid is the waker's,
# which joined nothing right before).
set -u
. "$(dirname "$0")/lib.bash"
B=${PP_BUILD:?}
N=40
T=$(mktemp -d /tmp/pp-e2e-mtkey.XXXXXX)
trap 'rm -rf "$T"' EXIT
need_root "for perf events"
need_event sched:sched_waking sched:sched_switch
# on CPU 0: this VM's idle CPU 1 writes no sample of the switch-in of a task
# woken there (see analyzers/task-state.c), which would leave a pair open
need_tool taskset util-linux
"$B/pp-record" -a -e 'sched:sched_waking/comm=="mt-wakee"/,sched:sched_switch/next_comm=="mt-wakee"/' \
	-o "$T/t" -- taskset -c 0 "$B/tests/helpers/sched-wakee" $N >"$T/out" 2>"$T/err" ||
	fail_err "$T/err" "pp-record -a -e sched:sched_waking/comm==\"mt-wakee\"/,..."
child=$(head -n 1 "$T/out")
[ -n "$child" ] || { echo "the helper printed no child pid"; exit 1; }
lost=$("$B/pp-analyze" info "$T/t" | awk '$1 == "lost:" { print $2 }')
# the kernel filters keep a few hundred events: none may be lost, however busy the machine
[ "$lost" = none ] || fail_err "$T/err" "pp-record lost events of $((2 * N)) wakeups and switch-ins: $lost"
"$B/pp-analyze" multi-trace --perins --json -e 'sched:sched_waking//key=pid/' \
	-e 'sched:sched_switch//key=next_pid/' "$T/t" >"$T/json" || { echo "multi-trace failed"; exit 1; }
c=$(python3 -c '
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
print(sum(r["calls"] for r in rows if r.get("key") == int(sys.argv[2])))
' "$T/json" "$child")
[ "$c" = $N ] || { echo "key=pid: $c pairs for the woken child $child, want $N"; cat "$T/json"; exit 1; }
# One row for the child: its pairs are not split over other keys.
c2=$("$B/pp-analyze" multi-trace --perins --json -e 'sched:sched_waking//key=pid/' \
	-e 'sched:sched_switch//key=next_pid/' "$T/t" | grep -c "\"key\":$child,")
[ "$c2" = 1 ] || { echo "expected one row for key $child, got $c2"; exit 1; }
# A key that is neither a field nor pid/tid/cpu names the fields the event has.
err=$("$B/pp-analyze" multi-trace -e 'sched:sched_waking//key=nosuch/' \
	-e 'sched:sched_switch//key=next_pid/' "$T/t" 2>&1 >/dev/null); rc=$?
[ $rc = 2 ] || { echo "key=nosuch: exit $rc, want 2"; exit 1; }
case "$err" in
*"no field 'nosuch'"*"target_cpu"*) ;;
*) echo "key=nosuch: message does not list the fields: $err"; exit 1 ;;
esac
echo "ok: $N wakeups of $child paired by the event's pid field"
