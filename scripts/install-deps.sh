#!/usr/bin/env bash
# Install the Debian packages pp needs to build, test and benchmark, and mount
# tracefs. Idempotent; installs only what is missing. Run as root.
set -euo pipefail
PKGS=(build-essential pkg-config clang llvm libclang-rt-14-dev bpftool
      libtraceevent-dev libtracefs-dev libbpf-dev libelf-dev liblz4-dev libzstd-dev
      zlib1g-dev libcmocka-dev linux-perf python3)
PKGS+=(trace-cmd)   # make bench: trace-cmd recorder and report beside perf
# Packages of single features: one PKGS+=(...) line each, with the reason.
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
