#!/usr/bin/env bash
# The kernel-side walker under process churn, system-wide (-a -g): it keeps
# no state for processes that are gone, so it still knows the new ones.
# Ground truth:
# - 5000 short-lived processes (more than the 4000 the walker holds at once)
#   come and go first; then tests/helpers/nap-libc naps N times in
#   nap_in_libc() through libc's nanosleep(), which only the walker's tables
#   (not a frame-pointer walk) get through: all N of its off-CPU stacks name
#   nap_in_libc. Before, a process's last switch (after exit_mm()) asked the
#   walker about it once more and left a slot that no EXIT freed: after 4000
#   exits no new process was read, and every stack was a frame-pointer one.
# - A forked child's stacks are whole as its parent's: its walk copies the
#   parent's maps (and the table thread again after the parent's own reads),
#   where it was read from /proc: nap-libc's child ("fork") naps N times from its start.
. "$(dirname "$0")/../helpers/record-lib.sh"
AN=$B/pp-analyze
[ -x "$AN" ] || skip "no $AN"
[ -r /sys/kernel/btf/vmlinux ] || skip "kernel without BTF (the walker is a BPF program)"
N=10
CHURN=5000
export PP_WARMUP_MS=1500

$REC -q -a -g -e sched:sched_switch -o "$TMP/c.trace" 2>"$TMP/rec.err" &
rec=$!
wait_recording "$TMP/c.trace" $rec
for ((i = 0; i < CHURN; i++)); do /bin/true; done
"$HELP/nap-libc" $N 20 fork >"$TMP/nap.out" || fail "nap-libc failed"
kill -INT $rec
wait $rec || { cat "$TMP/rec.err"; fail "pp-record -a -g exited $?"; }

# per pid of nap-libc: its S-state switches, and those through nap_in_libc
"$AN" trace -g "$TMP/c.trace" 2>&1 | awk '
	function done() { if (inS) { s[pid]++; good[pid] += hit } inS = 0; hit = 0 }
	/sched:sched_switch:/ { done(); if ($0 ~ /prev_comm=nap-libc / && /prev_state=S /) {
		inS = 1; pid = $0; sub(/.*prev_pid=/, "", pid); sub(/ .*/, "", pid) } next }
	inS && / nap_in_libc \(nap-libc\)$/ { hit = 1 }
	END { done(); for (p in s) print p, s[p], good[p] + 0 }' | sort -n >"$TMP/naps"
[ "$(wc -l <"$TMP/naps")" = 2 ] || { cat "$TMP/naps"; fail "want the naps of 2 nap-libc processes"; }
while read -r pid s good; do
	[ "$good" -ge $N ] ||
		{ cat "$TMP/naps" "$TMP/rec.err"; fail "pid $pid: nap_in_libc in $good of its $s off-CPU stacks, want $N"; }
done <"$TMP/naps"
echo "ok: after $CHURN exits, $N of $N naps walked whole in nap-libc and in its forked child"
