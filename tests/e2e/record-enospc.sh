#!/usr/bin/env bash
# A full disk stops the recorder with a clear error and a readable file.
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
echo "ok"
