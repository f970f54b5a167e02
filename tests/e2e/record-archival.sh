#!/usr/bin/env bash
# -z (archival): every event of an exact workload in the file, DATA chunks in
# zstd of at most 1 MiB raw, the file smaller than the default lz4 one; and
# --compression-level overrides -z's level with the same guarantees. -z
# stores DATA in the field cache (encoding 2) unless --encoding says otherwise
# (a chunk stepped down to lz4 uses encoding 1).
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
for args in "-z" "-z --compression-level 9" "-z --encoding cached"; do
	$REC -q $args -e syscalls:sys_enter_getppid -o "$TMP/z.trace" -- "$HELP/getppid-n" $N ||
		fail "pp-record $args"
	$CHECK "$TMP/z.trace" > "$TMP/z.out" || fail "$args: checker"
	[ "$(evcount syscalls:sys_enter_getppid "$TMP/z.out")" = $N ] ||
		{ cat "$TMP/z.out"; fail "$args: not $N events"; }
	read -r nd nz maxraw n1 n2 <<< "$(chunks "$TMP/z.trace")"
	[ "$nd" -ge 1 ] && [ "$nz" -ge 1 ] || fail "$args: $nd DATA chunks, $nz in zstd"
	case "$args" in
	*cached) [ "$n1" = "$nd" ] || fail "$args: $n1 of $nd DATA chunks in encoding 1" ;;
	*) [ "$n2" -ge 1 ] && [ $((n1 + n2)) = "$nd" ] ||
		fail "$args: $n2 of $nd DATA chunks in encoding 2, $n1 in 1" ;;
	esac
	[ "$maxraw" -le $((1 << 20)) ] || fail "$args: a DATA chunk of $maxraw raw bytes (> 1 MiB)"
	zs=$(stat -c %s "$TMP/z.trace")
	ls=$(stat -c %s "$TMP/lz4.trace")
	[ "$zs" -lt "$ls" ] || fail "$args: $zs bytes, not below lz4's $ls"
done
echo "ok"
