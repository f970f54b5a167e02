#!/usr/bin/env bash
# make run: record a few seconds of this host with pp-record, then show what
# pp-analyze makes of the file. Needs root (perf events, tracefs).
set -euo pipefail
build=${1:-build}
out=${PP_DEMO_FILE:-$build/demo.trace}
secs=${PP_DEMO_SECONDS:-3}
if [ "$(id -u)" -ne 0 ]; then
	echo "make run: recording needs root (perf events and tracefs); run it as root" >&2
	exit 1
fi
echo "== pp-record: ${secs}s of this host (scheduler events and stack samples at 99 Hz)"
"$build/pp-record" -a -e 'sched:sched_switch,sched:sched_wakeup' -F 99 -g -d "${secs}s" -o "$out"
echo
echo "== pp-analyze info $out"
"$build/pp-analyze" info "$out"
echo
echo "== pp-analyze stat $out"
"$build/pp-analyze" stat "$out"
echo
echo "== pp-analyze top -e 'sched:sched_switch//key=prev_comm/' $out   (who switched out most)"
"$build/pp-analyze" top -e 'sched:sched_switch//key=prev_comm/' "$out" | head -15
echo
echo "== pp-analyze profile --percent-limit 1 --flame-graph $build/demo $out   (the hottest functions)"
"$build/pp-analyze" profile --percent-limit 1 --flame-graph "$build/demo" "$out"
echo
echo "Flame graph: $build/demo.svg (open it in a browser), folded stacks: $build/demo.folded"
