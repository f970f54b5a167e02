#!/usr/bin/env bash
# A healthy host's recording is in time order: `pp-analyze info` says
# "damage: none" for every file.
# Ground truth: a perf ring is not always in time order. A record's time is
# taken before its space is reserved; an interrupt in between (a cpu-clock
# sample, its BPF program walking the stack) writes its records first. An
# exec's COMM then lands after a sample up to tens of microseconds younger:
# 16 to 21 records out of order in 2000 execs at -F 4999 before the drain
# held each ring's newest records back and put a late one in its place.
# Both ways of taking records are checked: encoded by the drain (no -g) and
# plain for the symbol scan (-g), the second with --rotate (each file).
. "$(dirname "$0")/../helpers/record-lib.sh"
AN=$B/pp-analyze
[ -x "$AN" ] || skip "no $AN"
EXECS=2000

churn() { local i; for ((i = 0; i < EXECS; i++)); do /bin/true; done; }

# record OUT SEEN ARGS...: -a at -F 4999 with sched_switch while EXECS short
# processes run, once SEEN (a file) is in place
record() {
	local out=$1 seen=$2
	shift 2
	$REC -q -a -F 4999 -e sched:sched_switch "$@" -o "$out" 2>"$TMP/rec.err" &
	local rec=$!
	wait_recording "$seen" $rec
	churn
	kill -INT $rec
	wait $rec || { cat "$TMP/rec.err"; fail "pp-record $* exited $?"; }
}

check() {
	"$AN" info "$1" >"$TMP/info" 2>&1 || { cat "$TMP/info"; fail "pp-analyze info $1"; }
	grep -q '^damage: *none$' "$TMP/info" ||
		{ grep -E '^(damage|records):' "$TMP/info"; fail "$1: not in time order"; }
}

record "$TMP/plain.trace" "$TMP/plain.trace"
check "$TMP/plain.trace"
grep -E '^records:' "$TMP/info"
comm=$(awk '$1 == "records:" { for (i = 1; i <= NF; i++) if ($(i + 1) ~ /^comm/) print $i }' "$TMP/info" | tr -d '(')
[ "${comm:-0}" -ge $EXECS ] || fail "want $EXECS exec COMM records at least, got '${comm:-}'"

mkdir "$TMP/rot"
# rotated files are named g-DATE-TIME-N.trace: the first one says it records
(for i in $(seq 1200); do
	compgen -G "$TMP/rot/g-*.trace" >/dev/null && { touch "$TMP/rot.on"; break; }
	sleep 0.05
done) &
record "$TMP/rot/g.trace" "$TMP/rot.on" -g --rotate 1s
n=0
for f in "$TMP"/rot/g-*.trace; do
	check "$f"
	n=$((n + 1))
done
[ $n -ge 2 ] || fail "--rotate 1s wrote $n file(s)"
echo "ok: $EXECS execs at -F 4999: no record out of order, plain and in $n rotated -g files"
