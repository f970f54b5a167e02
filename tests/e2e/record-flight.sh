#!/usr/bin/env bash
# pp-record --flight-recorder=TIME: only the last TIME stays in memory; a
# dump (SIGUSR2, or an event marked trigger) writes the records of the TIME
# before it into a new complete file, and recording goes on.
# tests/helpers/flight-phases makes 4 phases of 100 marked calls: A
# (getpgid), GAP s later B (getsid), a dump request, C (sched_yield), GAP s
# later D (getpriority), a second request. With TIME 2 s < GAP the first
# dump holds exactly B, the second exactly D: the seconds before each
# request and nothing older (A, C), nothing after (C).
. "$(dirname "$0")/../helpers/record-lib.sh"
AN=$B/pp-analyze
E=syscalls:sys_enter_getpgid,syscalls:sys_enter_getsid,syscalls:sys_enter_sched_yield
E=$E,syscalls:sys_enter_getpriority
GAP=5
$REC -q -e $E -o "$TMP/probe.trace" -- true 2> "$TMP/probe.err" ||
	{ cat "$TMP/probe.err"; fail "pp-record -e $E"; }

# check DIR A B C D [TRIGGERS]: the events of the one file of DIR whose name ends -000K.trace
check() {
	local f=$(ls "$1"/*-000$2.trace 2>/dev/null)
	[ -n "$f" ] || { ls "$1"; fail "no dump $2 in $1"; }
	$CHECK "$f" > "$TMP/c.out" || fail "checker on $f"
	local got="$(evcount syscalls:sys_enter_getpgid "$TMP/c.out") $(evcount syscalls:sys_enter_getsid "$TMP/c.out") $(evcount syscalls:sys_enter_sched_yield "$TMP/c.out") $(evcount syscalls:sys_enter_getpriority "$TMP/c.out")"
	[ "$got" = "$3" ] || { cat "$TMP/c.out"; fail "$f: A B C D = $got, want $3"; }
	$AN info "$f" > "$TMP/info" || fail "info $f"
	grep -q '^damage: *none' "$TMP/info" && grep -q '^index: *footer and index' "$TMP/info" ||
		{ cat "$TMP/info"; fail "$f is not complete"; }
}

# SIGUSR2
mkdir "$TMP/s"
$REC --flight-recorder=2s -e $E -o "$TMP/s/f.trace" -- "$HELP/flight-phases" "$TMP/s" signal $GAP \
	2> "$TMP/s.err" || { cat "$TMP/s.err"; fail "record (signal)"; }
cat "$TMP/s.err"
grep -q "flight recorder: 2 dumps next to" "$TMP/s.err" || fail "summary"
[ ! -e "$TMP/s/f.trace" ] || fail "-o itself written"
[ "$(ls "$TMP/s" | grep -c .)" = 2 ] || { ls "$TMP/s"; fail "not 2 dumps"; }
check "$TMP/s" 1 "0 100 0 0"
check "$TMP/s" 2 "0 0 0 100"

# a trigger event: getppid, marked
mkdir "$TMP/t"
$REC -q --flight-recorder=2s -e $E -e 'syscalls:sys_enter_getppid//trigger/' -o "$TMP/t/f.trace" \
	-- "$HELP/flight-phases" "$TMP/t" trigger $GAP || fail "record (trigger)"
[ "$(ls "$TMP/t" | grep -c .)" = 2 ] || { ls "$TMP/t"; fail "not 2 dumps"; }
check "$TMP/t" 1 "0 100 0 0"
check "$TMP/t" 2 "0 0 0 100"
[ "$(evcount syscalls:sys_enter_getppid "$TMP/c.out")" = 1 ] || fail "trigger event not in the dump"

# the same with --ftrace: the events come in ftrace's pages, which a dump
# turns into records to keep the window's (the trigger stays on perf_event)
if [ -d /sys/kernel/tracing/instances ]; then
	mkdir "$TMP/ft"
	$REC -q --ftrace --flight-recorder=2s -e $E -e 'syscalls:sys_enter_getppid//trigger/' \
		-o "$TMP/ft/f.trace" -- "$HELP/flight-phases" "$TMP/ft" trigger $GAP ||
		fail "record (--ftrace)"
	[ "$(ls "$TMP/ft" | grep -c .)" = 2 ] || { ls "$TMP/ft"; fail "--ftrace: not 2 dumps"; }
	check "$TMP/ft" 1 "0 100 0 0"
	check "$TMP/ft" 2 "0 0 0 100"
fi

# --max-files=1: the first dump goes when the second is written
mkdir "$TMP/m"
$REC -q --flight-recorder=2s --max-files=1 -e $E -e 'syscalls:sys_enter_getppid//trigger/' \
	-o "$TMP/m/f.trace" -- "$HELP/flight-phases" "$TMP/m" trigger 3 || fail "record (max-files)"
[ "$(ls "$TMP/m" | grep -c .)" = 1 ] || { ls "$TMP/m"; fail "--max-files=1"; }
check "$TMP/m" 2 "0 0 0 100"

# the status line (on a terminal) shows what is kept
if command -v script > /dev/null; then
	mkdir "$TMP/st"
	script -qc "$REC -a -e sched:sched_switch --flight-recorder=1s -d 2.5 -o $TMP/st/f.trace > /dev/null" \
		/dev/null < /dev/null | tr '\r' '\n' > "$TMP/st.out"
	grep -qE 'flight recorder: [0-9.]+ [KMG]?i?B kept \([0-9.]+ s\), 0 dumps' "$TMP/st.out" ||
		{ cat "$TMP/st.out"; fail "no flight recorder status line"; }
	[ "$(ls "$TMP/st" | grep -c .)" = 0 ] || fail "a file without a dump request"
fi

# usage errors: one line, exit 2
for bad in "--flight-recorder=0" "--flight-recorder=1x" "--flight-recorder=64M" \
	   "--flight-size=1M" "--flight-recorder=1s --flight-size=2s"; do
	$REC -q -e $E $bad -o "$TMP/e.trace" -- true 2> "$TMP/e.err"; rc=$?
	[ $rc = 2 ] && [ "$(wc -l < "$TMP/e.err")" = 1 ] || { cat "$TMP/e.err"; fail "$bad: rc $rc"; }
done
$REC -q --flight-recorder=1s offcpu -- true 2> "$TMP/e.err"; rc=$?
[ $rc = 2 ] && [ "$(wc -l < "$TMP/e.err")" = 1 ] || { cat "$TMP/e.err"; fail "with offcpu: rc $rc"; }
echo "ok"
