#!/usr/bin/env bash
# Plain -g walks user stacks in the kernel with unwind tables built from each
# DSO's CFI (the kernel-side walker), where perf's -g walks frame pointers.
# Ground truth:
# - tests/helpers/nap-libc sleeps N times in nap_in_libc() through libc's
#   nanosleep(); Debian's libc has no frame pointers, so a frame-pointer walk
#   from clock_nanosleep() skips nap_in_libc(). With plain -g every one of the
#   N off-CPU stacks runs through it down to _start, as with --call-graph
#   dwarf (the same frames), and --call-graph fp keeps the old walk; the same
#   for a process recorded with -p; task-state -g's intervals name it,
#   recorded and live; the
#   offcpu aggregator's stacks (recorded and live) name it too, and not with
#   --call-graph fp.
# - tests/helpers/nofp-work, built without frame pointers, spends 0.5 s of CPU
#   in a qsort() comparator under libc's qsort: 99% of its cpu-clock samples
#   name main, work_outer and work_inner under it.
# - pp-analyze info says which unwinder made the stacks, with its counts.
# The helpers first sleep PP_WARMUP_MS: a process is known to the walker once
# it runs (a stack walked before is walked by frame pointer, and counted); the
# tables of a workload's program and libraries are built before it execs.
. "$(dirname "$0")/../helpers/record-lib.sh"
AN=$B/pp-analyze
[ -x "$AN" ] || skip "no $AN"
[ -r /sys/kernel/btf/vmlinux ] || skip "kernel without BTF (the walker is a BPF program)"
N=10
export PP_WARMUP_MS=1500

# S-state switches of the file's trace -g text, and of them those through nap_in_libc
naps() {
	"$AN" trace -g "$1" 2>&1 | awk '
		/sched:sched_switch:/ { if (inS) { s++; good += hit } inS = /prev_state=S /; hit = 0; next }
		inS && / nap_in_libc \(nap-libc\)$/ { hit = 1 }
		END { if (inS) { s++; good += hit } print s + 0, good + 0 }'
}
# the frames (names only) of each off-CPU stack through nap_in_libc, one line each, sorted
stacks() {
	"$AN" trace -g "$1" 2>&1 | awk '
		/sched:sched_switch:/ { if (st != "" && st ~ /nap_in_libc/) print st; st = ""; inS = /prev_state=S /; next }
		inS && !/kernel.kallsyms/ { sub(/^[ \t]*[0-9a-f]+ /, ""); st = st ";" $0 }
		END { if (st != "" && st ~ /nap_in_libc/) print st }' | sort
}

$REC -q -g -e sched:sched_switch -o "$TMP/g.trace" -- "$HELP/nap-libc" $N 20 hop 2>"$TMP/rec.err" ||
	{ cat "$TMP/rec.err"; fail "pp-record -g -e sched:sched_switch"; }
read -r s good <<< "$(naps "$TMP/g.trace")"
# the warm-up sleep is one more switch out in state S, in main
[ "$s" = $((N + 1)) ] || fail "$s switches out in state S, want $((N + 1))"
[ "$good" = "$N" ] || { "$AN" trace -g "$TMP/g.trace"; fail "nap_in_libc in $good of the $N off-CPU stacks with -g"; }
stacks "$TMP/g.trace" > "$TMP/g.stacks"
grep -q ';_start (nap-libc)$' "$TMP/g.stacks" || { cat "$TMP/g.stacks"; fail "no stack down to _start"; }
"$AN" info "$TMP/g.trace" > "$TMP/info" || fail "info"
grep -q '^user stacks: bpf (the kernel-side walker): [0-9]* stacks, [0-9]* walked whole' "$TMP/info" ||
	{ cat "$TMP/info"; fail "info does not say the walker made the stacks"; }
grep -q 'frames: [1-9][0-9]* by the tables' "$TMP/info" || { cat "$TMP/info"; fail "info: no frame by the tables"; }

# the same frames as --call-graph dwarf's
$REC -q --call-graph dwarf -e sched:sched_switch -o "$TMP/d.trace" -- "$HELP/nap-libc" $N 20 hop ||
	fail "pp-record --call-graph dwarf"
