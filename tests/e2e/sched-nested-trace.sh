#!/usr/bin/env bash
# nested-trace ground truth: nest_outer() sleeps 2 ms and calls nest_inner(),
# which sleeps 3 ms, N times; with uprobes/uretprobes on both, nested-trace
# must count N calls each, outer total >= N*5 ms with self >= N*2 ms, inner
# total >= N*3 ms.
set -u
. "$(dirname "$0")/lib.bash"
B=${PP_BUILD:?}
N=10
H=$(cd "$B/tests/helpers" && pwd)/sched-nested
T=$(mktemp -d /tmp/pp-e2e-nt.XXXXXX)
trap 'rm -rf "$T"' EXIT
need_root "for uprobes"
need_uprobes
"$B/pp-record" -e "uprobe:nest_outer@$H,uretprobe:nest_outer@$H,uprobe:nest_inner@$H,uretprobe:nest_inner@$H" \
	-o "$T/t" -- "$H" $N >/dev/null 2>"$T/err" || fail_err "$T/err" "pp-record -e uprobe:nest_outer@...,uretprobe:..."
out=$("$B/pp-analyze" nested-trace --json "$T/t") || { echo "nested-trace failed"; exit 1; }
echo "$out"
get() { echo "$out" | grep "\"function\":\"$1@" | grep -o "\"$2\":[0-9]*" | cut -d: -f2; }
[ "$(get nest_outer calls)" = $N ] && [ "$(get nest_inner calls)" = $N ] || { echo "calls wrong"; exit 1; }
[ "$(get nest_outer total)" -ge $((N * 5000000)) ] || { echo "outer total too small"; exit 1; }
[ "$(get nest_outer self)" -ge $((N * 2000000)) ] || { echo "outer self too small"; exit 1; }
[ "$(get nest_outer self)" -lt "$(get nest_outer total)" ] || { echo "outer self >= total"; exit 1; }
[ "$(get nest_inner total)" -ge $((N * 3000000)) ] || { echo "inner total too small"; exit 1; }
echo "ok: $N nested calls"
