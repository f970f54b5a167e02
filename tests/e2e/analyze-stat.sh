#!/usr/bin/env bash
# stat's header and its last, partial interval, on exactly N getppid() calls
# of tests/helpers/getppid-n: the text starts with a header saying what a
# row covers and the columns; the row of an interval cut short by the end of
# the events says its real length; --json carries interval_ns and partial.
set -u
. "$(dirname "$0")/lib.bash"
B=${PP_BUILD:?}
N=5000
EV=syscalls:sys_enter_getppid
T=$(mktemp -d /tmp/pp-e2e-stat.XXXXXX)
trap 'rm -rf "$T"' EXIT
need_root "for perf events"
need_event $EV
"$B/pp-record" -q -e $EV -o "$T/g.trace" -- "$B/tests/helpers/getppid-n" $N >/dev/null 2>"$T/err" ||
	fail_err "$T/err" "pp-record -e $EV"

# whole run: the header, then one row with the exact count, no partial note
"$B/pp-analyze" stat "$T/g.trace" >"$T/out" 2>"$T/err" || fail "stat: $(cat "$T/err")"
cat "$T/out"
head -1 "$T/out" | grep -q '^# events over [0-9.]* s, first to last event; TIME: the last event, COUNT: events$' ||
	fail "no first header line"
sed -n 2p "$T/out" | grep -q '^# TIME  *EVENT  *COUNT$' || fail "no column header"
[ "$(grep -vc '^#' "$T/out")" = 1 ] || fail "not one row"
[ "$(awk -v e=$EV '$2 == e { print $3 }' "$T/out")" = $N ] || fail "count is not $N"
grep -q partial "$T/out" && fail "a whole run is marked partial"

# -i 10s: every call falls in the first interval, which the end cuts short
"$B/pp-analyze" stat -i 10s "$T/g.trace" >"$T/out" 2>"$T/err" || fail "stat -i: $(cat "$T/err")"
cat "$T/out"
head -1 "$T/out" | grep -q '^# events per 10 s interval; TIME: the interval.s end, COUNT: events in it$' ||
	fail "-i: no header naming the interval"
row=$(grep -v '^#' "$T/out")
[ "$(echo "$row" | awk '{ print $3 }')" = $N ] || fail "-i: count is not $N"
ms=$(echo "$row" | sed -n 's/.*  (partial: \([0-9.]*\) ms)$/\1/p')
[ -n "$ms" ] || fail "-i: the last interval is not marked partial"
awk -v m="$ms" 'BEGIN { exit !(m > 0 && m < 10000) }' || fail "-i: partial length $ms ms"

# --json -i 1ms: full intervals last 1 ms, only the last one is partial and
# shorter, and the counts add up to N
"$B/pp-analyze" stat --json -i 1ms "$T/g.trace" >"$T/json" 2>"$T/err" || fail "stat --json: $(cat "$T/err")"
python3 - "$T/json" $N <<'PY' || fail "--json intervals"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
n = int(sys.argv[2])
assert sum(r["count"] for r in rows) == n, "counts do not add up to %d" % n
last = max(r["ts"] for r in rows)
for r in rows:
    assert isinstance(r["partial"], bool), r
    if r["ts"] == last:
        assert r["partial"] and 0 < r["interval_ns"] < 1000000, r
    else:
        assert not r["partial"] and r["interval_ns"] == 1000000, r
print("%d rows, %d intervals, last %d ns" % (len(rows), len({r["ts"] for r in rows}),
      [r["interval_ns"] for r in rows if r["ts"] == last][0]))
PY
echo "ok: header, $N events, partial last interval ($ms ms)"
