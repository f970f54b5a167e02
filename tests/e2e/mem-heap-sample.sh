#!/usr/bin/env bash
# The sampled heap profiler (kmemleak/kmemprof --user --sample), with ground
# truth: tests/helpers/heap-truth allocates exactly MIB MiB from each of
# small_blocks(), mixed_blocks() and leak_blocks(), and leaks only the last.
# - --sample=1 (every call): exact calls and bytes per function, recorded and
#   --live, also with the three in threads and again in a fork()ed child, and
#   C++'s new and delete (tests/helpers/heap-cxx) at their callers;
# - the default rate (one sample per 512 KiB), beside a scheduler load: each
#   function's weighted bytes within 10% of its 1 GiB (about 2,000 samples
#   each: the error's standard deviation is near 2.2%), the leak named first
#   and nothing outstanding elsewhere; the pprof heap profile read by go tool
#   pprof matches the flame graph's stacks;
# - wrong uses get one line and exit 2.
set -u
. "$(dirname "$0")/lib.bash"
B=${PP_BUILD:?}
H=$B/tests/helpers/heap-truth
KC=$(dirname "$0")/../helpers/kmem-check.py
T=$(mktemp -d /tmp/pp-e2e-heap.XXXXXX)
load=
cleanup() {
	[ -n "$load" ] && kill -KILL -- -"$load" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
need_root "for uprobes"
need_uprobes
[ "$(uname -m)" = x86_64 ] || skip "the sampler's probes are read with x86_64 registers"
need_built "$H"
need_built "$B/tests/helpers/heap-cxx"
need_built "$B/libpp-heap.so"
need_tool python3 python3
funcs="small_blocks mixed_blocks leak_blocks"
MIB_=$((1 << 20))

# sums FILE MODE: "FUNC CALLS BYTES" per function of a --json report
sums() { python3 "$KC" "$1" $funcs > "$T/$2.sum" || fail "$2: bad JSON"; cat "$T/$2.sum"; }
has() { grep -qx "$2" "$T/$1.sum" || fail "$1: no line '$2'"; }

# --- every call: exact ---------------------------------------------------
"$B/pp-record" -q kmemprof --user --sample=1 -o "$T/x.trace" -- "$H" 1 2>"$T/err" ||
	fail_err "$T/err" "pp-record kmemprof --user --sample=1"
"$B/pp-analyze" kmemprof --json "$T/x.trace" > "$T/xp.json" 2>"$T/err" || fail_err "$T/err" "kmemprof"
sums "$T/xp.json" xp
has xp "small_blocks 16384 $MIB_"
has xp "mixed_blocks 1024 $MIB_"
has xp "leak_blocks 4 $MIB_"
"$B/pp-analyze" kmemleak --json "$T/x.trace" > "$T/xl.json" 2>"$T/err" || fail_err "$T/err" "kmemleak"
sums "$T/xl.json" xl
has xl "small_blocks 0 0"
has xl "mixed_blocks 0 0"
has xl "leak_blocks 4 $MIB_"
# threads, and a fork()ed child that keeps sampling: twice everything
"$B/pp-record" -q kmemleak --user --sample=1 -o "$T/tf.trace" -- "$H" 1 threads fork 2>"$T/err" ||
	fail_err "$T/err" "pp-record --sample=1 (threads, fork)"
"$B/pp-analyze" kmemprof --json "$T/tf.trace" > "$T/tf.json" 2>"$T/err" || fail_err "$T/err" "kmemprof (threads, fork)"
sums "$T/tf.json" tf
has tf "small_blocks 32768 $((2 * MIB_))"
has tf "mixed_blocks 2048 $((2 * MIB_))"
has tf "leak_blocks 8 $((2 * MIB_))"
# C++: libstdc++'s new and delete keep no frame pointer; the stacks start at their callers
"$B/pp-record" -q kmemprof --user --sample=1 -o "$T/c.trace" -- "$B/tests/helpers/heap-cxx" 1000 2>"$T/err" ||
	fail_err "$T/err" "pp-record --sample=1 (C++)"
"$B/pp-analyze" kmemprof --json "$T/c.trace" > "$T/c.json" 2>"$T/err" || fail_err "$T/err" "kmemprof (C++)"
python3 "$KC" "$T/c.json" new_arrays new_objects > "$T/c.sum" || fail "C++: bad JSON"
cat "$T/c.sum"
has c "new_arrays 1000 100000"
has c "new_objects 1000 48000"
# live
"$B/pp-analyze" kmemleak --user --sample=1 --json --live -- "$H" 1 > "$T/lv.json" 2>"$T/err" ||
	fail_err "$T/err" "kmemleak --sample=1 --live"
sums "$T/lv.json" lv
has lv "leak_blocks 4 $MIB_"
has lv "small_blocks 0 0"

# --- the default rate, beside a scheduler load ------------------------------
if command -v perf >/dev/null && perf bench sched messaging -g 1 -l 1 >/dev/null 2>&1; then
	set -m
	while kill -0 $$ 2>/dev/null; do perf bench sched messaging -g 2 -l 1000 >/dev/null 2>&1; done &
	load=$!
	set +m
	disown $load
else
	echo "note: no perf bench for a load: the default rate runs on an idle host"
fi
"$B/pp-record" -q kmemleak --user --sample -o "$T/s.trace" -- "$H" 1024 2>"$T/err" ||
	fail_err "$T/err" "pp-record kmemleak --user --sample"
[ -n "$load" ] && kill -KILL -- -"$load" 2>/dev/null
load=
within() {	# MODE FUNC [COLUMN TRUTH WHAT]: the function's bytes (or COLUMN) within 10% of 1 GiB (TRUTH)
	local col=${3:-3} truth=${4:-1073741824} what=${5:-bytes}
	awk -v f="$2" -v m="$1" -v c="$col" -v t="$truth" -v w="$what" '$1 == f { d = $c / t - 1
		printf "%s %s %s: %+.1f%%\n", m, f, w, 100 * d; exit !(d < 0.1 && d > -0.1) }' "$T/$1.sum" ||
		fail "$1: $2's $what not within 10% of $truth"
}
"$B/pp-analyze" kmemprof --json "$T/s.trace" > "$T/sp.json" 2>"$T/err" || fail_err "$T/err" "kmemprof (sampled)"
sums "$T/sp.json" sp
for f in $funcs; do within sp $f; done
"$B/pp-analyze" kmemleak --json "$T/s.trace" > "$T/sl.json" 2>"$T/err" || fail_err "$T/err" "kmemleak (sampled)"
sums "$T/sl.json" sl
within sl leak_blocks
within sl leak_blocks 2 4096 objects
has sl "small_blocks 0 0"
has sl "mixed_blocks 0 0"
"$B/pp-analyze" kmemleak "$T/s.trace" > "$T/sl.txt" 2>"$T/err" || fail_err "$T/err" "kmemleak text"
head -4 "$T/sl.txt"
grep -q '^sampled: one allocation every 512.0 KiB on average, [0-9]* samples' "$T/sl.txt" ||
	fail "kmemleak: no line that says the figures are sampled"
