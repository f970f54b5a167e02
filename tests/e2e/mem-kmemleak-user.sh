#!/usr/bin/env bash
# kmemleak and kmemprof on libc's allocators (uprobes with registers), with
# ground truth: tests/helpers/mem-leaks leaks exactly K blocks of S bytes from
# leak_blocks() and frees everything its churn_*() functions allocate
# (malloc, calloc, realloc, aligned_alloc, memalign, posix_memalign; N of
# each). Recorded, -p and
# --live: K objects and K*S bytes under leak_blocks, nothing under the churn
# functions; kmemprof counts every allocation per function exactly.
. "$(dirname "$0")/../helpers/record-lib.sh"
[ -e /sys/bus/event_source/devices/uprobe ] || skip "no uprobe PMU"
[ "$(uname -m)" = x86_64 ] || skip "--user reads x86_64 registers"
command -v python3 >/dev/null || skip "no python3"
ANA=$B/pp-analyze
KC=$(dirname "$0")/../helpers/kmem-check.py
bin=$HELP/mem-leaks
K=13 S=4000 N=300
churn="churn_malloc churn_calloc churn_realloc churn_aligned"

check_leak() {	# FILE WHAT
	python3 "$KC" "$1" leak_blocks $churn > "$TMP/c.out" || fail "$2: bad JSON"
	cat "$TMP/c.out"
	grep -qx "leak_blocks $K $((K * S))" "$TMP/c.out" || fail "$2: not $K objects, $((K * S)) bytes under leak_blocks"
	for f in $churn; do
		grep -qx "$f 0 0" "$TMP/c.out" || fail "$2: $f has outstanding objects"
	done
	grep -qx "summary uncertain_objects 0" "$TMP/c.out" || echo "note: $2: records were lost"
	# posix_memalign's pointer, read from the caller's frame
	grep -qx "summary untracked_posix_memalign 0" "$TMP/c.out" || fail "$2: posix_memalign blocks not tracked"
}

# recorded
$REC -q kmemleak --user -o "$TMP/u.trace" -- "$bin" $K $S $N || fail "record"
$ANA kmemleak --json "$TMP/u.trace" > "$TMP/leak.json" || fail "kmemleak"
check_leak "$TMP/leak.json" recorded
# the text report names the function and the exact total
$ANA kmemleak "$TMP/u.trace" > "$TMP/leak.txt" || fail "kmemleak text"
head -5 "$TMP/leak.txt"
grep -q "^$((K * S / 1024))\.[0-9] KiB in $K objects" "$TMP/leak.txt" || fail "text: no row of $K objects"
grep -q "^    leak_blocks$" "$TMP/leak.txt" || fail "text: leak_blocks not named"
# the flame graph is weighted by outstanding bytes
$ANA kmemleak --flame-graph "$TMP/fg" "$TMP/u.trace" > /dev/null 2>&1 || fail "flame graph"
grep -q ";leak_blocks $((K * S))$" "$TMP/fg.folded" || fail "folded: leak_blocks not $((K * S)) bytes"
[ -s "$TMP/fg.svg" ] || fail "no svg"

# kmemprof: every allocation, per function
$ANA kmemprof --json "$TMP/u.trace" > "$TMP/prof.json" || fail "kmemprof"
python3 "$KC" "$TMP/prof.json" leak_blocks $churn > "$TMP/p.out" || fail "kmemprof JSON"
cat "$TMP/p.out"
grep -q "^leak_blocks $K $((K * S))$" "$TMP/p.out" || fail "kmemprof leak_blocks"
grep -q "^churn_malloc $N " "$TMP/p.out" || fail "kmemprof churn_malloc"
grep -q "^churn_calloc $N " "$TMP/p.out" || fail "kmemprof churn_calloc"
# realloc(NULL, 32) (the compiler makes it malloc), realloc to 64, to 4096
grep -q "^churn_realloc $((3 * N)) " "$TMP/p.out" || fail "kmemprof churn_realloc"
grep -q "^churn_aligned $((3 * N)) $((N * (128 + 512 + 256)))$" "$TMP/p.out" || fail "kmemprof churn_aligned"

# -p PID: the probes go on the libc the running process maps
PP_WAIT=$TMP/go "$bin" $K $S $N & P=$!
# the helper's own libc code: before the exec, the forked shell's libc is
# mapped; after it, ld.so maps libc read-only first and its code a moment later
until [ "$(readlink /proc/$P/exe)" = "$(readlink -f "$bin")" ] &&
	grep -q ' r-xp .*libc\.so' /proc/$P/maps 2>/dev/null; do kill -0 $P || fail "helper died"; sleep 0.01; done
$REC -q kmemleak --user -p $P -o "$TMP/p.trace" 2>"$TMP/err" & R=$!
wait_recording "$TMP/p.trace" $R	# the probes are on
touch "$TMP/go"
wait $P || fail "helper under -p"
kill -INT $R 2>/dev/null; wait $R || fail "pp-record -p: $(cat "$TMP/err")"
$ANA kmemleak --json "$TMP/p.trace" > "$TMP/p.json" || fail "kmemleak -p"
check_leak "$TMP/p.json" "-p PID"

# live
$ANA kmemleak --user --json --live -- "$bin" $K $S $N > "$TMP/live.json" || fail "kmemleak --live"
check_leak "$TMP/live.json" live
echo "ok"
