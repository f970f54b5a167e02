#!/usr/bin/env bash
# syscalls ground truth: a helper makes N failing lseek(-1) calls and M
# getppid calls; syscalls must report exactly N lseek with N errors and M
# getppid with 0 errors for its pid, by name.
set -u
. "$(dirname "$0")/lib.bash"
B=${PP_BUILD:?}
N=1000
M=500
T=$(mktemp -d /tmp/pp-e2e-sc.XXXXXX)
trap 'rm -rf "$T"' EXIT
need_root "for perf events"
need_event raw_syscalls:sys_enter raw_syscalls:sys_exit
"$B/pp-record" -e raw_syscalls:sys_enter,raw_syscalls:sys_exit -o "$T/t" -- \
	"$B/tests/helpers/sched-syscalls" $N $M >/dev/null 2>"$T/err" || fail_err "$T/err" "pp-record -e raw_syscalls:sys_enter,raw_syscalls:sys_exit"
out=$("$B/pp-analyze" syscalls --filter 'sched-syscalls' --perins --json "$T/t") ||
	{ echo "syscalls failed"; exit 1; }
get() { echo "$out" | grep "\"syscall\":\"$1\"" | grep -o "\"$2\":[0-9]*" | cut -d: -f2; }
[ "$(get lseek calls)" = $N ] || { echo "lseek calls '$(get lseek calls)', want $N"; echo "$out"; exit 1; }
[ "$(get lseek errors)" = $N ] || { echo "lseek errors '$(get lseek errors)', want $N"; exit 1; }
[ "$(get getppid calls)" = $M ] || { echo "getppid calls '$(get getppid calls)', want $M"; exit 1; }
[ "$(get getppid errors)" = 0 ] || { echo "getppid errors '$(get getppid errors)', want 0"; exit 1; }
"$B/pp-analyze" syscalls "$T/t" | grep -q '^lseek ' || { echo "text output lacks lseek"; exit 1; }
echo "ok: lseek $N calls $N errors, getppid $M calls"
