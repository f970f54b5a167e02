#!/usr/bin/env bash
# make test-stress: the whole test suite N times in a row (default 3) beside a
# scheduler-heavy load, so that a test that passes only on a quiet host fails
# here rather than in someone's landing. The load, on every CPU:
#  - `perf bench sched messaging` in a loop (hundreds of tasks passing
#    messages over sockets: wakeups, switches and migrations),
#  - a shell loop making pipes, files, processes and syscalls (fork/exec,
#    open/write/unlink, getppid-like churn) in its own temporary directory.
# Prints each run's summary line and time; exits non-zero if any run failed.
#
#   scripts/test-stress.sh [--runs N] BUILD_DIR [SANITIZED_BUILD_DIR]
set -u
runs=3
[ "${1:-}" = --runs ] && { runs=${2:?--runs needs a number}; shift 2; }
build=${1:-build}
asan=${2:-}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
if ! command -v perf >/dev/null || ! perf bench sched messaging -g 1 -l 1 >/dev/null 2>&1; then
	echo "test-stress: 'perf bench sched messaging' does not run here (install linux-perf: scripts/install-deps.sh)" >&2
	exit 1
fi
scratch=$(mktemp -d /tmp/pp-stress.XXXXXX)
loads=()
stop_load() {
	local p
	for p in "${loads[@]}"; do kill -TERM -- "-$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$scratch"
}
trap stop_load EXIT
trap 'exit 130' INT TERM
# Each load runs in its own process group (setsid) so that stopping it stops
# every task it started.
setsid bash -c 'while :; do perf bench sched messaging -g 10 -l 2000 >/dev/null 2>&1; done' &
loads+=($!)
setsid bash -c '
	d=$1; i=0
	while :; do
		i=$((i + 1))
		seq 1 2000 | sort -r | head -1 >/dev/null          # pipes and processes
		echo "$i" > "$d/f.$((i % 64))"; cat "$d/f.$((i % 64))" >/dev/null
		rm -f "$d/f.$(((i + 32) % 64))"
		ls -l /proc/self/fd /usr/bin >/dev/null 2>&1        # getdents, stat, readlink
		dd if=/dev/zero of="$d/big" bs=64k count=16 conv=fsync status=none
	done' stress-io "$scratch" &
loads+=($!)
sleep 1
echo "test-stress: $runs runs of the whole suite beside perf bench sched messaging and a pipe/file/syscall loop ($(nproc) CPUs)"
failed=0
for r in $(seq 1 "$runs"); do
	start=$SECONDS
	tests/run-tests.sh "$build" $asan > "$scratch/run.log" 2>&1
	rc=$?
	t=$((SECONDS - start))
	grep -E '^  (FAIL|SKIP) |^        \|' "$scratch/run.log" | head -200
	printf 'test-stress: run %d/%d: %s (%d s)\n' "$r" "$runs" "$(grep '^summary:' "$scratch/run.log")" "$t"
	[ $rc -eq 0 ] || failed=$((failed + 1))
done
echo "test-stress: $((runs - failed)) of $runs runs passed"
[ $failed -eq 0 ]
