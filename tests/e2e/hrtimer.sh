#!/usr/bin/env bash
# hrtimer ground truth: hrtimer-burst makes getppid calls in burst_getppid()
# during 5 known windows of 40 ms and spins without system calls in between.
# Sampled every 1 ms with the condition "at least 20 getppid in the last
# 1 ms", every reported stack must fall in a window (or within two periods
# after its end, the last period that still holds the burst) and show
# burst_getppid; none may come from the quiet spin. A condition no period
# meets reports nothing.
. "$(dirname "$0")/../helpers/record-lib.sh"
AN=$B/pp-analyze
$REC -o "$TMP/t" hrtimer -e syscalls:sys_enter_getppid --period 1ms -- "$HELP/hrtimer-burst" 5 40 60 \
	> "$TMP/win" 2> "$TMP/rec.err" || { cat "$TMP/rec.err"; fail "pp-record hrtimer"; }
evs=$(awk '/^  [a-z0-9_-]+[:a-z_]* +[0-9]+$/ && $1 != "lost:" { print $1 }' "$TMP/rec.err" | sort | tr '\n' ' ')
[ "$evs" = "cpu-clock syscalls:sys_enter_getppid " ] || { cat "$TMP/rec.err"; fail "pp-record hrtimer recorded: $evs"; }
calls=$(awk '$1 == "calls" { print $2 }' "$TMP/win")
n=$($AN stat -e syscalls:sys_enter_getppid "$TMP/t" | awk '$2 == "syscalls:sys_enter_getppid" { print $3 }')
[ "$n" = "$calls" ] || fail "file has $n getppid, the helper made $calls"

$AN hrtimer -e syscalls:sys_enter_getppid --than 20 --json "$TMP/t" > "$TMP/j" || fail "pp-analyze hrtimer --json"
grep -q '"type":"summary"' "$TMP/j" || fail "no summary"
grep '"type":"summary"' "$TMP/j"
grep '"type":"sample"' "$TMP/j" > "$TMP/s"
hits=$(grep -c . "$TMP/s")
[ "$hits" -ge 1 ] || fail "no sample reported during the bursts"
# every reported sample lies in a window, or at most 2 ms after its end
out=$(awk -v slack=2000000 '
	FNR == NR { if ($1 == "window") { ws[++nw] = $2; we[nw] = $3 } next }
	{
		match($0, /"ts":[0-9]+/); ts = substr($0, RSTART + 5, RLENGTH - 5) + 0
		in_w = 0
		for (i = 1; i <= nw; i++) if (ts >= ws[i] && ts <= we[i] + slack) in_w = 1
		if (!in_w) bad++
		if ($0 ~ /"sym":"burst_getppid"/) burst++
		if ($0 ~ /"sym":"quiet_spin"/ && in_w) { inside = 0; for (i = 1; i <= nw; i++) if (ts >= ws[i] && ts <= we[i]) inside = 1; if (inside) quiet++ }
	}
	END { printf "%d %d %d\n", bad + 0, burst + 0, quiet + 0 }' "$TMP/win" "$TMP/s")
read -r bad burst quiet <<< "$out"
[ "$bad" = 0 ] || fail "$bad of $hits samples outside the burst windows"
[ "$quiet" = 0 ] || fail "$quiet samples inside a window show quiet_spin"
[ $((burst * 10)) -ge $((hits * 8)) ] || fail "only $burst of $hits samples show burst_getppid"
# 5 windows of 40 ms: at least a few ticks met the condition on a loaded machine too
$AN hrtimer -e syscalls:sys_enter_getppid --than 20 "$TMP/t" | grep -q "^ .*burst_getppid (hrtimer-burst)" ||
	fail "text output lacks the stack"
n=$($AN hrtimer -e syscalls:sys_enter_getppid --than 1000000 --json "$TMP/t" | grep -c '"type":"sample"')
[ "$n" = 0 ] || fail "--than 1000000 (never met) reported $n samples"
$AN hrtimer -e syscalls:sys_enter_getppid --period 5us "$TMP/t" > /dev/null 2> "$TMP/err"
[ $? = 2 ] && [ "$(grep -c . "$TMP/err")" = 1 ] || { cat "$TMP/err"; fail "bad --period"; }
$AN hrtimer "$TMP/t" > /dev/null 2> "$TMP/err"
[ $? != 0 ] && [ "$(grep -c . "$TMP/err")" = 1 ] || { cat "$TMP/err"; fail "hrtimer without -e"; }
echo "ok: $hits samples, all in the burst windows ($burst in burst_getppid)"
