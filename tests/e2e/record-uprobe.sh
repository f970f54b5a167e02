#!/usr/bin/env bash
# uprobe and uretprobe through the uprobe PMU: one hit per call, also in the
# threads and the children of the target.
. "$(dirname "$0")/../helpers/record-lib.sh"
[ -e /sys/bus/event_source/devices/uprobe ] || skip "no uprobe PMU"

bin=$HELP/getppid-n
$REC -q -e "uprobe:do_getppid@$bin,uretprobe:do_getppid@$bin" -o "$TMP/u.trace" -- "$bin" 321 || fail "record"
$CHECK "$TMP/u.trace" > "$TMP/u.out" || fail "checker"
cat "$TMP/u.out"
[ "$(evcount "uprobe:do_getppid@$bin" "$TMP/u.out")" = 321 ] || fail "uprobe count"
[ "$(evcount "uretprobe:do_getppid@$bin" "$TMP/u.out")" = 321 ] || fail "uretprobe count"

# A target that makes threads and forks: its probes follow them. A uprobe
# PMU event cannot be inherited (the kernel rereads its path from the
# forking task: pthread_create() and fork() failed with EFAULT), so these
# are made in tracefs's uprobe_events, and removed at the end.
ht=$HELP/heap-truth
[ -x "$ht" ] || fail "no $ht (make test builds it)"
$REC -q -e "uprobe:small_blocks@$ht,uretprobe:leak_blocks@$ht" -o "$TMP/t.trace" -- "$ht" 1 threads fork &
R=$!
wait $R || fail "record a target with threads and a fork (the target failed?)"
$CHECK "$TMP/t.trace" > "$TMP/t.out" || fail "checker (threads, fork)"
[ "$(evcount "uprobe:small_blocks@$ht" "$TMP/t.out")" = 2 ] || fail "threads, fork: not 2 hits of small_blocks"
[ "$(evcount "uretprobe:leak_blocks@$ht" "$TMP/t.out")" = 2 ] || fail "threads, fork: not 2 returns of leak_blocks"
tr=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)
[ -z "$tr" ] || ! grep -q "^.:pp_$R/" "$tr/uprobe_events" || fail "pp-record left its probes in uprobe_events"
echo "ok"
