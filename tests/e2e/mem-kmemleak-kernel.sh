#!/usr/bin/env bash
# kmemleak on the kernel's allocators: tests/helpers/mem-pipes creates N pipes,
# writes a byte into each and closes them all. kmemprof sees exactly N
# allocations of each pipe object (pipe_inode_info and its buffer array in
# alloc_pipe_info, the buffer page in the pipe write), and kmemleak finds none
# of them outstanding: they are freed at the close, by whichever task. Only
# the helper's allocations count (-- CMD); its frees may run anywhere. The
# slab allocator's own bookkeeping is left out: pages a slab cache grows by
# (allocate_slab) and the memcg vector a fresh slab gets at its first accounted
# object (alloc_slab_obj_exts, under alloc_pipe_info's stack) hold other
# objects too and stay cached; how many there are depends on what the rest of
# the host did to those caches (1-6 vectors beside a pipe-making loop).
. "$(dirname "$0")/../helpers/record-lib.sh"
[ -d /sys/kernel/tracing/events/kmem ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
[ -d /sys/kernel/tracing/events/kmem/kmalloc ] || skip "no kmem tracepoints"
command -v python3 >/dev/null || skip "no python3"
ANA=$B/pp-analyze
KC=$(dirname "$0")/../helpers/kmem-check.py
N=150
X="-x allocate_slab -x alloc_slab_obj_exts"

$REC -q kmemleak -o "$TMP/k.trace" -- "$HELP/mem-pipes" $N || fail "record"
$ANA kmemprof --json --top 0 "$TMP/k.trace" > "$TMP/prof.json" || fail "kmemprof"
python3 "$KC" $X "$TMP/prof.json" alloc_pipe_info anon_pipe_write pipe_write > "$TMP/p.out" || fail "JSON"
cat "$TMP/p.out"
lost=$(awk '$1 == "summary" && $2 == "lost_windows" { print $3 }' "$TMP/p.out")
if [ "$lost" = 0 ]; then
	# two allocations per pipe in alloc_pipe_info, one page per pipe written
	grep -q "^alloc_pipe_info $((2 * N)) " "$TMP/p.out" || fail "not $((2 * N)) allocations in alloc_pipe_info"
	pages=$(awk '$1 ~ /pipe_write$/ { n += $2 } END { print n + 0 }' "$TMP/p.out")
	[ "$pages" = $N ] || fail "$pages pipe buffer pages, not $N"
fi
$ANA kmemleak --json --top 0 "$TMP/k.trace" > "$TMP/leak.json" || fail "kmemleak"
python3 "$KC" $X "$TMP/leak.json" alloc_pipe_info anon_pipe_write pipe_write > "$TMP/l.out" || fail "JSON"
cat "$TMP/l.out"
for f in alloc_pipe_info anon_pipe_write pipe_write; do
	grep -qx "$f 0 0" "$TMP/l.out" || fail "$f: objects outstanding after the pipes were closed"
done
# the same with perf-prof's explicit form, for kmalloc/kfree only
A='kmem:kmalloc//ptr=ptr/size=bytes_alloc/stack/' F='kmem:kfree//ptr=ptr/'
$REC -q kmemleak --alloc "$A" --free "$F" -o "$TMP/x.trace" -- "$HELP/mem-pipes" $N || fail "record --alloc"
$CHECK "$TMP/x.trace" > "$TMP/x.out" || fail "checker"
[ "$(evcount kmem:kmem_cache_alloc "$TMP/x.out")" = "" ] || fail "--alloc/--free recorded other events"
$ANA kmemprof --alloc "$A" --free "$F" --json "$TMP/x.trace" > "$TMP/xp.json" || fail "kmemprof --alloc"
python3 "$KC" $X "$TMP/xp.json" alloc_pipe_info > "$TMP/xp.out"
cat "$TMP/xp.out"
grep -q "^alloc_pipe_info [1-9]" "$TMP/xp.out" || fail "explicit form: no kmalloc in alloc_pipe_info"
$ANA kmemleak --alloc "$A" --free "$F" --json "$TMP/x.trace" > "$TMP/xl.json" || fail "kmemleak --alloc"
python3 "$KC" $X "$TMP/xl.json" alloc_pipe_info > "$TMP/xl.out"
grep -qx "alloc_pipe_info 0 0" "$TMP/xl.out" || fail "explicit form: pipe objects outstanding"
# bad input: one line, non-zero
if $ANA kmemleak --alloc 'kmem:kmalloc//ptr=nope/' --free "$F" "$TMP/x.trace" > "$TMP/e.out" 2>&1; then
	fail "a missing field was accepted"
fi
cat "$TMP/e.out"
[ "$(wc -l < "$TMP/e.out")" = 1 ] && grep -q "no field 'nope'" "$TMP/e.out" || fail "bad field message"
if $REC kmemleak --alloc "$A" -o "$TMP/y.trace" -- true > "$TMP/e2.out" 2>&1; then
	fail "--alloc without --free was accepted"
fi
grep -q -- "--alloc and --free go together" "$TMP/e2.out" || fail "--alloc alone message"
echo "ok"
