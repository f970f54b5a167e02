#!/usr/bin/env bash
# Record exactly N getppid syscalls of a helper with pp-record, replay with
# pp-analyze stat/trace/info: the counts must be exactly N.
set -u
. "$(dirname "$0")/lib.bash"
B=${PP_BUILD:?}
N=2000
T=$(mktemp /tmp/pp-e2e-analyze.XXXXXX)
trap 'rm -f "$T" "$T.old" "$T.err"' EXIT
need_root "for perf events"
need_event syscalls:sys_enter_getppid
"$B/pp-record" -e syscalls:sys_enter_getppid -o "$T" -- "$B/tests/helpers/getppid-n" $N >/dev/null 2>"$T.err" ||
	fail_err "$T.err" "pp-record -e syscalls:sys_enter_getppid"
c=$("$B/pp-analyze" stat --json -e syscalls:sys_enter_getppid "$T" | grep -o '"count":[0-9]*' | cut -d: -f2)
[ "$c" = "$N" ] || { echo "stat counted '$c', want $N"; exit 1; }
t=$("$B/pp-analyze" trace "$T" | grep -c 'syscalls:sys_enter_getppid')
[ "$t" = "$N" ] || { echo "trace printed $t, want $N"; exit 1; }
"$B/pp-analyze" info "$T" | grep -q "syscalls:sys_enter_getppid *$N" || { echo "info count wrong"; exit 1; }
"$B/pp-analyze" info "$T" | grep -qx 'filters: *none' || { echo "info: no 'filters: none' line"; exit 1; }
# The kernel and BPF filters the recorder applied show on info's filters: line.
# (--exclude_pid is a BPF program: it needs BTF.)
if [ -r /sys/kernel/btf/vmlinux ]; then
	"$B/pp-record" -q -e 'syscalls:sys_enter_getppid/common_pid>1/' --exclude_pid=1 -o "$T.old" -- \
		"$B/tests/helpers/getppid-n" 5 >/dev/null 2>"$T.err" || fail_err "$T.err" "pp-record --exclude_pid=1"
	"$B/pp-analyze" info "$T.old" | grep -qx 'filters: *syscalls:sys_enter_getppid=common_pid>1;exclude_pid=1' ||
		{ echo "info: filters line wrong"; "$B/pp-analyze" info "$T.old" | grep filters; exit 1; }
else
	echo "filters part not run: kernel without BTF, --exclude_pid cannot load its BPF program"
fi
# A truncated copy: output for the intact part and a warning, no crash.
head -c $(( $(stat -c %s "$T") / 2 )) "$T" > "$T.old"
"$B/pp-analyze" trace "$T.old" > /dev/null 2>"$T.err"; rc=$?
rm -f "$T.err"
[ $rc -lt 128 ] || { echo "crash on a truncated file (rc $rc)"; exit 1; }
echo "ok: $N events"
