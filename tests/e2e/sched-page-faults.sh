#!/usr/bin/env bash
# page-faults ground truth: a helper maps N fresh pages and writes one byte in
# each; page-faults must show exactly N faults inside [ADDR, ADDR + N pages),
# both as its own profiler and as an event source inside trace.
set -u
. "$(dirname "$0")/lib.bash"
B=${PP_BUILD:?}
N=100
T=$(mktemp -d /tmp/pp-e2e-pf.XXXXXX)
trap 'rm -rf "$T"' EXIT
need_root "for perf events"
need_perf
"$B/pp-record" -q -o "$T/t" page-faults -- "$B/tests/helpers/sched-touch" $N > "$T/addr" 2>"$T/err" ||
	fail_err "$T/err" "pp-record page-faults"
read -r a n ps < "$T/addr"
lo=$((16#$a)) hi=$((16#$a + n * ps))
in_range() {	# count the "addr HEX" values of stdin inside [lo, hi)
	grep -o "$1 addr [0-9a-f]*" | awk '{ print $NF }' | while read -r x; do
		v=$((16#$x)); [ $v -ge $lo ] && [ $v -lt $hi ] && echo y
	done | wc -l
}
c=$("$B/pp-analyze" page-faults "$T/t" | in_range 'page-fault:')
[ "$c" = $N ] || { echo "page-faults: $c faults in the helper's pages, want $N"; exit 1; }
"$B/pp-analyze" page-faults "$T/t" | grep -A1 "page-fault: addr" | grep -q "ffffffff\|main" ||
	{ echo "page-faults: no stacks"; exit 1; }
"$B/pp-analyze" page-faults --json "$T/t" | grep -q '"comm":"sched-touch"' ||
	{ echo "page-faults --json: no per-process count for sched-touch"; exit 1; }
c=$("$B/pp-analyze" trace -e page-faults "$T/t" | in_range 'page-faults:')
[ "$c" = $N ] || { echo "trace -e page-faults (source): $c faults in range, want $N"; exit 1; }
# pp-record -e page-faults records the addresses too
"$B/pp-record" -q -o "$T/t2" -e page-faults -- "$B/tests/helpers/sched-touch" $N > "$T/addr" 2>"$T/err" ||
	fail_err "$T/err" "pp-record -e page-faults"
read -r a n ps < "$T/addr"
lo=$((16#$a)) hi=$((16#$a + n * ps))
c2=$("$B/pp-analyze" trace -e page-faults "$T/t2" | in_range 'page-faults:')
[ "$c2" = $N ] || { echo "pp-record -e page-faults: $c2 faults in range, want $N"; exit 1; }
echo "ok: $N page faults at the helper's pages (profiler and trace source)"
