#!/usr/bin/env bash
# Hostile files (issue 15), bounds: what a file claims sizes nothing without a
# cap. A real recording rewritten by tests/helpers/pptrace.py with valid CRCs.
#  - MACHINE nr_cpus=100000000: stat sized its table by it (3.1 GB); now by the
#    CPUs events were seen on, with a warning that the claim is not plausible
#  - 4,100 streams of one sample each: 4,096 streams are read (each one found
#    in O(1), not by a scan of the streams per chunk), the rest said ignored
set -u
B=${PP_BUILD:?}
TOP=${PP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
T=$(mktemp -d /tmp/pp-e2e-bounds.XXXXXX)
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

# 1. MACHINE claims 100M CPUs and a page of 3 bytes
craft cpus '
for x in c:
    if x.type == 1:
        p = re.sub(rb"nr_cpus\x00[0-9]+", b"nr_cpus\x00100000000", x.payload)
        p = re.sub(rb"page_size\x00[0-9]+", b"page_size\x003", p)
        assert p != x.payload
        x.payload, x.raw_size = p, len(p)'
# 300 MB of address space is far more than this needs, far less than 100M CPUs
out=$( (ulimit -v 300000; "$B/pp-analyze" stat --perins --json -e $EV "$T/cpus.trace") 2>"$T/cpus.err") ||
	fail "stat --perins with nr_cpus=100000000: $(head -3 "$T/cpus.err")"
sum=$(grep -o '"count":[0-9]*' <<<"$out" | cut -d: -f2 | awk '{ s += $1 } END { print s + 0 }')
[ "$sum" = $N ] || fail "stat --perins with nr_cpus=100000000 counts $sum, want $N"
rows=$(grep -c '"count"' <<<"$out")
[ "$rows" -le "$(nproc)" ] || fail "stat --perins with nr_cpus=100000000: $rows rows for $(nproc) CPUs"
grep -q "nr_cpus=100000000 is not plausible" "$T/cpus.err" || fail "no warning about nr_cpus: $(cat "$T/cpus.err")"
grep -q "page_size=3 is not plausible" "$T/cpus.err" || fail "no warning about page_size: $(cat "$T/cpus.err")"
echo "ok: a file's claims are capped"

# 2. one sample in each of 4,100 streams (the cap is 4,096)
craft streams '
# the first DATA chunk holding a sample: a loaded host may flush one of only side-band first
d, (off, _, size) = next((x, r) for x in c if x.type == pptrace.DATA
                         for r in pptrace.records(x.payload) if r[1] == 9)
one = d.payload[off:off + size]
c = [x for x in c if x.type != pptrace.DATA]
for k in range(4100):
    c.append(pptrace.Chunk(pptrace.DATA, one, stream=k, flags=d.flags, first_ts=d.first_ts,
                           last_ts=d.first_ts))'
out=$("$B/pp-analyze" stat --json -e $EV "$T/streams.trace" 2>"$T/streams.err") ||
	fail "stat of 4,100 streams: $(head -3 "$T/streams.err")"
[ "$(grep -o '"count":[0-9]*' <<<"$out")" = '"count":4096' ] ||
	fail "4,100 streams of one sample count $(grep -o '"count":[0-9]*' <<<"$out"), want 4096"
grep -q "more than 4096 streams: 4 DATA chunks of the others ignored" "$T/streams.err" ||
	fail "no warning about the streams past 4,096: $(cat "$T/streams.err")"
echo "ok: streams past 4,096 are ignored, with a warning"
