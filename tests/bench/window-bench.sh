#!/usr/bin/env bash
# make bench, time windows: replaying 1 s of a long file (--time) against a
# full pass of it, for trace and stat. tests/helpers/steady makes 100000
# getppid calls a second for SECS seconds (20, 6 with BENCH_QUICK=1); the
# window is its first, middle and last second. Chunks after the window are
# never read; those before it are decompressed and walked for their
# COMM/FORK/MMAP records only. A measurement, not a test.
set -euo pipefail
B=$(cd "${1:-build}" && pwd)
SECS=20
[ "${BENCH_QUICK:-}" = 1 ] && SECS=6
TMP=$(mktemp -d /tmp/pp-bench-window.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
T=$TMP/long.trace
"$B/pp-record" -q -e syscalls:sys_enter_getppid -o "$T" -- "$B/tests/helpers/steady" 100000 $SECS \
	>/dev/null 2>&1 || { echo "window bench: pp-record failed" >&2; exit 1; }
span=$("$B/pp-analyze" info "$T" | awk '/^duration:/ { print $2 }')
ev=$("$B/pp-analyze" stat --json "$T" | grep -o '"count":[0-9]*' | cut -d: -f2)
best() {	# the fastest of 3 runs, in ms
	local b= t0 t1 d
	for _ in 1 2 3; do
		t0=$(date +%s%N); "$@" >/dev/null 2>&1; t1=$(date +%s%N)
		d=$(( (t1 - t0) / 1000 ))
		if [ -z "$b" ] || [ $d -lt $b ]; then b=$d; fi
	done
	awk -v u="$b" 'BEGIN { printf "%.1f", u / 1000 }'
}
mid=$(awk -v s="$span" 'BEGIN { printf "%.3f", s / 2 - 0.5 }')
last=$(awk -v s="$span" 'BEGIN { printf "%.3f", s - 1 }')
echo
echo "time windows: 1 s of a $span s file of $ev getppid events, ms (best of 3), fraction of a full pass"
printf "%-34s %10s %10s %10s %10s\n" "" "whole file" "1st second" "middle s" "last s"
for p in trace stat; do
	f=$(best "$B/pp-analyze" $p "$T")
	line=$(printf "%-34s %10s" "pp-analyze $p" "$f")
	for w in "+0s,+1s" "+${mid}s,+$(awk -v m="$mid" 'BEGIN { printf "%.3f", m + 1 }')s" "+${last}s,"; do
		t=$(best "$B/pp-analyze" $p --time "$w" "$T")
		line+=$(printf " %10s" "$(awk -v a="$t" -v b="$f" 'BEGIN { printf "%.3f", a / b }')")
	done
	echo "$line"
done
