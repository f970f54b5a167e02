#!/usr/bin/env bash
# --pprof FILE on every profiler that draws a flame graph, opened with the
# real client (`go tool pprof`, tests/helpers/pprof-check.py): the totals
# equal pp's folded output of the same run exactly, every function's flat
# share is its share as the innermost folded frame, samples carry comm/pid
# labels, and the sampled binary is a mapping with its build-id.
#   profile:      tests/helpers/spin sampled -F 999 -g (samples, cpu ns)
#   task-state -g and offcpu: tests/helpers/bpf-naps (off-CPU ns)
#   lock:         tests/helpers/bpf-contend (futex wait ns)
set -u
B=${PP_BUILD:?}
skip() { echo "skip: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
[ "$(id -u)" = 0 ] || skip "needs root for perf events and BPF"
command -v go >/dev/null || skip "no go tool pprof (Debian golang-go: scripts/install-deps.sh)"
command -v python3 >/dev/null || skip "no python3"
T=$(mktemp -d /tmp/pp-e2e-pprof.XXXXXX)
trap 'rm -rf "$T"' EXIT
export HOME=$T GOCACHE=$T/go-cache
check=$(dirname "$0")/../helpers/pprof-check.py

# profile
cp "$B/tests/helpers/spin" "$T/spin"
bid=$(readelf -n "$T/spin" | awk '/Build ID/ { print $3 }')
"$B/pp-record" -q -F 999 -g -o "$T/p.trace" -- "$T/spin" 1 >/dev/null 2>"$T/rec.err" ||
	fail "pp-record profile (cpu-clock): $(head -3 "$T/rec.err")"
"$B/pp-analyze" profile --folded --pprof "$T/p.pb.gz" "$T/p.trace" >"$T/p.folded" 2>"$T/err" ||
	fail "profile --pprof: $(cat "$T/err")"
gzip -t "$T/p.pb.gz" || fail "profile: not gzip"
python3 "$check" "$T/p.pb.gz" "$T/p.folded" samples --label comm:spin \
	--mapping "$T/spin:$bid" || fail "profile --pprof (samples)"
python3 "$check" "$T/p.pb.gz" "$T/p.folded" cpu --no-total || fail "profile --pprof (cpu)"
go tool pprof -top "$T/p.pb.gz" 2>/dev/null | grep -q 'spin_alpha$' || fail "profile: spin_alpha not in -top"
go tool pprof -raw "$T/p.pb.gz" 2>/dev/null | grep -q '^Period: 1001001$' ||
	fail "profile: the period is not 1e9/999 ns"

# task-state -g and offcpu on one recording
if [ -x "$B/tests/helpers/bpf-naps" ] && [ -r /sys/kernel/btf/vmlinux ] && command -v taskset >/dev/null; then
	"$B/pp-record" -q -a -g -e sched:sched_switch,sched:sched_waking,sched:sched_wakeup_new \
		-o "$T/o.trace" offcpu -- taskset -c 0 "$B/tests/helpers/bpf-naps" 4 20 >"$T/rec.out" 2>&1 ||
		{ cat "$T/rec.out"; fail "pp-record offcpu -e sched:..."; }
	"$B/pp-analyze" task-state -S -D --filter 'pp-nap-*' -g --flame-graph "$T/ts" \
		--pprof "$T/ts.pb.gz" "$T/o.trace" >/dev/null 2>"$T/err" || fail "task-state --pprof: $(cat "$T/err")"
	python3 "$check" "$T/ts.pb.gz" "$T/ts.folded" off_cpu --label comm:pp-nap-long ||
		fail "task-state --pprof"
	"$B/pp-analyze" offcpu --flame-graph "$T/off" --pprof "$T/off.pb.gz" "$T/o.trace" \
		>/dev/null 2>"$T/err" || fail "offcpu --pprof: $(cat "$T/err")"
	python3 "$check" "$T/off.pb.gz" "$T/off.folded" off_cpu --label comm:pp-nap-short ||
		fail "offcpu --pprof"
	go tool pprof -top "$T/off.pb.gz" 2>/dev/null | grep -q . || fail "offcpu: empty -top"
else
	echo "skip part: task-state/offcpu need bpf-naps, BTF and taskset"
fi

# lock
if [ -x "$B/tests/helpers/bpf-contend" ] && [ -r /sys/kernel/btf/vmlinux ]; then
	"$B/pp-record" -q -o "$T/l.trace" lock -- "$B/tests/helpers/bpf-contend" 4 30 2000 \
		>/dev/null 2>"$T/rec.err" || { cat "$T/rec.err"; fail "pp-record lock"; }
	"$B/pp-analyze" lock --flame-graph "$T/l" --pprof "$T/l.pb.gz" "$T/l.trace" >/dev/null 2>"$T/err" ||
		fail "lock --pprof: $(cat "$T/err")"
	python3 "$check" "$T/l.pb.gz" "$T/l.folded" lock_wait --label comm:bpf-contend || fail "lock --pprof"
else
	echo "skip part: lock needs bpf-contend and BTF"
fi

# bad paths: one clear line, non-zero exit, before any replay
runs=("profile $T/p.trace")
[ -f "$T/l.trace" ] && runs+=("lock $T/l.trace")
for r in "${runs[@]}"; do
	for bad in "$T/nodir/x.pb.gz" "$T" -; do
		# shellcheck disable=SC2086
		if "$B/pp-analyze" $r --pprof "$bad" >"$T/out" 2>"$T/err"; then
			fail "$r --pprof '$bad' accepted"
		fi
		[ "$(wc -l <"$T/err")" = 1 ] && grep -q '^pp-analyze: ' "$T/err" && [ ! -s "$T/out" ] ||
			fail "$r --pprof '$bad': $(cat "$T/err")"
	done
done
echo "ok: pprof exports of profile, task-state, offcpu and lock read by go tool pprof and match the folded stacks"
