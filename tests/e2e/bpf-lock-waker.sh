#!/usr/bin/env bash
# pp-record lock with the waker: tests/helpers/bpf-contend runs 4 threads
# that take one mutex from pp_contend_here() and release it there too.
# `pp-analyze lock` must name pp_contend_here as where they wait, the mutex
# address, and for waits on it a waker that is another thread of the
# helper whose unlock stack also passes through pp_contend_here; the flame
# graph ends those waits with "[woken by bpf-contend]".
set -u
B=${PP_BUILD:?PP_BUILD not set}
helper=$B/tests/helpers/bpf-contend
skip() { echo "skip: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
[ "$(id -u)" = 0 ] || skip "needs root for BPF"
[ -x "$helper" ] || skip "$helper not built"
[ -r /sys/kernel/btf/vmlinux ] || skip "kernel without BTF: BPF programs cannot load here"
T=$(mktemp -d /tmp/pp-e2e-lock.XXXXXX)
trap 'rm -rf "$T"' EXIT

"$B/pp-record" -q -o "$T/t" lock -- "$helper" 4 30 2000 >"$T/helper.out" 2>"$T/rec.err" ||
	{ cat "$T/rec.err"; fail "pp-record lock"; }
read -r _func _size mutex <"$T/helper.out"
"$B/pp-analyze" lock --flame-graph "$T/fg" "$T/t" >"$T/out" 2>&1 || { cat "$T/out"; fail "pp-analyze lock"; }
grep -q "0x$mutex" "$T/out" || { cat "$T/out"; fail "the mutex 0x$mutex is not named"; }
# the stacks of waits on the mutex, with their "woken by" blocks
awk -v m="lock 0x$mutex:" '/^[^ ]/ && index($0, m) { on = 1; print; next } /^[^ ]/ { on = 0 } on' \
	"$T/out" >"$T/mutex.out"
grep -q pp_contend_here "$T/mutex.out" || { cat "$T/out"; fail "waits do not name pp_contend_here"; }
n=$(grep -c "^  woken by bpf-contend " "$T/mutex.out")
[ "$n" -ge 1 ] || { cat "$T/out"; fail "no waker named for the mutex"; }
# waker != waiter, and the waker's stack (after "woken by") names pp_contend_here
awk '/^[^ ]/ { split($2, a, "/"); waiter = a[2]; inw = 0; next }
     /^  woken by / { split($NF, b, "/"); w = b[2]; sub(":", "", w); inw = 1; if (w == waiter) same++; next }
     /^    / && inw && /pp_contend_here/ { named++ }
     END { if (same) { print "waker == waiter " same " times"; exit 1 }
	   if (!named) { print "no waker stack through pp_contend_here"; exit 1 } }' "$T/mutex.out" ||
	{ cat "$T/mutex.out"; fail "waker check"; }
grep -q "\[lock 0x$mutex\];\[woken by bpf-contend\] " "$T/fg.folded" ||
	{ cat "$T/fg.folded"; fail "flame graph lacks the waker frame"; }
# from Linux 5.17 (bpf_loop) the stacks are walked by the unwind tables (libc
# has no frame pointers): waits on the mutex run down to the threads' start
if awk -F. '{ exit !($1 > 5 || ($1 == 5 && $2 >= 17)) }' /proc/sys/kernel/osrelease; then
	"$B/pp-analyze" info "$T/t" > "$T/info" || fail "pp-analyze info"
	grep -q '^user stacks: bpf (the kernel-side walker)' "$T/info" ||
		{ cat "$T/info"; fail "info: the lock stacks were not walked by the kernel-side walker"; }
	grep -q '^    clone3$' "$T/mutex.out" || { cat "$T/mutex.out"; fail "no waiter stack down to clone3"; }
fi
echo "ok: $n waiter stacks on 0x$mutex name their waker"
