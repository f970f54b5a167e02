#!/usr/bin/env bash
# The recorder's memory does not grow with the processes that exit.
# Ground truth: `pp-record -g -- WORKLOAD` records a shell that runs 6000
# short processes (/bin/true) one after another. The recorder's RSS (from
# /proc, not from pp's own report) after the first 1500 and after the last
# must stay within 10% and 1 MiB: the symbol collector kept each exited
# process's maps (about 800 bytes each: 20 MiB grew to 34 MiB over 17,000
# execs system-wide) and grew 3-5 MiB here before it released them. The
# file holds the 6000 execs' COMMs, in time order; info reports the
# recorder's peak RSS (the kernel's high-water mark at its stop).
. "$(dirname "$0")/../helpers/record-lib.sh"
AN=$B/pp-analyze
[ -x "$AN" ] || skip "no $AN"
WARM=1500
EXECS=6000

rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }

# the workload: WARM execs, a pause for the test to read the recorder's RSS
# (at its "warm" file: go on at "go"), the rest, and the same again; only
# its processes are recorded, so nothing else the host runs counts
cat >"$TMP/churn.sh" <<EOF
for ((i = 0; i < $WARM; i++)); do /bin/true; done
sleep 3; touch "$TMP/warm"; while [ ! -e "$TMP/go" ]; do sleep 0.05; done
for ((i = $WARM; i < $EXECS; i++)); do /bin/true; done
sleep 3; touch "$TMP/last"; while [ ! -e "$TMP/go2" ]; do sleep 0.05; done
EOF
$REC -q -g -F 99 -e sched:sched_switch -o "$TMP/m.trace" -- bash "$TMP/churn.sh" 2>"$TMP/rec.err" &
rec=$!
wait_recording "$TMP/m.trace" $rec
# at FILE: wait (5 minutes at most: execs are slow on a loaded host) until the workload made FILE
at() {
	local i
	for i in $(seq 6000); do [ -e "$1" ] && return 0; sleep 0.05; done
	fail "the workload did not reach $(basename "$1")"
}
at "$TMP/warm"
warm=$(rss $rec)
touch "$TMP/go"
at "$TMP/last"
last=$(rss $rec)
hwm=$(awk '/^VmHWM:/ { print $2 }' "/proc/$rec/status")
touch "$TMP/go2"
wait $rec || { cat "$TMP/rec.err"; fail "pp-record -g -- churn exited $?"; }
echo "RSS after $WARM execs: $warm KiB; after $EXECS: $last KiB"
[ "$last" -le $((warm * 110 / 100)) ] && [ "$last" -le $((warm + 1024)) ] ||
	fail "the recorder grew from $warm KiB to $last KiB over $((EXECS - WARM)) exited processes"
n=$("$AN" trace "$TMP/m.trace" 2>/dev/null | grep -c 'prev_comm=true ' || true)
"$AN" info "$TMP/m.trace" >"$TMP/info" 2>&1 || { cat "$TMP/info"; fail "pp-analyze info"; }
comm=$(awk '$1 == "records:" { for (i = 1; i <= NF; i++) if ($(i + 1) ~ /^comm/) print $i }' "$TMP/info" | tr -d '(')
[ "${comm:-0}" -ge $EXECS ] || fail "want $EXECS COMMs at least, got '${comm:-}'"
grep -q '^damage: *none$' "$TMP/info" || { grep '^damage' "$TMP/info"; fail "damaged file"; }
# the recorder's peak, as info tells it: the kernel's high-water mark at the stop
peak=$("$AN" info --json "$TMP/m.trace" | grep -o '"recorder_peak_rss_kib":[0-9]*' | cut -d: -f2)
[ -n "$peak" ] && [ "$peak" -ge "$hwm" ] && [ "$peak" -le $((hwm * 11 / 10 + 1024)) ] ||
	fail "info's recorder peak '$peak' KiB, /proc's VmHWM before the stop $hwm KiB"
grep -q "^recorder: .*, peak RSS [0-9.]* MiB$" "$TMP/info" || { grep '^recorder' "$TMP/info"; fail "info: no peak RSS"; }
echo "ok: $EXECS exits, RSS $warm -> $last KiB; $comm COMMs ($n switches of true)"
