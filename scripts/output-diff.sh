#!/usr/bin/env bash
# Every profiler's output on the same recordings, from two builds, compared:
# the proof that a change of layout changes no answer. Each profiler runs on
# each trace as text and as JSON (and a few common options), with stdout,
# stderr and the exit code kept; the two trees must be byte-identical.
#
#   scripts/output-diff.sh OLD_BUILD NEW_BUILD [TRACE...]   (default tests/data/*.trace)
#   scripts/output-diff.sh --save BUILD DIR [TRACE...]      only write BUILD's outputs to DIR
set -u
top=$(cd "$(dirname "$0")/.." && pwd)

# snapshot BUILD DIR TRACE...: one file per (trace, command)
snapshot() {
	local b=$1 dir=$2 t p v name
	shift 2
	mkdir -p "$dir"
	local profs
	profs=$("$b/pp-analyze" list | awk '/^profilers:/ { on = 1; next } /^commands:/ { on = 0 } on { print $1 }')
	for t in "$@"; do
		for v in "info" "info --json" "dump"; do
			name=$(basename "$t" .trace).${v// /_}
			# shellcheck disable=SC2086
			(cd "$(dirname "$t")" && TZ=UTC timeout 60 "$b/pp-analyze" $v "$(basename "$t")" \
				>"$dir/$name.out" 2>"$dir/$name.err"; echo "rc=$?" >>"$dir/$name.err")
		done
		for p in $profs; do
			for v in "" "--json" "--perins" "-g" "--folded" "-i 1"; do
				name=$(basename "$t" .trace).$p${v:+.${v// /_}}
				# shellcheck disable=SC2086
				(cd "$(dirname "$t")" && TZ=UTC timeout 60 "$b/pp-analyze" $p $v "$(basename "$t")" \
					>"$dir/$name.out" 2>"$dir/$name.err" </dev/null; echo "rc=$?" >>"$dir/$name.err")
			done
		done
	done
}

if [ "${1:-}" = --save ]; then
	b=$(realpath "${2:?usage: output-diff.sh --save BUILD DIR [TRACE...]}")
	dir=${3:?usage: output-diff.sh --save BUILD DIR [TRACE...]}
	shift 3
	[ $# -gt 0 ] || set -- "$top"/tests/data/*.trace
	traces=()
	for t in "$@"; do traces+=("$(realpath "$t")"); done
	snapshot "$b" "$dir" "${traces[@]}"
	exit 0
fi
old=$(realpath "${1:?usage: output-diff.sh OLD_BUILD NEW_BUILD [TRACE...]}")
new=$(realpath "${2:?usage: output-diff.sh OLD_BUILD NEW_BUILD [TRACE...]}")
shift 2
[ $# -gt 0 ] || set -- "$top"/tests/data/*.trace
traces=()
for t in "$@"; do traces+=("$(realpath "$t")"); done
d=$(mktemp -d /tmp/pp-output-diff.XXXXXX)
trap 'rm -rf "$d"' EXIT
snapshot "$old" "$d/old" "${traces[@]}"
snapshot "$new" "$d/new" "${traces[@]}"
n=$(find "$d/old" -type f | wc -l)
if diff -r "$d/old" "$d/new" >"$d/diff"; then
	echo "output-diff: $n outputs of ${#traces[@]} traces byte-identical"
else
	head -50 "$d/diff"
	echo "output-diff: $(grep -c '^diff' "$d/diff") of $n outputs differ" >&2
	exit 1
fi
