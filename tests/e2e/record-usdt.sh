#!/usr/bin/env bash
# USDT probes (sys/sdt.h): tests/helpers/usdt-n fires pp_test:tick exactly N
# times, i = 1..N, with arg1 = i, arg2 = 1000 i, arg3 = -i (short), arg4 = 5,
# arg5 = 7 i, arg6 = i + 42, only while its semaphore is set; then
# pp_test:tock with arg1 = i. Recorded, live, filtered and keyed.
. "$(dirname "$0")/../helpers/record-lib.sh"
[ -e /sys/bus/event_source/devices/uprobe ] || skip "no uprobes in this kernel"
AN=$B/pp-analyze
bin=$HELP/usdt-n
N=137
tick="usdt:pp_test:tick@$bin"
tock="usdt:pp_test:tock@$bin"

# list: both probes, tick's semaphore, six argument specs
$AN usdt list "$bin" > "$TMP/list" || fail "usdt list"
cat "$TMP/list"
grep -q "^usdt:pp_test:tick@$bin .*semaphore 0x[0-9a-f]* *6 args: " "$TMP/list" || fail "tick not listed"
grep -q "^usdt:pp_test:tock@$bin .* 1 args: " "$TMP/list" || fail "tock not listed"

# record: N hits (the semaphore was set), every argument decoded
$REC -q -e "$tick" -o "$TMP/u.trace" -- "$bin" $N > /dev/null || fail "record"
$CHECK "$TMP/u.trace" > "$TMP/u.out" || fail "checker"
[ "$(evcount "$tick" "$TMP/u.out")" = $N ] || { cat "$TMP/u.out"; fail "tick count"; }
$AN trace "$TMP/u.trace" > "$TMP/t.out" || fail "trace"
head -2 "$TMP/t.out"
awk -v n=$N '
	/pp_test:tick/ {
		for (f = 1; f <= NF; f++) if (split($f, kv, "=") == 2) a[kv[1]] = kv[2]
		i = a["arg1"]; seen[i]++; lines++
		if (a["arg2"] != i * 1000 || a["arg4"] != 5 || a["arg5"] != 7 * i || a["arg6"] != i + 42) bad++
	}
	END {
		for (i = 1; i <= n; i++) if (seen[i] != 1) bad++
		exit !(lines == n && !bad)
	}' "$TMP/t.out" || fail "arguments not decoded as fired"

# a kernel filter on a signed 16-bit argument: i = 101..N
$REC -q -e "$tick/arg3<-100/" -o "$TMP/f.trace" -- "$bin" $N > /dev/null || fail "filtered record"
$CHECK "$TMP/f.trace" > "$TMP/f.out" || fail "checker"
[ "$(evcount "$tick" "$TMP/f.out")" = $((N - 100)) ] || { cat "$TMP/f.out"; fail "filter arg3<-100"; }

# live, with a filter: i = 41..N
got=$($AN stat --live --json -e "$tick/arg1>40/" -- "$bin" $N 2>"$TMP/live.err" |
      grep -o '"count":[0-9]*' | cut -d: -f2)
[ "$got" = $((N - 40)) ] || { cat "$TMP/live.err"; fail "live count '$got'"; }

# multi-trace joins tick and tock on arg1
$REC -q -e "$tick//key=arg1/,$tock//key=arg1/" -o "$TMP/m.trace" -- "$bin" $N > /dev/null ||
	fail "record tick,tock"
calls=$($AN multi-trace -e "$tick//key=arg1/" -e "$tock//key=arg1/" --json "$TMP/m.trace" |
	grep -o '"calls":[0-9]*' | cut -d: -f2)
[ "$calls" = $N ] || fail "multi-trace key=arg1: '$calls' calls"

# the probe events pp created are gone
if grep -q "pp_test__tick" /sys/kernel/tracing/uprobe_events 2>/dev/null; then
	cat /sys/kernel/tracing/uprobe_events; fail "probe events left behind"
fi

# errors: one line, non-zero exit
$REC -q -e "usdt:pp_test:nope@$bin" -o "$TMP/e.trace" -- "$bin" 1 2> "$TMP/e1"; rc=$?
[ $rc = 2 ] && [ "$(wc -l < "$TMP/e1")" = 1 ] && grep -q "no probe pp_test:nope" "$TMP/e1" ||
	{ cat "$TMP/e1"; fail "unknown probe: rc $rc"; }
$AN usdt list /etc/hostname 2> "$TMP/e2"; rc=$?
[ $rc = 1 ] && [ "$(wc -l < "$TMP/e2")" = 1 ] || { cat "$TMP/e2"; fail "non-ELF: rc $rc"; }
$REC -q -e "usdt:pp_test@$bin" -o "$TMP/e.trace" -- "$bin" 1 2> "$TMP/e3"; rc=$?
[ $rc = 2 ] && [ "$(wc -l < "$TMP/e3")" = 1 ] || { cat "$TMP/e3"; fail "bad spec: rc $rc"; }
echo "ok"
