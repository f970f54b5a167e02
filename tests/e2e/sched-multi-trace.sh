#!/usr/bin/env bash
# multi-trace ground truth: a helper makes exactly N lseek calls; pairing
# syscalls:sys_enter_lseek -> sys_exit_lseek by tid must give N intervals,
# --than 0 with --detail prints each pair, --heatmap writes an SVG.
set -u
. "$(dirname "$0")/lib.bash"
B=${PP_BUILD:?}
N=1000
T=$(mktemp -d /tmp/pp-e2e-mt.XXXXXX)
trap 'rm -rf "$T"' EXIT
need_root "for perf events"
M=300
EVS=syscalls:sys_enter_lseek,syscalls:sys_exit_lseek,syscalls:sys_enter_getppid,syscalls:sys_exit_getppid
need_event ${EVS//,/ }
"$B/pp-record" -e $EVS -o "$T/t" -- "$B/tests/helpers/sched-syscalls" $N $M >/dev/null 2>"$T/err" ||
	fail_err "$T/err" "pp-record -e $EVS"
E="-e syscalls:sys_enter_lseek -e syscalls:sys_exit_lseek"
c=$("$B/pp-analyze" multi-trace $E --json "$T/t" | grep -o '"calls":[0-9]*' | cut -d: -f2)
[ "$c" = $N ] || { echo "multi-trace counted '$c' pairs, want $N"; exit 1; }
c=$("$B/pp-analyze" multi-trace -e 'syscalls:sys_enter_lseek//key=common_pid/' \
	-e 'syscalls:sys_exit_lseek//key=common_pid/' --json "$T/t" | grep -o '"calls":[0-9]*' | cut -d: -f2)
[ "$c" = $N ] || { echo "key=common_pid counted '$c' pairs, want $N"; exit 1; }
d=$("$B/pp-analyze" multi-trace --detail $E --than 0 "$T/t" | grep -c '^  end ')
[ "$d" = $N ] || { echo "--detail printed $d pairs, want $N"; exit 1; }
"$B/pp-analyze" multi-trace --heatmap "$T/hm" $E "$T/t" >/dev/null 2>&1
grep -q '<svg' "$T/hm.svg" || { echo "no heat map SVG"; exit 1; }
# commas inside one -e are alternatives: lseek or getppid starts, either exit ends
c=$("$B/pp-analyze" multi-trace -e syscalls:sys_enter_lseek,syscalls:sys_enter_getppid \
	-e syscalls:sys_exit_lseek,syscalls:sys_exit_getppid --json "$T/t" |
	grep -o '"calls":[0-9]*' | cut -d: -f2 | awk '{ s += $1 } END { print s + 0 }')
[ "$c" = $((N + M)) ] || { echo "alternatives counted '$c' pairs, want $((N + M))"; exit 1; }
c=$("$B/pp-analyze" multi-trace -e syscalls:sys_enter_lseek,syscalls:sys_enter_getppid \
	-e syscalls:sys_exit_lseek --json "$T/t" |
	grep -o '"calls":[0-9]*' | cut -d: -f2 | awk '{ s += $1 } END { print s + 0 }')
[ "$c" = $N ] || { echo "two starts, lseek end: '$c' pairs, want $N"; exit 1; }
if "$B/pp-analyze" multi-trace -e syscalls:sys_enter_lseek "$T/t" >/dev/null 2>&1; then
	echo "one event accepted"; exit 1
fi
echo "ok: $N pairs, $((N + M)) with alternatives"
