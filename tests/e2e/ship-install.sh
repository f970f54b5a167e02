#!/usr/bin/env bash
# `make install` puts the programs, their man pages and bash completion under
# DESTDIR/PREFIX; the man pages render cleanly and document every option the
# programs' help lists and every profiler; the completion offers profilers,
# options and tracepoint names.
set -u
TOP=${PP_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
B=${PP_BUILD:-$TOP/build}
fail() { echo "FAIL: $*"; exit 1; }
TMP=$(mktemp -d /tmp/pp-e2e.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
D=$TMP/root
make -s -C "$TOP" O="$B" install DESTDIR="$D" PREFIX=/usr >"$TMP/log" 2>&1 ||
	{ cat "$TMP/log"; fail "make install failed"; }
for f in bin/pp-record bin/pp-analyze share/man/man1/pp-record.1 share/man/man1/pp-analyze.1 \
	 share/man/man5/pp-trace.5 share/bash-completion/completions/pp-record \
	 share/bash-completion/completions/pp-analyze; do
	[ -e "$D/usr/$f" ] || fail "make install did not install /usr/$f"
done
[ -x "$D/usr/bin/pp-record" ] || fail "pp-record not executable"
"$D/usr/bin/pp-analyze" --version | grep -qx 'pp-analyze [0-9.]*' || fail "pp-analyze --version"

# the pages render without a warning
if command -v groff >/dev/null; then
	for m in "$D"/usr/share/man/man*/*; do
		groff -man -ww -z "$m" 2>"$TMP/warn"
		[ -s "$TMP/warn" ] && { cat "$TMP/warn"; fail "$(basename "$m"): groff warnings"; }
	done
else
	echo "note: no groff here, man pages not rendered"
fi

# every option of the help texts is in the pages (roff source with \- as -)
. "$TOP/scripts/pp-completion.bash"
page() { sed 's/\\-/-/g; s/\\f[BIRP]//g' "$D/usr/share/man/$1"; }
page man1/pp-record.1 > "$TMP/record.txt"
page man1/pp-analyze.1 > "$TMP/analyze.txt"
for o in $("$B/pp-record" --help | _pp_options_of); do
	grep -qF -- "$o" "$TMP/record.txt" || fail "pp-record.1 does not document $o"
done
for p in $(_pp_profilers "$B/pp-analyze"); do
	grep -qx "\.B $p" "$TMP/analyze.txt" || fail "pp-analyze.1 does not list '$p'"
done
"$B/pp-analyze" --help | _pp_options_of > "$TMP/common"
while read -r o; do
	grep -qF -- "$o" "$TMP/analyze.txt" || fail "pp-analyze.1 does not document $o"
done < "$TMP/common"

# completion, as bash calls it
. "$D/usr/share/bash-completion/completions/pp-analyze"
complete_words() {	# WORD... (the last one is completed)
	COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=()
	case "$1" in
	*pp-record) _pp_record ;;
	*) _pp_analyze ;;
	esac
	printf '%s\n' "${COMPREPLY[@]}"
}
has() {	# WANT WORD...
	local want=$1; shift
	complete_words "$@" | grep -qxF -- "$want" ||
		fail "completing '$*' does not offer '$want' (got: $(complete_words "$@" | tr '\n' ' '))"
}
has profile "$B/pp-analyze" pro
has task-state "$B/pp-analyze" task
has info "$B/pp-analyze" inf
has --folded "$B/pp-analyze" profile --fol
has --flush-interval "$B/pp-record" --flush
has profile "$B/pp-record" -a prof
has zstd "$B/pp-record" --codec z
if [ -r /sys/kernel/tracing/available_events ] && grep -q '^sched:sched_switch$' /sys/kernel/tracing/available_events; then
	has sched:sched_switch "$B/pp-record" -e sched:sched_swi
	has sched:sched_switch,sched:sched_wakeup "$B/pp-record" -e sched:sched_switch,sched:sched_wak
	has sched:sched_switch "$B/pp-analyze" stat -e sched:sched_swi
else
	echo "note: no tracefs here, event names not completed"
fi
[ -z "$(complete_words "$B/pp-analyze" profile --nosuchopt)" ] || fail "completion offers an unknown option"
echo "ok"
