#!/usr/bin/env bash
# kmemleak and kmemprof --user --bpf: libc's allocators paired in the kernel
# (BPF uprobes, bpf/memleak.bpf.c), with the ground truth of
# mem-kmemleak-user.sh: tests/helpers/mem-leaks leaks exactly K blocks of S
# bytes from leak_blocks() and frees everything its churn_*() functions
# allocate (malloc, calloc, realloc, aligned_alloc, memalign,
# posix_memalign; N of each). Recorded with a COMMAND and with -p, and
# --live: K objects and K*S bytes under leak_blocks, nothing under the
# churn functions, every allocation and free counted; kmemprof counts every
# allocation per function exactly; the reports and flame graphs are those
# of the uprobe mode, from a file many times smaller. Bad input fails in
# one line.
. "$(dirname "$0")/../helpers/record-lib.sh"
[ -e /sys/bus/event_source/devices/uprobe ] || skip "no uprobe PMU"
[ "$(uname -m)" = x86_64 ] || skip "--user reads x86_64 registers"
[ -r /sys/kernel/btf/vmlinux ] || skip "kernel without BTF"
command -v python3 >/dev/null || skip "no python3"
ANA=$B/pp-analyze
KC=$(dirname "$0")/../helpers/kmem-check.py
bin=$HELP/mem-leaks
K=13 S=4000 N=300
churn="churn_malloc churn_calloc churn_realloc churn_aligned"
allocs=$((K + 8 * N)) frees=$((8 * N))

check_leak() {	# FILE WHAT
	python3 "$KC" "$1" leak_blocks $churn > "$TMP/c.out" || fail "$2: bad JSON"
	cat "$TMP/c.out"
	grep -qx "leak_blocks $K $((K * S))" "$TMP/c.out" || fail "$2: not $K objects, $((K * S)) bytes under leak_blocks"
	for f in $churn; do
		grep -qx "$f 0 0" "$TMP/c.out" || fail "$2: $f has outstanding objects"
	done
	grep -qx "summary objects $K" "$TMP/c.out" || fail "$2: other objects outstanding"
	grep -qx "summary allocations $allocs" "$TMP/c.out" || fail "$2: not $allocs allocations"
	grep -qx "summary frees $frees" "$TMP/c.out" || fail "$2: not $frees frees"
	grep -qx "summary frees_before_recording 0" "$TMP/c.out" || fail "$2: unknown frees"
	# posix_memalign's pointer, read from *memptr at the return
	grep -qx "summary untracked_posix_memalign 0" "$TMP/c.out" || fail "$2: posix_memalign blocks not tracked"
}

check_prof() {	# FILE WHAT
	python3 "$KC" "$1" leak_blocks $churn > "$TMP/p.out" || fail "$2: kmemprof JSON"
	cat "$TMP/p.out"
	grep -q "^leak_blocks $K $((K * S))$" "$TMP/p.out" || fail "$2: kmemprof leak_blocks"
	grep -q "^churn_malloc $N " "$TMP/p.out" || fail "$2: kmemprof churn_malloc"
	grep -q "^churn_calloc $N " "$TMP/p.out" || fail "$2: kmemprof churn_calloc"
	# realloc(NULL, 32) (the compiler makes it malloc), realloc to 64, to 4096
	grep -q "^churn_realloc $((3 * N)) " "$TMP/p.out" || fail "$2: kmemprof churn_realloc"
	grep -q "^churn_aligned $((3 * N)) $((N * (128 + 512 + 256)))$" "$TMP/p.out" || fail "$2: kmemprof churn_aligned"
	grep -qx "summary calls $allocs" "$TMP/p.out" || fail "$2: not $allocs calls"
}

