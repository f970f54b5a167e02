# Shared by the tests/e2e/*.sh scripts (sourced; not a test itself:
# tests/run-tests.sh runs only *.sh).
#
# The rule: a test skips (exit 77) only for a kernel or hardware feature, or a
# precondition such as root, that it detected *before* running pp, and says
# which. Anything pp-record or pp-analyze does wrong, a refusal to record
# included, is a FAIL (exit 1) that shows pp's own error. A tool the tests
# need is installed by scripts/install-deps.sh: missing, it is a FAIL too.
skip() { echo "skip: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
# fail_err FILE MESSAGE: fail, showing pp's error output saved in FILE
fail_err() { local f=$1; shift; [ -f "$f" ] && sed 's/^/  | /' "$f" | tail -20; fail "$*"; }

TRACEFS=
for _d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
	[ -d "$_d/events" ] && { TRACEFS=$_d; break; }
done
unset _d
PMU_DEVS=/sys/bus/event_source/devices

need_root() { [ "$(id -u)" = 0 ] || skip "needs root${1:+ $*}"; }
need_perf() { [ -e /proc/sys/kernel/perf_event_paranoid ] || skip "kernel without perf events"; }
need_tracefs() { [ -n "$TRACEFS" ] || skip "no tracefs mounted (scripts/install-deps.sh mounts it)"; }
# need_event SYS:NAME...: the kernel has these tracepoints (SYS:* a whole system)
need_event() {
	need_tracefs
	local e
	for e in "$@"; do
		case "$e" in
		*:\*) [ -d "$TRACEFS/events/${e%%:*}" ] || skip "this kernel has no ${e%%:*} tracepoints" ;;
		*) [ -d "$TRACEFS/events/${e%%:*}/${e#*:}" ] || skip "this kernel has no tracepoint $e" ;;
		esac
	done
}
need_btf() { [ -r /sys/kernel/btf/vmlinux ] || skip "kernel without BTF (/sys/kernel/btf/vmlinux): BPF programs cannot load here"; }
need_uprobes() { [ -e $PMU_DEVS/uprobe ] || skip "no uprobe PMU in this kernel ($PMU_DEVS/uprobe)"; }
need_kprobes() { need_tracefs; [ -e "$TRACEFS/kprobe_events" ] || skip "no kprobes in this kernel ($TRACEFS/kprobe_events)"; }
need_kvm() { [ -c /dev/kvm ] || skip "no /dev/kvm on this host: no guest can run"; }
# have_pmu: a hardware PMU that counts cycles (none in most VMs)
have_pmu() {
	local d
	for d in $PMU_DEVS/cpu $PMU_DEVS/cpu_core $PMU_DEVS/cpu_atom $PMU_DEVS/armv8_pmuv3*; do
		[ -e "$d/type" ] && return 0
	done
	return 1
}
need_pmu() { have_pmu || skip "no hardware PMU on this host (no $PMU_DEVS/cpu)"; }
need_cpus() { [ "$(nproc)" -ge "$1" ] || skip "needs $1 CPUs, this host has $(nproc)"; }
# need_tool CMD [PACKAGE]: scripts/install-deps.sh installs what the tests need
need_tool() {
	command -v "$1" >/dev/null 2>&1 ||
		fail "no $1${2:+ ($2)} installed: run scripts/install-deps.sh"
}
# need_built FILE: built by make test
need_built() { [ -x "$1" ] || fail "$1 not built (make test builds it)"; }
# need_hw_breakpoints HELPER: write breakpoints fire. Hardware breakpoints
# open but never fire in some VMs (this one): perf stat, not pp, counts the
# writes of tests/helpers/sched-bpwrite (HELPER) to its global under one.
need_hw_breakpoints() {
	local h=$1 d a hp sp n
	[ -e $PMU_DEVS/breakpoint ] || skip "no breakpoint PMU in this kernel ($PMU_DEVS/breakpoint)"
	need_tool perf linux-perf
	need_built "$h"
	d=$(mktemp -d /tmp/pp-e2e-bpcheck.XXXXXX)
	"$h" 5 > "$d/addr" & hp=$!
	for _ in $(seq 50); do [ -s "$d/addr" ] && break; sleep 0.1; done
	a=$(cat "$d/addr")
	perf stat -x, -e "mem:0x$a/8:w" -p $hp -o "$d/stat" 2>"$d/err" & sp=$!
	sleep 1
	kill -USR1 $hp; wait $hp; wait $sp
	n=$(awk -F, '/mem:0x/ { print $1 }' "$d/stat")
	rm -rf "$d"
	case "$n" in
	[1-9]*) return 0 ;;
	"<not supported>") skip "hardware breakpoints cannot be opened here (perf stat -e mem:ADDR/8:w: not supported)" ;;
	*) skip "hardware breakpoints never fire here: perf stat -e mem:ADDR/8:w counts ${n:-nothing} of 5 writes" ;;
	esac
}
