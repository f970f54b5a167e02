#!/usr/bin/env bash
# Hostile tracepoint formats (issue 15): a real recording of getppid enter and
# exit whose FORMATS item of one event is rewritten (tests/helpers/pptrace.py
# keeps the CRCs valid). libtraceevent overflowed its stack on deep print
# formats, took seconds on long type names, and tep_print_event crashed or hung
# on fields outside the record, divisions by zero, lengths from the record and
# huge widths. Every command must end within a timeout without a crash; a
# refused format is named once; the other event still counts and decodes.
set -u
B=${PP_BUILD:?}
TOP=${PP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
T=$(mktemp -d /tmp/pp-e2e-hfmt.XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.bash"
need_root "for perf events"
EN=syscalls:sys_enter_getppid
EX=syscalls:sys_exit_getppid
N=200
need_event $EN $EX
"$B/pp-record" -q -e $EN -e $EX --codec none --encoding plain -o "$T/g.trace" -- \
	"$B/tests/helpers/getppid-n" $N >/dev/null 2>"$T/err" || fail_err "$T/err" "pp-record -e $EN -e $EX"
. "$TOP/tests/helpers/hostile-lib.sh"
# craft NAME EVENT PYTHON: NAME.trace will be g.trace with EVENT's format text t
# (bytes) rewritten by PYTHON; crafted makes every file asked so far, in one
# python (a start costs seconds on a loaded host)
craft() { printf '%s\t%s\t%s\n' "$1" "$2" "$3" >> "$T/crafts"; }
crafted() {
	python3 - "$T/g.trace" "$T" "$T/crafts" <<'PY' || fail "crafting $(cut -f1 "$T/crafts" | tr '\n' ' ')"
import os, re, struct, sys
sys.path.insert(0, os.environ['HELPERS'])
import pptrace
FORMATS = 0x0003
for job in open(sys.argv[3]):
    out_name, event, code = job.rstrip('\n').split('\t')
    hdr, c = pptrace.read(sys.argv[1])
    c = [x for x in c if x.type not in (pptrace.INDEX, pptrace.FOOTER)]
    want = event.split(':')[1].encode()
    done = 0
    for x in c:
        if x.type != FORMATS:
            continue
        p, off, out = x.payload, 0, b''
        while off + 8 <= len(p):
            size, kind, flags = struct.unpack_from('<IHH', p, off)
            if size < 8:
                break
            body = p[off + 8:off + size]
            if kind == 2:
                sysn, name, t = body.split(b'\0')[:3]
                if name == want:
                    exec(code)
                    body = sysn + b'\0' + name + b'\0' + t + b'\0'
                    body += bytes(-len(body) % 8)
                    done += 1
            out += struct.pack('<IHH', 8 + len(body), kind, flags) + body
            off += size
        x.payload = out
        x.raw_size = len(out)
    assert done, out_name + ': no format of ' + event
    pptrace.write(os.path.join(sys.argv[2], out_name + '.trace'), hdr, c)
PY
	: > "$T/crafts"
}
CMDS="info dump $("$B/pp-analyze" list | awk '/^profilers:/{p=1;next} /^commands:/{p=0} p{print $1}')"
every() {	# NAME: every command on NAME.trace
	for cmd in $CMDS; do run "$1" "$B/pp-analyze" $cmd "$T/$1.trace"; done
	run "$1" "$B/pp-analyze" trace --json "$T/$1.trace"
}
count() {	# NAME EVENT: stat's count of EVENT
	timeout -k 5 20 "$B/pp-analyze" stat --json -e "$2" "$T/$1.trace" 2>/dev/null |
		grep -o '"count":[0-9]*' | head -1
}
intact() {	# NAME: both events count N
	[ "$(count "$1" $EN)" = "\"count\":$N" ] || fail "$1: $EN does not count $N: $(count "$1" $EN)"
	[ "$(count "$1" $EX)" = "\"count\":$N" ] || fail "$1: $EX does not count $N: $(count "$1" $EX)"
}

# refused before libtraceevent parses: deep, long, or quadratic formats
craft bang $EN 't = re.sub(rb"print fmt:.*", b"print fmt: \"%d\", " + b"!" * 28672 + b"REC->__syscall_nr", t, flags=re.S)'
craft paren $EN 't = re.sub(rb"print fmt:.*", b"print fmt: \"%d\", " + b"(" * 38000, t, flags=re.S)'
craft types $EN 't = t.replace(b"field:int __syscall_nr", b"field:" + b"u " * 400000 + b"int __syscall_nr")'
craft far $EN 't = re.sub(rb"(field:int __syscall_nr;\s*offset:)\d+", rb"\g<1>70000", t)'
# an operator libtraceevent cannot place after a ?:'s false branch: it crashed on it (fuzz-replay)
craft cond $EN 't = re.sub(rb"print fmt:.*", b"print fmt: \"%d\", REC->__syscall_nr ? 1 : 2@", t, flags=re.S)'
crafted
for name in bang paren types far cond; do
	every $name
	"$B/pp-analyze" stat "$T/$name.trace" 2>&1 >/dev/null | grep -q "$EN: format refused" ||
		fail "$name: no warning that names $EN's refused format"
	[ "$("$B/pp-analyze" stat "$T/$name.trace" 2>&1 >/dev/null | grep -c "format refused")" = 1 ] ||
		fail "$name: the refusal is not one warning"
	intact $name
	# the other event still decodes: "0x<ret>"
	"$B/pp-analyze" trace -e $EX "$T/$name.trace" 2>/dev/null | grep -q "$EX.*0x" ||
		fail "$name: $EX no longer decodes"
done

# parsed, but pp must not let tep_print_event loose on the record
craft off $EX 't = re.sub(rb"(field:long ret;\s*offset:)\d+", rb"\g<1>65000", t)'
craft div0 $EX 't = re.sub(rb"print fmt:.*", b"print fmt: \"%ld\", REC->ret / 0\n", t, flags=re.S)'
craft divrec $EX 't = re.sub(rb"print fmt:.*", b"print fmt: \"%ld\", (-9223372036854775807 - 1) / REC->ret\n", t, flags=re.S)'
craft hex $EX 't = re.sub(rb"print fmt:.*", b"print fmt: \"%s\", __print_hex(REC->ret, -1)\n", t, flags=re.S)'
craft arr $EX 't = re.sub(rb"print fmt:.*", b"print fmt: \"%s\", __print_array(REC->ret, 2000000000, 8)\n", t, flags=re.S)'
craft width $EX 't = re.sub(rb"print fmt:.*", b"print fmt: \"%2147483647ld\", REC->ret\n", t, flags=re.S)'
craft width8 $EX 't = re.sub(rb"print fmt:.*", b"print fmt: \"%99999999ld\", REC->ret\n", t, flags=re.S)'
craft star $EX 't = re.sub(rb"print fmt:.*", b"print fmt: \"%*ld\", REC->ret, REC->ret\n", t, flags=re.S)'
crafted
for name in off div0 divrec hex arr width width8 star; do
	every $name
	intact $name
	lines=$(timeout -k 5 20 "$B/pp-analyze" trace -e $EX "$T/$name.trace" 2>/dev/null | grep -c "ret=")
	[ "$lines" = $N ] || fail "$name: $lines of $N $EX events print as name=value"
done
echo "ok: hostile formats end every command; the intact events count"
