#!/usr/bin/env bash
# pp-record --ftrace: tracepoints read from a tracefs instance's rings, as the
# same sample records. Exact counts followed and system-wide (the process id
# of each event right), kernel filters, tracepoints beside perf events, every
# event the kernel dropped counted, errors for what ftrace cannot record, and
# no instance left behind (nor one a killed recorder left).
. "$(dirname "$0")/../helpers/record-lib.sh"
INST=/sys/kernel/tracing/instances
[ -d "$INST" ] || skip "no tracefs instances here"
ANA=$B/pp-analyze

$REC -q --ftrace -e syscalls:sys_enter_getppid -o "$TMP/a.trace" -- "$HELP/getppid-n" 4321 7
rc=$?
[ $rc = 7 ] || fail "exit status $rc, want the workload's 7"
$CHECK "$TMP/a.trace" > "$TMP/a.out" || fail "checker"
[ "$(evcount syscalls:sys_enter_getppid "$TMP/a.out")" = 4321 ] || { cat "$TMP/a.out"; fail "follow mode: not 4321 events"; }
# the records are perf's: the same text as a perf_event recording
$REC -q -e syscalls:sys_enter_getppid -o "$TMP/p.trace" -- "$HELP/getppid-n" 5 || fail "perf run"
$ANA trace "$TMP/p.trace" | head -1 | sed 's/^[^ ]* *//; s/[0-9][0-9.]*//g; s/  */ /g' > "$TMP/p.line"
$ANA trace "$TMP/a.trace" | head -1 | sed 's/^[^ ]* *//; s/[0-9][0-9.]*//g; s/  */ /g' > "$TMP/a.line"
cmp -s "$TMP/p.line" "$TMP/a.line" || { cat "$TMP/p.line" "$TMP/a.line"; fail "trace text differs from perf_event's"; }
# dump names the streams (meta, ftrace:CPU) and the pid left to the task table (-1)
$ANA dump "$TMP/a.trace" > "$TMP/a.dump" || fail "dump"
grep -q '^# chunk 0 at 0x[0-9a-f]*: type 0x1 stream meta ' "$TMP/a.dump" || { head -3 "$TMP/a.dump"; fail "dump: no meta stream"; }
n=$(grep -cE '^[0-9]+ \[ftrace:[0-9]+\] SAMPLE .* syscalls:sys_enter_getppid pid -1 tid [0-9]+ ' "$TMP/a.dump")
[ "$n" = 4321 ] || { grep -m3 SAMPLE "$TMP/a.dump"; fail "dump: $n ftrace samples with pid -1, want 4321"; }

# system-wide: the events of every task, each with its process
PP_PIDFILE=$TMP/pid $REC -q -a --ftrace -e syscalls:sys_enter_getppid,sched:sched_switch \
	-o "$TMP/b.trace" -- "$HELP/getppid-n" 2500 || fail "system-wide run"
pid=$(cat "$TMP/pid")
$CHECK "$TMP/b.trace" --pid "$pid" > "$TMP/b.out" || fail "checker"
[ "$(pidcount syscalls:sys_enter_getppid "$TMP/b.out")" = 2500 ] || { cat "$TMP/b.out"; fail "system-wide: not 2500 events for pid $pid"; }
[ "$(evcount sched:sched_switch "$TMP/b.out")" -gt 0 ] || fail "no sched_switch"

# cpu-clock samples through perf_event beside tracepoints through ftrace, in
# one time order
$REC -q --ftrace -F 499 -e sched:sched_switch -o "$TMP/c.trace" -- "$HELP/spin" 1 || fail "mixed run"
$CHECK "$TMP/c.trace" > "$TMP/c.out" || fail "checker"
[ "$(evcount cpu-clock "$TMP/c.out")" -ge 5 ] || { cat "$TMP/c.out"; fail "too few cpu-clock samples beside the ftrace events"; }
[ "$(evcount sched:sched_switch "$TMP/c.out")" -gt 0 ] || fail "no sched_switch beside cpu-clock"
$ANA info "$TMP/c.trace" > "$TMP/c.info" 2>&1 || fail "info"
! grep -q "out of time order" "$TMP/c.info" || { cat "$TMP/c.info"; fail "ftrace and perf records out of time order"; }

# kernel filter: 100 lseek calls with offsets 0..99, keep offset < 37
PP_LSEEK=100 $REC -q --ftrace -e 'syscalls:sys_enter_lseek/offset < 37/,syscalls:sys_enter_getppid' \
	-o "$TMP/f.trace" -- "$HELP/getppid-n" 10 || fail "filter run"
