#!/usr/bin/env bash
# pp-analyze offcpu --live: the BPF off-CPU program loaded by the analyzer
# itself sees the sleeps of tests/helpers/bpf-sleeper (50 ms each in
# pp_sleep_here) as state S time of that process. Skips without BPF/BTF.
# The helper sleeps for 20 s, far longer than the 3 s recorded: a loaded host
# may take seconds to load the program, and a helper of 2 s had slept half
# its naps before it was on. It runs at SCHED_FIFO: on a loaded host each
# wake-up of a normal task waits behind the busy ones (a 50 ms nap took 206
# ms a round beside perf bench sched messaging, 17 naps in 3 s). Then a
# command followed from its start: exactly its 20 naps, over its stacks.
set -u
B=${PP_BUILD:?PP_BUILD not set}
helper=$B/tests/helpers/bpf-sleeper
[ -x "$helper" ] || { echo "skip: $helper not built"; exit 77; }
[ -r /sys/kernel/btf/vmlinux ] || { echo "skip: kernel without BTF"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "skip: needs root for BPF"; exit 77; }
out=$(mktemp /tmp/pp-e2e-offcpu.XXXXXX)
trap 'rm -f "$out"' EXIT
chrt -f 1 "$helper" 400 50 >/dev/null &
pid=$!
trap 'kill "$pid" 2>/dev/null; rm -f "$out"' EXIT
"$B/pp-analyze" offcpu --live -d 3 -p "$pid" >"$out" 2>&1
rc=$?
kill "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
cat "$out"
[ $rc -eq 0 ] || { echo "FAIL: pp-analyze exit $rc"; exit 1; }
line=$(grep -m1 "^bpf-sleeper $pid/$pid state S:" "$out") || { echo "FAIL: no S stack for $pid"; exit 1; }
# "... state S: 2.85s total, 57 times, ..." - at least 1 s of the 3 s recorded.
count=$(echo "$line" | sed -n 's/.* \([0-9]*\) times.*/\1/p')
[ -n "$count" ] && [ "$count" -ge 20 ] || { echo "FAIL: only ${count:-0} sleeps seen"; exit 1; }
grep -q "bpf-sleeper" "$out" || exit 1
"$B/pp-analyze" offcpu --live -- "$helper" 20 50 >"$out" 2>&1 || { cat "$out"; echo "FAIL: offcpu --live -- COMMAND"; exit 1; }
# the naps through pp_sleep_here, over its stacks: the first ones, walked
# before the stack walker's tables of the new process are in, are frame-pointer
# stacks (the same frames, down to __libc_start_call_main only)
exact=$(awk '/^[^ ]/ { if (inS && hit) n += c
		inS = /^bpf-sleeper [0-9]+\/[0-9]+ state S:/; c = 0; hit = 0
		if (inS && match($0, /, [0-9]+ times,/)) c = substr($0, RSTART + 2, RLENGTH - 9) + 0
		next }
	$1 == "pp_sleep_here" { hit = 1 }
	END { if (inS && hit) n += c; print n + 0 }' "$out")
[ "$exact" = 20 ] || { cat "$out"; echo "FAIL: the followed command's 20 naps seen ${exact:-0} times"; exit 1; }
echo "ok: $count sleeps of pid $pid seen; the followed command's 20 of 20"
