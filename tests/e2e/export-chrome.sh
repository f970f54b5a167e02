#!/usr/bin/env bash
# pp-analyze convert --to=chrome on a real recording (sched_switch, wakeups
# and getppid calls, -a -g) while tests/helpers/sched-sleep sleeps 20 ms N
# times and tests/helpers/getppid-n calls getppid M times, pinned to CPU 0:
# - tests/helpers/chrome-check.py: valid Trace Event JSON, and per thread
#   and state the slices equal `task-state --perins --json` exactly, CPU
#   slices never overlap, sched-sleep has CPU slices and a thread name;
# - exactly M getppid instants on getppid-n's thread, with the fields as
#   args, and the getppid counter sums to the getppid instants of all tasks;
# - a third-party importer, @tracerbench/trace-model from npm (installed in
#   the test's directory), builds the model: the CPUs process with its CPU
#   threads, each sched-sleep thread with task-state's count of S as
#   sleeping slices, ours with N;
# - bad --to, no --to, and an unwritable -o: one line, non-zero exit.
set -u
B=${PP_BUILD:?}
N=10
M=40
skip() { echo "skip: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
[ "$(id -u)" = 0 ] || skip "needs root for perf events"
command -v python3 >/dev/null || skip "no python3"
command -v taskset >/dev/null || skip "no taskset"
H=$(cd "$(dirname "$0")/../helpers" && pwd)
T=$(mktemp -d /tmp/pp-e2e-chrome.XXXXXX)
trap 'rm -rf "$T"' EXIT

"$B/pp-record" -q -a -g -e sched:sched_switch,sched:sched_waking,sched:sched_wakeup_new,syscalls:sys_enter_getppid \
	-o "$T/t" -- taskset -c 0 sh -c "'$B/tests/helpers/sched-sleep' $N 20; '$B/tests/helpers/getppid-n' $M" \
	>/dev/null 2>"$T/rec.err" || fail "pp-record of the sched events: $(head -3 "$T/rec.err")"
"$B/pp-analyze" convert --to=chrome -o "$T/t.json" "$T/t" 2>"$T/err" || fail "convert: $(cat "$T/err")"
"$B/pp-analyze" task-state --perins --json "$T/t" >"$T/ts.rows" 2>"$T/err" || fail "task-state: $(cat "$T/err")"
python3 "$H/chrome-check.py" "$T/t.json" "$T/ts.rows" sched-sleep || fail "chrome output vs task-state"
python3 - "$T/t.json" "$M" <<'PY' || fail "getppid instants and counter"
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
m = int(sys.argv[2])
names = {e["tid"]: e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
inst = [e for e in ev if e["ph"] == "i" and e["name"] == "syscalls:sys_enter_getppid"
        and names.get(e["tid"]) == "getppid-n"]
# -a: another getppid-n of the busy machine may be in the file too; ours made M
per = {}
for e in inst:
    per.setdefault(e["tid"], []).append(e)
assert any(len(v) == m for v in per.values()), \
    "getppid instants per getppid-n thread: %s, want one with %d" % ({t: len(v) for t, v in per.items()}, m)
inst = next(v for v in per.values() if len(v) == m)
assert all("fields" in e["args"] and "cpu" in e["args"] for e in inst), inst[0]
allg = sum(1 for e in ev if e["ph"] == "i" and e["name"] == "syscalls:sys_enter_getppid")
cnt = sum(e["args"]["count"] for e in ev if e["ph"] == "C" and e["name"] == "syscalls:sys_enter_getppid")
assert cnt == allg, "getppid counter sums to %d, %d getppid instants" % (cnt, allg)
print("ok: %d getppid instants with their fields, counter total %d" % (len(inst), cnt))
PY

# errors: one line, non-zero
for args in "--to=json" "" "--to=chrome -o $T/nodir/x.json"; do
	# shellcheck disable=SC2086
	if "$B/pp-analyze" convert $args "$T/t" >/dev/null 2>"$T/err"; then fail "convert $args accepted"; fi
	[ "$(wc -l <"$T/err")" = 1 ] && grep -q '^pp-analyze: ' "$T/err" || fail "convert $args: $(cat "$T/err")"
done

# the third-party importer
if ! command -v npm >/dev/null || ! command -v node >/dev/null; then
	echo "skip part: no npm/node for the @tracerbench/trace-model importer"
else
	mkdir -p "$T/npm"
	if ! (cd "$T/npm" && timeout 300 npm install --no-audit --no-fund --silent \
		@tracerbench/trace-model@8.0.0 >/dev/null 2>"$T/npm.err"); then
		echo "skip part: npm install @tracerbench/trace-model failed: $(head -1 "$T/npm.err")"
	else
		cat >"$T/npm/check.mjs" <<'JS'
import { buildModel } from '@tracerbench/trace-model';
import { readFileSync } from 'fs';
const [file, comm, n, rows] = process.argv.slice(2);
const model = buildModel(JSON.parse(readFileSync(file, 'utf8')));
// task-state's S calls of each thread named COMM (-a: the machine may run
// other copies): the model must hold as many sleeping slices for each, and
// one of them is ours with N
const want = new Map();
for (const line of readFileSync(rows, 'utf8').split('\n').filter(Boolean)) {
	const r = JSON.parse(line);
	if (r.type === 'row' && r.comm === comm && r.state === 'S') want.set(r.tid, r.calls);
}
const cpus = model.processes.find((p) => p.name === 'CPUs');
if (!cpus || !cpus.threads.some((t) => t.name === 'CPU 0')) throw new Error('no CPUs process with CPU 0');
let cpuslices = 0, ours = 0;
const got = new Map();
for (const p of model.processes)
	for (const t of p.threads)
		if (t.name === comm)
			got.set(t.id, (got.get(t.id) || 0) +
				t.events.filter((e) => e.isComplete() && e.name === 'sleeping').length);
for (const [tid, calls] of want) {
	if ((got.get(tid) || 0) !== calls) throw new Error(`tid ${tid}: ${got.get(tid)} sleeping slices, task-state ${calls}`);
	if (calls === Number(n)) ours++;
}
for (const t of cpus.threads)
	cpuslices += t.events.filter((e) => e.isComplete() && e.name.startsWith(comm + '/')).length;
if (!ours) throw new Error(`no ${comm} thread with ${n} sleeping slices: ${[...got]}`);
const sleeping = Number(n);
if (!cpuslices) throw new Error(`no CPU slice of ${comm}`);
console.log(`ok: @tracerbench/trace-model: ${model.processes.length} processes, ${comm}: ${sleeping} sleeping slices, ${cpuslices} CPU slices`);
JS
		(cd "$T/npm" && node check.mjs "$T/t.json" sched-sleep $N "$T/ts.rows") || fail "@tracerbench/trace-model import"
	fi
fi
echo "ok: convert --to=chrome matches task-state and imports with a third-party Trace Event model"
