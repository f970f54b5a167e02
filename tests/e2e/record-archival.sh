#!/usr/bin/env bash
# -z (archival): every event of an exact workload in the file, DATA chunks in
# zstd of at most 1 MiB raw, the file smaller than the default lz4 one; and
# --compression-level overrides -z's level with the same guarantees. -z
# stores DATA in the record cache (encoding 1), --encoding fields in the
# field cache (encoding 2; a chunk stepped down to lz4 uses encoding 1).
# -z --ftrace stores the records of its pages (encoding 1), not the pages
# (encoding 3). The -z writer compresses at SCHED_IDLE.
. "$(dirname "$0")/../helpers/record-lib.sh"

chunks() {	# FILE -> "DATA_CHUNKS ZSTD_CHUNKS MAX_RAW ENC1_CHUNKS ENC2_CHUNKS"
	python3 - "$1" "$(dirname "$0")/../helpers" <<'PY'
import sys
sys.path.insert(0, sys.argv[2])
import pptrace
_, cs = pptrace.read(sys.argv[1])
d = [c for c in cs if c.type == 0x10]
print(len(d), sum(1 for c in d if c.codec == 2), max([c.raw_size for c in d] or [0]),
      sum(1 for c in d if c.encoding == 1), sum(1 for c in d if c.encoding == 2))
PY
}

N=60000
$REC -q -e syscalls:sys_enter_getppid -o "$TMP/lz4.trace" -- "$HELP/getppid-n" $N || fail "default run"
for args in "-z" "-z --compression-level 9" "-z --encoding fields" "-z --ftrace"; do
	$REC -q $args -e syscalls:sys_enter_getppid -o "$TMP/z.trace" -- "$HELP/getppid-n" $N ||
		fail "pp-record $args"
	$CHECK "$TMP/z.trace" > "$TMP/z.out" || fail "$args: checker"
	[ "$(evcount syscalls:sys_enter_getppid "$TMP/z.out")" = $N ] ||
		{ cat "$TMP/z.out"; fail "$args: not $N events"; }
	read -r nd nz maxraw n1 n2 <<< "$(chunks "$TMP/z.trace")"
	[ "$nd" -ge 1 ] && [ "$nz" -ge 1 ] || fail "$args: $nd DATA chunks, $nz in zstd"
	case "$args" in
	*fields) [ "$n2" -ge 1 ] && [ $((n1 + n2)) = "$nd" ] ||
		fail "$args: $n2 of $nd DATA chunks in encoding 2, $n1 in 1" ;;
	*) [ "$n1" = "$nd" ] || fail "$args: $n1 of $nd DATA chunks in encoding 1" ;;
	esac
	[ "$maxraw" -le $((1 << 20)) ] || fail "$args: a DATA chunk of $maxraw raw bytes (> 1 MiB)"
	zs=$(stat -c %s "$TMP/z.trace")
	ls=$(stat -c %s "$TMP/lz4.trace")
	[ "$zs" -lt "$ls" ] || fail "$args: $zs bytes, not below lz4's $ls"
done

# the writer thread's policy while -z records: SCHED_IDLE (5), the drain FIFO (1)
$REC -q -z -e syscalls:sys_enter_getppid -o "$TMP/idle.trace" -- sleep 3 &
rp=$!
pols=""
for _ in $(seq 50); do
	sleep 0.1
	pols=$(for t in /proc/$rp/task/*; do
		[ "$(cat "$t/comm" 2>/dev/null)" = pp-record ] || continue
		awk '{ sub(/.*\) /, ""); print $39 }' "$t/stat"	# field 41: policy
	done 2>/dev/null | sort | tr '\n' ' ')
	case "$pols" in *5*) break ;; esac
done
wait $rp || fail "-z -- sleep 3"
[ "$pols" = "1 5 " ] || fail "-z: thread policies '$pols', not the drain FIFO (1) and the writer IDLE (5)"
echo "ok"
