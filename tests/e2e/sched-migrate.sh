#!/usr/bin/env bash
# sched-migrate ground truth: tests/helpers/migrate-n makes a child,
# pp-migrate, move between CPUs 0 and 1 exactly N times (sched_setaffinity,
# pinned in between: no other move is possible). sched-migrate must count N
# migrations for it, N/2 each way, recorded and live, print N with --detail,
# and put N stacks under its comm in the flame graph, whatever the rest of a
# loaded host does (--filter on the moved task's comm).
set -u
. "$(dirname "$0")/lib.bash"
B=${PP_BUILD:?}
N=20
H=$B/tests/helpers/migrate-n
T=$(mktemp -d /tmp/pp-e2e-sm.XXXXXX)
trap 'rm -rf "$T"' EXIT
need_root "for perf events"
need_event sched:sched_migrate_task
need_cpus 2
need_built "$H"
A=$B/pp-analyze

# check NAME JSON: one task row (N) and the two CPU pairs (N/2 each)
check() {
	local name=$1 out=$2
	echo "$out" | grep -q "\"type\":\"row\".*\"comm\":\"pp-migrate\".*\"migrations\":$N}" ||
		fail "$name: not $N migrations for pp-migrate: $out"
	[ "$(echo "$out" | grep -c '"type":"row"')" = 1 ] || fail "$name: want one task row: $out"
	echo "$out" | grep -q "\"type\":\"cpus\".*\"from\":0,\"to\":1,\"migrations\":$((N / 2))}" &&
	echo "$out" | grep -q "\"type\":\"cpus\".*\"from\":1,\"to\":0,\"migrations\":$((N / 2))}" ||
		fail "$name: not $((N / 2)) migrations each way between CPUs 0 and 1: $out"
}

"$B/pp-record" -q -g -o "$T/t" sched-migrate -- "$H" $N 2>"$T/err" ||
	fail_err "$T/err" "pp-record sched-migrate -g -- migrate-n"
out=$("$A" sched-migrate --filter pp-migrate --json "$T/t" 2>"$T/err") ||
	fail_err "$T/err" "pp-analyze sched-migrate"
check recorded "$out"

n=$("$A" sched-migrate --filter pp-migrate --detail "$T/t" | grep -cE ' pp-migrate +[0-9]+ prio +[0-9]+: cpu +[01] -> +[01]  by ')
[ "$n" = $N ] || fail "--detail printed $n migrations, want $N"

"$A" sched-migrate --filter pp-migrate -g --flame-graph "$T/fg" "$T/t" >/dev/null 2>"$T/err" ||
	fail_err "$T/err" "pp-analyze sched-migrate -g --flame-graph"
w=$(awk '$1 ~ /^pp-migrate;/ { s += $NF } END { printf "%.0f\n", s }' "$T/fg.folded")
[ "$w" = $N ] || fail "flame graph: $w migrations under pp-migrate, want $N: $(head -3 "$T/fg.folded")"
grep -q '<svg' "$T/fg.svg" || fail "no SVG flame graph"

out=$("$A" sched-migrate --live --filter pp-migrate --json -- "$H" $N 2>"$T/err") ||
	fail_err "$T/err" "pp-analyze sched-migrate --live"
check live "$out"

# a trace without the event: one line naming it, exit 1
"$B/pp-record" -q -o "$T/none" -e sched:sched_process_exit -- true 2>"$T/err" ||
	fail_err "$T/err" "pp-record -e sched:sched_process_exit"
"$A" sched-migrate "$T/none" >/dev/null 2>"$T/err"; rc=$?
[ $rc = 1 ] && [ "$(wc -l < "$T/err")" = 1 ] && grep -q "^pp-analyze: sched-migrate: .*sched:sched_migrate_task" "$T/err" ||
	fail "no event: exit $rc: $(cat "$T/err")"
echo "ok: $N migrations of pp-migrate, recorded and live"
