#!/usr/bin/env bash
# A profiler whose init fails (the file lacks its events, an option names a
# field the event lacks) has built part of its state: the session calls its
# deinit then too, so nothing leaks (issue 15: fuzz-replay ran without leak
# detection because of it). Every profiler, on files that make most of them
# refuse, under the sanitized pp-analyze with LeakSanitizer on.
set -u
. "$(dirname "$0")/lib.bash"
B=${PP_BUILD:?}
TOP=${PP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
A=$B/asan/pp-analyze
need_built "$A"
T=$(mktemp -d /tmp/pp-e2e-init-leaks.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=99
export LSAN_OPTIONS=suppressions=$TOP/tests/lsan.supp:print_suppressions=0:exitcode=99
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
profilers=$("$B/pp-analyze" list | awk '/^profilers/ { p = 1; next } /^commands/ { p = 0 } p { print $1 }')
[ -n "$profilers" ] || fail "pp-analyze list names no profiler"
refused=0
check() {	# ARGS...: must not leak (exit 99) nor crash
	"$A" "$@" >/dev/null 2>"$T/err"
	local rc=$?
	grep -q "LeakSanitizer" "$T/err" && fail "'$*' leaks: $(grep -m3 -A6 'Direct leak' "$T/err")"
	[ $rc = 99 ] || [ $rc -ge 128 ] && fail "'$*': exit $rc: $(tail -5 "$T/err")"
	[ $rc = 0 ] || refused=$((refused + 1))
	return 0
}
for f in getppid sched spin; do
	for p in $profilers; do
		check $p "$TOP/tests/data/$f.trace"
	done
done
# inits that fail after their options and state were set up
E=syscalls:sys_enter_getppid
check multi-trace -e "$E//key=nosuch/" -e "$E" "$TOP/tests/data/getppid.trace"
check num-dist -e "$E//num=nosuch/" "$TOP/tests/data/getppid.trace"
check top -e "$E//top-by=nosuch/" "$TOP/tests/data/getppid.trace"
check hrcount "$TOP/tests/data/getppid.trace"
check task-state --filter 'a*' "$TOP/tests/data/getppid.trace"
check rundelay --filter 'a*' "$TOP/tests/data/getppid.trace"
[ $refused -ge 10 ] || fail "only $refused runs were refused: the files no longer make inits fail"
echo "ok: $refused failed inits, no leak"
