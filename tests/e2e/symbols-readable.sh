#!/usr/bin/env bash
# Stacks everyone can read (issue 17):
# - a C++ helper and two Rust-mangled functions profile as demangled names in
#   every output (folded, table, --json, SVG, trace -g); --no-demangle keeps
#   the mangled ones;
# - with libc6-dbg installed, every stack of a helper's hot functions runs
#   through a named __libc_start_call_main (libc has no .symtab: its debug file
#   named it at record time), also after the file is moved and the helper
#   deleted; `info` says which source named each DSO.
. "$(dirname "$0")/../helpers/record-lib.sh"
AN=$B/pp-analyze
[ -x "$AN" ] || skip "no $AN"
[ -x "$HELP/cxx-spin" ] || skip "no $HELP/cxx-spin (needs g++)"

cp "$HELP/cxx-spin" "$TMP/cxx-copy"
$REC -q -F 997 -g -o "$TMP/c.trace" -- "$TMP/cxx-copy" 1.5 || fail "record cxx-spin"
rm -f "$TMP/cxx-copy"
"$AN" profile --folded "$TMP/c.trace" > "$TMP/c.folded" 2>&1 || fail "profile --folded"
for f in 'pp::Spinner::spin(unsigned long)' 'pptest::spin_legacy' 'pptest::spin_v0'; do
	n=$(awk -v f=";$f" 'index($0, f " ") || index($0, f ";") { s += $NF } END { print s + 0 }' "$TMP/c.folded")
	[ "$n" -ge 5 ] || { cat "$TMP/c.folded"; fail "folded: '$f' has $n samples"; }
done
grep -q '_ZN\|_RNv' "$TMP/c.folded" && { grep -m3 '_ZN\|_RNv' "$TMP/c.folded"; fail "mangled names left in folded"; }
"$AN" profile "$TMP/c.trace" > "$TMP/c.table" 2>&1 || fail "profile"
grep -q ' pp::Spinner::spin(unsigned long) (cxx-copy)' "$TMP/c.table" || { cat "$TMP/c.table"; fail "table"; }
"$AN" profile --json "$TMP/c.trace" > "$TMP/c.json" 2>&1 || fail "profile --json"
grep -q '"symbol":"pptest::spin_v0"' "$TMP/c.json" || { head -5 "$TMP/c.json"; fail "json"; }
"$AN" profile --flame-graph "$TMP/fg" "$TMP/c.trace" > /dev/null 2>&1 || fail "--flame-graph"
grep -q 'pptest::spin_legacy' "$TMP/fg.svg" || fail "svg"
"$AN" trace -g "$TMP/c.trace" > "$TMP/c.tr" 2>&1 || fail "trace -g"
grep -q ' pptest::spin_v0 (cxx-copy)$' "$TMP/c.tr" || { grep -m5 spin "$TMP/c.tr"; fail "trace -g"; }
"$AN" profile --folded --no-demangle "$TMP/c.trace" > "$TMP/c.raw" 2>&1 || fail "--no-demangle"
for f in _ZN2pp7Spinner4spinEm _ZN6pptest11spin_legacy17h0123456789abcdefE _RNvCs15kBYyAo9fc_6pptest7spin_v0; do
	grep -q ";$f " "$TMP/c.raw" || { cat "$TMP/c.raw"; fail "--no-demangle: no $f"; }
done
grep -q 'pptest::' "$TMP/c.raw" && fail "--no-demangle still demangles"

