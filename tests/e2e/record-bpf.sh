#!/usr/bin/env bash
# BPF through pp-record: --exclude_pid drops exactly the samples of a
# spinning process (and only those), the filter is named in the file, and
# `pp-record offcpu` names the function a helper sleeps in.
. "$(dirname "$0")/../helpers/record-lib.sh"
AN=$B/pp-analyze
[ -x "$AN" ] || skip "no $AN"
[ -e /sys/kernel/btf/vmlinux ] || skip "kernel without BTF: BPF programs cannot load here"

# two spinners, one per CPU: the excluded one loses all its samples, the
# other keeps them (the rest of the host may be idle and give none). A loaded
# machine gives them less CPU than their wall time: the samples expected are
# 499 Hz over the CPU time each got while a recorder had its events on.
# (they spin far longer than the recordings take, even on a loaded machine
# where a recorder's start-up can take seconds: they are killed below)
"$HELP/spin" 300 & spin=$!
"$HELP/spin" 300 & spin2=$!
trap 'kill $spin $spin2 2>/dev/null; rm -rf "$TMP"' EXIT
ticks() { awk '{ print $14 + $15 }' /proc/$1/stat; }	# CPU time in 1/100 s
# record_1s FILE ARGS...: pp-record -a -F 499 for a second once its events are
# on, and longer until each spinner has had 100 ms of CPU (a loaded host may
# give them a few percent: up to 60 s), with the spinners' CPU time read at
# both ends into t_a0 t_a1 t_b0 t_b1
record_1s() {
	local f=$1 i; shift
	$REC -q -a -F 499 "$@" -o "$f" 2> "$TMP/err" & local rp=$!
	wait_recording "$f" $rp
	t_a0=$(ticks $spin); t_b0=$(ticks $spin2)
	sleep 1
	for i in $(seq 300); do
		[ $(( $(ticks $spin) - t_a0 )) -ge 10 ] && [ $(( $(ticks $spin2) - t_b0 )) -ge 10 ] && break
		sleep 0.2
	done
	kill -INT $rp
	wait $rp || { cat "$TMP/err"; fail "recording $*"; }
	t_a1=$(ticks $spin); t_b1=$(ticks $spin2)
}
record_1s "$TMP/all.trace"
a0=$t_a0 a1=$t_a1
record_1s "$TMP/ex.trace" --exclude_pid=$spin
a1x=$t_a0 a2=$t_a1 b1=$t_b0 b2=$t_b1
kill $spin $spin2 2>/dev/null
n_all=$($AN trace -p $spin "$TMP/all.trace" | grep -c cpu-clock)
n_ex=$($AN trace -p $spin "$TMP/ex.trace" | grep -c cpu-clock)
n_other=$($AN trace -p $spin2 "$TMP/ex.trace" | grep -c cpu-clock)
# at least a quarter of what its CPU time allows, and enough to mean something
floor() { local f=$(( ($1) * 499 / 100 / 4 )); [ $f -ge 20 ] && echo $f || echo 20; }
[ $((a2 - a1x)) -ge 10 ] || fail "the spinner got only $((a2 - a1x))0 ms of CPU while --exclude_pid recorded"
[ "$n_all" -ge "$(floor $((a1 - a0)))" ] ||
	fail "without the filter only $n_all samples of the spinner ($((a1 - a0))0 ms of CPU)"
[ "$n_ex" = 0 ] || fail "--exclude_pid kept $n_ex samples of pid $spin"
[ "$n_other" -ge "$(floor $((b2 - b1)))" ] ||
	fail "--exclude_pid=$spin kept only $n_other samples of another spinner ($((b2 - b1))0 ms of CPU)"
$AN info "$TMP/ex.trace" | grep -q "exclude_pid=$spin" || { $AN info "$TMP/ex.trace"; fail "the filter is not named in the file"; }

$REC -o "$TMP/off.trace" offcpu -- "$HELP/bpf-sleeper" 2> "$TMP/off.err" > /dev/null || { cat "$TMP/off.err"; fail "pp-record offcpu"; }
$AN offcpu "$TMP/off.trace" > "$TMP/off.out" 2>&1 || { cat "$TMP/off.out"; fail "pp-analyze offcpu"; }
grep -q pp_sleep_here "$TMP/off.out" || { head -30 "$TMP/off.out"; fail "offcpu does not name pp_sleep_here"; }

# a workload's children are followed: both sleeps of the shell are there
$REC -q -o "$TMP/kids.trace" offcpu -- sh -c 'sleep 0.2; sleep 0.3' || fail "pp-record offcpu -- sh"
$AN offcpu "$TMP/kids.trace" > "$TMP/kids.out" 2>&1
[ "$(grep -c '^sleep .* state S' "$TMP/kids.out")" = 2 ] || { cat "$TMP/kids.out"; fail "offcpu does not follow the workload's children"; }
# system-wide: a process running before the recorder starts is read from
# /proc when its first stack is drained, and its function is named
"$HELP/bpf-sleeper" 40 50 > /dev/null & sl=$!
sleep 0.1
$REC -a -d 1.5 -o "$TMP/sys.trace" offcpu 2> "$TMP/sys.err" || { cat "$TMP/sys.err"; fail "pp-record -a offcpu"; }
grep -q "written to $TMP/sys.trace" "$TMP/sys.err" && ! grep -q "0 events recorded" "$TMP/sys.err" ||
	{ cat "$TMP/sys.err"; fail "the summary of an aggregator alone"; }
grep -q "offcpu: .* aggregated stacks in .* windows" "$TMP/sys.err" || { cat "$TMP/sys.err"; fail "no aggregator line in the summary"; }
wait $sl
$AN offcpu -p $sl "$TMP/sys.trace" > "$TMP/sys.out" 2>&1
grep -q pp_sleep_here "$TMP/sys.out" || { head -30 "$TMP/sys.out"; fail "system-wide offcpu does not name pp_sleep_here of a process started before it"; }
echo "ok"
