#!/usr/bin/env bash
# A damaged recording: a bit flipped inside one DATA chunk, and a copy cut in
# the middle of a chunk. pp-analyze must print exactly the events of the
# intact chunks (counted from `pp-analyze dump` of the original), one warning
# line naming the damage, and never crash; random flips and cuts must not
# crash any command either.
set -u
. "$(dirname "$0")/lib.bash"
B=${PP_BUILD:?}
T=$(mktemp -d /tmp/pp-e2e-damaged.XXXXXX)
trap 'rm -rf "$T"' EXIT
need_root "for perf events"
N=20000
EV=syscalls:sys_enter_getppid
need_event $EV
"$B/pp-record" -q -e $EV --chunk-size 64K -o "$T/g.trace" -- "$B/tests/helpers/getppid-n" $N >/dev/null 2>"$T/rec.err" ||
	fail_err "$T/rec.err" "pp-record -e $EV"
# Records per DATA chunk and chunk offsets, from dump of the intact file.
"$B/pp-analyze" dump "$T/g.trace" | awk '
	/^# chunk/ { if (d) print off, n; d = ($7 == "0x10"); n = 0; off = $5; sub(":", "", off); next }
	d && / SAMPLE / { n++ }
	END { if (d) print off, n }' > "$T/chunks"
nchunks=$(wc -l < "$T/chunks")
# 20000 records of 64 KiB chunks make many more than 6
[ "$nchunks" -ge 6 ] || fail "only $nchunks data chunks of --chunk-size 64K for $N events (want 6)"
count() { "$B/pp-analyze" stat --json -e $EV "$1" 2>"$T/err" | grep -o '"count":[0-9]*' | cut -d: -f2; }
[ "$(count "$T/g.trace")" = $N ] || { echo "FAIL: intact file does not count $N"; exit 1; }
# 1. a bit flipped in the payload of the 3rd data chunk
read -r off3 n3 < <(sed -n 3p "$T/chunks")
python3 - "$T/g.trace" "$T/flip.trace" $((off3)) <<'PY'
import sys
d = bytearray(open(sys.argv[1], 'rb').read())
d[int(sys.argv[3]) + 56 + 200] ^= 0x10
open(sys.argv[2], 'wb').write(d)
PY
got=$(count "$T/flip.trace")
want=$((N - n3))
[ "$got" = "$want" ] || { echo "FAIL: flipped: counted '$got', want $want (chunk at $off3 held $n3)"; exit 1; }
[ "$(wc -l < "$T/err")" = 1 ] && grep -q 'warning: chunk .*CRC' "$T/err" ||
	{ echo "FAIL: flipped: want one warning line, got:"; cat "$T/err"; exit 1; }
# the trace of the intact part is line for line the original's minus that chunk
"$B/pp-analyze" trace "$T/g.trace" > "$T/all.txt" 2>/dev/null
"$B/pp-analyze" trace "$T/flip.trace" > "$T/flip.txt" 2>"$T/err"
[ "$(comm -13 <(sort "$T/all.txt") <(sort "$T/flip.txt") | wc -l)" = 0 ] || { echo "FAIL: flipped trace has lines the original lacks"; exit 1; }
[ "$(wc -l < "$T/flip.txt")" = "$want" ] || { echo "FAIL: flipped trace has $(wc -l < "$T/flip.txt") lines, want $want"; exit 1; }
[ "$(wc -l < "$T/err")" = 1 ] || { echo "FAIL: trace: want one warning line:"; cat "$T/err"; exit 1; }
# 2. cut in the middle of the 5th data chunk: chunks 1-4 intact
read -r off5 n5 < <(sed -n 5p "$T/chunks")
head -c $((off5 + 500)) "$T/g.trace" > "$T/cut.trace"
want=$(head -4 "$T/chunks" | awk '{ s += $2 } END { print s }')
got=$(count "$T/cut.trace")
[ "$got" = "$want" ] || { echo "FAIL: truncated: counted '$got', want $want"; exit 1; }
[ "$(wc -l < "$T/err")" = 1 ] && grep -q 'warning: file truncated' "$T/err" ||
	{ echo "FAIL: truncated: want one warning line, got:"; cat "$T/err"; exit 1; }
"$B/pp-analyze" info "$T/cut.trace" 2>/dev/null | grep -q '^damage:.*truncated' || { echo "FAIL: info does not report the truncation"; exit 1; }
"$B/pp-analyze" info "$T/flip.trace" 2>/dev/null | grep -q '^damage:.*1 corrupt' || { echo "FAIL: info does not report the corrupt chunk"; exit 1; }
# 3. random damage: never a crash
# the 25 damaged copies made by one python (a start costs seconds on a loaded host)
python3 - "$T/g.trace" "$T/r" <<'PY'
import random, sys
g = open(sys.argv[1], 'rb').read()
for i in range(1, 26):
    random.seed(i)
    d = bytearray(g)
    for _ in range(random.randint(1, 20)):
        p = random.randrange(len(d)); d[p] ^= 1 << random.randrange(8)
    if random.random() < 0.5:
        d = d[:random.randrange(64, len(d))]
    open("%s.%d.trace" % (sys.argv[2], i), 'wb').write(d)
PY
for i in $(seq 1 25); do
	cp "$T/r.$i.trace" "$T/r.trace"
	for cmd in "stat" "trace" "info" "dump" "top -e $EV" "profile"; do
		# shellcheck disable=SC2086
		"$B/pp-analyze" $cmd "$T/r.trace" >/dev/null 2>&1; rc=$?
		[ $rc -lt 128 ] || { cp "$T/r.trace" /tmp/pp-damaged-crash.trace; echo "FAIL: '$cmd' crashed (rc $rc) on random damage seed $i (copy in /tmp/pp-damaged-crash.trace)"; exit 1; }
	done
done
echo "ok: flipped chunk ($n3 events) and cut file ($want kept) replay the intact part with one warning; 25 random damages, no crash"
