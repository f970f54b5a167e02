#!/usr/bin/env bash
# pp-record --rotate=TIME|SIZE [--max-files=N]: a run split into files that
# each analyze alone, named STEM-YYYYMMDD-HHMMSS-NNNN.EXT, losing no event
# between them: the counts over the files sum to exactly what the workload
# did (tests/helpers/getppid-n makes exactly N getppid calls).
. "$(dirname "$0")/../helpers/record-lib.sh"
AN=$B/pp-analyze
GP=syscalls:sys_enter_getppid
# ts: the time stamps of trace lines ("1986.535630:")
ts() { awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { sub(/:$/, "", $i); print $i; break } }'; }
# count FILE: getppid events in one file, by the analyzer alone
count() { $AN stat --json -e $GP "$1" | grep -o '"count":[0-9]*' | cut -d: -f2; }
$REC -q -e $GP -o "$TMP/probe.trace" -- "$HELP/getppid-n" 1 2> "$TMP/probe.err" ||
	{ cat "$TMP/probe.err"; fail "pp-record -e $GP"; }

# TIME: 300 calls 10 ms apart (3 s at least, longer under load) in 1 s files
N=300
mkdir "$TMP/t"
PP_GAP_US=10000 $REC -e $GP --rotate=1s -o "$TMP/t/pp.trace" -- "$HELP/getppid-n" $N \
	2> "$TMP/t.err" || { cat "$TMP/t.err"; fail "record --rotate=1s"; }
cat "$TMP/t.err"
grep -q "rotation: [0-9]* files" "$TMP/t.err" || fail "no rotation summary"
[ ! -e "$TMP/t/pp.trace" ] || fail "-o itself written"
ls "$TMP/t" > "$TMP/t.ls"
nf=$(grep -c . "$TMP/t.ls")
[ "$nf" -ge 3 ] || fail "$nf files for 3 s at --rotate=1s"
grep -vqE '^pp-[0-9]{8}-[0-9]{6}-[0-9]{4}\.trace$' "$TMP/t.ls" && { cat "$TMP/t.ls"; fail "file names"; }
# names sort by time: each file starts after the one before
sum=0 prev=0 k=0
for f in $(sort "$TMP/t.ls"); do
	k=$((k + 1))
	case $f in *-$(printf %04d $k).trace) ;; *) fail "file $k is $f";; esac
	$AN info "$TMP/t/$f" > "$TMP/info" || fail "info $f"
	grep -q '^damage: *none' "$TMP/info" || { cat "$TMP/info"; fail "$f damaged"; }
	grep -q '^index: *footer and index' "$TMP/info" || { cat "$TMP/info"; fail "$f not closed"; }
	c=$(count "$TMP/t/$f")
	[ -n "$c" ] || fail "$f: no count"
	sum=$((sum + c))
	# a second in which a loaded host did not run the helper makes a file
	# without events (the first, while the helper waits for a CPU to exec)
	[ "$c" = 0 ] && continue
	first=$($AN trace "$TMP/t/$f" | ts | head -1)
	awk -v a="$prev" -v b="$first" 'BEGIN { exit !(b > a) }' || fail "$f starts at $first, not after $prev"
	prev=$($AN trace "$TMP/t/$f" | ts | tail -1)
done
[ $sum = $N ] || fail "the files hold $sum events, the workload made $N"

# --max-files: the oldest go, the newest 2 stay
mkdir "$TMP/m"
PP_GAP_US=10000 $REC -e $GP --rotate=1s --max-files=2 -o "$TMP/m/x.trace" -- \
	"$HELP/getppid-n" $N 2> "$TMP/m.err" || fail "record --max-files=2"
grep -q "oldest removed" "$TMP/m.err" || { cat "$TMP/m.err"; fail "nothing removed"; }
[ "$(ls "$TMP/m" | grep -c .)" = 2 ] || { ls "$TMP/m"; fail "--max-files=2 left other than 2 files"; }
last=$(ls "$TMP/m" | sort | tail -1)
case $last in x-*-000[3-9].trace|x-*-00[1-9][0-9].trace) ;; *) fail "kept $last";; esac

# SIZE: 20000 calls in 64K chunks, a new file past 16K
N=20000
mkdir "$TMP/s"
$REC -q -e $GP --rotate=16K --chunk-size=64K -o "$TMP/s/s" -- "$HELP/getppid-n" $N ||
	fail "record --rotate=16K"
nf=$(ls "$TMP/s" | grep -c .)
[ "$nf" -ge 2 ] || fail "$nf files at --rotate=16K"
ls "$TMP/s" | grep -vqE '^s-[0-9]{8}-[0-9]{6}-[0-9]{4}$' && fail "names without extension"
sum=0
for f in "$TMP/s"/*; do sum=$((sum + $(count "$f"))); done
[ $sum = $N ] || fail "--rotate=16K: $sum events in $nf files, want $N"

# symbols: every file of a profile resolves the workload's functions alone
mkdir "$TMP/p"
$REC -q -F 499 -g --rotate=700ms -o "$TMP/p/p.trace" -- "$HELP/spin" 2 || fail "record profile"
seen=0
for f in "$TMP/p"/*; do
	$AN profile "$f" > "$TMP/prof" 2>&1 || fail "profile $f"
	n=$(awk '/samples of/ { print $2; exit }' "$TMP/prof")
	[ "${n:-0}" -ge 20 ] || continue
	seen=$((seen + 1))
	grep -q 'spin_alpha (spin)' "$TMP/prof" || { cat "$TMP/prof"; fail "$f: spin_alpha unresolved"; }
done
[ $seen -ge 2 ] || fail "only $seen rotated profile files with samples"

# usage errors: one line, exit 2
for bad in "--rotate=0" "--rotate=5q" "--rotate=10ms" "--max-files=3" \
	   "--rotate=1s --flight-recorder=1s" "--rotate=1s --max-files=0"; do
	$REC -q -e $GP $bad -o "$TMP/e.trace" -- true 2> "$TMP/e.err"; rc=$?
	[ $rc = 2 ] && [ "$(wc -l < "$TMP/e.err")" = 1 ] || { cat "$TMP/e.err"; fail "$bad: rc $rc"; }
done
echo "ok"
