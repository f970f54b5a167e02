#!/usr/bin/env bash
# Bad input gives one clear line and the right exit status, never a crash;
# the output is never written through a symlink.
. "$(dirname "$0")/../helpers/record-lib.sh"

expect() {	# STATUS PATTERN ARGS...
	local want=$1 pat=$2; shift 2
	"$REC" "$@" > "$TMP/out" 2> "$TMP/err"
	local rc=$?
	[ $rc = "$want" ] || { cat "$TMP/err"; fail "pp-record $*: exit $rc, want $want"; }
	grep -q -- "$pat" "$TMP/err" "$TMP/out" || { cat "$TMP/err"; fail "pp-record $*: no '$pat'"; }
}
# one_line STATUS PATTERN ARGS...: exactly one line on stderr, pp-record's, matching PATTERN
one_line() {
	expect "$@"
	[ "$(wc -l < "$TMP/err")" = 1 ] || { cat "$TMP/err"; fail "pp-record ${*:3}: not one line"; }
	grep -q '^pp-record: ' "$TMP/err" || { cat "$TMP/err"; fail "pp-record ${*:3}: not pp-record's"; }
}
cd "$TMP"
expect 2 "unrecognized option" --bogus
expect 2 "no events" -o x.trace
expect 2 "unknown tracepoint 'nosuch:event'" -e nosuch:event -d 0.1
expect 2 "unknown event 'nonsense'" -e nonsense
expect 2 "power of two" -e sched:sched_switch -m 3
expect 2 "bad duration" -e sched:sched_switch -d abc
expect 2 "bad flush interval" -e sched:sched_switch --flush-interval 0
expect 2 "bad flush interval" -e sched:sched_switch --flush-interval 10s
# a duration is 1ms to 365d: one that wraps, is negative, zero or not a number is refused
for d in 9999999999999s -5 0 inf nan 0.5us; do
	expect 2 "duration '$d'" -e sched:sched_switch -d "$d"
done
expect 2 "its fields: prev_comm, prev_pid" -e 'sched:sched_switch/no_such_field == 1/' -d 0.1
expect 2 "filter section must end" -e 'sched:sched_switch/prev_pid==1'
expect 2 "unknown attribute" -e 'sched:sched_switch//bogus/'
expect 2 "no such function symbol" -e "uprobe:no_such_fn@$HELP/getppid-n" -- true
expect 2 "no such process" -e sched:sched_switch -p 999999999
expect 2 "no CPU 4096" -e sched:sched_switch -C 4096
expect 0 "fields: prev_comm" -e 'sched:sched_switch help'
expect 0 "Usage: pp-record" --help
expect 0 "Usage: pp-record" help
if [ ! -e /sys/bus/event_source/devices/kprobe ]; then
	expect 1 "kprobes are not supported by this kernel" -e kprobe:do_sys_openat2 -d 0.1
fi
expect 127 "cannot run 'no-such-command-pp'" -q -e sched:sched_switch -- no-such-command-pp
expect 1 "No such file or directory" -q -e sched:sched_switch -o "$TMP/nodir/x.trace" -d 0.1
# the message names the path as given, not the temporary next to it
[ "$(cat "$TMP/err")" = "pp-record: cannot create $TMP/nodir/x.trace: No such file or directory" ] ||
	{ cat "$TMP/err"; fail "-o in a missing directory: not the path given"; }

# a COMMAND that cannot be started records nothing: the old file stays, no .old, no temporary
mkdir "$TMP/keep" && echo precious > "$TMP/keep/pp.trace" || fail "mkdir"
(cd "$TMP/keep" && "$REC" -q -e sched:sched_switch -- /nonexistent/cmd) 2> "$TMP/err"
rc=$?
[ $rc = 127 ] || { cat "$TMP/err"; fail "-- /nonexistent/cmd: exit $rc, want 127"; }
[ "$(cat "$TMP/keep/pp.trace")" = precious ] || fail "-- /nonexistent/cmd replaced the old pp.trace"
[ "$(ls "$TMP/keep")" = pp.trace ] || fail "-- /nonexistent/cmd left $(ls "$TMP/keep")"

# without --, a first word that is no profiler and no program is a mistyped profiler
one_line 2 "^pp-record: unknown profiler 'nosuchprof' (see pp-analyze list)$" nosuchprof
one_line 2 "unknown profiler 'nosuchprof'" -e sched:sched_switch nosuchprof
# a stray word after a profiler is no COMMAND (that goes after --): refused, not ignored
one_line 2 "^pp-record: profile: unexpected argument 'true' (a COMMAND to record goes after --" profile true -d 100ms
# ... while a program in PATH is a COMMAND, with or without --
"$REC" -q -e sched:sched_switch -o "$TMP/cmd.trace" sh -c 'exit 3'
[ $? = 3 ] || fail "pp-record -e EV sh -c 'exit 3': not the command's status"
"$REC" -q -e sched:sched_switch -o "$TMP/cmd.trace" -- sh -c 'exit 4'
[ $? = 4 ] || fail "pp-record -e EV -- sh -c 'exit 4': not the command's status"

# --help lists every long option the parser knows
for o in event freq call-graph exclude-user exclude-kernel all-cpus cpu pid tid cgroups output \
	 duration mmap-pages chunk-size queue codec kallsyms no-sideband quiet help version; do
	"$REC" --help | grep -q -- "--$o" || fail "--help does not list --$o"
done

# PROFILER --help / -h / help shows that profiler's help, in both tools, exits 0 and records
# nothing (timeout: a recorder that takes help for a file records until stopped)
mkdir "$TMP/help" && cd "$TMP/help" || fail "mkdir"
for h in --help -h help "-p 1 help" "-F 99 -h -- true"; do
	for p in offcpu task-state profile; do
		timeout 10 "$REC" $p $h > "$TMP/h.out" 2>&1 || fail "pp-record $p $h exits non-zero"
		grep -q "^$p - " "$TMP/h.out" || fail "pp-record $p $h does not show its help"
	done
	[ -z "$(ls)" ] || fail "pp-record PROFILER $h wrote $(ls)"
done
cd "$TMP" || fail "cd"
for h in --help -h help; do
	"$B/pp-analyze" task-state $h > "$TMP/h.out" 2>&1 || fail "pp-analyze task-state $h exits non-zero"
	grep -q '^task-state - ' "$TMP/h.out" || fail "pp-analyze task-state $h does not show its help"
done

# a profiler's own complaint about its options is pp-record's one line
one_line 2 "breakpoint: needs an address" breakpoint
one_line 2 "'sched:x' is not mem:" breakpoint -e sched:x

# symlink: FILE -> victim; the victim must stay untouched, FILE becomes ours, FILE.old the link
echo precious > "$TMP/victim"
ln -s "$TMP/victim" "$TMP/link.trace"
"$REC" -q -e sched:sched_switch -o "$TMP/link.trace" -d 0.2 || fail "record over a symlink"
[ "$(cat "$TMP/victim")" = precious ] || fail "wrote through the symlink"
[ -L "$TMP/link.trace.old" ] || fail "the old symlink was not kept as .old"
[ -f "$TMP/link.trace" ] && [ ! -L "$TMP/link.trace" ] || fail "output is not a regular file"
[ "$(stat -c %a "$TMP/link.trace")" = 600 ] || fail "output mode is not 0600"
echo "ok"
