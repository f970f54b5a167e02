#!/bin/sh
# SPDX-License-Identifier: MIT
# The flame graph SVG's script, exercised in node with a minimal DOM stand-in:
# hover details, click to zoom and reset, regex search with the matched share.
# Also checks that the SVG and the heat map parse as XML. Needs cc, python3, node.
set -eu
B=${PP_BUILD:-build}
# never a skip: scripts/install-deps.sh installs the tools, make builds the library
for tool in cc python3 node; do
	command -v $tool >/dev/null 2>&1 || { echo "FAIL: $tool not installed: run scripts/install-deps.sh"; exit 1; }
done
[ -f "$B/libpp-replay.a" ] || { echo "FAIL: $B/libpp-replay.a not built (make)"; exit 1; }
SRC=$(cd "$(dirname "$0")/../.." && pwd)
T=$(mktemp -d /tmp/pp-svg-e2e.XXXXXX)
trap 'rm -rf "$T"' EXIT

cat > "$T/gen.c" <<'C'
#include "analyzers/flamegraph.h"
#include "analyzers/heatmap.h"
int main(void)
{
	const char *a[] = { "bash", "main", "run_cmd", "read", "ksys_read_[k]", "vfs_read_[k]" };
	const char *b[] = { "bash", "main", "run_cmd", "write" };
	const char *c[] = { "sshd", "main", "poll", "do_sys_poll_[k]" };
	struct pp_flame_opts o = { .title = "CPU <profile>", .subtitle = "cpu-clock" };
	struct pp_flame *fg = pp_flame__new();
	struct pp_heatmap *hm = pp_heatmap__new(0);
	int i;

	if (!fg || !hm)
		return 1;
	pp_flame__add(fg, a, 6, 500);
	pp_flame__add(fg, a, 5, 200);
	pp_flame__add(fg, b, 4, 300);
	pp_flame__add(fg, c, 4, 250);
	for (i = 0; i < 5000; i++)
		pp_heatmap__add(hm, 1000000ull * i, 1000 + 37ull * i);
	if (pp_flame__write_files(fg, "out", &o) ||
	    pp_heatmap__write_file(hm, "hm", NULL))
		return 1;
	pp_flame__free(fg);
	pp_heatmap__free(hm);
	return 0;
}
C
cc -D_GNU_SOURCE -I"$SRC" -I"$SRC/include" -o "$T/gen" "$T/gen.c" "$B/libpp-replay.a" -lm
(cd "$T" && ./gen)
python3 -c 'import sys, xml.etree.ElementTree as E; [E.parse(f) for f in sys.argv[1:]]' \
	"$T/out.svg" "$T/hm.svg"
grep -qx 'bash;main;run_cmd;read;ksys_read_\[k\];vfs_read_\[k\] 500' "$T/out.folded"

cat > "$T/mock.js" <<'JS'
const fs = require('fs');
const assert = require('assert');
const svg = fs.readFileSync(process.argv[2], 'utf8');
const script = svg.match(/<!\[CDATA\[([\s\S]*?)\]\]>/)[1];
function el(attrs, text) {
	return { a: Object.assign({}, attrs), textContent: text || '', style: {}, on: {}, kids: {},
		getAttribute(k) { return k in this.a ? this.a[k] : null; },
		setAttribute(k, v) { this.a[k] = String(v); },
		removeAttribute(k) { delete this.a[k]; },
		addEventListener(t, f) { this.on[t] = f; },
		querySelector(s) { return this.kids[s]; } };
}
function attrs(s) { const o = {}; s.replace(/([\w-]+)="([^"]*)"/g, (m, k, v) => { o[k] = v; }); return o; }
const unesc = s => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"')
	.replace(/&apos;/g, "'").replace(/&amp;/g, '&');
const frames = [];
const re = /<g class="f" ([^>]*)><title>([^<]*)<\/title><rect ([^>]*)\/><text ([^>]*)>([^<]*)<\/text><\/g>/g;
let m;
while ((m = re.exec(svg))) {
	const g = el(attrs(m[1]));
	g.kids.title = el({}, unesc(m[2]));
	g.kids.rect = el(attrs(m[3]));
	g.kids.text = el(attrs(m[4]), unesc(m[5]));
	frames.push(g);
}
assert.strictEqual(frames.length, 12);
const ids = {};
['details', 'matched', 'unzoom', 'search'].forEach(i => { ids[i] = el({}, ' '); });
global.document = { documentElement: el(attrs(svg.match(/<svg ([^>]*)>/)[1])),
	getElementById: i => ids[i], querySelectorAll: () => frames };
global.window = { addEventListener() {} };
let answer = '';
let alerted = '';
global.prompt = () => answer;
global.alert = s => { alerted = s; };
(0, eval)(script + ';global.fg = fg; global.fg_init = fg_init; global.fg_zoom = fg_zoom;' +
	'global.fg_search = fg_search; global.fg_clear = fg_clear;');
fg_init();
const by = n => frames.find(g => g.fgname === n);

by('read').on.mouseover.call(by('read'));
assert.strictEqual(ids.details.textContent, 'read (700 samples, 56.00%)');

by('run_cmd').on.click.call(by('run_cmd'));
assert.strictEqual(ids.unzoom.style.display, 'inline');
assert.strictEqual(by('run_cmd').kids.rect.a.width, '1180.00');	/* full width */
assert.strictEqual(by('write').style.display, 'inline');
assert.strictEqual(by('sshd').style.display, 'none');		/* not under run_cmd */
assert.strictEqual(by('bash').style.opacity, 0.6);		/* ancestor, dimmed */

fg_zoom(0, fg.total, 0);
assert.strictEqual(ids.unzoom.style.display, 'none');
assert.strictEqual(by('sshd').style.display, 'inline');
assert.strictEqual(by('run_cmd').kids.rect.a.width, '944.00');

answer = '_\\[k\\]$';
fg_search();
/* vfs_read inside ksys_read counts once: (700 + 250) / 1250 */
assert.strictEqual(ids.matched.textContent, 'Matched: 76.00% (click to clear)');
assert.strictEqual(by('poll').kids.rect.a.fill.startsWith('rgb(230,0,230)'), false);
assert.strictEqual(by('do_sys_poll_[k]').kids.rect.a.fill, 'rgb(230,0,230)');
fg_clear();
assert.strictEqual(ids.matched.textContent, ' ');
assert.notStrictEqual(by('do_sys_poll_[k]').kids.rect.a.fill, 'rgb(230,0,230)');
answer = '((';
fg_search();
assert.ok(alerted.startsWith('bad regular expression'));
console.log('flame graph script: ok');
JS
node "$T/mock.js" "$T/out.svg"
