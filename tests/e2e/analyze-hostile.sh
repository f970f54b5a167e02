#!/usr/bin/env bash
# Hostile files (issue 15): a real recording rewritten by tests/helpers/pptrace.py
# with valid CRCs, so each change reaches the decoders behind the reader's checks.
# Every command must end, within a timeout, without a crash.
#  - a perf record of 65,528 bytes (dump's 16-bit offset wrapped: it never ended)
#  - sample times near UINT64_MAX (stat -i's next tick wrapped: it never ended)
#  - a terminal escape in a tracepoint's string field (printed raw before)
set -u
B=${PP_BUILD:?}
TOP=${PP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
T=$(mktemp -d /tmp/pp-e2e-hostile.XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.bash"
need_root "for perf events"
EV=syscalls:sys_enter_getppid
N=300
need_event $EV
"$B/pp-record" -q -e $EV --codec none --encoding plain -o "$T/g.trace" -- \
	"$B/tests/helpers/getppid-n" $N >/dev/null 2>"$T/err" || fail_err "$T/err" "pp-record -e $EV"
. "$TOP/tests/helpers/hostile-lib.sh"
craft() { craft_from g "$@"; }	# NAME PYTHON: from g.trace

# the rewrite alone changes nothing
craft same ''
[ "$("$B/pp-analyze" stat --json -e $EV "$T/same.trace" | grep -o '"count":[0-9]*')" = "\"count\":$N" ] ||
	fail "a file rewritten unchanged does not count $N"

# 1. one record of 65,528 bytes in a DATA chunk of its own
craft big '
rec = struct.pack("<IHH", 9, 0, 65528) + bytes(65520)
c.append(pptrace.Chunk(pptrace.DATA, rec, stream=0))'
run big "$B/pp-analyze" dump "$T/big.trace"
"$B/pp-analyze" dump "$T/big.trace" | grep -q "size 65528" || fail "dump does not show the big record"
for cmd in info trace stat; do run big "$B/pp-analyze" $cmd "$T/big.trace"; done

# 2. every sample's time near UINT64_MAX (the sample layout: id, pid/tid, time at 24)
craft late '
for x in c:
    if x.type != pptrace.DATA:
        continue
    p = bytearray(x.payload)
    for off, type, size in pptrace.records(p):
        if type == 9 and size >= 32:
            struct.pack_into("<Q", p, off + 24, (1 << 64) - 5000 + off % 4000)
    x.payload = bytes(p)
    x.first_ts, x.last_ts = (1 << 64) - 5000, (1 << 64) - 1000'
for cmd in "stat -i 1" "stat -i 1000" "trace" "top -i 1"; do
	run late "$B/pp-analyze" $cmd "$T/late.trace"
done
# the samples span 5 us: one interval, not one per wrapped tick (1.9M lines before)
for iv in 1 1000; do
	lines=$(timeout -k 5 20 "$B/pp-analyze" stat -i $iv "$T/late.trace" 2>/dev/null | head -1000 | grep -vc "^#")
	[ "$lines" -le 2 ] || fail "stat -i $iv on times near UINT64_MAX: $lines lines, want 1 interval"
done
# 3. a comm holding a terminal escape, as the kernel's own string fields carry
# it (sched_switch's prev_comm/next_comm): trace shows it as \x1b, never raw
"$B/pp-record" -q -e sched:sched_switch -o "$T/esc.trace" -- \
	sh -c 'printf "pp\033[2Jx" > /proc/self/comm; sleep 0.05' 2>"$T/err" || fail "record: $(cat "$T/err")"
"$B/pp-analyze" trace "$T/esc.trace" > "$T/esc.out" 2>&1 || fail "trace of an escaped comm"
grep -q 'pp\\x1b\[2Jx' "$T/esc.out" || fail "the comm's escape is not shown as \\x1b: $(head -3 "$T/esc.out")"
! grep -q $'\033' "$T/esc.out" || fail "a raw escape byte reached the output"
echo "ok: hostile records and times end every command"
