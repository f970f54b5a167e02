#!/usr/bin/env bash
# One event spec, one attr builder: every -e form and ATTR that pp-record
# records, pp-analyze --live opens, and both count the same exact N calls of
# tests/helpers/getppid-n (a uprobe on do_getppid(), its syscall tracepoint
# behind a kernel filter) and N writes of tests/helpers/sched-bpwrite (a
# breakpoint, live too). A scheduler-heavy load runs beside it.
. "$(dirname "$0")/../helpers/record-lib.sh"
[ -e /sys/bus/event_source/devices/uprobe ] || skip "no uprobe PMU"
N=200
bin=$HELP/getppid-n
LOAD=
trap '[ -n "$LOAD" ] && kill -- -$LOAD 2>/dev/null; rm -rf "$TMP"' EXIT
# a scheduler-heavy load beside the test (its own process group, killed at exit)
command -v perf >/dev/null || skip "no perf for the scheduler load (linux-perf)"
setsid bash -c 'while :; do perf bench sched messaging -p -g 1 -l 400 >/dev/null 2>&1; done' & LOAD=$!

count() {	# EVENT < stat --json output: its count
	awk -v e="\"$1\"" 'index($0, "\"event\":" e) { match($0, /"count":[0-9]+/);
		print substr($0, RSTART + 8, RLENGTH - 8) }'
}
up="uprobe:do_getppid@$bin"
for attrs in "" stack max-stack=4 alias=gp key=pid top-by=pid top-add=pid comm=pid num=pid \
	     ptr=pid size=pid role=start untraced trigger "stack/untraced"; do
	spec="$up//$attrs/"
	[ -n "$attrs" ] || spec=$up
	$REC -q -e "$spec" -o "$TMP/u.trace" -- "$bin" $N 2>"$TMP/err" || fail "record -e '$spec': $(cat "$TMP/err")"
	rec=$("$B/pp-analyze" stat --json -e "$spec" "$TMP/u.trace" | count "$up")
	live=$("$B/pp-analyze" stat --live --json -e "$spec" -- "$bin" $N 2>"$TMP/err" | count "$up")
	[ "$rec" = $N ] || fail "recorded -e '$spec': '$rec' calls, want $N"
	[ "$live" = $N ] || fail "live -e '$spec': '$live' calls, want $N ($(cat "$TMP/err"))"
done
# a tracepoint with a kernel filter and attributes, both ways
tp="raw_syscalls:sys_enter/id == 110/untraced/stack/"
$REC -q -e "$tp" -o "$TMP/t.trace" -- "$bin" $N || fail "record -e '$tp'"
rec=$("$B/pp-analyze" stat --json -e "$tp" "$TMP/t.trace" | count raw_syscalls:sys_enter)
live=$("$B/pp-analyze" stat --live --json -e "$tp" -- "$bin" $N | count raw_syscalls:sys_enter)
[ "$rec" = $N ] || fail "recorded -e '$tp': '$rec', want $N"
[ "$live" = $N ] || fail "live -e '$tp': '$live', want $N"
# the same error and exit status (spec/pp-errors.md) for the same mistake, in both tools
for bad in "$up//bogus/" "sched:sched_switch/prev_pid>0" "nosuch"; do
	r=$($REC -q -e "$bad" -o "$TMP/bad" -- true 2>&1 >/dev/null); rr=$?
	l=$("$B/pp-analyze" stat --live -e "$bad" -- true 2>&1 >/dev/null); lr=$?
	[ $rr = 2 ] && [ $lr = 2 ] || fail "'$bad': pp-record exit $rr, pp-analyze --live exit $lr; want 2 (usage)"
	[ "${r#pp-record: }" = "${l#pp-analyze: }" ] || [ "${r#pp-record: }" = "${l#pp-analyze: } (see pp-record --help)" ] ||
		fail "different errors for '$bad': '$r' / '$l'"
done
# a breakpoint, live: the helper waits for SIGUSR1 before its N writes
"$HELP/sched-bpwrite" $N > "$TMP/addr" & H=$!
for _ in $(seq 50); do [ -s "$TMP/addr" ] && break; sleep 0.1; done
A=$(cat "$TMP/addr")
"$B/pp-analyze" stat --live --json -e "mem:0x$A/8:w" -p $H > "$TMP/bp.out" 2>"$TMP/bp.err" & L=$!
# its rings are mapped when its events are opened, and it enables them then
for _ in $(seq 1200); do
	grep -q perf_event "/proc/$L/maps" 2>/dev/null || ! kill -0 $L 2>/dev/null && break
	sleep 0.05
done
kill -USR1 $H
wait $H
wait $L
bp=$(count "mem:0x$A/8:w" < "$TMP/bp.out")
if [ "${bp:-0}" = 0 ] && grep -qi "not supported\|cannot" "$TMP/bp.err"; then
	echo "breakpoints cannot be opened here: $(head -1 "$TMP/bp.err")"
elif [ "${bp:-0}" = 0 ]; then
	echo "breakpoints open but never fire on this machine (0 hits)"
else
	[ "$bp" = $N ] || fail "live breakpoint: $bp hits, want $N"
fi
echo ok
