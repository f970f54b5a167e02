#!/usr/bin/env bash
# pp-record PROFILER records exactly what `pp-analyze PROFILER` needs:
# profile -> cpu-clock stacks resolving to the helper's functions; stat -e EV
# -> exactly N events; -o and -d after the profiler name are the recorder's,
# and so are -q, -z, -m and -g's mode (perf-prof's order); an unknown option of the profiler is a usage error.
. "$(dirname "$0")/../helpers/record-lib.sh"
AN=$B/pp-analyze
[ -x "$AN" ] || skip "no $AN"

cp "$HELP/spin" "$TMP/spin"
$REC -q -o "$TMP/p.trace" profile -F 499 -- "$TMP/spin" 1 || fail "pp-record profile"
rm -f "$TMP/spin"
$AN profile --folded "$TMP/p.trace" > "$TMP/p.out" 2>&1 || { cat "$TMP/p.out"; fail "pp-analyze profile"; }
a=$(awk '/;spin_alpha / { s += $NF } END { print s + 0 }' "$TMP/p.out")
b=$(awk '/;spin_beta / { s += $NF } END { print s + 0 }' "$TMP/p.out")
# ~333 and ~166 on an idle machine; a loaded one gives the spinner less CPU
[ "$a" -gt 50 ] && [ "$b" -gt 25 ] && [ "$a" -gt "$b" ] ||
	{ head "$TMP/p.out"; fail "profile: spin_alpha=$a spin_beta=$b samples"; }

$REC -q -o "$TMP/s.trace" stat -e syscalls:sys_enter_getppid -- "$HELP/getppid-n" 777 || fail "pp-record stat"
n=$($AN stat "$TMP/s.trace" | awk '$2 == "syscalls:sys_enter_getppid" { print $3 }')
[ "$n" = 777 ] || fail "stat: $n events, want 777"

# the file and the duration after the name, as the targets: not ignored
(cd "$TMP" && $REC -q stat -e syscalls:sys_enter_getppid -o "$TMP/o.trace" -d 10 -- "$HELP/getppid-n" 5) ||
	fail "pp-record stat -o FILE"
[ -s "$TMP/o.trace" ] && [ ! -e "$TMP/pp.trace" ] || fail "stat -o after the profiler name: not the file written"
t0=$(date +%s%N)
$REC -q -a stat -e syscalls:sys_enter_getppid -o "$TMP/d.trace" -d 300ms || fail "pp-record stat -d"
ms=$((($(date +%s%N) - t0) / 1000000))
[ -s "$TMP/d.trace" ] && [ "$ms" -lt 5000 ] || fail "stat -d 300ms after the profiler name: ran $ms ms"
$REC -q -o "$TMP/a.trace" stat -e syscalls:sys_enter_getppid -o "$TMP/b.trace" -- true 2> "$TMP/err"
rc=$?
[ $rc = 2 ] && grep -q "two output files" "$TMP/err" || { cat "$TMP/err"; fail "two -o: exit $rc"; }

# perf-prof's order: pp-record's own options after the profiler's name.
# -z is pp-record's (zstd DATA chunks), -m 64 with its value, -g dwarf both
# the profiler's (stacks) and pp-record's (the unwind mode: nap_in_libc is
# only found with the CFI, Debian's libc has no frame pointers).
cp "$HELP/nap-libc" "$TMP/nap-copy"
$REC task-state -g dwarf -q -z -m 64 -o "$TMP/t.trace" -- "$TMP/nap-copy" 10 20 2> "$TMP/err" ||
	{ cat "$TMP/err"; fail "pp-record task-state -g dwarf -q -z -m 64"; }
[ -s "$TMP/err" ] && { cat "$TMP/err"; fail "-q after the profiler name: not quiet"; }
rm -f "$TMP/nap-copy"
nz=$(python3 - "$TMP/t.trace" "$(dirname "$0")/../helpers" <<'PY'
import sys
sys.path.insert(0, sys.argv[2])
import pptrace
_, cs = pptrace.read(sys.argv[1])
print(sum(1 for c in cs if c.type == 0x10 and c.codec == 2))
PY
)
[ "$nz" -ge 1 ] || fail "-z after the profiler name: no zstd DATA chunk"
$AN trace -g "$TMP/t.trace" > "$TMP/t.out" 2>&1 || fail "pp-analyze trace -g"
grep -q ' nap_in_libc (nap-copy)$' "$TMP/t.out" || { head -40 "$TMP/t.out"; fail "-g dwarf after the profiler name: no CFI-unwound stack"; }

$REC -q -o "$TMP/x.trace" profile --no-such-option -- true 2> "$TMP/err"
rc=$?
[ $rc = 2 ] && grep -q "pp-record: profile:" "$TMP/err" || { cat "$TMP/err"; fail "bad profiler option: exit $rc"; }
echo "ok"
