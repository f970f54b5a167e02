# Shared by tests/e2e/record-*.sh (sourced). Sets REC, CHECK, HELP, TMP; skips
# (exit 77) when pp-record cannot record real events here.
set -u
B=${PP_BUILD:-$(cd "$(dirname "$0")/../.." && pwd)/build}
REC=$B/pp-record
CHECK=$B/tests/test-record-read
HELP=$B/tests/helpers
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
[ "$(id -u)" = 0 ] || skip "needs root for perf events and tracefs"
[ -x "$REC" ] || skip "no $REC (build first)"
[ -x "$CHECK" ] || skip "no $CHECK (make test builds it)"
TMP=$(mktemp -d /tmp/pp-e2e.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
# value KEY FILE: the value of a "key value" line of the checker output
value() { awk -v k="$1" '$1 == k { print $2; f = 1 } END { if (!f) print "" }' "$2"; }
# evcount NAME FILE
evcount() { awk -v n="$1" '$1 == "event" && $2 == n { print $3 }' "$2"; }
pidcount() { awk -v n="$1" '$1 == "pid_event" && $3 == n { print $4 }' "$2"; }
# wait_recording FILE PID: until pp-record (PID, started in the background)
# has its events on, which it shows by putting FILE in place; fails if it
# exits first or takes over 60 s (a loaded host is slow, never this slow)
wait_recording() {
	local i
	for i in $(seq 1200); do
		[ -e "$1" ] && return 0
		kill -0 "$2" 2>/dev/null || { wait "$2"; fail "pp-record exited ($?) before it recorded"; }
		sleep 0.05
	done
	fail "pp-record did not start recording in 60 s"
}
