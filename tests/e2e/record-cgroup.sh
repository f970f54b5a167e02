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
(echo $BASHPID > "$root/$cg/cgroup.procs"; sleep 0.5; exec "$HELP/getppid-n" 1500) &
"$HELP/getppid-n" 700 &	# outside the cgroup, same time
( sleep 0.5; "$HELP/getppid-n" 900 ) &
$REC -q --cgroups "$cg" -e syscalls:sys_enter_getppid -d 1.5 -o "$TMP/c.trace" || fail "record"
wait
$CHECK "$TMP/c.trace" > "$TMP/c.out" || fail "checker"
cat "$TMP/c.out"
[ "$(evcount syscalls:sys_enter_getppid "$TMP/c.out")" = 1500 ] || fail "not exactly the cgroup's 1500 events"

# a regular expression selects every matching cgroup: x and y, not the first
(echo $BASHPID > "$root/$cg-x/cgroup.procs"; sleep 0.5; exec "$HELP/getppid-n" 300) &
(echo $BASHPID > "$root/$cg-y/cgroup.procs"; sleep 0.5; exec "$HELP/getppid-n" 400) &
(echo $BASHPID > "$root/$cg/cgroup.procs"; sleep 0.5; exec "$HELP/getppid-n" 800) &
$REC -q --cgroups "$cg-[xy]" -e syscalls:sys_enter_getppid -d 1.5 -o "$TMP/r.trace" || fail "record regex"
wait
$CHECK "$TMP/r.trace" > "$TMP/r.out" || fail "checker"
[ "$(evcount syscalls:sys_enter_getppid "$TMP/r.out")" = 700 ] || { cat "$TMP/r.out"; fail "regex: not exactly 300 + 400 events"; }
$REC -q --cgroups "$cg-nomatch.*" -e syscalls:sys_enter_getppid -d 0.1 -o "$TMP/n.trace" 2> "$TMP/n.err"
[ $? = 2 ] && grep -q "no cgroup" "$TMP/n.err" || { cat "$TMP/n.err"; fail "no match must be a usage error"; }
echo "ok"
