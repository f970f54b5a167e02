#!/usr/bin/env bash
# The live status line: on a terminal (a pseudo-terminal from script(1)),
# at most once a second, rewritten in place and blanked before the summary,
# which stays as it was; none with -q, none when stderr is no terminal, none
# while a COMMAND writes to the terminal.
. "$(dirname "$0")/../helpers/record-lib.sh"
command -v script > /dev/null || skip "no script(1) (util-linux) for a pseudo-terminal"

STATUS='^pp-record: [0-9]+ s, [0-9]+ events, [0-9.]+ (B|KiB|MiB|GiB) written, [0-9]+ lost *$'
SUMMARY='^pp-record: [0-9.]+ s, [0-9]+ events recorded, .* written to '
# on_pty OUT CMD: run the shell command CMD with stdin, stdout and stderr on a pseudo-terminal
on_pty() { script -qfec "$2" /dev/null < /dev/null > "$1"; }
# segments FILE: what was written between carriage returns and newlines, one a line
segments() { tr '\r' '\n' < "$1" | grep -v '^ *$'; }

# system-wide for 2.6 s: updates at about 1 s and 2 s, never more than one a second
on_pty "$TMP/pty" "$REC -a -e sched:sched_switch -d 2.6 -o $TMP/a.trace" ||
	{ cat -A "$TMP/pty"; fail "pp-record on a terminal failed"; }
n=$(segments "$TMP/pty" | grep -cE "$STATUS")
[ "$n" -ge 1 ] && [ "$n" -le 2 ] ||
	{ cat -A "$TMP/pty"; fail "$n status updates in 2.6 s, want 1 or 2"; }
grep -q $'\r''pp-record: [0-9]* s, ' "$TMP/pty" || fail "the status is not rewritten in place (\\r)"
# elapsed seconds go up, events never go down
segments "$TMP/pty" | grep -E "$STATUS" | awk '
	{ s = $2 + 0; e = $4 + 0 }
	NR > 1 && (s <= ps || e < pe) { bad = 1 }
	{ ps = s; pe = e }
	END { exit bad }' || { cat -A "$TMP/pty"; fail "status not increasing"; }
# blanked before the summary: the last status, then spaces over all of it, then the summary
sum=$(grep -a 'events recorded' "$TMP/pty")
re=$'\r(pp-record: [^\r]* lost *)\r( +)\r''pp-record: [0-9.]+ s, [0-9]+ events recorded'
[[ $sum =~ $re ]] || { cat -A "$TMP/pty"; fail "the status is not blanked before the summary"; }
[ ${#BASH_REMATCH[2]} -ge ${#BASH_REMATCH[1]} ] || fail "the blank is shorter than the status"
segments "$TMP/pty" | grep -qE "$SUMMARY" || { cat -A "$TMP/pty"; fail "summary changed"; }
grep -q 'lost: none' "$TMP/pty" || grep -q 'LOST cpu' "$TMP/pty" || fail "summary lost line missing"

# -q: nothing at all on the terminal
on_pty "$TMP/q" "$REC -q -a -e sched:sched_switch -d 1.6 -o $TMP/q.trace" || fail "-q failed"
[ ! -s "$TMP/q" ] || { cat -A "$TMP/q"; fail "-q printed on the terminal"; }

# stderr no terminal: the summary only, no carriage return, no status
"$REC" -a -e sched:sched_switch -d 1.6 -o "$TMP/f.trace" 2> "$TMP/f.err" < /dev/null ||
	fail "pp-record to a file failed"
! grep -q $'\r' "$TMP/f.err" || { cat -A "$TMP/f.err"; fail "carriage return without a terminal"; }
! grep -qE "$STATUS" "$TMP/f.err" || { cat "$TMP/f.err"; fail "status without a terminal"; }
grep -qE "$SUMMARY" "$TMP/f.err" || { cat "$TMP/f.err"; fail "no summary without a terminal"; }

# a COMMAND whose output goes to the terminal: no status to mix with its lines ...
on_pty "$TMP/c" "$REC -e sched:sched_switch -o $TMP/c.trace -- sleep 1.6" ||
	fail "pp-record -- sleep failed"
! segments "$TMP/c" | grep -qE "$STATUS" || { cat -A "$TMP/c"; fail "status over a COMMAND's terminal"; }
# ... and the status when its output goes elsewhere
on_pty "$TMP/d" "$REC -e sched:sched_switch -o $TMP/d.trace -- sleep 1.6 > /dev/null" ||
	fail "pp-record -- sleep > /dev/null failed"
segments "$TMP/d" | grep -qE "$STATUS" || { cat -A "$TMP/d"; fail "no status with a COMMAND's output elsewhere"; }
echo "ok"