awk '/^    / { print $1; exit }' "$T/sl.txt" | grep -qx leak_blocks || fail "kmemleak: the first stack is not leak_blocks"

# pictures: the flame graph weighted by bytes, pprof's heap sample types
if command -v go >/dev/null; then
	export HOME=$T GOCACHE=$T/go-cache
	check=$(dirname "$0")/../helpers/pprof-check.py
	"$B/pp-analyze" kmemleak --flame-graph "$T/lfg" --pprof "$T/l.pb.gz" "$T/s.trace" >/dev/null 2>"$T/err" ||
		fail_err "$T/err" "kmemleak --flame-graph --pprof"
	python3 "$check" "$T/l.pb.gz" "$T/lfg.folded" inuse_space || fail "kmemleak --pprof (inuse_space)"
	"$B/pp-analyze" kmemprof --flame-graph "$T/pfg" --pprof "$T/p.pb.gz" "$T/s.trace" >/dev/null 2>"$T/err" ||
		fail_err "$T/err" "kmemprof --flame-graph --pprof"
	python3 "$check" "$T/p.pb.gz" "$T/pfg.folded" alloc_space || fail "kmemprof --pprof (alloc_space)"
	for i in alloc_objects alloc_space inuse_objects inuse_space; do
		go tool pprof -sample_index=$i -top "$T/l.pb.gz" > "$T/top.$i" 2>&1 || fail_err "$T/top.$i" "go tool pprof -sample_index=$i"
	done
	grep -q 'leak_blocks$' "$T/top.inuse_space" || fail "pprof inuse_space: no leak_blocks"
	grep -q 'small_blocks$' "$T/top.inuse_space" && fail "pprof inuse_space: small_blocks holds memory"
	grep -q 'small_blocks$' "$T/top.alloc_space" || fail "pprof alloc_space: no small_blocks"
else
	echo "note: no go tool pprof (Debian golang-go): the pprof check is left out"
fi

# --- wrong uses ---------------------------------------------------------------
bad() {	# WHAT PATTERN ARGS...: exit 2 and one line that matches
	local what=$1 pat=$2
	shift 2
	"$@" > /dev/null 2> "$T/bad"
	rc=$?
	[ $rc = 2 ] || fail_err "$T/bad" "$what: exit $rc, not 2"
	[ "$(wc -l < "$T/bad")" = 1 ] || fail_err "$T/bad" "$what: not one line"
	grep -q -- "$pat" "$T/bad" || fail_err "$T/bad" "$what: the message does not say '$pat'"
}
bad "-p" "for a running process use --user" "$B/pp-record" kmemleak --user --sample -p 1 -o "$T/b.trace"
bad "no --user" "it goes with --user" "$B/pp-record" kmemprof --sample -o "$T/b.trace" -- /bin/true
bad "--bpf" "without --bpf" "$B/pp-record" kmemprof --user --bpf --sample -o "$T/b.trace" -- /bin/true
bad "bad size" "bad --sample 'lots'" "$B/pp-record" kmemprof --user --sample=lots -o "$T/b.trace" -- /bin/true
echo "ok: --sample=1 exact (threads, fork, --live); 512 KiB sampling within 10% under load; pprof heap types"