# recorded with a COMMAND, both ways: the BPF mode and the uprobe mode
$REC kmemleak --user --bpf -o "$TMP/b.trace" -- "$bin" $K $S $N 2>"$TMP/rec.err" || fail "record --bpf: $(cat "$TMP/rec.err")"
grep -q "kmemleak: [0-9]* aggregated stacks" "$TMP/rec.err" || fail "record --bpf: no aggregates: $(cat "$TMP/rec.err")"
# frame pointers, as the BPF mode's stacks (the kernel-side walker, plain -g's,
# reaches _start through libc: the reports would differ by those frames)
$REC -q --call-graph fp kmemleak --user -o "$TMP/u.trace" -- "$bin" $K $S $N || fail "record uprobes"
$ANA kmemleak --json "$TMP/b.trace" > "$TMP/leak.json" || fail "kmemleak"
check_leak "$TMP/leak.json" recorded
$ANA kmemprof --json "$TMP/b.trace" > "$TMP/prof.json" || fail "kmemprof"
check_prof "$TMP/prof.json" recorded
# -i: each window's sums go to one interval, so the intervals add up to every call
$ANA kmemprof -i 100 --json "$TMP/b.trace" > "$TMP/iv.json" || fail "kmemprof -i"
sum=$(python3 -c 'import json, sys
print(sum(d["calls"] for d in map(json.loads, open(sys.argv[1])) if d["type"] == "kmemprof_summary"))' "$TMP/iv.json")
[ "$sum" = $allocs ] || fail "kmemprof -i: the intervals hold $sum calls, not $allocs"
# the same text reports as the uprobe mode (but the oldest block's age)
for m in kmemleak kmemprof; do
	$ANA $m "$TMP/b.trace" | sed 's/oldest [^,]*,//' > "$TMP/b.$m" || fail "$m text"
	$ANA $m "$TMP/u.trace" | sed 's/oldest [^,]*,//' > "$TMP/u.$m" || fail "$m text, uprobes"
	diff "$TMP/u.$m" "$TMP/b.$m" || fail "$m: the BPF mode's report is not the uprobe mode's"
	grep -q "^    leak_blocks$" "$TMP/b.$m" || fail "$m: leak_blocks not named"
	# the same flame graph
	$ANA $m --flame-graph "$TMP/fb" "$TMP/b.trace" > /dev/null 2>&1 || fail "$m flame graph"
	$ANA $m --flame-graph "$TMP/fu" "$TMP/u.trace" > /dev/null 2>&1 || fail "$m flame graph, uprobes"
	[ -s "$TMP/fb.svg" ] || fail "$m: no svg"
	diff <(sort "$TMP/fu.folded") <(sort "$TMP/fb.folded") || fail "$m: folded stacks differ"
done
grep -q ";leak_blocks $((K * S))$" "$TMP/fb.folded" || fail "kmemprof folded: leak_blocks not $((K * S)) bytes"
head -5 "$TMP/b.kmemleak"
grep -q "^$((K * S / 1024))\.[0-9] KiB in $K objects" "$TMP/b.kmemleak" || fail "text: no row of $K objects"
bs=$(stat -c %s "$TMP/b.trace") us=$(stat -c %s "$TMP/u.trace")
echo "file: $bs bytes (BPF), $us bytes (uprobes)"
[ $((bs * 10)) -le "$us" ] || fail "the BPF file ($bs bytes) is not 10 times smaller than the uprobe one ($us)"

# -p PID: the probes go on the libc the running process maps
PP_WAIT=$TMP/go "$bin" $K $S $N & P=$!
# the helper's own libc code: before the exec, the forked shell's libc is
# mapped; after it, ld.so maps libc read-only first and its code a moment later
until [ "$(readlink /proc/$P/exe)" = "$(readlink -f "$bin")" ] &&
	grep -q ' r-xp .*libc\.so' /proc/$P/maps 2>/dev/null; do kill -0 $P || fail "helper died"; sleep 0.01; done
$REC -q kmemleak --user --bpf -p $P -o "$TMP/p.trace" 2>"$TMP/err" & R=$!
until [ -s "$TMP/p.trace" ] && ls -l /proc/$R/fd 2>/dev/null | grep -q 'bpf-link\|anon_inode:\[perf_event\]'; do
	kill -0 $R 2>/dev/null || fail "pp-record -p exited early: $(cat "$TMP/err")"
	sleep 0.01
done
sleep 0.3
touch "$TMP/go"
wait $P || fail "helper under -p"
kill -INT $R 2>/dev/null; wait $R || fail "pp-record -p: $(cat "$TMP/err")"
$ANA kmemleak --json "$TMP/p.trace" > "$TMP/p.json" || fail "kmemleak -p"
check_leak "$TMP/p.json" "-p PID"
$ANA kmemprof --json "$TMP/p.trace" > "$TMP/pp.json" || fail "kmemprof -p"
check_prof "$TMP/pp.json" "-p PID"

# live
$ANA kmemleak --user --bpf --json --live -- "$bin" $K $S $N > "$TMP/live.json" || fail "kmemleak --live"
check_leak "$TMP/live.json" live
$ANA kmemprof --user --bpf --json --live -- "$bin" $K $S $N > "$TMP/livep.json" || fail "kmemprof --live"
check_prof "$TMP/livep.json" live

# bad input: one line, non-zero
bad() {	# WHAT EXPECTED-TEXT COMMAND...
	local what=$1 want=$2
	shift 2
	"$@" > "$TMP/bad.out" 2>&1 && fail "$what: exit 0"
	cat "$TMP/bad.out"
	[ "$(wc -l < "$TMP/bad.out")" = 1 ] || fail "$what: not one line"
	grep -q -- "$want" "$TMP/bad.out" || fail "$what: no '$want'"
}
bad "--bpf without --user" "goes with --user" $REC kmemleak --bpf -o "$TMP/x.trace" -- true
bad "kmemprof --bpf without --user" "goes with --user" $REC kmemprof --bpf -o "$TMP/x.trace" -- true
bad "no libc" "has no 'malloc'" $REC kmemleak --user --bpf --libc /bin/true -o "$TMP/x.trace" -- true
bad "missing libc" "cannot read /nonexistent" $REC kmemleak --user --bpf --libc /nonexistent -o "$TMP/x.trace" -- true
bad "--bpf on an uprobe file" "holds no kmemleak aggregates" $ANA kmemleak --user --bpf "$TMP/u.trace"
bad "live without --user" "goes with --user" $ANA kmemleak --bpf --live -- true
echo "ok"
