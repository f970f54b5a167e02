#!/usr/bin/env bash
# pp-analyze --live --ftrace: tracepoints read from a tracefs instance, live.
# Exact counts as without --ftrace: N getppid() calls of the workload, and
# the helper's calls found by its pid system-wide; the instance is gone
# afterwards; what ftrace cannot take is a usage error.
set -u
B=${PP_BUILD:?}
N=3000
H=$B/tests/helpers/getppid-n
INST=/sys/kernel/tracing/instances
T=$(mktemp -d /tmp/pp-e2e-liveft.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
[ "$(id -u)" = 0 ] || { echo "skip: needs root for tracefs"; exit 77; }
[ -d "$INST" ] || { echo "skip: no tracefs instances here"; exit 77; }
count() { grep -o '"count":[0-9]*' | cut -d: -f2; }
live=$("$B/pp-analyze" stat --live --ftrace --json -e syscalls:sys_enter_getppid -- "$H" $N 2>"$T/live.err" | count)
[ "$live" = "$N" ] || { cat "$T/live.err"; fail "live --ftrace counted '$live', want $N"; }
# system-wide (getppid only: a loaded host's sched_switch could fill the rings
# of a live reader that runs at normal priority)
"$B/pp-analyze" trace --live --ftrace -e syscalls:sys_enter_getppid -d 3 \
	>"$T/trace.out" 2>"$T/trace.err" &
lp=$!
# go once the instance records (its tracing_on is set when the run starts)
for _ in $(seq 100); do [ "$(cat "$INST/pp-record-$lp/tracing_on" 2>/dev/null)" = 1 ] && break; sleep 0.1; done
[ "$(cat "$INST/pp-record-$lp/tracing_on" 2>/dev/null)" = 1 ] || fail "the live instance did not start in 10 s"
sleep 0.2
PP_PIDFILE=$T/pid "$H" $N
wait $lp || fail "live trace exited $?: $(cat "$T/trace.err")"
pid=$(cat "$T/pid")
got=$(awk -v p="$pid" '$3 == p"/"p' "$T/trace.out" | grep -c 'sys_enter_getppid')
[ "$got" = "$N" ] || fail "system-wide live --ftrace trace shows $got events of pid $pid, want $N"
! grep -q "out of time order" "$T/trace.err" || { cat "$T/trace.err"; fail "records out of time order"; }
ls "$INST" | grep -q "^pp-record-" && fail "instances left: $(ls "$INST")"
# usage errors
"$B/pp-analyze" trace --ftrace -e sched:sched_switch "$T/none.trace" 2>"$T/e.err"
[ $? = 2 ] || { cat "$T/e.err"; fail "--ftrace without --live accepted"; }
"$B/pp-analyze" trace --live --ftrace -e 'sched:sched_switch/nosuchfield==1/' -d 1 2>"$T/e.err"
[ $? = 2 ] || { cat "$T/e.err"; fail "a filter the kernel rejects is not a usage error"; }
echo "ok: $N events live through ftrace, followed and system-wide"
