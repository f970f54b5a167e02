#!/usr/bin/env bash
# Recorders started with the same -o: the first records, the others fail at
# once with one line and exit 1; the first's file and the FILE.old it made of
# the previous trace are intact. A lock file left by a killed recorder does
# not stop the next one.
. "$(dirname "$0")/../helpers/record-lib.sh"

F=$TMP/f.trace
# the previous trace, which must become FILE.old
$REC -q -e syscalls:sys_enter_getppid -o "$F" -- "$HELP/getppid-n" 111 || fail "record the old trace"
old_sum=$(md5sum < "$F")

# the first recorder's workload waits for the others to be refused (a FIFO)
mkfifo "$TMP/go"
$REC -q -e syscalls:sys_enter_getppid -o "$F" -- sh -c "read -r _ < '$TMP/go'; exec '$HELP/getppid-n' 222" \
	2> "$TMP/first.err" &
first=$!
# the lock is held once its file names the holder
for _ in $(seq 1200); do [ -s "$F.lock" ] && break; kill -0 $first || break; sleep 0.05; done
[ -s "$F.lock" ] || fail "no $F.lock while recording"
[ "$(cat "$F.lock")" = "$first" ] || fail "$F.lock holds '$(cat "$F.lock")', not the recorder's pid $first"
for k in 2 3; do
	$REC -q -e syscalls:sys_enter_getppid -d 1s -o "$F" > "$TMP/$k.out" 2> "$TMP/$k.err"
	rc=$?
	cat "$TMP/$k.err"
	[ $rc = 1 ] || fail "recorder $k on the same -o: exit $rc, want 1"
	[ "$(wc -l < "$TMP/$k.err")" = 1 ] || fail "recorder $k: not one line"
	grep -q "^pp-record: $F is being recorded by another pp-record (pid $first)$" "$TMP/$k.err" ||
		fail "recorder $k: no clear message"
done
echo > "$TMP/go"
wait $first || { cat "$TMP/first.err"; fail "the first recorder failed"; }

[ "$(md5sum < "$F.old")" = "$old_sum" ] || fail "FILE.old is not the previous trace"
$CHECK "$F" > "$TMP/f.out" || fail "the first recorder's file is unreadable"
[ "$(value footer "$TMP/f.out")" = 1 ] || fail "the first recorder's file has no footer"
n=$(evcount syscalls:sys_enter_getppid "$TMP/f.out")
[ "${n:-0}" -ge 222 ] || fail "the first recorder's file holds ${n:-0} getppid events, want >= 222"
[ -e "$F.lock" ] && fail "$F.lock left after a clean exit"
ls "$TMP" | grep -q '\.tmp\.' && fail "a temporary file was left"

# a killed recorder leaves its lock file, unlocked: the next one records
echo 99999 > "$F.lock"
$REC -q -e syscalls:sys_enter_getppid -o "$F" -- "$HELP/getppid-n" 7 || fail "a stale lock file stops the recorder"
[ -e "$F.lock" ] && fail "$F.lock left after a clean exit"
echo "ok"
