#!/usr/bin/env bash
# --cgroups: only the tasks of that cgroup (v2 or v1 perf_event hierarchy).
. "$(dirname "$0")/../helpers/record-lib.sh"

root=
for r in /sys/fs/cgroup/perf_event /sys/fs/cgroup/unified /sys/fs/cgroup; do
	[ "$(stat -f -c %T "$r" 2>/dev/null)" = cgroup2fs ] || [ "$(stat -f -c %T "$r" 2>/dev/null)" = cgroupfs ] || continue
	[ -w "$r" ] && root=$r && break
done
[ -n "$root" ] || skip "no writable cgroup hierarchy"
cg=pp-e2e-$$
mkdir "$root/$cg" 2>/dev/null || skip "cannot create a cgroup in $root"
mkdir "$root/$cg-x" "$root/$cg-y" || skip "cannot create cgroups in $root"
trap 'rmdir "$root/$cg" "$root/$cg-x" "$root/$cg-y" 2>/dev/null; rm -rf "$TMP"' EXIT
# record CGROUPS FILE: pp-record --cgroups CGROUPS in the background, to FILE,
# once its events are on; stop_record ends it
record() {
	$REC -q --cgroups "$1" -e syscalls:sys_enter_getppid -o "$2" & rp=$!
	wait_recording "$2" $rp
}
stop_record() {
	kill -INT $rp; wait $rp || fail "pp-record --cgroups exited $?"
}
record "$cg" "$TMP/c.trace"
(echo $BASHPID > "$root/$cg/cgroup.procs"; exec "$HELP/getppid-n" 1500) & w1=$!
"$HELP/getppid-n" 700 & w2=$!	# outside the cgroup, same time
"$HELP/getppid-n" 900 & w3=$!
wait $w1 $w2 $w3
stop_record
$CHECK "$TMP/c.trace" > "$TMP/c.out" || fail "checker"
cat "$TMP/c.out"
[ "$(evcount syscalls:sys_enter_getppid "$TMP/c.out")" = 1500 ] || fail "not exactly the cgroup's 1500 events"

# a regular expression selects every matching cgroup: x and y, not the first
record "$cg-[xy]" "$TMP/r.trace"
(echo $BASHPID > "$root/$cg-x/cgroup.procs"; exec "$HELP/getppid-n" 300) & w1=$!
(echo $BASHPID > "$root/$cg-y/cgroup.procs"; exec "$HELP/getppid-n" 400) & w2=$!
(echo $BASHPID > "$root/$cg/cgroup.procs"; exec "$HELP/getppid-n" 800) & w3=$!
wait $w1 $w2 $w3
stop_record
$CHECK "$TMP/r.trace" > "$TMP/r.out" || fail "checker"
[ "$(evcount syscalls:sys_enter_getppid "$TMP/r.out")" = 700 ] || { cat "$TMP/r.out"; fail "regex: not exactly 300 + 400 events"; }
$REC -q --cgroups "$cg-nomatch.*" -e syscalls:sys_enter_getppid -d 0.1 -o "$TMP/n.trace" 2> "$TMP/n.err"
[ $? = 2 ] && grep -q "no cgroup" "$TMP/n.err" || { cat "$TMP/n.err"; fail "no match must be a usage error"; }
echo "ok"
