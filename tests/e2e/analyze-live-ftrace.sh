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
# of a live reader that runs at normal priority): -a with a command that
# starts, once the instance records, a helper that is not its descendant
# (waiting on a FIFO), and waits for it; its N calls are found by its pid
mkfifo "$T/go"
(read -r _ < "$T/go"; PP_PIDFILE=$T/pid exec "$H" $N) & W=$!
"$B/pp-analyze" trace --live --ftrace -a -e syscalls:sys_enter_getppid -- \
	sh -c "echo > '$T/go'; while kill -0 $W 2>/dev/null; do sleep 0.01; done" \
	>"$T/trace.out" 2>"$T/trace.err" || fail "live trace exited $?: $(cat "$T/trace.err")"
wait $W
pid=$(cat "$T/pid")
got=$(awk -v p="$pid" '$3 == p"/"p' "$T/trace.out" | grep -c 'sys_enter_getppid')
[ "$got" = "$N" ] || fail "system-wide live --ftrace trace shows $got events of pid $pid, want $N"
! grep -q "out of time order" "$T/trace.err" || { cat "$T/trace.err"; fail "records out of time order"; }
# no instance left (one of a recorder still running is another run's)
for i in "$INST"/pp-record-*; do
	[ -e "$i" ] && ! kill -0 "${i##*-}" 2>/dev/null && fail "instance ${i##*/} left by a recorder that is gone"
done
# usage errors
"$B/pp-analyze" trace --ftrace -e sched:sched_switch "$T/none.trace" 2>"$T/e.err"
[ $? = 2 ] || { cat "$T/e.err"; fail "--ftrace without --live accepted"; }
"$B/pp-analyze" trace --live --ftrace -e 'sched:sched_switch/nosuchfield==1/' -d 1 2>"$T/e.err"
[ $? = 2 ] || { cat "$T/e.err"; fail "a filter the kernel rejects is not a usage error"; }
echo "ok: $N events live through ftrace, followed and system-wide"
