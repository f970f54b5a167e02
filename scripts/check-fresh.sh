#!/usr/bin/env bash
# make check-fresh: the README's two set-up commands, exactly as the README
# writes them, on a fresh Debian 12: a minimal root built with mmdebstrap
# (what a bare Debian install has, plus git and make), the host's /proc, /sys
# (tracefs, cgroups, BPF) and /dev bound in, and a clean clone of this
# repository's HEAD in /root/pp. Fails if either command fails. Root only.
#
#   scripts/check-fresh.sh [--keep]     --keep leaves the root in place
#
# PP_FRESH_MIRROR (default http://deb.debian.org/debian) is the archive. The
# host's downloaded .deb files are offered to the root's apt as a cache
# (/var/cache/apt/archives): only the downloads are shared, every package is
# still unpacked and configured in the fresh root.
set -euo pipefail
keep=0
[ "${1:-}" = --keep ] && keep=1
top=$(cd "$(dirname "$0")/.." && pwd)
mirror=${PP_FRESH_MIRROR:-http://deb.debian.org/debian}
say() { echo "check-fresh: $*"; }
die() { echo "check-fresh: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || die "needs root (chroot, mounts, perf events)"
if ! command -v mmdebstrap >/dev/null; then
	say "installing mmdebstrap"
	DEBIAN_FRONTEND=noninteractive apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mmdebstrap >/dev/null
fi
[ -e /sys/kernel/tracing/events ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null ||
	die "tracefs is not mounted on /sys/kernel/tracing and cannot be"

# The README's set-up block: the fenced lines under "## Set up and run", comments off.
mapfile -t cmds < <(awk '/^## Set up and run/ { s = 1; next } s && /^```sh/ { b = 1; next }
	b && /^```/ { exit } b { sub(/[ \t]*#.*/, ""); if ($0 != "") print }' "$top/README.md")
[ ${#cmds[@]} -eq 2 ] || die "README.md's set-up block has ${#cmds[@]} commands, not two: ${cmds[*]}"

root=$(mktemp -d /var/tmp/pp-fresh.XXXXXX)
mounts=()
cleanup() {
	local m i
	for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
		m=${mounts[i]}
		umount -R "$m" 2>/dev/null || umount -R -l "$m" 2>/dev/null || true
	done
	# never remove through a mount that is still there (/dev, /sys)
	if findmnt -rn -o TARGET | grep -q "^$root/"; then
		echo "check-fresh: mounts left under $root; not removing it" >&2
	elif [ $keep -eq 0 ]; then
		rm -rf --one-file-system "$root"
	else
		say "the root is kept in $root"
	fi
}
trap cleanup EXIT

start=$SECONDS
say "building a minimal Debian 12 root in $root (mmdebstrap, variant important, plus git and make)"
mmdebstrap --quiet --variant=important --include=git,make --components=main bookworm "$root" \
	"deb $mirror bookworm main" "deb $mirror bookworm-updates main" \
	"deb ${mirror%/debian}/debian-security bookworm-security main" ||
	die "mmdebstrap could not build the root"
say "root built in $((SECONDS - start)) s"

git clone -q --no-local "$top" "$root/root/pp"
say "clean clone of $(git -C "$top" rev-parse --short HEAD) in /root/pp"
cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true

bind() {	# what where [rbind]
	mkdir -p "$root$2"
	if [ "$1" = proc ]; then
		mount -t proc proc "$root$2"
	else
		mount --rbind "$1" "$root$2"
		mount --make-rslave "$root$2"
	fi
	mounts+=("$root$2")
}
bind proc /proc
bind /sys /sys
bind /dev /dev
[ -d /var/cache/apt/archives ] && bind /var/cache/apt/archives /var/cache/apt/archives

rc=0
for c in "${cmds[@]}"; do
	say "running '$c' in /root/pp"
	t=$SECONDS
	if chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		/bin/bash -c "cd /root/pp && $c" </dev/null; then
		say "'$c' passed ($((SECONDS - t)) s)"
	else
		rc=$?
		say "'$c' FAILED with exit $rc ($((SECONDS - t)) s)"
		break
	fi
done
[ $rc -eq 0 ] && say "passed: the README's ${#cmds[@]} commands work on a fresh Debian 12 ($((SECONDS - start)) s)"
exit $rc
