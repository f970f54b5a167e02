#!/usr/bin/env bash
# Golden tests: pp-analyze's profilers over small traces recorded by the real
# pp-record and committed under tests/data/, compared byte for byte with
# tests/data/NAME.expected. Needs no kernel feature, so the analyzers are
# tested wherever pp builds. Times print in UTC (TZ=UTC) so the output does
# not depend on the local zone.
#
#   PP_GOLDEN_UPDATE=1 tests/e2e/analyze-golden.sh   rewrite the .expected files
#
# The traces: getppid.trace (300 getppid() of tests/helpers/getppid-n),
# sched.trace (sched_switch/wakeup/waking of tests/helpers/sched-sleep 120 1),
# sched-all.trace (system-wide sched_switch/wakeup while sched-sleep 100 1 ran),
# getppid-filter.trace (20 getppid() with a kernel filter common_pid>1 and the
# BPF filter --exclude_pid=1: info prints them on its filters: line),
# spin.trace (pp-record -F 999 -g of tests/helpers/spin 0.4, binary deleted):
# profile's table, its --json rows, and its --folded stacks (spin-profile).
set -u
B=$(cd "${PP_BUILD:?}" && pwd)
D=$(cd "$(dirname "$0")/../data" && pwd)
export TZ=UTC LC_ALL=C
fail=0 n=0
cases=(
	"getppid-info|info getppid.trace"
	"getppid-filter-info|info getppid-filter.trace"
	"getppid-trace|trace getppid.trace"
	"getppid-stat|stat getppid.trace"
	"getppid-stat-json|stat --json -e syscalls:sys_enter_getppid getppid.trace"
	"getppid-top|top -e syscalls:sys_enter_getppid getppid.trace"
	"sched-trace|trace sched.trace"
	"sched-trace-filter|trace -e sched:sched_wak* sched.trace"
	"sched-stat-perins|stat --perins -i 50 sched-all.trace"
	"sched-stat-json|stat --json --perins -i 50 sched-all.trace"
	"sched-top-comm|top -e sched:sched_switch//key=prev_comm/ sched-all.trace"
	"sched-top-pid|top -e sched:sched_switch//key=prev_pid/comm=prev_comm/ sched-all.trace"
	"sched-top-by|top -e sched:sched_wakeup//key=target_cpu/top-by=prio/ sched-all.trace"
	"sched-top-json|top --json -e sched:sched_switch//key=next_comm/ sched-all.trace"
	"sched-numdist|num-dist -e sched:sched_switch//num=prev_prio/,sched:sched_wakeup//num=prio/ sched-all.trace"
	"sched-numdist-json|num-dist --json -i 50 -e sched:sched_switch//num=next_pid/ sched-all.trace"
	"sched-numdist-than|num-dist --than 1000 -e sched:sched_switch//num=next_pid/ sched-all.trace"
	"sched-numdist-than-json|num-dist --json --than 1000 -e sched:sched_switch//num=next_pid/ sched-all.trace"
	"sched-trace-json|trace --json -e sched:sched_wak* sched.trace"
	"spin-profile|profile --folded spin.trace"
	"spin-profile-table|profile spin.trace"
	"spin-profile-children|profile --children --percent-limit 0.5 spin.trace"
	"spin-profile-json|profile --json spin.trace"
	"spin-profile-folded-json|profile --json --folded spin.trace"
	"spin-trace|trace -N 40 spin.trace"
	"spin-trace-json|trace --json -N 5 spin.trace"
)
cd "$D" || exit 1
for c in "${cases[@]}"; do
	name=${c%%|*}
	args=${c#*|}
	n=$((n + 1))
	# shellcheck disable=SC2086
	out=$("$B/pp-analyze" $args 2>/dev/null; echo "rc=$?")
	if [ "${PP_GOLDEN_UPDATE:-}" = 1 ]; then
		printf '%s\n' "$out" > "$name.expected"
		continue
	fi
	if [ ! -f "$name.expected" ]; then
		echo "FAIL $name: no $D/$name.expected (run with PP_GOLDEN_UPDATE=1)"; fail=$((fail + 1)); continue
	fi
	if ! diff -u "$name.expected" <(printf '%s\n' "$out") > /tmp/pp-golden.$$.diff; then
		echo "FAIL $name: pp-analyze $args"
		head -40 /tmp/pp-golden.$$.diff
		fail=$((fail + 1))
	fi
done
rm -f /tmp/pp-golden.$$.diff
# JSON outputs: every line one object.
for j in getppid-stat-json sched-stat-json sched-top-json sched-numdist-json \
	sched-numdist-than-json sched-trace-json spin-trace-json spin-profile-json \
	spin-profile-folded-json; do
	grep -v '^rc=' "$j.expected" | python3 -c '
import json, sys
for i, l in enumerate(sys.stdin):
    o = json.loads(l)
    assert isinstance(o, dict), "line %d is not an object" % i
' || { echo "FAIL $j: a line is not a JSON object"; fail=$((fail + 1)); }
done
[ "${PP_GOLDEN_UPDATE:-}" = 1 ] && { echo "updated $n expected outputs in $D"; exit 0; }
[ $fail = 0 ] || { echo "$fail of $n golden outputs differ"; exit 1; }
echo "ok: $n golden outputs"
