#!/usr/bin/env bash
# kvm-exit on a file with no KVM events says so in one line and fails; on a
# file with the events but no guest, it reports zero exits of each kind and
# says kvm_exit never fired (runs with or without /dev/kvm).
. "$(dirname "$0")/../helpers/record-lib.sh"
AN=$B/pp-analyze
[ -d /sys/kernel/tracing/events/kvm ] || [ -d /sys/kernel/debug/tracing/events/kvm ] ||
	$REC -q -o "$TMP/probe" -e kvm:kvm_userspace_exit -- true 2>/dev/null ||
	skip "this kernel has no kvm tracepoints"
$REC -q -o "$TMP/t" kvm-exit -- true 2> "$TMP/err" || { cat "$TMP/err"; fail "pp-record kvm-exit -- true"; }
$AN kvm-exit "$TMP/t" > "$TMP/out" || fail "pp-analyze kvm-exit"
grep -q "0 handled in the kernel.*0 to user space" "$TMP/out" || { cat "$TMP/out"; fail "no kinds line"; }
grep -q "never fired" "$TMP/out" || fail "does not say kvm_exit never fired"
$AN kvm-exit --json "$TMP/t" | grep -q '"type":"kinds".*"kernel":0,"user":0' || fail "--json kinds"
$REC -q -o "$TMP/s" -e sched:sched_switch -- true 2>/dev/null
$AN kvm-exit "$TMP/s" > /dev/null 2> "$TMP/err"
rc=$?
[ $rc != 0 ] && [ "$(grep -c . "$TMP/err")" = 1 ] && grep -q "^pp-analyze: kvm-exit: " "$TMP/err" ||
	{ cat "$TMP/err"; fail "no kvm events: exit $rc"; }
echo ok
