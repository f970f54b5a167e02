#!/usr/bin/env bash
# ldlat-loads: the report of pp-analyze on a trace of known memory-load
# samples written by tests/test-ldlat (14 loads of known latency and data
# source, one store), as text, JSON, per interval and as a flame graph;
# then the recording: on a host without Intel PEBS mem-loads or AMD IBS op
# (this VM) pp-record and --live fail with exactly one line and exit 1; on
# one with them a run of the spin helper records loads with data sources.
. "$(dirname "$0")/../helpers/record-lib.sh"
AN=$B/pp-analyze
T=$TMP/mem.trace
$B/tests/test-ldlat write "$T" || fail "test-ldlat write"

$AN ldlat-loads "$T" > "$TMP/out" 2> "$TMP/err" || { cat "$TMP/err"; fail "pp-analyze ldlat-loads"; }
grep -q " ldlat-loads: 14 loads, 1 samples of other ops skipped; latency in cycles$" "$TMP/out" ||
	{ cat "$TMP/out"; fail "summary line"; }
# the data-source table, exactly (calls, share, min, avg, p50, p95, p99, max)
sed -n '/^DATA SOURCE /,/^$/p' "$TMP/out" > "$TMP/src"
cat > "$TMP/want" <<'W'
DATA SOURCE                          loads   share     min     avg     p50     p95     p99     max
L3 hit                                   5  35.71%      50      54      50      62      62      62
L1 hit                                   4  28.57%      30      31      30      33      33      33
LFB/MAB hit                              2  14.29%      35      36      35      37      37      37
Local RAM hit                            2  14.29%     199     295     199     392     392     392
Remote node, same socket RAM hit         1   7.14%     496     496     496     496     496     496

W
diff "$TMP/want" "$TMP/src" || fail "data-source table"
for t in SNOOP "DATA TLB" LOCKED SYMBOL; do
	grep -q "^$t " "$TMP/out" || fail "no $t table"
done
grep -q "^DATA ADDRESS" "$TMP/out" && fail "an address table without --addr"

# --json: one object per line, every line parses; the rows add up
$AN ldlat-loads --json --addr "$T" > "$TMP/json" || fail "--json"
python3 - "$TMP/json" <<'PY' || fail "--json objects"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
s = [r for r in rows if r["type"] == "ldlat_summary"]
assert len(s) == 1 and s[0]["loads"] == 14 and s[0]["not_loads"] == 1, s
for by in ("source", "snoop", "tlb", "lock", "symbol", "addr"):
    got = sum(r["calls"] for r in rows if r.get("by") == by)
    assert got == 14, (by, got)
src = {r["key"]: r for r in rows if r.get("by") == "source"}
assert src["Local RAM hit"]["p95"] == 392 and src["L1 hit"]["min"] == 30, src
PY
# --than: only the slow loads
$AN ldlat-loads --than 100 "$T" | grep -q " 3 loads of 100+ cycles (11 under --than)" ||
	fail "--than 100"
# -i 5 (ms): the 15 samples 1 ms apart make 3 intervals of 5, 5 and 4 loads
n=$($AN ldlat-loads -i 5 "$T" | grep -c " ldlat-loads: [0-9]* loads")
[ "$n" = 3 ] || fail "-i 5: $n intervals, want 3"
$AN ldlat-loads --flame-graph "$TMP/fg" "$T" > /dev/null || fail "--flame-graph"
grep -qx 'loader;0x402000;\[Local RAM hit\] 591' "$TMP/fg.folded" || { cat "$TMP/fg.folded"; fail "folded"; }
grep -q "<svg" "$TMP/fg.svg" || fail "no svg"
$AN ldlat-loads help | grep -q -- "--ldlat CYCLES" || fail "help"

# a trace without memory samples: one line, non-zero
$REC -q -o "$TMP/s" -e sched:sched_switch -- true 2>/dev/null || fail "record sched_switch"
$AN ldlat-loads "$TMP/s" > /dev/null 2> "$TMP/err"
rc=$?
[ $rc != 0 ] && [ "$(grep -c . "$TMP/err")" = 1 ] && grep -q "^pp-analyze: ldlat-loads: " "$TMP/err" ||
	{ cat "$TMP/err"; fail "a file without memory samples: exit $rc"; }

D=/sys/bus/event_source/devices
if [ ! -e $D/cpu/events/mem-loads ] && [ ! -e $D/cpu_core/events/mem-loads ] && [ ! -e $D/ibs_op/type ]; then
	msg="ldlat-loads: no PEBS mem-loads or AMD IBS op PMU on this host"
	$REC -q -o "$TMP/x" ldlat-loads -- true > /dev/null 2> "$TMP/err"
	rc=$?
	[ $rc = 1 ] && [ "$(cat "$TMP/err")" = "pp-record: $msg" ] ||
		{ cat "$TMP/err"; fail "pp-record ldlat-loads: exit $rc"; }
	$AN ldlat-loads --live -- true > /dev/null 2> "$TMP/err"
	rc=$?
	[ $rc != 0 ] && [ "$(cat "$TMP/err")" = "pp-analyze: $msg" ] ||
		{ cat "$TMP/err"; fail "pp-analyze ldlat-loads --live: exit $rc"; }
	# the raw PMU event itself: one line naming the PMU
	$REC -q -o "$TMP/x" -e 'cpu/mem-loads,ldlat=30/pp' -- true > /dev/null 2> "$TMP/err"
	rc=$?
	[ $rc != 0 ] && [ "$(cat "$TMP/err")" = "pp-record: no PMU 'cpu' on this host ($D/cpu)" ] ||
		{ cat "$TMP/err"; fail "pp-record -e cpu/mem-loads,ldlat=30/pp: exit $rc"; }
	skip "the report is checked; recording needs Intel PEBS mem-loads or AMD IBS op, absent here"
fi
# A host with PEBS or IBS: record a spinning helper for real, exactly the one event.
$REC -q -o "$TMP/r" ldlat-loads -- "$HELP/spin" 0.3 2> "$TMP/err" ||
	{ cat "$TMP/err"; fail "pp-record ldlat-loads"; }
$CHECK "$TMP/r" > "$TMP/rd" || fail "read back"
evs=$(awk '$1 == "event" && $2 != "sideband" { print $2 }' "$TMP/rd")
case "$evs" in
cpu/mem-loads,ldlat=30/pp | cpu_core/mem-loads,ldlat=30/pp | ibs_op// | ibs_op/ldlat=30/) ;;
*) fail "recorded events: $evs" ;;
esac
$AN ldlat-loads --json "$TMP/r" > "$TMP/rj" || fail "pp-analyze ldlat-loads on a recording"
grep -q '"type":"ldlat_summary"' "$TMP/rj" || fail "no summary"
head -5 "$TMP/rj"
echo ok
