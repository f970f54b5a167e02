#!/usr/bin/env bash
# Hardware counters: llcstat, tlbstat and stat -e cycles,instructions. On a
# host without a PMU (this VM) each fails with exactly one line naming the
# counter, for pp-record and --live alike; on one with a PMU they count: a
# spinning helper gives cycles, instructions, an insn-per-cycle line and
# hit rates per CPU. The arithmetic is unit-tested (tests/test-catalog.c).
. "$(dirname "$0")/../helpers/record-lib.sh"
AN=$B/pp-analyze
one_line() {	# TOOL EXPECT-RC-NONZERO: the command failed with one clear line
	local rc=$1 tool=$2
	[ "$rc" != 0 ] && [ "$(grep -c . "$TMP/err")" = 1 ] && grep -q "^$tool: .*not supported" "$TMP/err" ||
		{ cat "$TMP/err"; fail "$3: exit $rc, want one line '$tool: ... not supported ...'"; }
}
. "$(dirname "$0")/lib.bash"
# the PMU is found in sysfs, not by asking pp: a pp-record that cannot open
# cycles on a host with a PMU must fail below, not take the no-PMU branch
if ! have_pmu; then
	for p in llcstat tlbstat; do
		$REC -q -o "$TMP/x" $p -- true > /dev/null 2> "$TMP/err"; one_line $? pp-record "pp-record $p"
		$AN $p --live -- true > /dev/null 2> "$TMP/err"; one_line $? pp-analyze "pp-analyze $p --live"
	done
	$REC -q -o "$TMP/x" stat -e cycles,instructions -- true > /dev/null 2> "$TMP/err"
	one_line $? pp-record "pp-record stat -e cycles,instructions"
	$REC -q -o "$TMP/x" -e dTLB-load-misses -- true > /dev/null 2> "$TMP/err"
	one_line $? pp-record "pp-record -e dTLB-load-misses"
	# a file without the counters: one line too
	$REC -q -o "$TMP/s" -e sched:sched_switch -- true 2>/dev/null
	for p in llcstat tlbstat; do
		$AN $p "$TMP/s" > /dev/null 2> "$TMP/err"
		rc=$?
		[ $rc != 0 ] && [ "$(grep -c . "$TMP/err")" = 1 ] && grep -q "^pp-analyze: $p: " "$TMP/err" ||
			{ cat "$TMP/err"; fail "$p on a file without counters: exit $rc"; }
	done
	echo "ok: no hardware PMU here, every counter profiler fails with one line"
	exit 0
fi
# A host with a PMU: count for real.
$REC -q -o "$TMP/st" stat -e cycles,instructions -- "$HELP/spin" 0.3 || fail "pp-record stat -e cycles,instructions"
$AN stat "$TMP/st" > "$TMP/out" || fail "pp-analyze stat"
cat "$TMP/out"
c=$(awk '$2 == "cycles" { print $3 }' "$TMP/out")
[ "${c:-0}" -gt 1000000 ] || fail "cycles $c: a 0.3 s spin counts millions"
grep -q "insn per cycle" "$TMP/out" || fail "no insn per cycle"
for p in llcstat tlbstat; do
	if $REC -q -o "$TMP/$p" $p -- "$HELP/spin" 0.3 2> "$TMP/err"; then
		$AN $p --json "$TMP/$p" | grep -q '"type":"row"' || fail "$p: no rows"
	else
		grep -c . "$TMP/err" | grep -qx 1 || fail "$p: more than one line"
		echo "$p: $(cat "$TMP/err")"
	fi
done
echo ok