stacks "$TMP/d.trace" > "$TMP/d.stacks"
cmp -s <(uniq "$TMP/g.stacks") <(uniq "$TMP/d.stacks") ||
	{ diff <(uniq "$TMP/g.stacks") <(uniq "$TMP/d.stacks"); fail "-g's stacks differ from --call-graph dwarf's"; }

# --call-graph fp: the old walk, which misses nap_in_libc; info says so
$REC -q --call-graph fp -e sched:sched_switch -o "$TMP/f.trace" -- "$HELP/nap-libc" 3 20 ||
	fail "pp-record --call-graph fp"
read -r s good <<< "$(naps "$TMP/f.trace")"
[ "$s" = 4 ] && [ "$good" = 0 ] || fail "--call-graph fp: $good of $s off-CPU stacks through nap_in_libc, want 0 of 4"
"$AN" info "$TMP/f.trace" | grep -q '^user stacks: fp (frame pointers' || fail "info: not fp"
# --call-graph bpf spelled out
$REC -q --call-graph bpf -e sched:sched_switch -o "$TMP/b.trace" -- "$HELP/nap-libc" 3 20 ||
	fail "pp-record --call-graph bpf"
read -r s good <<< "$(naps "$TMP/b.trace")"
[ "$s" = 4 ] && [ "$good" = 3 ] || fail "--call-graph bpf: $good of $s off-CPU stacks through nap_in_libc, want 3 of 4"

# a running process, -p: its tables are built before the events are on
# (the helper naps once told that they are)
PP_WAIT_USR1=1 "$HELP/nap-libc" $N 20 &
pid=$!
for i in $(seq 1000); do	# until it waits for USR1
	grep -q '^SigBlk:.*[1-9a-f]' /proc/$pid/status 2>/dev/null && break
	sleep 0.01
done
$REC -q -g -e sched:sched_switch -p $pid -o "$TMP/p.trace" 2>"$TMP/rec.err" &
rec=$!
wait_recording "$TMP/p.trace" $rec
kill -USR1 $pid
wait $pid
kill -INT $rec
wait $rec || { cat "$TMP/rec.err"; fail "pp-record -g -p"; }
read -r s good <<< "$(naps "$TMP/p.trace")"
[ "$good" = "$N" ] || { "$AN" trace -g "$TMP/p.trace"; fail "-p: nap_in_libc in $good of the $N naps ($s switches out in S)"; }

# task-state -g (its events on every CPU, which see the wake-ups): each
# nap's interval (--than) through nap_in_libc
$REC -q -g -o "$TMP/ts.trace" task-state -- "$HELP/nap-libc" $N 20 || fail "pp-record -g task-state"
"$AN" task-state -S -g --than 10ms "$TMP/ts.trace" > "$TMP/ts.txt" 2>&1 || fail "task-state -g"
ts_naps() {
	awk '/^[0-9]/ { n += hit; hit = 0; next } / nap_in_libc \(nap-libc\)$/ { hit = 1 }
		END { print n + hit }' "$1"
}
ts=$(ts_naps "$TMP/ts.txt")
[ "$ts" = "$N" ] || { cat "$TMP/ts.txt"; fail "task-state -g: nap_in_libc in $ts of the $N naps"; }
# the same live: its stacks are joined to their walks as the rings are read
"$AN" task-state -v -S -g --than 10ms --live -- "$HELP/nap-libc" $N 20 > "$TMP/tsl.txt" 2>&1 ||
	{ cat "$TMP/tsl.txt"; fail "task-state -g --live"; }
ts=$(ts_naps "$TMP/tsl.txt")
[ "$ts" = "$N" ] || { cat "$TMP/tsl.txt"; fail "task-state -g --live: nap_in_libc in $ts of the $N naps"; }
grep -q '^pp-analyze: user stacks: [0-9]*, [1-9][0-9]* walked by the kernel-side walker' "$TMP/tsl.txt" ||
	{ cat "$TMP/tsl.txt"; fail "task-state -g --live -v: no walker summary"; }

