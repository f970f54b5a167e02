#!/usr/bin/env bash
# breakpoint ground truth: a helper prints the address of a global and waits
# for SIGUSR1, then writes it exactly N times in bp_write_once(); a write
# breakpoint recorded with -p must count exactly N hits there, also as a
# trace event source. Hardware breakpoints open but never fire in some VMs
# (perf stat counts 0 too): then, once the syntax checks passed, the test
# skips, having asked perf stat before recording.
set -u
. "$(dirname "$0")/lib.bash"
B=${PP_BUILD:?}
N=50
T=$(mktemp -d /tmp/pp-e2e-bp.XXXXXX)
H= R=
trap 'kill $H $R 2>/dev/null; rm -rf "$T"' EXIT
need_root "for perf events"
# the event syntax is checked by pp-record before anything is opened
for bad in mem:0x10/3:w mem:zz mem:0x10:q mem:0x10:rx; do
	if "$B/pp-record" -q -o "$T/bad" -e "$bad" -- true 2>/dev/null; then
		echo "pp-record accepted $bad"; exit 1
	fi
done
need_hw_breakpoints "$B/tests/helpers/sched-bpwrite"
"$B/tests/helpers/sched-bpwrite" $N > "$T/addr" & H=$!
for _ in $(seq 50); do [ -s "$T/addr" ] && break; sleep 0.1; done
A=$(cat "$T/addr")
[ -n "$A" ] || { echo "helper printed no address"; exit 1; }
"$B/pp-record" -q -o "$T/t" -p $H breakpoint "0x$A/8:w" 2>"$T/err" & R=$!
# the file is in place once the events are on (60 s at most: a loaded host)
for _ in $(seq 1200); do
	[ -e "$T/t" ] && break
	if ! kill -0 $R 2>/dev/null; then
		wait $R; rc=$?
		fail_err "$T/err" "pp-record breakpoint 0x$A/8:w ended early (exit $rc)"
	fi
	sleep 0.05
done
[ -e "$T/t" ] || { echo "pp-record did not start recording in 60 s"; exit 1; }
kill -USR1 $H
wait $H
sleep 0.3
kill -INT $R 2>/dev/null
wait $R
R=
"$B/pp-analyze" info "$T/t" | grep -q "mem:0x$A/8:w" || { echo "no mem:0x$A/8:w event in the file"; exit 1; }
hits=$("$B/pp-analyze" breakpoint --json "$T/t" | grep -o '"hits":[0-9]*' | cut -d: -f2 | awk '{ s += $1 } END { print s + 0 }')
[ "$hits" = $N ] || { echo "breakpoint: $hits hits, want $N"; exit 1; }
"$B/pp-analyze" breakpoint "$T/t" | grep -q bp_write_once || { echo "hits not in bp_write_once"; exit 1; }
c=$("$B/pp-analyze" trace -e "breakpoint" "$T/t" | grep -c ': breakpoint: ')
[ "$c" = $N ] || { echo "trace -e breakpoint: $c, want $N"; exit 1; }
echo "ok: $N breakpoint hits in bp_write_once"
