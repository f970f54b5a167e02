#!/usr/bin/env bash
# --call-graph=dwarf ground truth: a helper sleeps N times through libc's
# nanosleep() in nap_in_libc(). Debian's libc has no frame pointers, so a
# frame-pointer walk from clock_nanosleep() skips nap_in_libc(); unwound with
# the DSOs' CFI at record time, every one of the N off-CPU stacks (its
# sched_switch samples in state S) runs through it, and the file still names
# it after the helper is deleted. The helper hops CPUs between naps, so its
# stacks come in another CPU's stream than the maps its exec made, which may
# be scanned after them: the unwinder reads the maps from /proc. Also: the mode's spellings and bad values.
. "$(dirname "$0")/../helpers/record-lib.sh"
AN=$B/pp-analyze
[ -x "$AN" ] || skip "no $AN"
N=10

cp "$HELP/nap-libc" "$TMP/nap-copy"
$REC -q -g --call-graph dwarf -e sched:sched_switch -o "$TMP/d.trace" -- "$TMP/nap-copy" $N 20 hop 2>"$TMP/rec.err" ||
	{ cat "$TMP/rec.err"; fail "pp-record -g --call-graph dwarf -e sched:sched_switch"; }
rm -f "$TMP/nap-copy"
"$AN" trace -g "$TMP/d.trace" > "$TMP/d.out" 2>&1 || fail "trace -g"
# one block per event: its header line, then its frames
read -r s good <<< "$(awk '
	/sched:sched_switch:/ { if (inS) { s++; good += hit } inS = /prev_state=S /; hit = 0; next }
	inS && / nap_in_libc \(nap-copy\)$/ { hit = 1 }
	END { if (inS) { s++; good += hit } print s + 0, good + 0 }' "$TMP/d.out")"
[ "$s" = "$N" ] || { cat "$TMP/d.out"; fail "$s switches out in state S, want $N"; }
[ "$good" = "$N" ] || { cat "$TMP/d.out"; fail "nap_in_libc in $good of the $N off-CPU stacks"; }
# below it, main; above it, libc's nanosleep
grep -q ' main (nap-copy)$' "$TMP/d.out" || fail "no main under nap_in_libc"
"$AN" trace -g "$TMP/d.trace" --json > /dev/null 2>&1 || fail "trace -g --json"

# a CPU profile: the same frames as with frame pointers, down to main
$REC -q -F 997 --call-graph=dwarf,4096 -o "$TMP/p.trace" -- "$HELP/spin" 1 || fail "record -F --call-graph=dwarf,4096"
"$AN" profile --folded "$TMP/p.trace" > "$TMP/p.folded" 2>&1 || fail "profile"
n=$(awk '/;main;spin_(alpha|beta)( |;)/ { s += $NF } END { print s + 0 }' "$TMP/p.folded")
[ "$n" -ge 50 ] || { cat "$TMP/p.folded"; fail "only $n samples unwound to main;spin_*"; }

# bad modes: one clear line, usage exit
for bad in dwarf,0 dwarf,70000 dwarf,x lbr2 dwarfy; do
	if $REC -q --call-graph=$bad -o "$TMP/x.trace" -- true 2> "$TMP/err"; then
		fail "--call-graph=$bad accepted"
	fi
	[ "$(wc -l < "$TMP/err")" = 1 ] && grep -q '^pp-record: .*call-graph' "$TMP/err" ||
		{ cat "$TMP/err"; fail "--call-graph=$bad: not one clear line"; }
done
# fp, the default, spelled out
$REC -q --call-graph fp -e sched:sched_switch -o "$TMP/f.trace" -- "$HELP/nap-libc" 2 1 || fail "--call-graph fp"
echo "ok"