$CHECK "$TMP/f.trace" > "$TMP/f.out"
[ "$(evcount syscalls:sys_enter_lseek "$TMP/f.out")" = 37 ] || { cat "$TMP/f.out"; fail "filter kept the wrong events"; }
[ "$(evcount syscalls:sys_enter_getppid "$TMP/f.out")" = 10 ] || fail "unfiltered event in a comma list"

# a ring of 4 pages per CPU cannot keep 2M events: each one is recorded or
# counted lost, exactly
$REC -m 4 --ftrace -e syscalls:sys_enter_getppid -o "$TMP/l.trace" -- "$HELP/getppid-n" 2000000 \
	2> "$TMP/l.err" || fail "small ring run"
$CHECK "$TMP/l.trace" > "$TMP/l.out"
got=$(evcount syscalls:sys_enter_getppid "$TMP/l.out")
lost=$(value lost_kernel "$TMP/l.out")
[ $((got + lost)) = 2000000 ] || { cat "$TMP/l.out"; fail "recorded $got + lost $lost != 2000000"; }
if [ "$lost" -gt 0 ]; then
	grep -q "LOST ftrace cpu" "$TMP/l.err" || { cat "$TMP/l.err"; fail "loss not reported"; }
	grep -q "a larger -m keeps more$" "$TMP/l.err" || { cat "$TMP/l.err"; fail "no hint"; }
fi
# the same through perf_event: the summary points to --ftrace
$REC -m 4 -e syscalls:sys_enter_getppid -o "$TMP/l.trace" -- "$HELP/getppid-n" 2000000 \
	2> "$TMP/l.err" || fail "small perf ring run"
if grep -q "LOST cpu" "$TMP/l.err"; then
	grep -q -- "--ftrace costs the traced tasks less" "$TMP/l.err" || { cat "$TMP/l.err"; fail "no --ftrace hint"; }
fi

# what ftrace cannot record: a usage error, nothing left behind
$REC -q --ftrace -e 'sched:sched_switch//stack/' -o "$TMP/e.trace" -- true 2> "$TMP/e.err"
[ $? = 2 ] && grep -q "no stacks" "$TMP/e.err" || { cat "$TMP/e.err"; fail "stack on an ftrace tracepoint accepted"; }
$REC -q --ftrace -e cpu-clock -o "$TMP/e.trace" -- true 2> "$TMP/e.err"
[ $? = 2 ] && grep -q "no tracepoint" "$TMP/e.err" || { cat "$TMP/e.err"; fail "--ftrace without a tracepoint accepted"; }
$REC -q --ftrace -e 'syscalls:sys_enter_getppid/nosuchfield == 1/' -o "$TMP/e.trace" -- true 2> "$TMP/e.err"
[ $? = 2 ] && grep -q "its fields" "$TMP/e.err" || { cat "$TMP/e.err"; fail "bad filter not a usage error"; }

$REC -q --ftrace -e 'sched:sched_wakeup/pid==1/' -e 'sched:sched_wakeup/pid==2/' -o "$TMP/e.trace" -- true 2> "$TMP/e.err"
[ $? = 2 ] && grep -q "one filter per event" "$TMP/e.err" || { cat "$TMP/e.err"; fail "one event with two filters accepted"; }

# no instance of ours stays; one a killed recorder left is taken down
# (an instance of a recorder still running is another run's, on a shared host)
for i in "$INST"/pp-record-*; do
	[ -e "$i" ] && ! kill -0 "${i##*-}" 2>/dev/null && fail "instance ${i##*/} left by a recorder that is gone"
done
$REC -q -a --ftrace -e sched:sched_switch -o "$TMP/k.trace" &
kp=$!
for _ in $(seq 600); do [ -d "$INST/pp-record-$kp" ] && break; kill -0 $kp || break; sleep 0.1; done
[ -d "$INST/pp-record-$kp" ] || fail "no instance pp-record-$kp while recording (60 s)"
kill -9 $kp; wait $kp 2>/dev/null
[ -d "$INST/pp-record-$kp" ] || fail "the killed recorder's instance is gone already?"
$REC -q --ftrace -e syscalls:sys_enter_getppid -o "$TMP/a.trace" -- "$HELP/getppid-n" 3 || fail "run after kill"
[ -d "$INST/pp-record-$kp" ] && fail "the killed recorder's instance stayed"
echo "ok"
