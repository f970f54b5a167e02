#!/usr/bin/env bash
# A full disk stops the recorder with a clear error and a readable file, and
# the summary counts exactly the events recorded that did not reach it.
. "$(dirname "$0")/../helpers/record-lib.sh"

mkdir -p "$TMP/small"
mount -t tmpfs -o size=512k pp-e2e "$TMP/small" 2>/dev/null || skip "cannot mount a tmpfs"
trap 'umount "$TMP/small" 2>/dev/null; rm -rf "$TMP"' EXIT
$REC -e syscalls:sys_enter_getppid --codec none -o "$TMP/small/f.trace" -- "$HELP/getppid-n" 400000 2> "$TMP/err"
rc=$?
cat "$TMP/err"
[ $rc = 1 ] || fail "exit status $rc, want 1"
grep -q "No space left on device" "$TMP/err" || fail "no clear ENOSPC message"
$CHECK "$TMP/small/f.trace" > "$TMP/f.out" || fail "unreadable"
cat "$TMP/f.out"
[ "$(value chunks_machine "$TMP/f.out")" = 1 ] || fail "no MACHINE chunk"
[ "$(value corrupt "$TMP/f.out")" = 0 ] || fail "corrupt chunks"
n=$(evcount syscalls:sys_enter_getppid "$TMP/f.out")
[ "${n:-0}" -gt 0 ] || fail "no data before the disk filled"
# every event recorded is in the file or counted as not written, exactly
grep -q "lost: none" "$TMP/err" && fail "'lost: none' while events did not reach the file"
rec=$(sed -n 's/^pp-record: .* s, \([0-9]*\) events recorded.*/\1/p' "$TMP/err")
unw=$(sed -n 's/^  lost: \([0-9]*\) events recorded but not written (write error)$/\1/p' "$TMP/err")
[ -n "$rec" ] && [ -n "$unw" ] || fail "the summary does not count the events not written"
[ "$unw" -gt 0 ] || fail "the disk filled, yet 0 events not written"
[ $((n + unw)) = "$rec" ] ||
	fail "$rec events recorded, $n in the file, $unw reported not written: $((rec - n - unw)) unaccounted"

# The same at a low rate, where the drain writes each timed flush itself
# (the writer thread sleeps): the chunk it could not write is counted too.
umount "$TMP/small"
mount -t tmpfs -o size=64k pp-e2e "$TMP/small" || fail "cannot remount the tmpfs"
$REC -e syscalls:sys_enter_getppid --codec none -o "$TMP/small/g.trace" -- "$HELP/steady" 10000 6 2> "$TMP/err2"
rc=$?
cat "$TMP/err2"
[ $rc = 1 ] || fail "slow: exit status $rc, want 1"
grep -q "No space left on device" "$TMP/err2" || fail "slow: no clear ENOSPC message"
$CHECK "$TMP/small/g.trace" > "$TMP/g.out" || fail "slow: unreadable"
[ "$(value corrupt "$TMP/g.out")" = 0 ] || fail "slow: corrupt chunks"
n=$(evcount syscalls:sys_enter_getppid "$TMP/g.out")
rec=$(sed -n 's/^pp-record: .* s, \([0-9]*\) events recorded.*/\1/p' "$TMP/err2")
unw=$(sed -n 's/^  lost: \([0-9]*\) events recorded but not written (write error)$/\1/p' "$TMP/err2")
[ -n "$rec" ] && [ -n "$unw" ] && [ "$unw" -gt 0 ] && [ "${n:-0}" -gt 0 ] ||
	fail "slow: the summary does not count the events not written"
[ $((n + unw)) = "$rec" ] ||
	fail "slow: $rec events recorded, $n in the file, $unw reported not written"
echo "ok"
