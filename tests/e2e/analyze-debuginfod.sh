#!/usr/bin/env bash
# pp-analyze --debuginfod: a stripped helper (no .symtab, no debug file on
# this machine) is recorded; its frames cannot be named from the file. With
# --debuginfod=URL (a local HTTP server answering /buildid/ID/debuginfo as
# debuginfod does), libdebuginfod fetches the debug file by build-id and the
# same frames read spin_alpha/spin_beta; DEBUGINFOD_URLS does the same.
. "$(dirname "$0")/../helpers/record-lib.sh"
AN=$B/pp-analyze
[ -x "$AN" ] || skip "no $AN"
command -v python3 >/dev/null || skip "no python3"
command -v objcopy >/dev/null || skip "no objcopy"
ls /usr/lib/x86_64-linux-gnu/libdebuginfod.so.1 /usr/lib/*/libdebuginfod.so.1 >/dev/null 2>&1 ||
	skip "no libdebuginfod.so.1 (libdebuginfod1)"

cp "$HELP/spin" "$TMP/spin-stripped"
objcopy --only-keep-debug "$TMP/spin-stripped" "$TMP/spin.debug" || fail "objcopy --only-keep-debug"
strip --strip-all "$TMP/spin-stripped" || fail "strip"
bid=$(readelf -n "$TMP/spin-stripped" | awk '/Build ID/ { print $3 }')
[ -n "$bid" ] || skip "the helper has no build-id"
[ -e "/usr/lib/debug/.build-id/${bid:0:2}/${bid:2}.debug" ] && skip "a debug file of the helper is installed"
$REC -q -F 997 -g -o "$TMP/s.trace" -- "$TMP/spin-stripped" 1 || fail "record"
rm -f "$TMP/spin-stripped"

mkdir -p "$TMP/srv/buildid/$bid"
cp "$TMP/spin.debug" "$TMP/srv/buildid/$bid/debuginfo"
python3 - "$TMP/srv" > "$TMP/port" 2> "$TMP/srv.log" <<'PY' &
import functools, http.server, sys
h = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[1])
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), h)
print(s.server_address[1], flush=True)
s.serve_forever()
PY
srv=$!
trap 'kill $srv 2>/dev/null; rm -rf "$TMP"' EXIT
for _ in $(seq 50); do [ -s "$TMP/port" ] && break; sleep 0.1; done
port=$(cat "$TMP/port")
[ -n "$port" ] || fail "the local debuginfod server did not start"
export DEBUGINFOD_CACHE_PATH=$TMP/cache DEBUGINFOD_TIMEOUT=20
unset DEBUGINFOD_URLS

hot() { awk '/;main;spin_(alpha|beta)( |;)/ { s += $NF } END { print s + 0 }' "$1"; }
"$AN" profile --folded "$TMP/s.trace" > "$TMP/plain" 2>&1 || fail "profile"
[ "$(hot "$TMP/plain")" = 0 ] || { cat "$TMP/plain"; fail "named without the debug file?"; }
"$AN" profile --folded --debuginfod="http://127.0.0.1:$port" "$TMP/s.trace" > "$TMP/d" 2>&1 ||
	{ cat "$TMP/d"; fail "profile --debuginfod"; }
n=$(hot "$TMP/d")
[ "$n" -ge 50 ] || { cat "$TMP/d" "$TMP/srv.log"; fail "--debuginfod: only $n samples named"; }
grep -q "GET /buildid/$bid/debuginfo" "$TMP/srv.log" || fail "the server was not asked"
# DEBUGINFOD_URLS alone, from the cache now
DEBUGINFOD_URLS="http://127.0.0.1:$port" "$AN" profile --folded "$TMP/s.trace" > "$TMP/e" 2>&1 ||
	fail "profile with DEBUGINFOD_URLS"
[ "$(hot "$TMP/e")" = "$n" ] || { cat "$TMP/e"; fail "DEBUGINFOD_URLS: not the same frames"; }
# --debuginfod without a server: one clear line
if "$AN" profile --debuginfod "$TMP/s.trace" > /dev/null 2> "$TMP/err"; then
	fail "--debuginfod without URLS accepted"
fi
grep -q '^pp-analyze: --debuginfod: no server' "$TMP/err" || { cat "$TMP/err"; fail "message"; }
echo "ok"