# offcpu, the BPF aggregator, walks the blocked stacks too: recorded and live,
# the N naps are one stack through nap_in_libc down to _start
offcpu_naps() {
	awk -v n="$N" '
		/^[^ ]/ { if (inS && nap && st) ok = 1; inS = / state S: / && index($0, ", " n " times,")
			  nap = st = 0; next }
		$1 == "nap_in_libc" { nap = 1 }
		$1 == "_start" { st = 1 }
		END { if (inS && nap && st) ok = 1; print ok ? "yes" : "no" }' "$1"
}
$REC -q -o "$TMP/off.trace" offcpu -- "$HELP/nap-libc" $N 20 || fail "pp-record offcpu"
"$AN" offcpu "$TMP/off.trace" > "$TMP/off.txt" 2>&1 || fail "offcpu"
[ "$(offcpu_naps "$TMP/off.txt")" = yes ] || { cat "$TMP/off.txt"; fail "offcpu: not $N naps through nap_in_libc"; }
"$AN" info "$TMP/off.trace" > "$TMP/info" || fail "info offcpu"
grep -q '^user stacks: bpf (the kernel-side walker)' "$TMP/info" || { cat "$TMP/info"; fail "info offcpu: no walker"; }
"$AN" offcpu --live -- "$HELP/nap-libc" $N 20 > "$TMP/offl.txt" 2>&1 || { cat "$TMP/offl.txt"; fail "offcpu --live"; }
[ "$(offcpu_naps "$TMP/offl.txt")" = yes ] || { cat "$TMP/offl.txt"; fail "offcpu --live: not $N naps through nap_in_libc"; }
# --call-graph fp: the kernel's frame-pointer walk, which skips it
$REC -q --call-graph fp -o "$TMP/offfp.trace" offcpu -- "$HELP/nap-libc" 3 20 || fail "pp-record --call-graph fp offcpu"
"$AN" offcpu "$TMP/offfp.trace" > "$TMP/offfp.txt" 2>&1 || fail "offcpu (fp)"
grep -q '^ *nap_in_libc$' "$TMP/offfp.txt" && { cat "$TMP/offfp.txt"; fail "offcpu --call-graph fp: nap_in_libc"; }
grep -q '^ *clock_nanosleep' "$TMP/offfp.txt" || { cat "$TMP/offfp.txt"; fail "offcpu --call-graph fp: no user stack"; }

# a CPU profile through libc's qsort, without frame pointers anywhere
$REC -q -F 999 -g -o "$TMP/q.trace" -- "$HELP/nofp-work" qsort 0.5 || fail "pp-record -F 999 -g nofp-work"
"$AN" profile --folded "$TMP/q.trace" > "$TMP/q.folded" 2>&1 || fail "profile --folded"
read -r all whole <<< "$(awk '/cmp_work/ { a += $NF; if (/main;work_outer;work_inner;.*cmp_work/) w += $NF }
	END { print a + 0, w + 0 }' "$TMP/q.folded")"
[ "$all" -ge 200 ] || { cat "$TMP/q.folded"; fail "only $all samples in cmp_work"; }
[ $((whole * 100)) -ge $((all * 99)) ] || { cat "$TMP/q.folded"; fail "$whole of $all samples in cmp_work name main;work_outer;work_inner"; }
# no warm-up: the program's tables (its own, the loader's, libc's) are built
# before it execs, so no frame waits for a table
PP_WARMUP_MS=0 $REC -q -F 999 -g -o "$TMP/q0.trace" -- "$HELP/nofp-work" qsort 0.2 ||
	fail "pp-record -F 999 -g nofp-work (no warm-up)"
"$AN" info "$TMP/q0.trace" > "$TMP/info0" || fail "info (no warm-up)"
grep -q 'by frame pointer (0 while a table was being built); tables of [3-9] DSOs' "$TMP/info0" ||
	{ cat "$TMP/info0"; fail "no warm-up: frames waited for a table the recorder should have built first"; }
echo "ok"
