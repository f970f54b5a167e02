#!/usr/bin/env bash
# A recorder killed with SIGKILL leaves a file that reads back (no footer,
# chunks up to the last complete one), and the per-second flush put data there.
. "$(dirname "$0")/../helpers/record-lib.sh"

$REC -q -a -e sched:sched_switch,sched:sched_wakeup,syscalls:sys_enter_getppid -o "$TMP/k.trace" &
rp=$!
for i in 1 2 3 4 5 6; do "$HELP/getppid-n" 20000; sleep 0.4; done
kill -9 $rp
wait $rp 2>/dev/null
$CHECK "$TMP/k.trace" > "$TMP/k.out" || fail "unreadable after kill -9"
cat "$TMP/k.out"
[ "$(value footer "$TMP/k.out")" = 0 ] || fail "footer after kill -9?"
[ "$(value chunks_machine "$TMP/k.out")" = 1 ] || fail "no MACHINE chunk"
[ "$(value chunks_attrs "$TMP/k.out")" = 1 ] || fail "no ATTRS chunk"
[ "$(value corrupt "$TMP/k.out")" = 0 ] || fail "corrupt chunks"
n=$(evcount syscalls:sys_enter_getppid "$TMP/k.out")
[ "${n:-0}" -ge 20000 ] || fail "only ${n:-0} getppid events reached the file"
echo "ok"
