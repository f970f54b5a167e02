#!/usr/bin/env bash
# Run pp's tests: cmocka unit tests (plain, and again from a sanitized build
# when given), then the end-to-end scripts in tests/e2e/ (exit 0 pass,
# 77 skip with a reason, anything else fails). Prints a summary; exits
# non-zero if anything failed.
#
#   tests/run-tests.sh [--unit-only] [--only GLOB] BUILD_DIR [SANITIZED_BUILD_DIR]
#
# --only GLOB runs only the tests whose name (unit/test-x, asan/test-x,
# e2e/name) matches the shell glob, e.g. --only 'e2e/record-*'.
set -u
unit_only=0
only='*'
while [ $# -gt 0 ]; do
	case "$1" in
	--unit-only) unit_only=1; shift ;;
	--only) only=${2:?--only needs a glob}; shift 2 ;;
	*) break ;;
	esac
done
build=${1:-build}
asan=${2:-}
top=$(cd "$(dirname "$0")/.." && pwd)
pass=0 fail=0 skip=0
failed=()
log_dir=$(mktemp -d /tmp/pp-tests.XXXXXX)

run_one() {	# name command...
	local name=$1; shift
	# shellcheck disable=SC2053
	[[ $name == $only ]] || return 0
	local log="$log_dir/$(echo "$name" | tr '/ ' '__').log"
	local start=$SECONDS rc
	"$@" >"$log" 2>&1 </dev/null
	rc=$?
	local t=$((SECONDS - start))
	if [ $rc -eq 0 ]; then
		pass=$((pass + 1)); printf '  PASS  %-44s %3ss\n' "$name" "$t"
	elif [ $rc -eq 77 ]; then
		skip=$((skip + 1))
		printf '  SKIP  %-44s %s\n' "$name" "$(grep -m1 -i 'skip' "$log" | cut -c1-100)"
	else
		fail=$((fail + 1)); failed+=("$name")
		printf '  FAIL  %-44s (exit %d)\n' "$name" "$rc"
		sed 's/^/        | /' "$log" | tail -40
	fi
}

echo "unit tests ($build)"
for t in "$build"/tests/test-*; do
	[ -x "$t" ] || continue
	case "$t" in *.o|*.d) continue ;; esac
	run_one "unit/$(basename "$t")" "$t"
done
if [ -n "$asan" ]; then
	echo "unit tests under ASan+UBSan ($asan)"
	for t in "$asan"/tests/test-*; do
		[ -x "$t" ] || continue
		case "$t" in *.o|*.d) continue ;; esac
		ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 LSAN_OPTIONS=suppressions=$top/tests/lsan.supp:print_suppressions=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
			run_one "asan/$(basename "$t")" "$t"
	done
fi
if [ $unit_only -eq 0 ]; then
	echo "end-to-end tests"
	for s in "$top"/tests/e2e/*.sh; do
		[ -f "$s" ] || continue
		PP_BUILD=$(cd "$build" && pwd) PP_TOP=$top run_one "e2e/$(basename "$s" .sh)" bash "$s"
	done
fi
echo
echo "summary: $pass passed, $fail failed, $skip skipped (logs in $log_dir)"
if [ $fail -ne 0 ]; then
	printf 'failed: %s\n' "${failed[@]}"
	exit 1
fi
exit 0
