#!/usr/bin/env bash
# BPF output events in the file: `pp-record -a --bpf-output execsnoop`
# while tests/helpers/bpf-execs execs /bin/true N times; the records are
# decoded from the BTF stored in the trace (tests/test-bpf-output --dump,
# the replay/btf-print.c decoder pp-analyze trace uses): exactly N exec
# records with the helper as parent, comm=true and filename=/bin/true.
# Bad sources and per-process recording fail with one clear line.
set -u
B=${PP_BUILD:?PP_BUILD not set}
helper=$B/tests/helpers/bpf-execs
dump=$B/tests/test-bpf-output
skip() { echo "skip: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
[ "$(id -u)" = 0 ] || skip "needs root for BPF and perf events"
[ -x "$helper" ] || skip "$helper not built"
[ -x "$dump" ] || skip "$dump not built (make test-bins)"
[ -r /sys/kernel/btf/vmlinux ] || skip "kernel without BTF: BPF programs cannot load here"
T=$(mktemp -d /tmp/pp-e2e-bpfout.XXXXXX)
trap 'rm -rf "$T"' EXIT
N=9

"$B/pp-record" -q -a --bpf-output execsnoop -o "$T/t" -- "$helper" $N /bin/true \
	>"$T/helper.out" 2>"$T/rec.err" || { cat "$T/rec.err"; fail "pp-record --bpf-output"; }
ppid=$(head -1 "$T/helper.out")
"$dump" --dump "$T/t" >"$T/dump" 2>"$T/dump.err" || { cat "$T/dump.err"; fail "decoding"; }
[ -s "$T/dump.err" ] && { cat "$T/dump.err"; fail "decoder warnings"; }
n=$(grep -c "^bpf-output:execsnoop: pid=[0-9]* ppid=$ppid uid=0 old_pid=[0-9]* comm=true filename=/bin/true$" "$T/dump")
[ "$n" = $N ] || { cat "$T/dump"; fail "$n exec records of helper $ppid decoded, want $N"; }
"$B/pp-analyze" info "$T/t" | grep -q "bpf-output:execsnoop" || fail "info does not list the event"
# pp-analyze trace prints the same fields from the stored BTF
n=$("$B/pp-analyze" trace "$T/t" | grep -c "bpf-output:execsnoop: pid=[0-9]* ppid=$ppid uid=0 old_pid=[0-9]* comm=true filename=/bin/true$")
[ "$n" = $N ] || { "$B/pp-analyze" trace "$T/t" | head; fail "pp-analyze trace printed $n decoded exec records, want $N"; }

# errors: one line, non-zero
if "$B/pp-record" -q -a --bpf-output nosuch -d 0.1 -o "$T/bad" 2>"$T/e1"; then fail "unknown source accepted"; fi
[ "$(wc -l <"$T/e1")" = 1 ] && grep -q "nosuch" "$T/e1" || { cat "$T/e1"; fail "unknown source message"; }
if "$B/pp-record" -q --bpf-output execsnoop -o "$T/bad" -- /bin/true 2>"$T/e2"; then fail "per-process --bpf-output accepted"; fi
grep -q "system-wide" "$T/e2" || { cat "$T/e2"; fail "per-process message"; }
echo "ok: $N exec records decoded from the stored BTF"
