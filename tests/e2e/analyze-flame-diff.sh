#!/usr/bin/env bash
# --diff BASE: differential flame graphs. profile: tests/helpers/spin spends
# 2/3 of its time in spin_alpha and 1/3 in spin_beta, and with
# PP_SPIN_BETA=4000000 1/3 and 2/3: against the first run, the second's
# spin_alpha must shrink (blue) and spin_beta grow (red) in NAME.folded
# ("stack before after") and NAME.svg. Normalised, the two columns have the
# same total (to rounding); --no-normalize keeps each run's own counts.
# Off-CPU (offcpu and task-state -g from one recording each): bpf-naps sleeps
# 10 x 40 ms in pp_nap_long and 40 x 5 ms in pp_nap_short, then 5 x 40 ms
# and 80 x 5 ms: pp_nap_long shrinks, pp_nap_short grows.
set -u
B=${PP_BUILD:?}
A=$B/pp-analyze
. "$(dirname "$0")/lib.bash"
need_root "for perf events"
need_perf
need_btf
need_event sched:sched_switch sched:sched_waking sched:sched_wakeup_new
need_tool taskset util-linux
T=$(mktemp -d /tmp/pp-e2e-fgdiff.XXXXXX)
trap 'rm -rf "$T"' EXIT
# frame-pointer stacks (spin has them): with plain -g, the stacks sampled
# before the kernel-side walker has a process's tables end in libc, and after
# reach _start: two roots for one function, in shares that vary with the load
"$B/pp-record" -q profile -g fp -F 499 -o "$T/base" -- "$B/tests/helpers/spin" 1 >/dev/null 2>"$T/err" ||
	fail_err "$T/err" "pp-record profile -g fp -F 499"
PP_SPIN_BETA=4000000 "$B/pp-record" -q profile -g fp -F 499 -o "$T/new" -- "$B/tests/helpers/spin" 1 \
	>/dev/null 2>&1 || fail "second recording"

