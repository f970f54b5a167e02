#!/usr/bin/env bash
# pp-analyze's errors (spec/pp-analyze.md, "Every answer right, every error
# loud"): a name that matches nothing in the file, a profiler whose events the
# file lacks, an output that cannot be written and a number out of range each
# fail with one line on stderr, nothing on stdout and the documented status,
# never a silent exit 0. Runs on the committed traces of tests/data/: needs no
# kernel feature.
set -u
B=$(cd "${PP_BUILD:?}" && pwd)
D=$(cd "$(dirname "$0")/../data" && pwd)
T=$(mktemp -d /tmp/pp-e2e-anaerr.XXXXXX)
trap 'rm -rf "$T"' EXIT
export TZ=UTC LC_ALL=C
fail=0 n=0
# expect STATUS 'FRAGMENT' ARGS...: pp-analyze ARGS exits STATUS, prints one
# line on stderr holding FRAGMENT and nothing on stdout.
expect() {
	local want=$1 frag=$2 rc lines
	shift 2
	n=$((n + 1))
	(cd "$T/cwd" && "$B/pp-analyze" "$@" >"$T/out" 2>"$T/err"); rc=$?
	lines=$(wc -l < "$T/err")
	if [ $rc != "$want" ] || ! grep -qF -- "$frag" "$T/err" || [ -s "$T/out" ] || [ "$lines" != 1 ]; then
		echo "FAIL: pp-analyze $*: exit $rc (want $want), stderr:"
		sed 's/^/    /' "$T/err"
		[ -s "$T/out" ] && echo "    stdout: $(head -c 200 "$T/out")"
		fail=$((fail + 1))
	fi
}
mkdir "$T/cwd"
S=$D/sched.trace
# Names that match nothing in the file: usage errors naming what it holds.
expect 2 "stat: no event in $S matches 'sched:sched_swich' (it holds: sched:sched_switch, sched:sched_wakeup, sched:sched_waking)" \
	stat -e sched:sched_swich "$S"
expect 2 "trace: no event in $S matches 'sched:nosuch'" trace -e sched:nosuch "$S"
expect 2 "no event in $D/getppid.trace matches 'sched:sched_switch' (it holds: syscalls:sys_enter_getppid)" \
	trace -e sched:sched_switch "$D/getppid.trace"
expect 2 "hrcount: no event in $S matches 'irq:softirq_entry' (it holds: sched:sched_switch" \
	hrcount -e irq:softirq_entry "$S"
expect 2 "no event in $S matches 'cpu-clock'" stat -e cpu-clock "$S"
expect 2 "no event in $S feeds 'profile//'" trace -e 'profile//' "$S"
expect 2 "-C 9: no CPU 9 in $S (it holds CPUs 0-1)" stat -C 9 "$S"
expect 2 "has no field 'nosuch' (it has: prev_comm, prev_pid, prev_prio, prev_state, next_comm" \
	top -e 'sched:sched_switch//key=nosuch/' "$S"
expect 2 "has no field 'nosuch' (it has: prev_comm" top -e 'sched:sched_switch//top-add=nosuch/' "$S"
expect 2 "num-dist: sched:sched_switch has no field 'nosuch' (it has: prev_comm" \
	num-dist -e 'sched:sched_switch//num=nosuch/' "$S"
# A profiler whose events the file lacks: says so, exit 1.
expect 1 "profile: $S holds none of its events (it holds: sched:sched_switch" profile "$S"
expect 1 "page-faults: $S holds none of its events" page-faults "$S"
expect 1 "syscalls: $S holds none of its events: raw_syscalls:sys_enter, raw_syscalls:sys_exit" \
	syscalls "$S"
expect 1 "task-state: $D/spin.trace holds none of its events" task-state "$D/spin.trace"
expect 1 "offcpu: $S holds no offcpu aggregates (record them with: pp-record offcpu" offcpu "$S"
expect 1 "lock: $S holds no lock aggregates (record them with: pp-record lock" lock "$S"
expect 2 "trace: -e needs an event name" trace -e '' "$S"
expect 2 "trace: -e needs an event name" trace -e , "$S"
expect 2 "trace: empty output file name" trace -o '' "$S"
# Inputs that are no trace file: a FIFO with no writer must not hang the open.
mkfifo "$T/fifo"
expect 1 "$T/fifo: not a regular file (a trace is read with seeks" trace "$T/fifo"
expect 1 "$T/fifo: not a regular file" info "$T/fifo"
expect 1 "$T/cwd: Is a directory" stat "$T/cwd"
expect 1 "/dev/null: not a regular file" trace /dev/null
# Outputs that cannot be written.
expect 1 "trace: cannot write --flame-graph '/nonexistent/dir/fg': /nonexistent/dir: No such file" \
	trace --flame-graph /nonexistent/dir/fg "$D/spin.trace"
