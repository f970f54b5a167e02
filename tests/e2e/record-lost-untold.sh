#!/usr/bin/env bash
# Events lost in a ring that filled up just before its events' last one are
# still counted. The kernel writes its PERF_RECORD_LOST at the ring's next
# event only; here the command stops the recorder, makes 100,000 calls into
# a one-page ring and exits: nothing follows the drops. The events' own drop
# counts (PERF_FORMAT_LOST) tell the rest, in pp-record's file and in
# pp-analyze --live: recorded + lost = 100,000, or 100,001 when the
# command's exit record is dropped too (whether it fits in what the last
# lseek left of the ring depends on their sizes).
. "$(dirname "$0")/../helpers/record-lib.sh"
ANA=$B/pp-analyze
N=100000
# the kernel counts an event's drops since Linux 6.0
read -r kmaj kmin _ < <(uname -r | tr '.-' '  ')
[ "$kmaj" -gt 6 ] || { [ "$kmaj" -eq 6 ] && [ "$kmin" -ge 0 ]; } ||
	skip "kernel $(uname -r) has no PERF_FORMAT_LOST"

# stopped RECORDER_PID: wait for the command (pid in $TMP/pid) to be a zombie, resume the recorder
resume_after_exit() {
	local rp=$1 p="" i st
	for i in $(seq 600); do
		[ -s "$TMP/pid" ] && p=$(cat "$TMP/pid") && break
		sleep 0.05
	done
	[ -n "$p" ] || { kill -CONT "$rp"; fail "the command did not start in 30 s"; }
	for i in $(seq 1200); do
		st=$(awk '{ print $3 }' "/proc/$p/stat" 2> /dev/null)
		[ "$st" = Z ] || [ -z "$st" ] && break
		sleep 0.05
	done
	kill -CONT "$rp"
}

rm -f "$TMP/pid"
"$REC" -q -m 1 -e 'syscalls:sys_enter_lseek/fd == 4294967295/' -o "$TMP/l.trace" -- \
	env PP_STOP_PARENT=1 PP_PIDFILE="$TMP/pid" PP_LSEEK=$N "$HELP/getppid-n" 0 &
rp=$!
resume_after_exit $rp
wait $rp || fail "pp-record failed"
"$CHECK" "$TMP/l.trace" > "$TMP/l.out" || fail "the file does not read back"
got=$(evcount syscalls:sys_enter_lseek "$TMP/l.out")
lost=$(value lost_kernel "$TMP/l.out")
[ "$lost" -gt 0 ] || fail "pp-record: no loss counted: $got recorded of $N in a one-page ring"
sum=$((got + lost))
[ $sum -eq $N ] || [ $sum -eq $((N + 1)) ] || fail "pp-record: $got recorded + $lost lost, not $N (+ the exit record)"
"$ANA" info "$TMP/l.trace" > "$TMP/info" 2>&1 || fail "pp-analyze info failed"
grep -q "lost: *cpu[0-9]*=" "$TMP/info" || fail "info does not show the loss: $(cat "$TMP/info")"
echo "ok: pp-record: $got recorded + $lost lost = $sum"

# --live: the analyzer is the recorder the command stops
rm -f "$TMP/pid"
"$ANA" stat --live --json -e 'syscalls:sys_enter_lseek/fd == 4294967295/' -- \
	env PP_STOP_PARENT=1 PP_PIDFILE="$TMP/pid" PP_LSEEK=$N "$HELP/getppid-n" 0 \
	> "$TMP/live.json" 2> "$TMP/live.err" &
rp=$!
resume_after_exit $rp
wait $rp || fail "pp-analyze --live failed: $(cat "$TMP/live.err")"
got=$(grep -o '"count":[0-9]*' "$TMP/live.json" | cut -d: -f2)
lost=$(grep -o 'lost events: [0-9]* (kernel ring)' "$TMP/live.err" | grep -o '[0-9][0-9]*' | head -1)
[ -n "$got" ] || fail "--live: no count: $(cat "$TMP/live.json")"
[ -n "$lost" ] || fail "--live: no loss said: $got counted of $N: $(cat "$TMP/live.err")"
sum=$((got + lost))
[ $sum -eq $N ] || [ $sum -eq $((N + 1)) ] || fail "--live: $got counted + $lost lost, not $N (+ the exit record)"
echo "PASS: recorded + lost = $N (+ the exit record), in the file and --live ($got + $lost)"
