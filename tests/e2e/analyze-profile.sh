#!/usr/bin/env bash
# Profile end to end: pp-record -F 999 -g of a copy of tests/helpers/spin
# (spin_alpha does twice the work of spin_beta), the binary deleted, then
# pp-analyze profile must still name both functions, from the symbols
# embedded in the file, in about a 2:1 ratio; --folded prints the folded
# stacks, --flame-graph NAME writes the same to NAME.folded and NAME.svg,
# and the SVG parses as XML with those frames.
set -u
B=${PP_BUILD:?}
T=$(mktemp -d /tmp/pp-e2e-profile.XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.bash"
need_root "for perf events"
need_perf
cp "$B/tests/helpers/spin" "$T/spin"
"$B/pp-record" -q -F 999 -g -o "$T/p.trace" -- "$T/spin" 1 >/dev/null 2>"$T/rec.err" ||
	fail_err "$T/rec.err" "pp-record -F 999 -g (cpu-clock)"
rm -f "$T/spin"
"$B/pp-analyze" profile --folded --flame-graph "$T/fg" "$T/p.trace" >"$T/folded" 2>"$T/err" ||
	{ echo "FAIL: profile: $(cat "$T/err")"; exit 1; }
sum() { awk -v f="$1" '{ n = split($1, a, ";"); for (i = 1; i <= n; i++) if (a[i] == f) { s += $NF; break } } END { print s + 0 }' "$2"; }
a=$(sum spin_alpha "$T/folded"); b=$(sum spin_beta "$T/folded")
echo "spin_alpha $a, spin_beta $b samples"
[ "$a" -gt 100 ] && [ "$b" -gt 50 ] || { echo "FAIL: functions not named after the binary was deleted"; head "$T/folded"; exit 1; }
# about 2:1 (1.5 .. 2.7)
awk -v a="$a" -v b="$b" 'BEGIN { r = a / b; exit !(r > 1.5 && r < 2.7) }' ||
	{ echo "FAIL: ratio $a:$b is not about 2:1"; exit 1; }
[ -s "$T/fg.folded" ] && [ -s "$T/fg.svg" ] || { echo "FAIL: no fg.folded/fg.svg"; exit 1; }
cmp -s <(sort "$T/folded") <(sort "$T/fg.folded") || { echo "FAIL: fg.folded differs from stdout"; exit 1; }
python3 - "$T/fg.svg" <<'PY' || { echo "FAIL: the SVG"; exit 1; }
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
text = " ".join(t for e in root.iter() for t in (e.text or "", e.get("title") or ""))
text += open(sys.argv[1]).read()
for f in ("spin_alpha", "spin_beta", "main"):
    assert f in text, f + " missing from the SVG"
PY
# user frames resolve from the file: no bare [unknown] for spin's own frames
grep -q 'spin+0x' "$T/folded" && { echo "FAIL: spin frames printed as offsets"; exit 1; }
echo "ok: profile names spin_alpha/spin_beta ($a:$b) with the binary gone; SVG valid"
