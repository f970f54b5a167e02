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
echo "== pp-analyze profile --flame-graph $build/demo $out   (the 8 hottest stacks, folded)"
"$build/pp-analyze" profile --flame-graph "$build/demo" "$out" |
	awk '{ print $NF "\t" $0 }' | sort -rn | head -8 |
	awk -F'\t' '{ s = $2; sub(/ [0-9]+$/, "", s)	# samples first, then the stack, its leaf end kept
		if (length(s) > 140) s = "..." substr(s, length(s) - 136)
		printf "%7d  %s\n", $1, s }'
echo
echo "Flame graph: $build/demo.svg (open it in a browser), folded stacks: $build/demo.folded"
