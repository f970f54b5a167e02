#!/usr/bin/env bash
# -p A,B follows both processes, in every way a profiler takes -p: three
# copies of tests/helpers/sched-sleep wait for SIGUSR1 and then sleep exactly
# N times (one nanosleep each); A and B are the targets, C must not show.
# task-state (which opens its events system-wide and keeps its targets) and
# syscalls (whose events follow the targets), each recorded with
# `pp-record PROFILER -p A,B`, live with `--live -p A,B`, and from a
# system-wide recording analyzed with `-p A,B`; and a plain `pp-record -p A,B
# -e ...` replayed by trace. A scheduler-heavy load runs beside it. (offcpu
# and lock: bpf-pids.sh.)
. "$(dirname "$0")/../helpers/record-lib.sh"
command -v perf >/dev/null || skip "no perf for the scheduler load (linux-perf)"
H=$HELP/sched-sleep
N=5
MS=2
A= Bp= C= R= LOAD=
cleanup() {
	kill -KILL $A $Bp $C 2>/dev/null
	[ -n "$R" ] && kill -INT $R 2>/dev/null && wait $R 2>/dev/null
	[ -n "$LOAD" ] && kill -KILL -- -$LOAD 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
setsid bash -c 'while :; do perf bench sched messaging -g 2 -l 1000 >/dev/null 2>&1; done' & LOAD=$!
disown $LOAD

start_helpers() {	# A, Bp, C: asleep in sigsuspend, waiting for SIGUSR1
	"$H" $N $MS usr1 & A=$!
	"$H" $N $MS usr1 & Bp=$!
	"$H" $N $MS usr1 & C=$!
	for p in $A $Bp $C; do
		until grep -q '^State:.S' /proc/$p/status 2>/dev/null && [ "$(cat /proc/$p/comm)" = sched-sleep ]; do
			sleep 0.01
		done
	done
}
go_helpers() {
	kill -USR1 $A $Bp $C
	wait $A $Bp $C || fail "a helper failed"
	A= Bp= C=
}
# until PID holds perf events (the live run is attached), then a margin; a
# recorder says when its events are on (wait_recording)
wait_attached() {
	until ls -l /proc/$1/fd 2>/dev/null | grep -q perf_event; do
		kill -0 $1 2>/dev/null || fail "$2 exited early: $(cat "$TMP/err")"
		sleep 0.01
	done
	sleep 0.3
}
# calls_of KEY PID JSON: the calls of PID's rows (KEY: task-state tid, syscalls pid)
calls_of() {
	echo "$3" | grep "\"$1\":$2," | grep -o '"calls":[0-9]*' | cut -d: -f2 |
		awk '{ s += $1; n++ } END { if (n) print s }'
}
check() {	# NAME KEY JSON
	local a b c
	a=$(calls_of "$2" $PA "$3"); b=$(calls_of "$2" $PB "$3"); c=$(calls_of "$2" $PC "$3")
	[ "$a" = $N ] && [ "$b" = $N ] || fail "$1: A $a, B $b calls, want $N each: $3 $(cat "$TMP/err")"
	[ -z "$c" ] || fail "$1: C ($PC) shows: $3"
}

# 1. pp-record PROFILER -p A,B, then the profiler on the file
for prof in task-state syscalls; do
	start_helpers; PA=$A PB=$Bp PC=$C
	rm -f "$TMP/r"
	$REC -q -o "$TMP/r" $prof -p $A,$Bp >/dev/null 2>"$TMP/err" & R=$!
	wait_recording "$TMP/r" $R
	go_helpers
	kill -INT $R; wait $R || fail "pp-record $prof -p A,B: $(cat "$TMP/err")"; R=
	case $prof in
	task-state) out=$("$B/pp-analyze" task-state -S --perins --json "$TMP/r" 2>"$TMP/err"); key=tid ;;
	syscalls) out=$("$B/pp-analyze" syscalls --perins --json "$TMP/r" 2>"$TMP/err" | grep nanosleep); key=pid ;;
	esac
	check "pp-record $prof -p A,B" $key "$out"
done

# 2. live, -p A,B: the run ends when both targets are gone
for prof in task-state syscalls; do
	start_helpers; PA=$A PB=$Bp PC=$C
	case $prof in
	task-state) "$B/pp-analyze" task-state --live -S --perins --json -p $A,$Bp >"$TMP/out" 2>"$TMP/err" & R=$!; key=tid ;;
	syscalls) "$B/pp-analyze" syscalls --live --perins --json -p $A,$Bp >"$TMP/out" 2>"$TMP/err" & R=$!; key=pid ;;
	esac
	wait_attached $R "pp-analyze $prof --live -p A,B"
	go_helpers
	wait $R || fail "live $prof -p A,B: $(cat "$TMP/err")"; R=
	out=$(grep -v '"syscall":"\(restart_syscall\|rt_sigsuspend\|exit_group\)"' "$TMP/out")
	[ $prof = syscalls ] && out=$(echo "$out" | grep nanosleep)
	check "live $prof -p A,B" $key "$out"
done

# 3. system-wide recording, the profilers' -p A,B on the file; and trace
start_helpers; PA=$A PB=$Bp PC=$C
$REC -q -a -o "$TMP/all" -e 'sched:sched_switch,sched:sched_waking,sched:sched_wakeup_new,raw_syscalls:sys_enter,raw_syscalls:sys_exit' >/dev/null 2>"$TMP/err" & R=$!
wait_recording "$TMP/all" $R
go_helpers
kill -INT $R; wait $R || fail "pp-record -a: $(cat "$TMP/err")"; R=
out=$("$B/pp-analyze" task-state -S --perins --json -p $PA,$PB "$TMP/all" 2>"$TMP/err")
check "task-state -p A,B on a system-wide file" tid "$out"
out=$("$B/pp-analyze" syscalls --perins --json -p $PA,$PB "$TMP/all" 2>"$TMP/err" | grep nanosleep)
check "syscalls -p A,B on a system-wide file" pid "$out"

# 4. plain events recorded with -p A,B, replayed by trace: both pids, not C
start_helpers; PA=$A PB=$Bp PC=$C
$REC -q -p $A,$Bp -o "$TMP/p" -e 'raw_syscalls:sys_enter/id == 35/' >/dev/null 2>"$TMP/err" & R=$!
wait_recording "$TMP/p" $R
go_helpers
kill -INT $R; wait $R || fail "pp-record -p A,B -e: $(cat "$TMP/err")"; R=
"$B/pp-analyze" trace "$TMP/p" > "$TMP/t.out" 2>"$TMP/err" || fail "trace: $(cat "$TMP/err")"
for p in $PA $PB; do
	c=$(grep -c " $p/$p " "$TMP/t.out")
	[ "$c" = $N ] || fail "pp-record -p A,B -e: pid $p has $c nanosleep entries, want $N"
done
! grep -q " $PC/$PC " "$TMP/t.out" || fail "pp-record -p A,B -e: C ($PC) recorded"
echo "ok: -p A,B followed both, and only them, recorded, live and on a system-wide file"
