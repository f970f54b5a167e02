#!/usr/bin/env bash
# make check-layers: the layering of DESIGN.md, checked on the sources (what a
# file includes) and on the objects (what a file calls), so a folder cannot
# reach past its layer by declaring a function by hand either.
#
#   format/    depends on no other pp folder
#   record/    the capture library: format/ and record/ (and bpf/ programs)
#   replay/    format/, record/, replay/, and the module table
#   analyzers/ the replay API (pp/replay.h, pp/analyzer.h) and analyzers/
#   tools/     the two programs, on top: any library; no library reaches them
#
# and the module table: every module a file of analyzers/ defines is listed
# in analyzers/registry.c.
#
#   scripts/check-layers.sh [BUILD_DIR]
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
cd "$top" || exit 2
bad=0
complain() { echo "check-layers: $*" >&2; bad=1; }

# Which layer each public header belongs to.
header_layer() {
	case "$1" in
	pp/format.h|pp/ftpages.h|pp/records.h|pp/io.h|pp/meta.h|pp/reader.h|pp/writer.h|pp/bpf-agg.h) echo format ;;
	pp/perf.h|pp/tracefs.h|pp/workload.h|pp/bpf.h|pp/sample.h|pp/evspec.h|pp/elf.h|pp/host.h|pp/recorder.h|pp/walker.h) echo record ;;
	pp/replay.h|pp/analyzer.h) echo replay ;;
	*) echo unknown ;;
	esac
}

# What a file of folder $1 may include from layer $2 (header $3, file $4).
include_ok() {
	local dir=$1 layer=$2 hdr=$3 file=$4
	case "$dir:$layer" in
	format:format) return 0 ;;
	record:format|record:record|record:bpf) return 0 ;;
	replay:format|replay:record|replay:replay) return 0 ;;
	analyzers:replay|analyzers:analyzers) return 0 ;;
	tools:format|tools:record|tools:replay|tools:bpf|tools:tools) return 0 ;;
	esac
	return 1
}

for f in format/*.[ch] record/*.[ch] replay/*.[ch] analyzers/*.[ch] tools/*.[ch]; do
	dir=${f%%/*}
	while IFS= read -r inc; do
		case "$inc" in
		pp/*) layer=$(header_layer "$inc") ;;
		../*/*) layer=${inc#../}; layer=${layer%%/*} ;;
		bpf/*.skel.h) layer=bpf ;;
		*/*) layer=unknown ;;
		*) layer=$dir ;;
		esac
		if [ "$layer" = unknown ]; then
			complain "$f includes \"$inc\", a header of no known layer (add it to scripts/check-layers.sh)"
		elif ! include_ok "$dir" "$layer" "$inc" "$f"; then
			complain "$f includes \"$inc\" ($layer/): $dir/ may not"
		fi
	done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
done

# Calls: every undefined symbol of an object that some pp object defines.
if ! ls "$build"/format/*.o >/dev/null 2>&1; then
	complain "no objects in $build (build first)"
	exit 1
fi
defs=$(mktemp)
trap 'rm -f "$defs"' EXIT
objs=()
for f in format/*.c record/*.c replay/*.c analyzers/*.c tools/*.c; do	# stale objects do not count
	objs+=("$build/${f%.c}.o")
done
for o in "${objs[@]}"; do
	rel=${o#"$build"/}
	nm --defined-only -g "$o" 2>/dev/null | awk -v f="$rel" 'NF == 3 { print $3, f }'
done | sort -k1,1 > "$defs"

# The module table, the one way replay/ reaches analyzers/ (analyzers/registry.c).
registry_api=" pp_analyzer__find pp_analyzer__nth "

call_ok() {	# object_rel symbol defining_object_rel
	local from=${1%%/*} to=${3%%/*} sym=$2
	[ "$from" = "$to" ] && return 0
	case "$from:$to" in
	record:format|replay:format|replay:record) return 0 ;;
	analyzers:replay) return 0 ;;
	tools:*) return 0 ;;
	esac
	case "$from:$to:$3" in
	replay:analyzers:analyzers/registry.o) [[ "$registry_api" == *" $sym "* ]] && return 0 ;;
	esac
	return 1
}

for o in "${objs[@]}"; do
	rel=${o#"$build"/}
	while read -r sym def; do
		[ -n "$def" ] || continue
		call_ok "$rel" "$sym" "$def" ||
			complain "${rel%.o}.c calls $sym (${def%.o}.c): ${rel%%/*}/ may not"
	done < <(nm -u "$o" | awk '{ print $2 }' | sort | join - "$defs")
done

# The module table: each pp_analyzer_NAME defined is listed in registry.c.
for m in $(awk '$2 ~ /^analyzers\// && $2 != "analyzers/registry.o" && $1 ~ /^pp_analyzer_[a-z0-9_]+$/ { print $1 }' "$defs"); do
	nm -u "$build/analyzers/registry.o" | grep -qw "$m" ||
		complain "$m is defined but not listed in analyzers/registry.c"
done

[ $bad = 0 ] && echo "check-layers: ok"
exit $bad
