#!/usr/bin/env bash
# Signed fields are signed (spec/pp-analyze.md): tests/helpers/sched-syscalls
# makes exactly N lseek(-1, ...) calls, each returning -EBADF; the ret field
# of syscalls:sys_exit_lseek is a signed long, so num-dist must print -9 (not
# 18446744073709551607) and top must sum N * -9.
set -u
. "$(dirname "$0")/lib.bash"
B=${PP_BUILD:?}
N=100
T=$(mktemp -d /tmp/pp-e2e-signed.XXXXXX)
trap 'rm -rf "$T"' EXIT
need_root "for perf events"
need_event syscalls:sys_exit_lseek
"$B/pp-record" -e syscalls:sys_exit_lseek -o "$T/t" -- "$B/tests/helpers/sched-syscalls" $N 0 \
	>/dev/null 2>"$T/err" || fail_err "$T/err" "pp-record -e syscalls:sys_exit_lseek"
E='syscalls:sys_exit_lseek//num=ret/'
# event calls total min avg p50 p95 p99 max
row=$("$B/pp-analyze" num-dist -e "$E" "$T/t" | awk '$1 == "syscalls:sys_exit_lseek"')
set -- $row
[ "$2 $3 $4 $5 $6 $7 $8 $9" = "$N -$((9 * N)) -9 -9 -9 -9 -9 -9" ] ||
	fail "num-dist num=ret: '$row', want calls $N, total -$((9 * N)), every statistic -9"
j=$("$B/pp-analyze" num-dist --json -e "$E" "$T/t")
python3 -c '
import json, sys
o = json.loads(sys.argv[1])
n = int(sys.argv[2])
assert (o["calls"], o["total"], o["min"], o["max"], o["p99"]) == (n, -9 * n, -9, -9, -9), o
' "$j" $N || fail "num-dist --json: $j"
# --than 0: no failing call is above 0
c=$("$B/pp-analyze" num-dist --than 0 -e "$E" "$T/t" | grep -c 'ret=')
[ "$c" = 0 ] || fail "--than 0 printed $c negative values"
# top: a signed column sums signed, a signed key prints signed
row=$("$B/pp-analyze" top -e 'syscalls:sys_exit_lseek//key=ret/top-add=ret/' "$T/t" | awk 'NR == 3')
set -- $row
[ "$1 $2" = "-9 -$((9 * N))" ] || fail "top key=ret top-add=ret: '$row', want '-9 -$((9 * N))'"
echo "ok: $N lseek returns of -9, signed"
