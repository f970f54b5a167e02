# Shared by tests/e2e/analyze-hostile*.sh (sourced, after T is set): crafted
# files built from a real recording with tests/helpers/pptrace.py, and commands
# that must end without a crash.
HELPERS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export HELPERS
fail() { echo "FAIL: $*"; exit 1; }
# craft_from SRC NAME PYTHON: rewrite $T/SRC.trace into $T/NAME.trace with
# PYTHON, which edits c (the chunks; INDEX and FOOTER dropped, as chunk sizes
# may change) and may call item(BODY, KIND) and before_data(CHUNK).
craft_from() {
	python3 - "$T/$1.trace" "$T/$2.trace" "$3" <<'PY' || fail "crafting $2"
import os, re, struct, sys
sys.path.insert(0, os.environ['HELPERS'])
import pptrace
hdr, c = pptrace.read(sys.argv[1])
c = [x for x in c if x.type not in (pptrace.INDEX, pptrace.FOOTER)]
def item(body, kind=0):
    body += bytes(-len(body) % 8)
    return struct.pack("<IHH", 8 + len(body), kind, 0) + body
def before_data(chunk):
    c.insert(next(k for k, x in enumerate(c) if x.type == pptrace.DATA), chunk)
exec(sys.argv[3])
pptrace.write(sys.argv[2], hdr, c)
PY
}
# run NAME CMD...: must end within 20 s, by a clean exit or a refusal, never a
# signal. stdout goes into a pipe, not /dev/null: pp-analyze may skip output it
# knows is discarded.
run() {
	local name=$1; shift
	timeout -k 5 20 "$@" 2>"$T/run.err" | tail -c 1 >/dev/null; local rc=${PIPESTATUS[0]}
	{ [ $rc = 124 ] || [ $rc = 137 ]; } && fail "$name: '$*' did not end in 20 s"
	[ $rc -ge 128 ] && fail "$name: '$*' died of signal $((rc - 128)): $(tail -3 "$T/run.err")"
	return 0
}
