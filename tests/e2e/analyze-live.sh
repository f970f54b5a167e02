#!/usr/bin/env bash
# pp-analyze --live: the same workload gives the same exact count live and in
# a record-then-replay: N getppid() calls of tests/helpers/getppid-n, run as
# the workload, and found by its pid in a system-wide live trace.
set -u
. "$(dirname "$0")/lib.bash"
B=${PP_BUILD:?}
N=3000
H=$B/tests/helpers/getppid-n
T=$(mktemp -d /tmp/pp-e2e-live.XXXXXX)
trap 'rm -rf "$T"' EXIT
need_root "for perf events"
need_event syscalls:sys_enter_getppid
"$B/pp-record" -e syscalls:sys_enter_getppid -o "$T/r.trace" -- "$H" $N >/dev/null 2>"$T/rec.err" ||
	fail_err "$T/rec.err" "pp-record -e syscalls:sys_enter_getppid"
count() { grep -o '"count":[0-9]*' | cut -d: -f2; }
rep=$("$B/pp-analyze" stat --json -e syscalls:sys_enter_getppid "$T/r.trace" | count)
[ "$rep" = "$N" ] || { echo "FAIL: replay counted '$rep', want $N"; exit 1; }
# Live with the helper as the workload (events follow it: enable_on_exec).
live=$("$B/pp-analyze" stat --live --json -e syscalls:sys_enter_getppid -- "$H" $N 2>"$T/live.err" | count)
[ "$live" = "$N" ] || { echo "FAIL: live counted '$live', want $N"; cat "$T/live.err"; exit 1; }
# Live system-wide (-a) with a command that starts, once the events are on, a
# helper that is not its descendant (waiting on a FIFO) and waits for it; the
# helper's N calls are found by its pid.
mkfifo "$T/go"
(read -r _ < "$T/go"; PP_PIDFILE=$T/pid exec "$H" $N) & W=$!
"$B/pp-analyze" trace --live -a -e syscalls:sys_enter_getppid -- \
	sh -c "echo > '$T/go'; while kill -0 $W 2>/dev/null; do sleep 0.01; done" >"$T/trace.out" 2>"$T/trace.err"
rc=$?
wait $W
[ $rc = 0 ] || { echo "FAIL: live trace exited $rc: $(cat "$T/trace.err")"; exit 1; }
pid=$(cat "$T/pid")
got=$(awk -v p="$pid" '$3 == p"/"p' "$T/trace.out" | grep -c 'sys_enter_getppid')
[ "$got" = "$N" ] || { echo "FAIL: system-wide live trace shows $got events of pid $pid, want $N"; exit 1; }
# -i ticks over -d 1100ms (counted from when the events are on): 5 intervals.
"$B/pp-analyze" stat --live -e 'sched:sched_switch' -i 200 -d 1100ms >"$T/tick.out" 2>&1 ||
	{ echo "FAIL: -i 200 -d 1100ms exited $?"; cat "$T/tick.out"; exit 1; }
ticks=$(grep -c 'sched:sched_switch' "$T/tick.out")
[ "$ticks" -ge 4 ] || { echo "FAIL: $ticks interval lines in 1.1 s at -i 200"; cat "$T/tick.out"; exit 1; }
# a SIGINT stop once the rings are mapped: a clean exit
"$B/pp-analyze" stat --live -e 'sched:sched_switch' >"$T/int.out" 2>&1 &
lp=$!
for _ in $(seq 600); do grep -q perf_event "/proc/$lp/maps" 2>/dev/null && break; sleep 0.1; done
kill -INT $lp
wait $lp; rc=$?
[ $rc = 0 ] || { echo "FAIL: SIGINT stop exited $rc"; cat "$T/int.out"; exit 1; }
# Errors: one line, non-zero exit.
"$B/pp-analyze" stat --live -e nosuch:event -d 1 >/dev/null 2>"$T/err"; rc=$?
[ $rc != 0 ] && [ "$(wc -l <"$T/err")" = 1 ] || { echo "FAIL: unknown event: rc $rc, $(cat "$T/err")"; exit 1; }
echo "ok: $N events live and replayed; $ticks ticks"