# MiniDebugInfo (as Fedora builds it): a stripped helper whose .gnu_debugdata
# holds the xz-compressed .symtab of the functions its .dynsym lacks
if command -v xz >/dev/null && command -v objcopy >/dev/null && command -v nm >/dev/null; then
	m=$TMP/mini
	mkdir "$m"
	cp "$HELP/spin" "$m/spin-mini"
	nm -D "$m/spin-mini" --format=posix --defined-only | awk '{ print $1 }' | sort > "$m/dyn"
	nm "$m/spin-mini" --format=posix --defined-only | awk '$2 == "T" || $2 == "t" { print $1 }' | sort > "$m/funcs"
	comm -13 "$m/dyn" "$m/funcs" > "$m/keep"
	objcopy --only-keep-debug "$m/spin-mini" "$m/debug" &&
	objcopy -S --remove-section .comment --keep-symbols="$m/keep" "$m/debug" "$m/mini" &&
	strip --strip-all -R .comment "$m/spin-mini" && xz "$m/mini" &&
	objcopy --add-section .gnu_debugdata="$m/mini.xz" "$m/spin-mini" || fail "making a MiniDebugInfo helper"
	nm "$m/spin-mini" 2>&1 | grep -q spin_alpha && fail "the MiniDebugInfo helper still has a .symtab"
	$REC -q -F 997 -g -o "$m/m.trace" -- "$m/spin-mini" 1 || fail "record spin-mini"
	rm -f "$m/spin-mini"
	"$AN" profile --folded "$m/m.trace" > "$m/m.folded" 2>&1 || fail "profile (MiniDebugInfo)"
	n=$(awk '/;main;spin_alpha( |;)/ { s += $NF } END { print s + 0 }' "$m/m.folded")
	[ "$n" -ge 50 ] || { cat "$m/m.folded"; fail "MiniDebugInfo: $n samples named spin_alpha"; }
	"$AN" info "$m/m.trace" | grep -Eq "spin-mini +MiniDebugInfo +[0-9]+ symbols" ||
		{ "$AN" info "$m/m.trace"; fail "info: helper not named from MiniDebugInfo"; }
else
	echo "MiniDebugInfo part skipped: no xz/objcopy/nm"
fi

# libc named from its debug file
libc=$(ldd "$HELP/spin" | awk '/libc\.so/ { print $3 }')
bid=$(readelf -n "$libc" 2>/dev/null | awk '/Build ID/ { print $3 }')
if [ -z "$bid" ] || [ ! -f "/usr/lib/debug/.build-id/${bid:0:2}/${bid:2}.debug" ]; then
	echo "ok (libc part skipped: no libc6-dbg debug file for $libc)"
	exit 0
fi
cp "$HELP/spin" "$TMP/spin-copy"
$REC -q -F 997 -g -o "$TMP/s.trace" -- "$TMP/spin-copy" 1 || fail "record spin"
rm -f "$TMP/spin-copy"
mkdir "$TMP/elsewhere"
mv "$TMP/s.trace" "$TMP/elsewhere/moved.trace"
cd "$TMP/elsewhere"
"$AN" profile --folded moved.trace > s.folded 2>&1 || fail "profile (moved)"
hot=$(awk '/;spin_(alpha|beta)( |;)/ { s += $NF } END { print s + 0 }' s.folded)
named=$(awk '/;spin_(alpha|beta)( |;)/ && /;__libc_start_call_main;main;/ { s += $NF } END { print s + 0 }' s.folded)
[ "$hot" -ge 100 ] || { cat s.folded; fail "only $hot samples in spin_alpha/spin_beta"; }
[ "$named" = "$hot" ] || { grep spin_ s.folded | grep -v __libc_start_call_main; fail "$named of $hot hot stacks through __libc_start_call_main"; }
grep -q 'libc\.so\.6+0x' s.folded && { grep -m3 'libc\.so\.6+0x' s.folded; fail "unnamed libc frames"; }
"$AN" info moved.trace > s.info || fail "info"
grep -Eq "/libc\.so\.6 +debug file +[0-9]+ symbols" s.info || { cat s.info; fail "info: libc not named from its debug file"; }
grep -Eq "spin-copy +\.symtab +[0-9]+ symbols" s.info || { cat s.info; fail "info: helper not named from .symtab"; }
echo "ok"
