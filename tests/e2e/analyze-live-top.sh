#!/usr/bin/env bash
# profile --live --top: in a real terminal (a tmux pane, read back with
# capture-pane) the hottest functions are redrawn in place each interval:
# one header on the screen, never scrolled copies, and tests/helpers/spin's
# spin_alpha (2/3 of its CPU time, by its own loop, whatever the load) on the
# first row. Not on a terminal: plain successive interval tables, no escape
# sequences.
set -u
B=${PP_BUILD:?}
A=$B/pp-analyze
skip() { echo "skip: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
[ "$(id -u)" = 0 ] || skip "needs root for perf events"
command -v tmux >/dev/null || skip "no tmux (scripts/install-deps.sh installs it)"
T=$(mktemp -d /tmp/pp-e2e-top.XXXXXX)
S=pp-top-$$
trap 'tmux kill-session -t "$S" 2>/dev/null; rm -rf "$T"' EXIT

# not a terminal: interval tables
"$A" profile --live --top -i 500ms -- "$B/tests/helpers/spin" 1.6 >"$T/plain" 2>"$T/err" ||
	fail "plain: $(cat "$T/err")"
[ "$(grep -c '^# [0-9]* samples of cpu-clock.*interval ending' "$T/plain")" -ge 3 ] || fail "plain: not interval tables: $(cat "$T/plain")"
grep -q $'\033' "$T/plain" && fail "plain output holds escape sequences"

# a terminal: the screen redrawn in place
tmux new-session -d -s "$S" -x 110 -y 24 \
	"$A profile --live --top -i 1s -- $B/tests/helpers/spin 8 2>$T/top.err; echo PP-TOP-EXIT \$?; sleep 60" ||
	skip "tmux cannot start a session here"
ok=0
for _ in $(seq 1 100); do
	sleep 0.2
	tmux capture-pane -p -t "$S" > "$T/screen" 2>/dev/null || break
	grep -q 'PP-TOP-EXIT' "$T/screen" && break
	[ "$(grep -c '^pp-analyze profile --top' "$T/screen")" = 1 ] || continue
	head -1 "$T/screen" | grep -Eq '^pp-analyze profile --top .* [0-9]+ samples in [0-9.]+ s \([0-9.]+/s\) of cpu-clock' ||
		fail "header: $(head -1 "$T/screen")"
	sed -n 2p "$T/screen" | grep -q 'Self%.*Total%.*Samples.*Function (DSO)' || fail "columns: $(sed -n 2p "$T/screen")"
	if sed -n 3p "$T/screen" | grep -q 'spin_alpha (spin)'; then
		ok=$((ok + 1))
		[ $ok -ge 2 ] && break
	fi
done
cp "$T/screen" "$T/last"
[ $ok -ge 2 ] || fail "spin_alpha never on the first row of a redrawn screen: $(cat "$T/last"; cat "$T/top.err")"
# redrawn, not scrolled: one header on the screen and none in the scroll-back
tmux capture-pane -p -S - -t "$S" > "$T/all"
[ "$(grep -c '^pp-analyze profile --top' "$T/all")" = 1 ] || fail "the screen scrolled: $(grep -c '^pp-analyze profile --top' "$T/all") headers"
grep -q '^# ' "$T/all" && fail "plain tables on a terminal"
echo "ok: spin_alpha at the top of the redrawn screen"
