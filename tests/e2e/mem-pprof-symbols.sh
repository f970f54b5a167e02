#!/usr/bin/env bash
# pp-analyze --symbols BINARY speaks pprof's symbolizer protocol: the maps and
# 0x addresses on stdin, one name per address out ("??" when unknown). With it
# as PPROF_PATH, tcmalloc's heap checker (HEAPCHECK=draconian) names the
# function of tests/helpers/tc-leak that leaks exactly 5 blocks of 1000 bytes.
set -u
B=${PP_BUILD:?PP_BUILD not set}
ANA=$B/pp-analyze
HELP=$B/tests/helpers
fail() { echo "FAIL: $*"; exit 1; }
T=$(mktemp -d /tmp/pp-e2e-sym.XXXXXX)
trap 'rm -rf "$T"; [ -n "${P:-}" ] && kill "$P" 2>/dev/null' EXIT

# the protocol on a running process: a function of its program, one of libc,
# an address nothing maps
"$HELP/mem-leaks" 1 1 1 >/dev/null	# built? (runs in no time)
PP_WAIT=$T/never "$HELP/mem-leaks" 1 1 1 & P=$!
for _ in $(seq 50); do grep -q mem-leaks "/proc/$P/maps" 2>/dev/null && break; sleep 0.1; done
base=$(awk '/mem-leaks/ { split($1, r, "-"); if ($3 == "00000000") { print r[1]; exit } }' "/proc/$P/maps")
off=$(nm "$HELP/mem-leaks" | awk '$3 == "leak_blocks" { print $1 }')
[ -n "$base" ] && [ -n "$off" ] || fail "cannot find leak_blocks in the helper"
libc=$(awk '/libc\.so/ { print $6; exit }' "/proc/$P/maps")
lbase=$(awk '/libc\.so/ { split($1, r, "-"); if ($3 == "00000000") { print r[1]; exit } }' "/proc/$P/maps")
loff=$(nm -D "$libc" | awk '$3 ~ /^getpid(@|$)/ { print $1; exit }')
[ -n "$libc" ] && [ -n "$loff" ] || fail "cannot find getpid in the libc"
{
	cat "/proc/$P/maps"
	printf '0x%x\n' $((0x$base + 0x$off + 1)) $((0x$lbase + 0x$loff)) 0x10
} > "$T/in"
"$ANA" --symbols "$HELP/mem-leaks" < "$T/in" > "$T/out" || fail "--symbols exit $?"
cat "$T/out"
[ "$(cat "$T/out" | tr '\n' ' ')" = "leak_blocks getpid ?? " ] || fail "wrong names"
# without maps, an address is the program's own
printf '0x%s\n' "$off" | "$ANA" --symbols "$HELP/mem-leaks" > "$T/out2" || fail "--symbols without maps"
[ "$(cat "$T/out2")" = leak_blocks ] || fail "link-time address: $(cat "$T/out2")"
"$ANA" --symbols < /dev/null > "$T/e" 2>&1 && fail "no BINARY accepted"
[ "$(wc -l < "$T/e")" = 1 ] || fail "error is not one line"

# tcmalloc's heap checker
tc=
for d in /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib; do
	[ -e "$d/libtcmalloc.so.4" ] && { tc=$d/libtcmalloc.so.4; break; }
done
[ -n "$tc" ] || { echo "SKIP: no libtcmalloc.so.4 (libgoogle-perftools4) for the heap checker part"; exit 77; }
(cd "$T" && LD_PRELOAD=$tc HEAPCHECK=draconian PPROF_PATH=$ANA "$HELP/tc-leak" 5 > "$T/hc" 2>&1)
grep -A1 '^Leak of 5000 bytes in 5 objects' "$T/hc" | tee "$T/hc1"
grep -q '@ [0-9a-f]* tc_leak_here$' "$T/hc1" || { cat "$T/hc"; fail "the heap checker did not name tc_leak_here"; }
echo "ok"
