#!/usr/bin/env bash
# kvm-exit ground truth: a tiny guest run through the KVM API
# (tests/helpers/kvm-pio) makes exactly N port I/O exits to user space and one
# HLT exit: kvm-exit must count exactly N IO exits and 1 HLT, time the N that
# re-entered (the next KVM_RUN), and say which kinds of exits the file holds.
. "$(dirname "$0")/../helpers/record-lib.sh"
AN=$B/pp-analyze
N=200
[ -e /dev/kvm ] || skip "no /dev/kvm on this host: no guest can run"
"$HELP/kvm-pio" 1 >/dev/null 2>"$TMP/err"
[ $? = 77 ] && skip "KVM cannot run a guest here: $(cat "$TMP/err")"
$REC -o "$TMP/t" kvm-exit -- "$HELP/kvm-pio" $N > "$TMP/out" 2> "$TMP/rec.err" ||
	{ cat "$TMP/rec.err" "$TMP/out"; fail "pp-record kvm-exit"; }
grep -q "^io $N hlt 1$" "$TMP/out" || fail "the guest did not run as told: $(cat "$TMP/out")"
evs=$(awk '/^  [a-z0-9_-]+:/ && $1 != "lost:" { print $1 }' "$TMP/rec.err" | sort | tr '\n' ' ')
[ "$evs" = "kvm:kvm_entry kvm:kvm_exit kvm:kvm_userspace_exit syscalls:sys_enter_ioctl " ] ||
	{ cat "$TMP/rec.err"; fail "pp-record kvm-exit recorded: $evs"; }

$AN kvm-exit --json "$TMP/t" > "$TMP/j" || fail "pp-analyze kvm-exit --json"
cat "$TMP/j"
io=$(grep '"kind":"user"' "$TMP/j" | grep '"reason":"IO"')
echo "$io" | grep -q "\"calls\":$N,\"latency\":{\"calls\":$N," || fail "want $N timed IO exits"
grep '"kind":"user"' "$TMP/j" | grep '"reason":"HLT"' | grep -q '"calls":1,' || fail "want 1 HLT exit"
grep '"type":"kinds"' "$TMP/j" | grep -q "\"user\":$((N + 1))," || fail "want $((N + 1)) user exits in all"

$AN kvm-exit "$TMP/t" > "$TMP/txt" || fail "pp-analyze kvm-exit"
cat "$TMP/txt"
grep -q "$((N + 1)) to user space" "$TMP/txt" || fail "the text does not say which exits the file holds"
grep -Eq "^user +IO +$N " "$TMP/txt" || fail "no IO row with $N exits"
$AN kvm-exit --perins --json "$TMP/t" | grep '"reason":"IO"' | grep -q '"comm":"kvm-pio"' || fail "--perins: no vCPU thread"
n=$($AN kvm-exit --than 0 "$TMP/t" | grep -c "user exit IO took")
[ "$n" = $N ] || fail "--than 0 printed $n IO exits, want $N"
$AN kvm-exit --heatmap "$TMP/hm" "$TMP/t" >/dev/null 2>&1 && grep -q '<svg' "$TMP/hm.svg" || fail "--heatmap"
echo "ok: $N IO exits and 1 HLT"
