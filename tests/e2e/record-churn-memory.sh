#!/usr/bin/env bash
# The recorder's memory does not grow with the processes that exit.
# Ground truth: `pp-record -a -g` records while 8000 short processes
# (/bin/true) run one after another. Its RSS (from /proc, not from pp's own
# report) after the first 2000 and after the last must stay within 10% and
# 1 MiB: the symbol collector kept each exited process's maps (about 800
# bytes each: 20 MiB grew to 34 MiB over 17,000 execs) and grew 4-5 MiB
# here before it released them. The file holds the 8000 execs' COMMs (and
# whatever else the host ran), in time order.
. "$(dirname "$0")/../helpers/record-lib.sh"
AN=$B/pp-analyze
[ -x "$AN" ] || skip "no $AN"
WARM=2000
EXECS=8000

rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }

$REC -q -a -g -F 99 -e sched:sched_switch -o "$TMP/m.trace" 2>"$TMP/rec.err" &
rec=$!
wait_recording "$TMP/m.trace" $rec
for ((i = 0; i < WARM; i++)); do /bin/true; done
sleep 3	# the scan passes the first exits' 2 s
warm=$(rss $rec)
for ((i = WARM; i < EXECS; i++)); do /bin/true; done
sleep 3
last=$(rss $rec)
kill -INT $rec
wait $rec || { cat "$TMP/rec.err"; fail "pp-record -a -g exited $?"; }
echo "RSS after $WARM execs: $warm KiB; after $EXECS: $last KiB"
[ "$last" -le $((warm * 110 / 100)) ] && [ "$last" -le $((warm + 1024)) ] ||
	fail "the recorder grew from $warm KiB to $last KiB over $((EXECS - WARM)) exited processes"
n=$("$AN" trace "$TMP/m.trace" 2>/dev/null | grep -c 'prev_comm=true ' || true)
"$AN" info "$TMP/m.trace" >"$TMP/info" 2>&1 || { cat "$TMP/info"; fail "pp-analyze info"; }
comm=$(awk '$1 == "records:" { for (i = 1; i <= NF; i++) if ($(i + 1) ~ /^comm/) print $i }' "$TMP/info" | tr -d '(')
[ "${comm:-0}" -ge $EXECS ] || fail "want $EXECS exec COMMs at least, got '${comm:-}'"
grep -q '^damage: *none$' "$TMP/info" || { grep '^damage' "$TMP/info"; fail "damaged file"; }
echo "ok: $EXECS exits, RSS $warm -> $last KiB; $comm COMMs ($n switches of true)"
