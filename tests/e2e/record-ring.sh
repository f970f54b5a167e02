#!/usr/bin/env bash
# The rings pp-record maps: one per CPU recorded, 2 MiB of data pages by
# default (1 MiB beyond 64 CPUs), -m PAGES when given; each one page more
# for the kernel's header.
. "$(dirname "$0")/../helpers/record-lib.sh"
PAGE=$(getconf PAGESIZE)
NCPU=$(getconf _NPROCESSORS_ONLN)

# rings ARGS...: "COUNT SIZE" of pp-record's perf_event mappings while it records
rings() {
	rm -f "$TMP/r.trace"
	"$REC" -q -e sched:sched_switch -d 5 -o "$TMP/r.trace" "$@" &
	local pid=$! i out=""
	# the file is put in place once every ring is mapped and the events on
	for i in $(seq 100); do
		local n=0 size=0 range
		[ -e "$TMP/r.trace" ] || { sleep 0.05; continue; }
		for range in $(grep perf_event "/proc/$pid/maps" 2> /dev/null | cut -d' ' -f1); do
			n=$((n + 1))
			size=$((16#${range#*-} - 16#${range%-*}))
		done
		[ $n -gt 0 ] && { out="$n $size"; break; }
		sleep 0.05
	done
	kill -INT $pid 2> /dev/null
	wait $pid || fail "pp-record $* failed"
	echo "$out"
}

want=$(( (NCPU <= 64 ? 2 * 1024 * 1024 : 1024 * 1024) + PAGE ))
got=$(rings -a)
[ "$got" = "$NCPU $want" ] || fail "default rings: '$got', want '$NCPU $want' (count, bytes)"
got=$(rings -a -m 64)
[ "$got" = "$NCPU $(( 65 * PAGE ))" ] || fail "-m 64: '$got', want '$NCPU $(( 65 * PAGE ))'"
got=$(rings -C 0 -m 1)
[ "$got" = "1 $(( 2 * PAGE ))" ] || fail "-C 0 -m 1: '$got', want '1 $(( 2 * PAGE ))'"
echo "PASS: rings of $want bytes on $NCPU CPUs, -m honoured"