# col FOLDED FUNC N: sum of column N (1 before, 2 after) of stacks whose leaf is FUNC
col() { awk -v f="$2" -v n="$3" '{ k = split($1, fr, ";"); if (fr[k] == f) s += $(NF - 2 + n) }
	END { printf "%.0f\n", s }' "$1"; }
sum() { awk -v n="$2" '{ s += $(NF - 2 + n) } END { printf "%.0f\n", s }' "$1"; }
"$A" profile --diff "$T/base" --input "$T/new" --flame-graph "$T/d" >/dev/null 2>"$T/err" ||
	{ cat "$T/err"; fail "profile --diff"; }
grep -q "wrote $T/d.folded (before after) and $T/d.svg, against $T/base" "$T/err" || fail "message: $(cat "$T/err")"
awk 'NF < 3 || $(NF-1) !~ /^[0-9]+$/ || $NF !~ /^[0-9]+$/ { bad = 1 } END { exit bad }' "$T/d.folded" ||
	fail "folded lines are not 'stack before after': $(head -3 "$T/d.folded")"
ab=$(col "$T/d.folded" spin_alpha 1) aa=$(col "$T/d.folded" spin_alpha 2)
bb=$(col "$T/d.folded" spin_beta 1) ba=$(col "$T/d.folded" spin_beta 2)
[ $((ab * 10)) -gt $((aa * 13)) ] || fail "spin_alpha did not shrink: $ab -> $aa"
[ $((ba * 10)) -gt $((bb * 13)) ] || fail "spin_beta did not grow: $bb -> $ba"
b=$(sum "$T/d.folded" 1) a=$(sum "$T/d.folded" 2) n=$(wc -l < "$T/d.folded")
[ $((b - a)) -le "$n" ] && [ $((a - b)) -le "$n" ] || fail "normalised totals differ: $b vs $a ($n stacks)"
# the after column is the new run's own folded profile
[ "$a" = "$("$A" profile --folded "$T/new" | awk '{ s += $NF } END { print s }')" ] || fail "after total $a"
fill() { grep -o "<title>$1 ([^<]*</title><rect[^>]*" "$2" | grep -o 'fill="rgb([0-9,]*)"' | head -1; }
fill spin_alpha "$T/d.svg" | grep -Eq 'rgb\(([0-9]+),\1,255\)' || fail "spin_alpha not blue: $(fill spin_alpha "$T/d.svg")"
fill spin_beta "$T/d.svg" | grep -Eq 'rgb\(255,([0-9]+),\1\)' || fail "spin_beta not red: $(fill spin_beta "$T/d.svg")"
grep -q 'difference' "$T/d.svg" || fail "no differential title"
# raw counts: each column is its run's total
"$A" profile --diff "$T/base" --no-normalize "$T/new" --flame-graph "$T/r" >/dev/null 2>&1 || fail "--no-normalize"
[ "$(sum "$T/r.folded" 1)" = "$("$A" profile --folded "$T/base" | awk '{ s += $NF } END { print s }')" ] ||
	fail "--no-normalize: before total is not the base's"
[ "$(col "$T/r.folded" spin_alpha 1)" -gt "$(col "$T/r.folded" spin_alpha 2)" ] || fail "raw: spin_alpha"
# usage errors, one line each
for args in "--diff $T/base $T/new" "--no-normalize --flame-graph $T/x $T/new" \
	"--diff $T/base -i 100ms --flame-graph $T/x $T/new" "--diff= --flame-graph $T/x $T/new"; do
	# shellcheck disable=SC2086
	"$A" profile $args >/dev/null 2>"$T/err"; rc=$?
	[ $rc = 2 ] && [ "$(wc -l < "$T/err")" = 1 ] || fail "profile $args: exit $rc: $(cat "$T/err")"
done
"$A" profile --diff "$T/nosuch" --flame-graph "$T/x" "$T/new" >/dev/null 2>"$T/err"; rc=$?
[ $rc = 1 ] && grep -q "nosuch" "$T/err" || fail "missing base: exit $rc: $(cat "$T/err")"

# off-CPU: offcpu (BPF) and task-state -g
naps() {	# OUT N_LONG N_SHORT
	"$B/pp-record" -q -a -g -e sched:sched_switch,sched:sched_waking,sched:sched_wakeup_new \
		-o "$1" offcpu -- taskset -c 0 "$B/tests/helpers/bpf-naps" "$2" "$3" >/dev/null 2>"$T/err"
}
naps "$T/ob" 10 40 || fail_err "$T/err" "pp-record offcpu (BPF)"
naps "$T/on" 5 80 || fail_err "$T/err" "second offcpu recording"
# offcpu's totals hold bpf-naps' main thread, blocked in its join for the whole
# run: a loaded host stretches one run more than the other, and normalized
# (scaled by the totals' ratio) the before column shrank with it: 10 naps of
# 40 ms read 248 ms against 5 naps' 200 ms. The naps' own times, unscaled.
# task-state's --filter keeps only the nap threads: its totals match.
"$A" offcpu --diff "$T/ob" --no-normalize --flame-graph "$T/od" "$T/on" >/dev/null 2>"$T/err" || { cat "$T/err"; fail "offcpu --diff"; }
"$A" task-state -S -D --filter 'pp-nap-*' -g --diff "$T/ob" --flame-graph "$T/td" "$T/on" >/dev/null 2>"$T/err" ||
	{ cat "$T/err"; fail "task-state --diff"; }
# under FOLDED FUNC N: column N of stacks through FUNC
under() { awk -v f="$2" -v n="$3" 'index($1, ";" f) { s += $(NF - 2 + n) } END { printf "%.0f\n", s }' "$1"; }
for f in "$T/od.folded" "$T/td.folded"; do
	lb=$(under "$f" pp_nap_long 1) la=$(under "$f" pp_nap_long 2)
	sb=$(under "$f" pp_nap_short 1) sa=$(under "$f" pp_nap_short 2)
	[ $((lb * 10)) -gt $((la * 13)) ] || fail "$f: pp_nap_long did not shrink: $lb -> $la"
	[ $((sa * 10)) -gt $((sb * 13)) ] || fail "$f: pp_nap_short did not grow: $sb -> $sa"
done
echo "ok: spin_alpha $ab -> $aa, spin_beta $bb -> $ba; off-CPU diffs agree"
