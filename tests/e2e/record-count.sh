#!/usr/bin/env bash
# Exactly N tracepoint events for the workload: followed (-- CMD) and
# system-wide (-a -- CMD), the workload's exit status passed through, and a
# kernel filter on a field keeping exactly the matching events.
. "$(dirname "$0")/../helpers/record-lib.sh"

$REC -q -e syscalls:sys_enter_getppid -o "$TMP/a.trace" -- "$HELP/getppid-n" 4321 7
rc=$?
[ $rc = 7 ] || fail "exit status $rc, want the workload's 7"
$CHECK "$TMP/a.trace" > "$TMP/a.out" || fail "checker"
[ "$(evcount syscalls:sys_enter_getppid "$TMP/a.out")" = 4321 ] || { cat "$TMP/a.out"; fail "follow mode: not 4321 events"; }
[ "$(value footer "$TMP/a.out")" = 1 ] || fail "no footer"

PP_PIDFILE=$TMP/pid $REC -q -a -e syscalls:sys_enter_getppid,sched:sched_switch -o "$TMP/b.trace" -- "$HELP/getppid-n" 2500 || fail "system-wide run"
pid=$(cat "$TMP/pid")
$CHECK "$TMP/b.trace" --pid "$pid" > "$TMP/b.out" || fail "checker"
[ "$(pidcount syscalls:sys_enter_getppid "$TMP/b.out")" = 2500 ] || { cat "$TMP/b.out"; fail "system-wide: not 2500 events for pid $pid"; }

# wildcard: syscalls:sys_*_getppid = enter + exit
$REC -q -e 'syscalls:sys_*_getppid' -o "$TMP/w.trace" -- "$HELP/getppid-n" 300 || fail "wildcard run"
$CHECK "$TMP/w.trace" > "$TMP/w.out"
[ "$(evcount syscalls:sys_enter_getppid "$TMP/w.out")" = 300 ] && [ "$(evcount syscalls:sys_exit_getppid "$TMP/w.out")" = 300 ] || { cat "$TMP/w.out"; fail "wildcard"; }

# kernel filter on a field: 100 lseek calls with offsets 0..99, keep offset < 37
PP_LSEEK=100 $REC -q -e 'syscalls:sys_enter_lseek/offset < 37/,syscalls:sys_enter_getppid' -o "$TMP/f.trace" -- "$HELP/getppid-n" 10 || fail "filter run"
$CHECK "$TMP/f.trace" > "$TMP/f.out"
[ "$(evcount syscalls:sys_enter_lseek "$TMP/f.out")" = 37 ] || { cat "$TMP/f.out"; fail "filter kept the wrong events"; }
[ "$(evcount syscalls:sys_enter_getppid "$TMP/f.out")" = 10 ] || fail "unfiltered event in a comma list"
echo "ok"
