#!/usr/bin/env bash
# Install the Debian packages pp needs to build, test and benchmark, and mount
# tracefs. Idempotent; installs only what is missing. Run as root.
#
#   scripts/install-deps.sh           install what is missing, mount tracefs
#   scripts/install-deps.sh --check   print the missing build packages on one
#                                     line (nothing when all are there); the
#                                     Makefile's one-line hint when they are not
set -euo pipefail
# What `make` needs to build the tools and the tests.
BUILD_PKGS=(build-essential pkg-config clang llvm libclang-rt-14-dev bpftool
	    libtraceevent-dev libtracefs-dev libbpf-dev libelf-dev liblz4-dev libzstd-dev
	    zlib1g-dev libcmocka-dev)
BUILD_PKGS+=(protobuf-c-compiler libprotobuf-c-dev)   # --pprof: profile.proto via protobuf-c
BUILD_PKGS+=(libiberty-dev liblzma-dev g++)   # demangling (libiberty), MiniDebugInfo (liblzma), a C++ test helper
BUILD_PKGS+=(libdw-dev libbz2-dev)   # --call-graph dwarf: libdw's unwinder, linked statically with bzip2
BUILD_PKGS+=(systemtap-sdt-dev)   # sys/sdt.h: the USDT test helper (tests/helpers/usdt-n.c)
# What the tests and the benchmark need besides: one PKGS+=(...) line each, with the reason.
PKGS=("${BUILD_PKGS[@]}" linux-perf python3 procps util-linux)   # perf beside pp in make bench; ps, taskset
PKGS+=(trace-cmd)   # make bench: trace-cmd recorder and report beside perf
PKGS+=(golang-go)   # tests read --pprof output with go tool pprof
PKGS+=(libc6-dbg xz-utils)   # libc's debug symbols and xz for the symbol tests
PKGS+=(libdebuginfod1)   # pp-analyze --debuginfod (dlopen'ed)
PKGS+=(tmux)   # e2e analyze-live-top.sh: profile --live --top drawn in a real terminal
PKGS+=(libgoogle-perftools4)   # tcmalloc's heap checker runs pp-analyze --symbols (tests/e2e/mem-pprof-symbols.sh)
PKGS+=(nodejs)   # e2e svg-flamegraph.sh: the flame graph's script run in node
PKGS+=(bc time)   # e2e analyze-time-window.sh (bc), record-pid-exit.sh (/usr/bin/time): not in a bare Debian
PKGS+=(heaptrack)   # make bench: the heap profiler pp's sampled mode is measured against

missing_of() {	# package... -> the ones not installed, one per line
	printf '%s\n' "$@" | grep -vxF -f <(dpkg-query -W -f='${Package} ${Status}\n' "$@" 2>/dev/null |
		awk '$NF == "installed" { print $1 }') || true
}

if [ "${1:-}" = --check ]; then
	missing_of "${BUILD_PKGS[@]}" | tr '\n' ' ' | sed 's/ $//'
	exit 0
fi
mapfile -t missing < <(missing_of "${PKGS[@]}")
# node from another source (nodesource's nodejs is the same package name) counts
if command -v node >/dev/null; then
	mapfile -t missing < <(printf '%s\n' "${missing[@]}" | grep -vx nodejs || true)
fi
mapfile -t missing < <(printf '%s\n' "${missing[@]}" | grep -v '^$' || true)
if [ ${#missing[@]} -ne 0 ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "install-deps: missing packages: ${missing[*]} (run as root to install them)" >&2
		exit 1
	fi
	echo "install-deps: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if [ "$(id -u)" -eq 0 ] && [ ! -e /sys/kernel/tracing/events ]; then
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null ||
		echo "install-deps: could not mount tracefs on /sys/kernel/tracing" >&2
fi
exit 0
