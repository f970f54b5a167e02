#!/usr/bin/env bash
# pp-record runs as root next to other users' processes, whose JIT perf maps
# (/tmp/perf-PID.map) it reads. An unprivileged process that puts a FIFO, a
# symlink to /dev/zero, a symlink to a root-only file or a huge file there
# neither stalls the recording nor gets another file's lines into the trace;
# a valid perf map owned by the process is still read.
. "$(dirname "$0")/../helpers/record-lib.sh"

command -v setpriv > /dev/null || skip "no setpriv"
NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups"
$NOBODY true 2> /dev/null || skip "cannot run as uid 65534"
chmod 755 "$TMP"
mkdir "$TMP/pub" && chmod 1777 "$TMP/pub"
cp "$HELP/jit-spin" "$TMP/pub/jit-spin" && chmod 755 "$TMP/pub/jit-spin"
"$TMP/pub/jit-spin" 0 none; [ $? = 3 ] && skip "jit-spin has no code for $(uname -m)"
# a root-only file in perf-map form: read through a symlink, every sample would name it
printf '0 7fffffffffff pp_root_only_secret\n' > "$TMP/secret"
chmod 600 "$TMP/secret"
pids=()
trap 'for p in "${pids[@]}"; do kill $p 2>/dev/null; rm -f /tmp/perf-$p.map; done; rm -rf "$TMP"' EXIT

# run_case NAME MODE [TARGET]: record the spinning helper (as nobody) for 1.5 s
run_case() {
	local name=$1 pid start t rc
	shift
	rm -f "$TMP/pub/pid"
	PP_PIDFILE="$TMP/pub/pid" $NOBODY "$TMP/pub/jit-spin" 6 "$@" &
	pids+=($!)
	for _ in $(seq 100); do [ -s "$TMP/pub/pid" ] && break; sleep 0.05; done
	pid=$(cat "$TMP/pub/pid" 2> /dev/null)
	[ -n "$pid" ] || fail "$name: the helper did not start"
	pids+=($pid)
	start=$SECONDS
	timeout -k 5 30 $REC -q -F 997 --codec none -p "$pid" -d 1.5s -o "$TMP/$name.trace" \
		2> "$TMP/$name.err"
	rc=$?
	t=$((SECONDS - start))
	cat "$TMP/$name.err"
	[ $rc = 124 ] || [ $rc = 137 ] && fail "$name: the recording hung (killed after 30 s)"
	[ $rc = 0 ] || fail "$name: exit $rc"
	[ $t -le 10 ] || fail "$name: recording 1.5 s took $t s"
	kill "$pid" 2> /dev/null
	$CHECK "$TMP/$name.trace" --syms -1 > "$TMP/$name.out" || fail "$name: unreadable"
	grep '^usym' "$TMP/$name.out"
	grep -q pp_root_only_secret "$TMP/$name.trace" "$TMP/$name.out" &&
		fail "$name: the root-only file's content is in the trace"
	rm -f "/tmp/perf-$pid.map"
	return 0
}

run_case map map
# the recorder's side: the map's symbols are in the file (uncompressed: --codec none)
grep -q jit_spin_code "$TMP/map.trace" || fail "a valid perf map of the process's own uid is not read"
run_case fifo fifo
run_case zero symlink /dev/zero
run_case secret symlink "$TMP/secret"
run_case big big
# a perf map read would be a USYMS item named by its path (the helper's own
# functions may be sampled too, so USYMS chunks themselves prove nothing)
for c in fifo zero secret; do
	! grep -qa '/tmp/perf-[0-9]*\.map' "$TMP/$c.trace" || fail "$c: a perf map was read"
done
grep -qa '/tmp/perf-[0-9]*\.map' "$TMP/map.trace" || fail "the valid perf map is not named in its trace"
echo "ok"
