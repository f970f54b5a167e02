#!/usr/bin/env bash
# Hostile files, round 2 (issue 43): tests/test-hostile rewrites real
# recordings in encodings 1, 2 and 3 (tests/data) as an attacker who knows the
# spec would: ftrace pages whose paddings loop back, type tables and page
# headers that lie, layouts that move the time over the CPU and id words. Each
# file goes through 14 pp-analyze commands, which must each end in 10 s, within
# 1 GB of address space, and print at most 64 MB; `info` must name the file's
# damage (never "damage: none"; in --json, by key) and exit 0. The healthy files, rebuilt the same
# way, must still say "damage: none".
set -u
B=${PP_BUILD:?}
TOP=${PP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
T=$(mktemp -d /tmp/pp-e2e-decoders.XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.bash"
need_built "$B/tests/test-hostile"
(cd "$TOP" && PP_HOSTILE_OUT=$T "$B/tests/test-hostile") >"$T/unit.log" 2>&1 ||
	fail_err "$T/unit.log" "test-hostile"
files=$(ls "$T"/*.trace 2>/dev/null)
[ "$(wc -w <<<"$files")" -ge 16 ] || fail "test-hostile kept $(wc -w <<<"$files") files, want 16"
cmds=("info" "info --json" "dump" "trace" "trace --json" "stat" "stat -i 100 --perins"
      "top" "task-state --perins" "rundelay" "oncpu" "percpu-stat" "hrcount" "convert --to=chrome")
# bounded NAME CMD...: ends in 10 s, in 1 GB, printing at most 64 MB
bounded() {
	local name=$1; shift
	local out rc
	out=$( (ulimit -v 1048576; timeout -k 2 10 "$@" 2>"$T/err" | head -c 67108865 | wc -c;
		exit "${PIPESTATUS[0]}") ); rc=$?
	[ "$rc" = 124 ] || [ "$rc" = 137 ] && fail "$name: '$*' ran past 10 s"
	[ "$rc" -ge 128 ] && fail "$name: '$*' died of signal $((rc - 128)): $(tail -3 "$T/err")"
	[ "$out" -le 67108864 ] || fail "$name: '$*' printed more than 64 MB"
	return 0
}
n=0
for f in $files; do
	name=$(basename "$f" .trace)
	for c in "${cmds[@]}"; do
		# shellcheck disable=SC2086
		bounded "$name" "$B/pp-analyze" $c "$f"
		n=$((n + 1))
	done
	"$B/pp-analyze" info "$f" >"$T/info" 2>&1 || fail_err "$T/info" "$name: info exits non-zero"
	grep -q '^damage:' "$T/info" || fail_err "$T/info" "$name: info has no damage line"
	grep -q '^damage: *none' "$T/info" && fail_err "$T/info" "$name: info says damage: none"
	"$B/pp-analyze" info --json "$f" >"$T/$name.damaged.json" 2>"$T/err" ||
		fail_err "$T/err" "$name: info --json exits non-zero"
done
echo "ok: $(wc -w <<<"$files") hostile files, $n commands, each bounded; info names each damage"

# the healthy recordings of each encoding, as test-hostile rebuilds them
for f in cached-sched fields-sched ftrace-sched; do
	"$B/pp-analyze" info "$TOP/tests/data/$f.trace" >"$T/info" 2>&1 ||
		fail_err "$T/info" "$f: info exits non-zero"
	grep -q '^damage: *none' "$T/info" || fail_err "$T/info" "$f: a healthy file reports damage"
	"$B/pp-analyze" info --json "$TOP/tests/data/$f.trace" >"$T/$f.healthy.json" 2>"$T/err" ||
		fail_err "$T/err" "$f: info --json exits non-zero"
done
echo "ok: healthy files of encodings 1, 2 and 3 report damage: none"

# info --json, every file in one python (a start costs seconds on a loaded host):
# one object each, a damaged file's damage not none with a count of it non-zero,
# a healthy file's none with every count 0
python3 - "$T"/*.json <<'PY' || fail "info --json does not name the damage as it should"
import json, sys
bad = 0
for path in sys.argv[1:]:
    d = json.load(open(path))["damage"]
    counts = any(v for k, v in d.items() if k != "none")
    damaged = path.endswith(".damaged.json")
    if damaged == d["none"] or damaged != counts:
        print(f"{path}: damage {d}")
        bad = 1
sys.exit(bad)
PY
echo "ok: info --json names the damage of each hostile file by key, none for the healthy ones"
