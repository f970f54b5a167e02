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
# Live system-wide for a while, the helper started meanwhile, found by its pid.
"$B/pp-analyze" trace --live -e syscalls:sys_enter_getppid -d 3 >"$T/trace.out" 2>"$T/trace.err" &
lp=$!
sleep 1
PP_PIDFILE=$T/pid "$H" $N
wait $lp; rc=$?
[ $rc = 0 ] || { echo "FAIL: live trace exited $rc: $(cat "$T/trace.err")"; exit 1; }
pid=$(cat "$T/pid")
got=$(awk -v p="$pid" '$3 == p"/"p' "$T/trace.out" | grep -c 'sys_enter_getppid')
[ "$got" = "$N" ] || { echo "FAIL: system-wide live trace shows $got events of pid $pid, want $N"; exit 1; }
# -i ticks and a SIGINT stop: intervals printed, clean exit.
"$B/pp-analyze" stat --live -e 'sched:sched_switch' -i 200 >"$T/tick.out" 2>&1 &
lp=$!
sleep 1.1
kill -INT $lp
wait $lp; rc=$?
[ $rc = 0 ] || { echo "FAIL: SIGINT stop exited $rc"; cat "$T/tick.out"; exit 1; }
ticks=$(grep -c 'sched:sched_switch' "$T/tick.out")
[ "$ticks" -ge 4 ] || { echo "FAIL: $ticks interval lines in 1.1 s at -i 200"; cat "$T/tick.out"; exit 1; }
# Errors: one line, non-zero exit.
"$B/pp-analyze" stat --live -e nosuch:event -d 1 >/dev/null 2>"$T/err"; rc=$?
[ $rc != 0 ] && [ "$(wc -l <"$T/err")" = 1 ] || { echo "FAIL: unknown event: rc $rc, $(cat "$T/err")"; exit 1; }
echo "ok: $N events live and replayed; $ticks ticks"
