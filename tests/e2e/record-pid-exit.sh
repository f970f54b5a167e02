#!/usr/bin/env bash
# pp-record -p PID after PID exits: the rest of the recording costs (almost)
# no CPU — the exited task's fd reports EPOLLHUP for good, which must not
# end every wait at once — and every event of the target is in the file.
. "$(dirname "$0")/../helpers/record-lib.sh"
AN=$B/pp-analyze
[ -x "$AN" ] || skip "no $AN"
N=1000

# the target: waits until pp-record is attached (a FIFO it reads), makes N
# getppid calls, exits; pp-record goes on to its -d
mkfifo "$TMP/go"
sh -c 'read -r _ < "$2"; exec "$0" "$1"' "$HELP/getppid-n" $N "$TMP/go" > /dev/null & T=$!
# attach once the shell sleeps on the FIFO: its own start-up calls getppid()
until grep -q '^State:.S' /proc/$T/status 2>/dev/null; do sleep 0.01; done
/usr/bin/time -f "%U %S" -o "$TMP/cpu" "$REC" -q -p $T -e syscalls:sys_enter_getppid -d 2.5s \
	-o "$TMP/p.trace" & R=$!
wait_recording "$TMP/p.trace" $R
echo > "$TMP/go"
wait $T
wait $R || fail "pp-record -p"
n=$($AN stat "$TMP/p.trace" | awk '$2 == "syscalls:sys_enter_getppid" { print $3 }')
[ "$n" = $N ] || fail "$n getppid events, want $N"
# about 2 s after the target's exit: a busy loop spent most of it (1.4 s here)
read -r u s < "$TMP/cpu"
cpu=$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')
awk -v c="$cpu" 'BEGIN { exit !(c < 0.5) }' || fail "pp-record used $cpu s of CPU in 2.5 s"
echo "ok ($cpu s CPU)"
