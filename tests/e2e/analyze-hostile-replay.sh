#!/usr/bin/env bash
# Hostile files against the replay core (issue 15): a real recording rewritten
# by tests/helpers/pptrace.py with valid CRCs, so each change reaches the
# session, the symbol tables and the terminal output.
#  - a LOST chunk before the first DATA chunk (a recorder whose queue
#    overflowed at start): no module's lost callback may run before its init
#  - a record of 12 bytes at the head of each DATA chunk, misaligning every
#    record after it: no misaligned load (UBSan, in the sanitized pp-analyze)
#  - the DSO of the sampled stacks renamed to a FIFO: symbolization must not
#    block in open(2) (trace, profile, task-state did)
#  - escape sequences in the host name, a comm, an event name and a symbol
#    name: text output shows them as \xNN, never raw
set -u
B=${PP_BUILD:?}
TOP=${PP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
T=$(mktemp -d /tmp/pp-e2e-hostile-replay.XXXXXX)
F=$(mktemp -d /tmp/ppf.XXXXXX)	# short: the FIFO's path replaces a DSO's in place
trap 'rm -rf "$T" "$F"' EXIT
. "$(dirname "$0")/lib.bash"
need_root "for perf events"
EVS=sched:sched_switch,sched:sched_wakeup,raw_syscalls:sys_enter,raw_syscalls:sys_exit
need_event ${EVS//,/ }
"$B/pp-record" -q -e $EVS --codec none --encoding plain -o "$T/s.trace" -- \
	"$B/tests/helpers/getppid-n" 50 >/dev/null 2>"$T/err" || fail_err "$T/err" "pp-record -e $EVS"
. "$TOP/tests/helpers/hostile-lib.sh"
craft() { craft_from "${SRC:-s}" "$@"; }	# NAME PYTHON: from $SRC.trace (s)
# The sanitized pp-analyze (`make test` builds it): memory errors abort it
A=$B/asan/pp-analyze
need_built "$A"
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
export UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1:print_stacktrace=1
profilers=$("$B/pp-analyze" list | awk '/^profilers/ { p = 1; next } /^commands/ { p = 0 } p { print $1 }')
[ -n "$profilers" ] || fail "pp-analyze list names no profiler"

# 1. a LOST chunk (7 records lost by the recorder) before the first DATA chunk
craft early-lost '
before_data(pptrace.Chunk(0x0011, item(struct.pack("<IIQQQQ", 0, 2, 1, 2, 7, 700))))'
for p in $profilers; do
	run early-lost "$B/pp-analyze" $p "$T/early-lost.trace"
	run early-lost "$B/pp-analyze" $p -e sched:sched_switch -e sched:sched_wakeup "$T/early-lost.trace"
done
"$B/pp-analyze" stat "$T/early-lost.trace" 2>&1 >/dev/null | grep -q "7 (recorder)" ||
	fail "the early LOST chunk is not counted"
"$B/pp-analyze" task-state "$T/early-lost.trace" 2>&1 >/dev/null | grep -q "1 lost windows" ||
	fail "the early lost window is not delivered to task-state after its init"

# 2. misaligned records
MIS='
for x in c:
    if x.type == pptrace.DATA:
        x.payload = struct.pack("<IHH", 0x7fff, 0, 12) + bytes(4) + x.payload
        x.raw_size = len(x.payload)'
craft misaligned "$MIS"
if [ -n "$A" ]; then
	for p in $profilers info dump "trace -g" "task-state -g" "syscalls -g"; do
		run misaligned "$A" $p "$T/misaligned.trace"
	done
fi
"$B/pp-analyze" stat --json "$T/misaligned.trace" >"$T/mis.json" 2>/dev/null
"$B/pp-analyze" stat --json "$T/s.trace" >"$T/s.json" 2>/dev/null
cmp -s "$T/mis.json" "$T/s.json" || fail "misaligned records do not count as aligned ones"

# A profile recording, for sampled stacks (u64 arrays read in place) and user DSOs
"$B/pp-record" -q -g -F 999 --codec none --encoding plain -o "$T/p.trace" profile -- \
	"$B/tests/helpers/spin" >/dev/null 2>"$T/err" || fail "pp-record profile: $(head -1 "$T/err")"
SRC=p craft pmisaligned "$MIS"
if [ -n "$A" ]; then
	for p in profile "trace -g"; do run pmisaligned "$A" $p "$T/pmisaligned.trace"; done
	"$A" profile "$T/pmisaligned.trace" 2>/dev/null | grep -q spin_alpha ||
		fail "profile of misaligned records names no function"
fi

# 3. the sampled DSO (spin) named by a FIFO, known by path only (no build-id, no USYMS)
mkfifo "$F/f" || fail "mkfifo"
FIFO=$F/f SRC=p craft fifo '
for x in c:
    if x.type != pptrace.DATA:
        continue
    p = bytearray(x.payload)
    for off, type, size in pptrace.records(p):
        fn = bytes(p[off + 72:off + size]).split(b"\0")[0]
        if type == 10 and fn.endswith(b"/spin"):
            new = os.environ["FIFO"].encode()
            assert len(new) <= len(fn)
            p[off + 72:off + 72 + len(fn)] = new + bytes(len(fn) - len(new))
            p[off + 5] &= ~0x40
    x.payload = bytes(p)
c = [x for x in c if x.type != 0x0007]'
for p in profile "trace -g" "task-state -g"; do run fifo "$B/pp-analyze" $p "$T/fifo.trace"; done
"$B/pp-analyze" profile "$T/fifo.trace" 2>/dev/null | grep -q "f+0x" ||
	fail "profile of a DSO that is a FIFO does not print its frames as f+0xOFF"

# 4. terminal escapes in names from the file
ESC='
def sub(x, old, new):	# in place: item sizes stay
    assert len(old) == len(new)
    x.payload = x.payload.replace(old, new)
for x in c:
    if x.type == 0x0001:
        x.payload = x.payload.replace(b"hostname\0", b"hostname\0\x1b[2J", 1)
        x.raw_size = len(x.payload)
    if x.type == 0x0002:
        sub(x, b"sched:sched_wakeup\0", b"sched:sched_w\x1b[31m\0")
    if x.type == 0x0007:
        sub(x, b"spin_alpha\0", b"spin\x07alpha\0")
    if x.type == pptrace.DATA:
        p = bytearray(x.payload)
        for off, type, size in pptrace.records(p):
            if type == 3 and p[off + 16:off + 19] in (b"get", b"spi"):
                p[off + 17] = 0x9b	# a C1 CSI: an escape to UTF-8 terminals too
        x.payload = bytes(p)'
craft esc "$ESC"
SRC=p craft pesc "$ESC"
: >"$T/esc.out"
for cmd in info stat trace top; do "$B/pp-analyze" $cmd "$T/esc.trace" >>"$T/esc.out" 2>&1; done
for cmd in info profile "trace -g"; do "$B/pp-analyze" $cmd "$T/pesc.trace" >>"$T/esc.out" 2>&1; done
if LC_ALL=C grep -n -m3 $'[\x1b\x07\x9b]' "$T/esc.out"; then
	fail "raw escape bytes from the file reach the terminal"
fi
for want in 'host:        \x1b[2Jvm' 'sched:sched_w\x1b[31m' 'g\x9btppid-n' 'spin\x07alpha'; do
	grep -qF "$want" "$T/esc.out" || fail "no '$want' in the output: $(head -c 600 "$T/esc.out")"
done

echo "ok: hostile files end every command in the replay core"
