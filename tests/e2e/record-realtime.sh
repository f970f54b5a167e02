#!/usr/bin/env bash
# Scheduling of pp-record's threads: the drain (the main thread) at
# SCHED_FIFO PRIO+1 (-r PRIO, default 1), the writer at normal priority while
# it keeps up (it goes to SCHED_FIFO PRIO only when chunks wait); -r 0: both
# normal.
. "$(dirname "$0")/../helpers/record-lib.sh"
command -v chrt > /dev/null || skip "no chrt (util-linux)"

# policies ARGS...: "DRAIN_POLICY DRAIN_PRIO WRITER_POLICY WRITER_PRIO" while it records an idle host
policies() {
	"$REC" -q -e sched:sched_process_exec -a -d 5 -o "$TMP/r.trace" "$@" &
	local pid=$! i tid out="" drain="" writer=""
	for i in $(seq 100); do
		[ "$(ls "/proc/$pid/task" 2> /dev/null | wc -l)" -ge 2 ] && break
		sleep 0.05
	done
	sleep 0.3	# the drain goes realtime after starting the writer
	for tid in $(ls "/proc/$pid/task"); do
		out=$(chrt -p "$tid" | awk '/policy/ { p = $NF } /priority/ { q = $NF } END { print p, q }')
		if [ "$tid" = "$pid" ]; then drain=$out; else writer=$out; fi
	done
	kill -INT $pid 2> /dev/null
	wait $pid || fail "pp-record $* failed"
	echo "$drain $writer"
}

got=$(policies)
[ "$got" = "SCHED_FIFO 2 SCHED_OTHER 0" ] || fail "default: '$got', want the drain FIFO 2, the writer normal"
got=$(policies -r 5)
[ "$got" = "SCHED_FIFO 6 SCHED_OTHER 0" ] || fail "-r 5: '$got', want the drain FIFO 6, the writer normal"
got=$(policies -r 0)
[ "$got" = "SCHED_OTHER 0 SCHED_OTHER 0" ] || fail "-r 0: '$got', want both normal"
echo "PASS: drain realtime, writer normal while idle, -r honoured"
