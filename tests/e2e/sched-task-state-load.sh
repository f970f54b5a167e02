#!/usr/bin/env bash
# task-state counts must not depend on the machine's load (issue 13): with
# a scheduler-heavy load beside it (perf bench sched messaging in a loop),
# tests/helpers/sched-sleep, which sleeps exactly N times, shows exactly N S
# intervals - recorded with a COMMAND, recorded with -g and a COMMAND, live
# with a COMMAND, and recorded with -p while it waits for SIGUSR1 before its
# first sleep - 10 times each. Not pinned: the load moves the helper between
# CPUs, and a task woken on an idle CPU 1 has neither its wakeup nor its
# switch-in in the trace on this VM (see analyzers/task-state.c).
set -u
. "$(dirname "$0")/lib.bash"
B=${PP_BUILD:?}
H=$B/tests/helpers/sched-sleep
N=10
MS=2
REPS=10
T=$(mktemp -d /tmp/pp-e2e-tsl.XXXXXX)
load= hp= rp=
cleanup() {
	[ -n "$hp" ] && kill -KILL "$hp" 2>/dev/null
	[ -n "$rp" ] && kill -INT "$rp" 2>/dev/null && wait "$rp" 2>/dev/null
	[ -n "$load" ] && kill -KILL -- -"$load" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
need_root "for perf events"
need_event sched:sched_switch sched:sched_waking sched:sched_wakeup_new
need_tool perf linux-perf
perf bench sched messaging -g 1 -l 1 >/dev/null 2>"$T/err" ||
	fail_err "$T/err" "perf bench sched messaging (the scheduler load) does not run here"

# The load, in its own process group so that it ends with the test: 2
# groups of 40 tasks passing messages keep both CPUs switching every few
# microseconds, and idle now and then. (The default 10 groups make every
# pp-record start take seconds: it reads the maps of every process.) Short
# rounds, so that a load outliving a killed test ends within seconds.
set -m
while kill -0 $$ 2>/dev/null; do perf bench sched messaging -g 2 -l 1000 >/dev/null 2>&1; done &
load=$!
set +m
disown $load
sleep 0.5

# check NAME OUT: one S row, the helper's, with N intervals of MS on average
check() {
	local name=$1 out=$2 row calls min total
	row=$(echo "$out" | grep '"comm":"sched-sleep"' | grep '"state":"S"')
	[ "$(echo "$row" | grep -c .)" = 1 ] || fail "$name: want one S row for sched-sleep: $out"
	calls=$(echo "$row" | grep -o '"calls":[0-9]*' | cut -d: -f2)
	min=$(echo "$row" | grep -o '"min":[0-9]*' | cut -d: -f2)
	total=$(echo "$row" | grep -o '"total":[0-9]*' | cut -d: -f2)
	[ "$calls" = "$N" ] || fail "$name: $calls S intervals, want $N: $row $(cat "$T/err")"
	# The timer is armed before the switch-out, and the load may preempt
	# the helper in between (a switch-out as R+, then S later): one
	# interval can be any amount shorter than the sleep, so only its sign
	# is checked. The mean cannot be much shorter: that would take most
	# of the N sleeps preempted in that window of a few hundred ns.
	[ "$min" -gt 0 ] || fail "$name: an S interval of $min ns: $row"
	[ "$total" -ge $((N * MS * 750000)) ] ||
		fail "$name: S intervals of $((total / N)) ns on average, for sleeps of $MS ms: $row"
}

for i in $(seq $REPS); do
	# (a) recorded, the helper as the workload
	"$B/pp-record" -q -o "$T/a" task-state -- "$H" $N $MS >/dev/null 2>"$T/err" ||
		fail "pp-record task-state -- COMMAND: $(cat "$T/err")"
	out=$("$B/pp-analyze" task-state -S --perins --json "$T/a" 2>"$T/err") ||
		fail "replay of -- COMMAND: $(cat "$T/err")"
	check "run $i: pp-record -- COMMAND" "$out"

	# (b) the same with stacks, as the issue recorded it
	"$B/pp-record" -q -g -o "$T/b" task-state -- "$H" $N $MS >/dev/null 2>"$T/err" ||
		fail "pp-record -g task-state -- COMMAND: $(cat "$T/err")"
	out=$("$B/pp-analyze" task-state -S --perins --json "$T/b" 2>"$T/err") ||
		fail "replay of -g -- COMMAND: $(cat "$T/err")"
	check "run $i: pp-record -g -- COMMAND" "$out"

	# (c) live
	out=$("$B/pp-analyze" task-state --live -S --perins --json -- "$H" $N $MS 2>"$T/err") ||
		fail "live task-state -- COMMAND: $(cat "$T/err")"
	check "run $i: live -- COMMAND" "$out"

	# (d) -p: the helper waits (asleep, before the recording) for SIGUSR1;
	# the recorder is ready once its file is there (pp-record gives it its
	# name once the events are on; its writer thread runs well before that,
	# and a loaded host took over 0.1 s from one to the other)
	"$H" $N $MS usr1 &
	hp=$!
	until grep -q '^State:.S' /proc/$hp/status 2>/dev/null && [ "$(cat /proc/$hp/comm)" = sched-sleep ]; do
		sleep 0.01
	done
	rm -f "$T/d"
	"$B/pp-record" -q -o "$T/d" task-state -p $hp >/dev/null 2>"$T/err" &
	rp=$!
	for _ in $(seq 6000); do
		[ -e "$T/d" ] && break
		kill -0 $rp 2>/dev/null || fail "pp-record task-state -p: $(cat "$T/err")"
		sleep 0.01
	done
	[ -e "$T/d" ] || fail "pp-record task-state -p did not start recording in 60 s"
	kill -USR1 $hp
	wait $hp || fail "the helper failed"
	hp=
	kill -INT $rp
	wait $rp || fail "pp-record task-state -p: $(cat "$T/err")"
	rp=
	out=$("$B/pp-analyze" task-state -S --perins --json "$T/d" 2>"$T/err") ||
		fail "replay of -p: $(cat "$T/err")"
	check "run $i: pp-record -p" "$out"
done
echo "ok: $N S intervals for $N sleeps under a scheduler load, $REPS times: -- COMMAND, -g, --live, -p"
