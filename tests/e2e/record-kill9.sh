#!/usr/bin/env bash
# A recorder killed with SIGKILL leaves a file that reads back (no footer,
# chunks up to the last complete one), that every profiler says was not
# closed cleanly, and the flush every 250 ms put data there.
. "$(dirname "$0")/../helpers/record-lib.sh"

$REC -q -a -e sched:sched_switch,sched:sched_wakeup,syscalls:sys_enter_getppid -o "$TMP/k.trace" &
rp=$!
wait_recording "$TMP/k.trace" $rp
for i in 1 2 3 4 5 6; do "$HELP/getppid-n" 20000; sleep 0.4; done
kill -9 $rp
wait $rp 2>/dev/null
$CHECK "$TMP/k.trace" > "$TMP/k.out" || fail "unreadable after kill -9"
cat "$TMP/k.out"
[ "$(value footer "$TMP/k.out")" = 0 ] || fail "footer after kill -9?"
[ "$(value chunks_machine "$TMP/k.out")" = 1 ] || fail "no MACHINE chunk"
[ "$(value chunks_attrs "$TMP/k.out")" = 1 ] || fail "no ATTRS chunk"
[ "$(value corrupt "$TMP/k.out")" = 0 ] || fail "corrupt chunks"
n=$(evcount syscalls:sys_enter_getppid "$TMP/k.out")
[ "${n:-0}" -ge 20000 ] || fail "only ${n:-0} getppid events reached the file"

# every profiler that replays the file warns once that it was not closed
# cleanly, and where it ends: the last complete chunk, as dump numbers it
A=$B/pp-analyze
last=$("$A" dump "$TMP/k.trace" 2> /dev/null | awk '$1 == "#" && $2 == "chunk" { n = $3 } END { print n }')
ran=""
for p in $("$A" list | awk '/^commands:/ { exit } /^  / { print $1 }') info; do
	"$A" "$p" "$TMP/k.trace" > /dev/null 2> "$TMP/$p.err" || continue
	ran="$ran $p"
	# a chunk torn by the kill is said in the same line, first
	w=$(grep -cE "^pp-analyze: warning: (file truncated at offset [0-9]+ \([^)]*\): )?$TMP/k.trace was not closed cleanly \(no footer\): it ends at [0-9.]+ s, chunk $last$" "$TMP/$p.err")
	[ "$(grep -c 'not closed cleanly' "$TMP/$p.err")" = "$w" ] || { cat "$TMP/$p.err"; fail "$p: a different warning"; }
	[ "$w" = 1 ] || { cat "$TMP/$p.err"; fail "$p: $w warnings that the file was not closed cleanly (at chunk $last), want 1"; }
done
echo "warned:$ran"
for p in trace stat; do
	case "$ran " in *" $p "*) ;; *) fail "$p did not run on the killed file" ;; esac
done
$REC -q -e syscalls:sys_enter_getppid -o "$TMP/clean.trace" -- "$HELP/getppid-n" 10 || fail "record"
"$A" trace "$TMP/clean.trace" 2>&1 > /dev/null | grep "not closed cleanly" && fail "warns on a clean file"

# Data reaches the file at least every --flush-interval (250 ms): killed
# 0.6-0.85 s into a steady stream (a getppid a millisecond), every file holds
# events up to within 250 ms, the chunk being written and what a loaded host
# delayed its writing by (750 ms allowed) of the helper's
# last call before the kill (which the helper keeps in a file: a loaded host
# may have starved it well before the kill). Those times and the chunks'
# are CLOCK_MONOTONIC.
command -v python3 > /dev/null || skip "no python3 for the kill -9 timing runs"
PYTHONPATH=$(dirname "$0")/../helpers python3 - "$REC" "$HELP/getppid-n" "$TMP" <<'PY' || fail "kill -9 timing"
import os, signal, struct, subprocess, sys, time
import pptrace

rec, helper, tmp = sys.argv[1:4]
bad = 0
for run in range(10):
    f = '%s/t%d.trace' % (tmp, run)
    pidfile = '%s/t%d.pid' % (tmp, run)
    progress = '%s/t%d.progress' % (tmp, run)
    env = dict(os.environ, PP_GAP_US='1000', PP_PIDFILE=pidfile, PP_PROGRESS=progress)
    p = subprocess.Popen([rec, '-q', '-e', 'syscalls:sys_enter_getppid', '-o', f, '--',
                          helper, '100000'], env=env, stderr=subprocess.DEVNULL)
    # once the helper runs (pp-record starts it with the events on), ~0.7 s
    # more, at moments spread over a flush interval
    for _ in range(1200):
        if os.path.exists(progress) and os.path.getsize(progress) == 8 and \
           open(progress, 'rb').read(8) != bytes(8):
            break
        time.sleep(0.05)
    time.sleep(0.6 + run * 0.025)
    try:
        made_ns, = struct.unpack('<Q', open(progress, 'rb').read(8))
    except (OSError, struct.error):
        made_ns = 0
    p.send_signal(signal.SIGKILL)
    p.wait()
    try:
        os.kill(int(open(pidfile).read()), signal.SIGKILL)
    except (OSError, ValueError):
        pass
    # complete DATA chunks only: one cut short by the kill does not read back
    d, off, last = open(f, 'rb').read(), pptrace.FILE_HDR, 0
    while off + pptrace.CHUNK_HDR <= len(d):
        magic, type = struct.unpack_from('<IH', d, off)
        stored, = struct.unpack_from('<I', d, off + 16)
        lts, = struct.unpack_from('<Q', d, off + 40)
        end = off + pptrace.CHUNK_HDR + stored + pptrace.TRAILER
        if magic != pptrace.CHUNK_MAGIC or end > len(d):
            break
        if type == pptrace.DATA:
            last = max(last, lts)
        off = end
    gap_ms = (made_ns - last) / 1e6 if last else None
    print('run %d: %s' % (run, 'the helper made no call in 60 s' if not made_ns else
                          'no events in the file' if gap_ms is None else
                          'last event in the file %.0f ms before the last call' % gap_ms))
    # the interval, and what the writer had not appended yet: a chunk's
    # compression and write, which a loaded host delays (520 ms seen beside
    # the stress load)
    if not made_ns or gap_ms is None or gap_ms > 250 + 750:
        bad += 1
sys.exit(1 if bad else 0)
PY
echo "ok"
