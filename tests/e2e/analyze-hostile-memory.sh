#!/usr/bin/env bash
# Hostile files (issue 15), memory: pp-analyze's memory stays under
# --max-memory SIZE (spec/pp-analyze.md, "Memory bound"), and past it stops
# with one line that names the bound and how to raise it (exit 1), never a
# crash or the machine's OOM killer.
#  - the file: one 4 MiB DATA chunk of a real recording copied into 24
#    streams: reading it holds 24 decoded chunks at once (the bound is a
#    function of streams x chunk size), ~120 MB, from a 10 MB file
#  - --max-memory 48M: refused with the message, nothing on stdout
#  - --max-memory 1G: every event of the 24 streams counted
#  - a bad SIZE is a usage error (exit 2)
set -u
B=${PP_BUILD:?}
TOP=${PP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
T=$(mktemp -d /tmp/pp-e2e-memory.XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.bash"
need_root "for perf events"
EV=syscalls:sys_enter_getppid
need_event $EV
# 4 MiB chunks, plain records (64 bytes each): 200000 calls fill three
"$B/pp-record" -q -e $EV --chunk-size 4M --encoding plain --flush-interval 60000 \
	-o "$T/g.trace" -- "$B/tests/helpers/getppid-n" 200000 >/dev/null 2>"$T/err" ||
	fail_err "$T/err" "pp-record -e $EV --chunk-size 4M"
. "$TOP/tests/helpers/hostile-lib.sh"
S=24
# the first DATA chunk (the largest), once in stream 0 (one.trace) and in
# streams 0..S-1 (many.trace); the metadata as recorded
python3 - "$T" $S <<'PY' || fail "crafting the files"
import copy, os, sys
sys.path.insert(0, os.environ['HELPERS'])
import pptrace
t, n = sys.argv[1], int(sys.argv[2])
hdr, c = pptrace.read(t + '/g.trace')
meta = [x for x in c if x.type not in (pptrace.DATA, pptrace.INDEX, pptrace.FOOTER)]
d = max((x for x in c if x.type == pptrace.DATA), key=lambda x: x.raw_size)
assert d.raw_size > (3 << 20), d.raw_size
for name, k in (('one', 1), ('many', n)):
    out = list(meta)
    for s in range(k):
        y = copy.copy(d)
        y.stream = s
        out.append(y)
    pptrace.write('%s/%s.trace' % (t, name), hdr, out)
PY
count() { awk -v ev=$EV '$2 == ev { print $3 }'; }
one=$("$B/pp-analyze" stat "$T/one.trace" 2>"$T/one.err" | count)
[ -n "$one" ] && [ "$one" -gt 50000 ] || fail "stat of one chunk: '$one' events: $(cat "$T/one.err")"

# 1. a bound below what the streams hold: one line, exit 1, no report
run small "$B/pp-analyze" stat --max-memory 48M "$T/many.trace"
"$B/pp-analyze" stat --max-memory 48M "$T/many.trace" >"$T/small.out" 2>"$T/small.err"
rc=$?
[ $rc = 1 ] || fail "--max-memory 48M: exit $rc, want 1: $(cat "$T/small.err")"
grep -q "^pp-analyze: memory bound exceeded: .* in use, the bound is 48 MiB (raise it with --max-memory SIZE)$" \
	"$T/small.err" || fail "--max-memory 48M: no bound message: $(cat "$T/small.err")"
[ "$(grep -c 'memory bound' "$T/small.err")" = 1 ] || fail "the bound said more than once: $(cat "$T/small.err")"
[ -s "$T/small.out" ] && fail "--max-memory 48M still printed a report: $(head -3 "$T/small.out")"
# the same for a profiler with other state, and for info
"$B/pp-analyze" top --max-memory 48M -e $EV "$T/many.trace" >/dev/null 2>"$T/top.err"
rc=$?
[ $rc = 1 ] && grep -q "memory bound exceeded" "$T/top.err" || fail "top --max-memory 48M: exit $rc: $(cat "$T/top.err")"
# info has the default bound only: at half the RAM this file passes
"$B/pp-analyze" info "$T/many.trace" >"$T/info.out" 2>"$T/info.err" || fail "info: $(cat "$T/info.err")"
echo "ok: a bound too small for ${S} streams of 4 MiB chunks is refused in one line"

# 2. a bound above it: every event
many=$("$B/pp-analyze" stat --max-memory 1G "$T/many.trace" 2>"$T/big.err" | count)
[ "$many" = $((S * one)) ] || fail "--max-memory 1G counts '$many', want $((S * one)): $(cat "$T/big.err")"
grep -q "memory bound" "$T/big.err" && fail "--max-memory 1G: $(cat "$T/big.err")"
echo "ok: with --max-memory 1G all $many events of $S streams are counted"

# 3. sizes
for bad in 1M 12x -5G 99999999999T ""; do
	"$B/pp-analyze" stat --max-memory "$bad" "$T/one.trace" >/dev/null 2>"$T/bad.err"
	rc=$?
	[ $rc = 2 ] && grep -q "^pp-analyze: stat: bad --max-memory '$bad'" "$T/bad.err" ||
		fail "--max-memory '$bad': exit $rc: $(cat "$T/bad.err")"
done
for good in 16M 65536K 2G 1GiB 17179869184; do
	"$B/pp-analyze" stat --max-memory "$good" "$T/one.trace" >/dev/null 2>"$T/good.err" ||
		fail "--max-memory $good refused: $(cat "$T/good.err")"
done
echo "ok: --max-memory takes K/M/G/T sizes of 16M or more"
