#!/usr/bin/env bash
# -F -g samples of a helper spinning in spin_alpha/spin_beta resolve to those
# names from the symbols embedded in the file, after the binary is deleted.
. "$(dirname "$0")/../helpers/record-lib.sh"

cp "$HELP/spin" "$TMP/spin-copy"
$REC -F 997 -g -o "$TMP/s.trace" -- "$TMP/spin-copy" 1.5 2> "$TMP/err" || { cat "$TMP/err"; fail "record"; }
cat "$TMP/err"
grep -q "sampling" "$TMP/err" || fail "does not say which event samples"
rm -f "$TMP/spin-copy"
$CHECK "$TMP/s.trace" --syms -1 > "$TMP/s.out" || fail "checker"
cat "$TMP/s.out"
a=$(awk '$1 == "usym" && $2 == "spin_alpha" { print $3 }' "$TMP/s.out")
b=$(awk '$1 == "usym" && $2 == "spin_beta" { print $3 }' "$TMP/s.out")
m=$(awk '$1 == "usym" && $2 == "chain:main" { print $3 }' "$TMP/s.out")
[ "${a:-0}" -gt 100 ] && [ "${b:-0}" -gt 30 ] || fail "samples do not resolve to spin_alpha/spin_beta"
[ "${a:-0}" -gt "${b:-0}" ] || fail "spin_alpha should get more samples than spin_beta"
[ "${m:-0}" -gt 100 ] || fail "callchains do not reach main"

# kernel symbols: a workload that runs in the kernel (the spinner above may
# take no kernel sample at all) gets KSYMS and names its kernel frames
$REC -q -F 997 -g -o "$TMP/k.trace" -- dd if=/dev/zero of=/dev/null bs=64k count=20000 2>/dev/null ||
	fail "record dd"
$CHECK "$TMP/k.trace" --syms -1 > "$TMP/k.out" || fail "checker"
[ "$(value chunks_ksyms "$TMP/k.out")" -ge 1 ] || fail "no KSYMS"
if [ -x "$B/pp-analyze" ]; then
	"$B/pp-analyze" profile --folded "$TMP/k.trace" > "$TMP/k.prof" 2>&1 || fail "pp-analyze profile (dd)"
	grep -q '[a-z_]*_\[k\]' "$TMP/k.prof" || { head -5 "$TMP/k.prof"; fail "no named kernel frame"; }
	grep -q '0xffffffff' "$TMP/k.prof" && { grep -m3 0xffffffff "$TMP/k.prof"; fail "unnamed kernel frames"; }
	# --kallsyms=all reads /proc/kallsyms (the path used where BPF is not):
	# every kernel text symbol in the file, the same frames named
	$REC -q --kallsyms=all -F 997 -g -o "$TMP/ka.trace" -- dd if=/dev/zero of=/dev/null bs=64k count=20000 \
		2>/dev/null || fail "record --kallsyms=all"
	nk=$("$B/pp-analyze" info "$TMP/ka.trace" | awk '$1 == "symbols:" { print $2 }')
	[ "${nk:-0}" -gt 10000 ] || fail "--kallsyms=all: only ${nk:-0} kernel symbols"
	"$B/pp-analyze" profile --folded "$TMP/ka.trace" > "$TMP/ka.prof" 2>&1 || fail "pp-analyze profile (kallsyms)"
	grep -q 'read_zero_\[k\]' "$TMP/ka.prof" || { head -5 "$TMP/ka.prof"; fail "--kallsyms=all: no read_zero"; }
	grep -q '0xffffffff' "$TMP/ka.prof" && fail "--kallsyms=all: unnamed kernel frames"
fi

# a forked child (no exec) runs in its parent's maps: still resolved
cp "$HELP/spin" "$TMP/spin-copy"
$REC -q -F 997 -g -o "$TMP/f.trace" -- "$TMP/spin-copy" 1 fork || fail "record fork"
rm -f "$TMP/spin-copy"
if [ -x "$B/pp-analyze" ]; then
	"$B/pp-analyze" profile --folded "$TMP/f.trace" > "$TMP/f.out" 2>&1 || fail "pp-analyze profile"
	a=$(awk '/;spin_alpha / { s += $NF } END { print s + 0 }' "$TMP/f.out")
	[ "$a" -gt 100 ] || { cat "$TMP/f.out"; fail "samples of a forked child do not resolve"; }
fi
echo "ok"
