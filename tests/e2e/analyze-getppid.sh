#!/usr/bin/env bash
# Record exactly N getppid syscalls of a helper with pp-record, replay with
# pp-analyze stat/trace/info: the counts must be exactly N.
set -u
B=${PP_BUILD:?}
N=2000
T=$(mktemp /tmp/pp-e2e-analyze.XXXXXX)
trap 'rm -f "$T" "$T.old"' EXIT
if ! "$B/pp-record" -e syscalls:sys_enter_getppid -o "$T" -- "$B/tests/helpers/getppid-n" $N >/dev/null 2>&1; then
	echo "skip: pp-record cannot record syscalls:sys_enter_getppid here"; exit 77
fi
c=$("$B/pp-analyze" stat --json -e syscalls:sys_enter_getppid "$T" | grep -o '"count":[0-9]*' | cut -d: -f2)
[ "$c" = "$N" ] || { echo "stat counted '$c', want $N"; exit 1; }
t=$("$B/pp-analyze" trace "$T" | grep -c 'syscalls:sys_enter_getppid')
[ "$t" = "$N" ] || { echo "trace printed $t, want $N"; exit 1; }
"$B/pp-analyze" info "$T" | grep -q "syscalls:sys_enter_getppid *$N" || { echo "info count wrong"; exit 1; }
# A truncated copy: output for the intact part and a warning, no crash.
head -c $(( $(stat -c %s "$T") / 2 )) "$T" > "$T.old"
"$B/pp-analyze" trace "$T.old" > /dev/null 2>"$T.err"; rc=$?
rm -f "$T.err"
[ $rc -lt 128 ] || { echo "crash on a truncated file (rc $rc)"; exit 1; }
echo "ok: $N events"
