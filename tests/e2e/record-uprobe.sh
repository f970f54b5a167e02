#!/usr/bin/env bash
# uprobe and uretprobe through the uprobe PMU: one hit per call.
. "$(dirname "$0")/../helpers/record-lib.sh"
[ -e /sys/bus/event_source/devices/uprobe ] || skip "no uprobe PMU"

bin=$HELP/getppid-n
$REC -q -e "uprobe:do_getppid@$bin,uretprobe:do_getppid@$bin" -o "$TMP/u.trace" -- "$bin" 321 || fail "record"
$CHECK "$TMP/u.trace" > "$TMP/u.out" || fail "checker"
cat "$TMP/u.out"
[ "$(evcount "uprobe:do_getppid@$bin" "$TMP/u.out")" = 321 ] || fail "uprobe count"
[ "$(evcount "uretprobe:do_getppid@$bin" "$TMP/u.out")" = 321 ] || fail "uretprobe count"
echo "ok"
