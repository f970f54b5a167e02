#!/usr/bin/env bash
# --time START,END: a helper makes N getppid calls, sleeps 1.2 s, makes M
# more (the recorder flushes at least every second: phase A's chunk is done
# before phase B starts). Windows that end or start inside the gap (absolute, relative to the
# file's start, percent, perf's A%-B%) must select exactly N or M, in trace
# and stat, from the index and from a file without one (scan); -i intervals
# start at the window; malformed, empty and outside windows are one-line
# usage errors. A window after phase A reads its chunk for side-band only:
# phase B's events still carry the comm of the exec recorded there.
set -u
. "$(dirname "$0")/lib.bash"
B=${PP_BUILD:?}
A=$B/pp-analyze
N=300 M=200
T=$(mktemp /tmp/pp-e2e-window.XXXXXX)
trap 'rm -f "$T" "$T.noidx" "$T.err"' EXIT
need_root "for perf events"
need_event syscalls:sys_enter_getppid
"$B/pp-record" -e syscalls:sys_enter_getppid -o "$T" -- "$B/tests/helpers/phases" $N $M 1200 \
	>/dev/null 2>"$T.err" || fail_err "$T.err" "pp-record -e syscalls:sys_enter_getppid"
# the last call of phase A and the first of phase B, as trace prints them
read -r TA TB < <("$A" trace "$T" | awk -v n=$N '/getppid/ { c++; t = $6; sub(":$", "", t)
	if (c == n) a = t; if (c == n + 1) { print a, t; exit } }')
[ -n "${TB:-}" ] || fail "no phase B in the trace"
MID=$(awk -v a="$TA" -v b="$TB" 'BEGIN { printf "%.6f", (a + b) / 2 }')
# the file's span, from the message of a window outside it
"$A" trace --time ,0 "$T" >/dev/null 2>"$T.err" && fail "--time ,0 accepted"
read -r F L < <(sed -n "s/.*outside the file's records (\([0-9.]*\)-\([0-9.]*\)).*/\1 \2/p" "$T.err")
[ -n "${L:-}" ] || fail "no span in: $(cat "$T.err")"
REL=$(awk -v m="$MID" -v f="$F" 'BEGIN { printf "%.6f", m - f }')
PCT=$(awk -v m="$MID" -v f="$F" -v l="$L" 'BEGIN { printf "%.6f", (m - f) * 100 / (l - f) }')

count_trace() { "$A" trace --time "$1" "$2" 2>/dev/null | grep -c 'sys_enter_getppid'; }
count_stat() {
	"$A" stat --json --time "$1" -e syscalls:sys_enter_getppid "$2" 2>/dev/null |
		grep -o '"count":[0-9]*' | cut -d: -f2
}
check() {	# WINDOW FILE WANT
	local t s
	t=$(count_trace "$1" "$2"); s=$(count_stat "$1" "$2")
	[ "$t" = "$3" ] || fail "trace --time '$1' ($2): $t events, want $3"
	[ "$s" = "$3" ] || fail "stat --time '$1' ($2): '$s' events, want $3"
}
head -c $(( $(stat -c %s "$T") - 128 )) "$T" > "$T.noidx"	# no footer: read by scanning
"$A" info "$T.noidx" 2>/dev/null | grep -q '^index: *none' || \
	"$A" info "$T.noidx" 2>/dev/null | grep '^index:' | grep -qv 'footer and index' || fail "the copy still has its index"
for f in "$T" "$T.noidx"; do
	check ",$MID" "$f" $N
	check "$MID," "$f" $M
	check ",+$REL""s" "$f" $N
	check "+$REL""s," "$f" $M
	check "0%-$PCT%" "$f" $N
	check "$PCT%-100%" "$f" $M
	check "," "$f" $((N + M))
	check "0%-100%" "$f" $((N + M))
	c=$("$A" trace --time "$MID," "$f" 2>/dev/null | grep -c ' phases .*sys_enter_getppid')
	[ "$c" = $M ] || fail "--time '$MID,' ($f): $c events named 'phases', want $M"
done
# -i: the first interval ends one interval after the window's start
MIDNS=$(awk -v m="$MID" 'BEGIN { split(m, p, "."); printf "%s%s", p[1], p[2] "000" }')
first=$("$A" stat --json -i 100ms --time "$MID," -e syscalls:sys_enter_getppid "$T" |
	head -1 | grep -o '"ts":[0-9]*' | cut -d: -f2)
[ "$first" = $((MIDNS + 100000000)) ] || fail "-i with --time: first interval ends at $first, want $((MIDNS + 100000000))"
sum=$("$A" stat --json -i 100ms --time "$MID," -e syscalls:sys_enter_getppid "$T" |
	grep -o '"count":[0-9]*' | cut -d: -f2 | paste -sd+ | bc)
[ "$sum" = $M ] || fail "-i with --time: $sum events in the intervals, want $M"
# errors: one line, exit 2
for w in abc "$MID" 50%-10% 2000000, ",0.5" +1h, 10%/11 1,2,3 "" 101%-0% 5%-; do
	"$A" trace --time "$w" "$T" >/dev/null 2>"$T.err"; rc=$?
	[ $rc = 2 ] || fail "--time '$w': exit $rc, want 2"
	[ "$(wc -l < "$T.err")" = 1 ] || fail "--time '$w': not one line: $(cat "$T.err")"
	grep -q '^pp-analyze: trace: .*--time' "$T.err" || fail "--time '$w': $(cat "$T.err")"
done
"$A" stat --live --time 1,2 -e syscalls:sys_enter_getppid >/dev/null 2>"$T.err"; rc=$?
[ $rc = 2 ] && grep -q 'not with --live' "$T.err" || fail "--live --time: exit $rc, $(cat "$T.err")"
echo "ok: windows select $N and $M exactly (split at $MID)"