expect 1 "task-state: cannot write --flame-graph '/nonexistent/dir/fg'" \
	task-state --flame-graph /nonexistent/dir/fg "$S"
expect 1 "multi-trace: cannot write --heatmap '/nonexistent/dir/hm'" multi-trace --heatmap /nonexistent/dir/hm \
	-e 'sched:sched_waking//key=pid/' -e 'sched:sched_switch//key=next_pid/' "$S"
expect 2 "trace: --flame-graph needs a file name, not ''" trace --flame-graph '' "$D/spin.trace"
expect 2 "--flame-graph needs a file name, not 'sub/'" trace --flame-graph sub/ "$D/spin.trace"
expect 2 "multi-trace: --heatmap needs a file name, not ''" multi-trace --heatmap '' \
	-e 'sched:sched_waking//key=pid/' -e 'sched:sched_switch//key=next_pid/' "$S"
if ls -A "$T/cwd" | grep -q .; then
	echo "FAIL: an empty --flame-graph/--heatmap wrote: $(ls -A "$T/cwd")"; fail=$((fail + 1))
fi
# ... and a write that fails at the end still fails the run.
mkdir -p "$T/fg.folded"
n=$((n + 1))
"$B/pp-analyze" trace --flame-graph "$T/fg" "$D/spin.trace" >/dev/null 2>"$T/err"; rc=$?
[ $rc = 1 ] && grep -q "cannot create $T/fg.folded" "$T/err" ||
	{ echo "FAIL: flame graph write error: exit $rc: $(cat "$T/err")"; fail=$((fail + 1)); }
n=$((n + 1))
"$B/pp-analyze" stat -o /dev/full "$S" 2>"$T/err"; rc=$?
[ $rc = 1 ] && grep -q "write error" "$T/err" ||
	{ echo "FAIL: -o /dev/full: exit $rc: $(cat "$T/err")"; fail=$((fail + 1)); }
# Numbers: no sign, no overflow, no zero that means nothing; the range named.
expect 2 "bad interval '-5' (from 1us to 24h" stat -i -5 "$S"
expect 2 "bad interval '0' (from 1us to 24h" stat -i 0 "$S"
expect 2 "bad interval '99999999999999999999' (from 1us to 24h" stat -i 99999999999999999999 "$S"
expect 2 "bad duration '9999999999999s' (from 1ms to 31536000s" stat --live -d 9999999999999s
expect 2 "bad duration '0' (from 1ms to 31536000s" stat --live -d 0
expect 2 "bad --than '-1ms' (from 0 to 18446744073709551615" \
	num-dist -e 'sched:sched_switch//num=prev_prio/' --than -1ms "$S"
expect 2 "bad -N '-1' (a number of events from 1 to" stat -N -1 "$S"
expect 2 "bad pid list '-1' (pids from 0 to 4194304" stat -p -1 "$S"
expect 2 "bad tid list '99999999' (tids from 0 to 4194304" stat -t 99999999 "$S"
expect 2 "bad CPU list '-1' (CPUs from 0 to 1023" stat -C -1 "$S"
expect 2 "bad frequency '-5' (1 to 100000 Hz)" profile -F -5 "$D/spin.trace"
expect 2 "bad bucket '2h' (a time from 1ns to 1h" hrcount -e sched:sched_switch --bucket 2h "$S"
expect 2 "bad bucket '-1ms' (a time from 1ns to 1h" hrcount -e sched:sched_switch --bucket -1ms "$S"
# What the file holds still works.
n=$((n + 1))
out=$("$B/pp-analyze" stat -e 'sched:sched_sw*' -C 0-1 "$S" 2>&1); rc=$?
[ $rc = 0 ] && printf '%s\n' "$out" | grep -q 'sched:sched_switch *123$' ||
	{ echo "FAIL: stat -e 'sched:sched_sw*' -C 0-1: exit $rc: $out"; fail=$((fail + 1)); }
[ $fail = 0 ] || { echo "$fail of $n error cases wrong"; exit 1; }
echo "ok: $n error cases"
