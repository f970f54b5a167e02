#!/usr/bin/env bash
# blktrace ground truth: 300 direct 4 KiB writes (dd oflag=direct) to a loop
# device are exactly 300 write requests of that device (by major:minor and
# name), each with queue <= issue <= complete; pp-record blktrace records
# exactly the five block events; --heatmap writes an SVG; -g gives the
# submitter's stack (dd's write(2)).
. "$(dirname "$0")/../helpers/record-lib.sh"
AN=$B/pp-analyze
command -v losetup >/dev/null || skip "no losetup"
[ -r /proc/partitions ] || skip "no /proc/partitions"
truncate -s 8M "$TMP/img"
L=$(losetup -f --show "$TMP/img" 2>/dev/null) || skip "losetup cannot attach a loop device here"
trap 'losetup -d "$L"; rm -rf "$TMP"' EXIT
name=${L#/dev/}
mm=$(printf '%d:%d' "0x$(stat -c %t "$L")" "0x$(stat -c %T "$L")")

$REC -o "$TMP/t" blktrace -g -- dd if=/dev/zero of="$L" bs=4k count=300 oflag=direct \
	2> "$TMP/rec.err" || { cat "$TMP/rec.err"; fail "pp-record blktrace"; }
evs=$(awk '$1 ~ /^block:/ { print $1 }' "$TMP/rec.err" | sort | tr '\n' ' ')
[ "$evs" = "block:block_bio_queue block:block_getrq block:block_rq_complete block:block_rq_insert block:block_rq_issue " ] ||
	{ cat "$TMP/rec.err"; fail "pp-record blktrace recorded: $evs"; }
awk '/^  [a-z0-9_-]+:/ && $1 !~ /^block:/ && $1 != "lost:"' "$TMP/rec.err" | grep -q . &&
	{ cat "$TMP/rec.err"; fail "pp-record blktrace recorded other events"; }

$AN blktrace --json "$TMP/t" > "$TMP/j" || fail "pp-analyze blktrace --json"
cat "$TMP/j"
row=$(grep "\"dev\":\"$mm\"" "$TMP/j" | grep '"op":"write"')
[ "$(echo "$row" | grep -c .)" = 1 ] || fail "want one write row for $mm"
echo "$row" | grep -q "\"name\":\"$name\"" || fail "device $mm not named $name"
echo "$row" | grep -q '"requests":300,' || fail "want 300 write requests of $mm"
echo "$row" | grep -q '"D2C":{"calls":300,' || fail "want 300 issue->complete"
echo "$row" | grep -q '"Q2C":{"calls":300,' || fail "want 300 whole requests"

# Every request: queue <= issue <= complete, 8 sectors, submitted by dd with its stack.
$AN blktrace --than 0 --json "$TMP/t" > "$TMP/o" || fail "pp-analyze blktrace --than 0"
grep '"type":"outlier"' "$TMP/o" | grep "\"dev\":\"$mm\"" > "$TMP/o2"
n=$(grep -c . "$TMP/o2")
[ "$n" = 300 ] || fail "want 300 requests with --than 0, got $n"
bad=$(awk '{
	match($0, /"queue":[0-9]+/); q = substr($0, RSTART + 8, RLENGTH - 8) + 0
	match($0, /"issue":[0-9]+/); i = substr($0, RSTART + 8, RLENGTH - 8) + 0
	match($0, /"complete":[0-9]+/); c = substr($0, RSTART + 11, RLENGTH - 11) + 0
	if (!q || !i || !c || q > i || i > c) print
}' "$TMP/o2" | grep -c .)
[ "$bad" = 0 ] || fail "$bad requests without queue <= issue <= complete"
[ "$(grep -c '"nr_sector":8,"comm":"dd"' "$TMP/o2")" = 300 ] || fail "requests not 8 sectors from dd"
[ "$(grep -c '"sym":"ksys_write"' "$TMP/o2")" = 300 ] || fail "submitter stacks lack ksys_write"

$AN blktrace --than 0 "$TMP/t" | grep -q "^    .*ksys_write" || fail "--than text lacks the stack"
$AN blktrace --heatmap "$TMP/hm" "$TMP/t" > /dev/null 2>&1 || fail "--heatmap"
grep -q '<svg' "$TMP/hm.svg" || fail "no heat map SVG"
$AN blktrace -i 100000 "$TMP/t" | grep -q "$mm $name write: 300 requests" || fail "text output"

$AN blktrace --heatmap /nonexistent-dir/x "$TMP/t" > /dev/null 2> "$TMP/err"
[ $? != 0 ] && [ "$(grep -c . "$TMP/err")" = 1 ] || { cat "$TMP/err"; fail "bad --heatmap path"; }
$AN stat -e block:block_rq_issue "$TMP/t" >/dev/null || fail "stat on the file"
$REC -q -o "$TMP/s" -e sched:sched_switch -- true 2>/dev/null
$AN blktrace "$TMP/s" > /dev/null 2> "$TMP/err"
rc=$?
[ $rc != 0 ] && [ "$(grep -c . "$TMP/err")" = 1 ] && grep -q "^pp-analyze: blktrace: " "$TMP/err" || { cat "$TMP/err"; fail "no block events: exit $rc"; }
echo "ok: 300 write requests of $mm ($name), queue <= issue <= complete"
