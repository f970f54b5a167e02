#!/usr/bin/env bash
# profile's default output is perf report --no-children's: on a recording of
# tests/helpers/spin (spin_alpha 2/3 of the time, spin_beta 1/3), a header
# with the samples, the event and its frequency, then rows sorted by Self%,
# Total% >= Self%, spin_alpha and spin_beta first with their shares; --json
# gives the same rows as objects, --folded the stacks (adding up to the
# samples), --percent-limit and --children sort and cut as perf does, -i
# prints one table per interval with the last one partial.
set -u
B=${PP_BUILD:?}
T=$(mktemp -d /tmp/pp-e2e-ptable.XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.bash"
need_root "for perf events"
need_perf
"$B/pp-record" -q -F 999 -g -o "$T/p.trace" -- "$B/tests/helpers/spin" 1.5 >/dev/null 2>"$T/err" ||
	fail_err "$T/err" "pp-record -F 999 -g (cpu-clock)"
AN=$B/pp-analyze

"$AN" profile "$T/p.trace" >"$T/out" 2>"$T/err" || fail "profile: $(cat "$T/err")"
head -8 "$T/out"
n=$(head -1 "$T/out" | sed -n 's/^# \([0-9]*\) samples of cpu-clock at 999 Hz over [0-9.]* s$/\1/p')
[ -n "$n" ] && [ "$n" -gt 300 ] || fail "header line 1: '$(head -1 "$T/out")'"
sed -n 2p "$T/out" | grep -q '^# Self%, Samples: .*Total%: ' || fail "no line saying what the columns count"
# (a line counting stacks cut at a junk frame may come before it)
grep -v '^# [0-9]* stacks cut at a bad frame' "$T/out" | sed -n 3p |
	grep -q '^#  *Self%  *Total%  *Samples  *Function (DSO)$' || fail "no column header"
grep -v '^#' "$T/out" >"$T/rows"
python3 - "$T/rows" "$n" <<'PY' || fail "table rows"
import re, sys
n = int(sys.argv[2])
rows = []
for l in open(sys.argv[1]):
    m = re.match(r'^ *([0-9.]+)%  +([0-9.]+)%  +([0-9]+)  (.+) \((.+)\)$', l.rstrip('\n'))
    assert m, "bad row: " + l
    rows.append((float(m[1]), float(m[2]), int(m[3]), m[4], m[5]))
for i, (self_, total, samples, fn, dso) in enumerate(rows):
    assert total >= self_, "Total%% < Self%% for %s" % fn
    assert abs(self_ - 100.0 * samples / n) < 0.006, "Self%% of %s is not its samples / %d" % (fn, n)
    assert i == 0 or rows[i - 1][0] >= self_, "not sorted by Self%% at %s" % fn
assert [r[3] for r in rows[:2]] == ["spin_alpha", "spin_beta"], "first rows: %s" % rows[:2]
assert rows[0][4] == rows[1][4] == "spin", "DSO of spin's functions: %s" % rows[:2]
a, b = rows[0][0], rows[1][0]
print("spin_alpha %.2f%%, spin_beta %.2f%% of %d samples" % (a, b, n))
assert 55 <= a <= 78 and 22 <= b <= 45 and a + b >= 90, "shares not about 2/3 and 1/3"
assert sum(r[2] for r in rows) <= n
PY

# --json: the same rows, one object a line
"$AN" profile --json "$T/p.trace" >"$T/json" 2>"$T/err" || fail "--json: $(cat "$T/err")"
python3 - "$T/json" "$T/rows" "$n" <<'PY' || fail "--json rows"
import json, sys
objs = [json.loads(l) for l in open(sys.argv[1])]
rows = open(sys.argv[2]).read().splitlines()
assert len(objs) == len(rows), "%d objects, %d rows" % (len(objs), len(rows))
keys = {"type", "time", "ts", "event", "symbol", "dso", "kernel", "self_samples", "total_samples",
        "self_pct", "total_pct", "samples"}
for o, r in zip(objs, rows):
    assert set(o) == keys and o["type"] == "row", sorted(o)
    assert o["samples"] == int(sys.argv[3]) and o["event"] == "cpu-clock"
    assert o["total_samples"] >= o["self_samples"]
    assert r.split()[2] == str(o["self_samples"]) and (" %s (%s)" % (o["symbol"], o["dso"])) in r, r
PY

# --folded: stacks only, adding up to the samples; --json --folded: the same as objects
"$AN" profile --folded "$T/p.trace" >"$T/folded" 2>"$T/err" || fail "--folded: $(cat "$T/err")"
grep -q '^#' "$T/folded" && fail "--folded prints the table's header"
[ "$(awk '{ s += $NF } END { print s }' "$T/folded")" = "$n" ] || fail "--folded does not add up to $n"
grep -q '^spin;.*;main;spin_alpha [0-9]*$' "$T/folded" || fail "--folded: no spin_alpha stack"
"$AN" profile --json --folded "$T/p.trace" >"$T/fj" 2>"$T/err" || fail "--json --folded: $(cat "$T/err")"
python3 - "$T/fj" "$T/folded" <<'PY' || fail "--json --folded"
import json, sys
objs = [json.loads(l) for l in open(sys.argv[1])]
lines = open(sys.argv[2]).read().splitlines()
assert all(o["type"] == "folded" for o in objs)
assert [";".join(o["frames"]) + " %d" % o["samples"] for o in objs] == lines
PY

# --percent-limit 10: spin_alpha and spin_beta only; --children: main above them
"$AN" profile --percent-limit 10 "$T/p.trace" | grep -v '^#' | awk '{ print $4 }' >"$T/lim"
[ "$(tr '\n' ' ' <"$T/lim")" = "spin_alpha spin_beta " ] || fail "--percent-limit 10: $(cat "$T/lim")"
"$AN" profile --children --percent-limit 50 "$T/p.trace" | grep -v '^#' >"$T/ch"
cat "$T/ch"
# main is on every stack (Total% near 100); a sample may land in it itself
awk '$4 == "main" && $5 == "(spin)" && $2 + 0 >= 90 { f = 1 } END { exit !f }' "$T/ch" ||
	fail "--children: no main row"
awk '$4 == "main" { m = NR } $4 == "spin_alpha" { a = NR } END { exit !(m && a && m < a) }' "$T/ch" ||
	fail "--children: main not above spin_alpha"
"$AN" profile --percent-limit 101 "$T/p.trace" >/dev/null 2>"$T/err"; rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -q '^pp-analyze: profile: .*101' "$T/err" ||
	fail "--percent-limit 101: rc $rc, $(cat "$T/err")"

# -i 500: a table per interval, the samples adding up; only the last is partial
"$AN" profile -i 500 "$T/p.trace" >"$T/iv" 2>"$T/err" || fail "-i: $(cat "$T/err")"
grep '^# [0-9]* samples' "$T/iv"
[ "$(grep -c '^# [0-9]* samples of cpu-clock at 999 Hz, interval ending .* (0.500 s)$' "$T/iv")" -ge 2 ] ||
	fail "-i 500: fewer than 2 full intervals"
# (its length is shorter than 0.5 s, but may print as 0.500 when it is 0.4997 s)
grep '^# [0-9]* samples' "$T/iv" | tail -1 | grep -q '(partial: 0\.\([0-4][0-9]*\|500\) s)$' ||
	fail "-i: last table not partial"
# (a row may name a kernel function with "partial" in it: headers only)
[ "$(grep -c '^# [0-9]* samples .*(partial: ' "$T/iv")" = 1 ] || fail "-i: more than one partial table"
[ "$(awk '/^# [0-9]* samples/ { s += $2 } END { print s }' "$T/iv")" = "$n" ] || fail "-i: samples do not add up to $n"
echo "ok: profile table (header, order, shares), --json, --folded, --percent-limit, --children, -i"
