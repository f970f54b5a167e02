#!/usr/bin/env bash
# Install the Debian packages pp needs to build, test and benchmark, and mount
# tracefs. Idempotent; installs only what is missing. Run as root.
set -euo pipefail
PKGS=(build-essential pkg-config clang llvm libclang-rt-14-dev bpftool
      libtraceevent-dev libtracefs-dev libbpf-dev libelf-dev liblz4-dev libzstd-dev
      zlib1g-dev libcmocka-dev linux-perf python3)
# Packages of single features: one PKGS+=(...) line each, with the reason.
PKGS+=(trace-cmd)   # make bench: trace-cmd recorder and report beside perf
PKGS+=(systemtap-sdt-dev)   # sys/sdt.h: the USDT test helper (tests/helpers/usdt-n.c)
PKGS+=(protobuf-c-compiler libprotobuf-c-dev golang-go)   # --pprof: profile.proto via protobuf-c; tests read it with go tool pprof
PKGS+=(libiberty-dev liblzma-dev g++ libc6-dbg xz-utils)   # symbols: demangling (libiberty), MiniDebugInfo (liblzma), a C++ test helper, libc debug symbols and xz for tests
PKGS+=(libdw-dev libbz2-dev libdebuginfod1)   # --call-graph dwarf (libdw's unwinder, static with bzip2), pp-analyze --debuginfod (dlopen'ed)
PKGS+=(tmux)   # e2e analyze-live-top.sh: profile --live --top drawn in a real terminal
PKGS+=(libgoogle-perftools4)   # tcmalloc's heap checker runs pp-analyze --symbols (tests/e2e/mem-pprof-symbols.sh)
missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
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
