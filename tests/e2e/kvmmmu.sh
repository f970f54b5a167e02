#!/usr/bin/env bash
# kvmmmu on a real guest: tests/helpers/kvm-pio runs a guest whose code page
# the KVM MMU must map on its first fetch. pp-record kvmmmu records exactly
# its events; the guest's faults show a mapping and page-table pages created,
# with fault -> map latencies; what the host's KVM does not trace (nested
# virtualization, the TDP MMU's tracepoints) skips with the reason. Without
# a guest the report says no guest faulted and --json has the summary.
. "$(dirname "$0")/../helpers/record-lib.sh"
AN=$B/pp-analyze
[ -d /sys/kernel/tracing/events/kvmmmu ] && [ -d /sys/kernel/tracing/events/kvm ] || skip "this kernel has no kvm/kvmmmu tracepoints"
$REC -o "$TMP/none" kvmmmu -- true 2> "$TMP/rec.err" || { cat "$TMP/rec.err"; fail "pp-record kvmmmu -- true"; }
evs=$(awk '/^  [a-z0-9_-]+:/ && $1 != "lost:" { print $1 }' "$TMP/rec.err" | sort | tr '\n' ' ')
want="kvm:kvm_page_fault kvmmmu:fast_page_fault kvmmmu:kvm_mmu_get_page kvmmmu:kvm_mmu_prepare_zap_page kvmmmu:kvm_mmu_set_spte kvmmmu:kvm_mmu_split_huge_page kvmmmu:kvm_mmu_spte_requested kvmmmu:kvm_tdp_mmu_spte_changed "
[ "$evs" = "$want" ] || { cat "$TMP/rec.err"; fail "pp-record kvmmmu recorded: $evs"; }
$AN kvmmmu "$TMP/none" | grep -q "no KVM MMU events" || fail "empty file: no message"
$AN kvmmmu --json "$TMP/none" | grep -q '"type":"summary".*"kvm_mmu_get_page":0' || fail "empty file: no summary"

[ -e /dev/kvm ] || skip "no /dev/kvm on this host: no guest can run (the empty-file checks passed)"
$REC -o "$TMP/t" kvmmmu -- "$HELP/kvm-pio" 10 > "$TMP/out" 2> "$TMP/rec.err"
rc=$?
[ $rc = 77 ] && skip "KVM cannot run a guest here"
[ $rc = 0 ] || { cat "$TMP/rec.err"; fail "pp-record kvmmmu -- kvm-pio"; }
$AN kvmmmu --json "$TMP/t" > "$TMP/j" || fail "pp-analyze kvmmmu"
cat "$TMP/j"
sum=$(grep '"type":"summary"' "$TMP/j")
echo "$sum" | grep -q '"kvm_page_fault":0,' && skip "kvm:kvm_page_fault does not fire for this host's guests (nested)"
echo "$sum" | grep -Eq '"kvm_mmu_set_spte":0,"kvm_tdp_mmu_spte_changed":0' &&
	skip "neither kvm_mmu_set_spte nor kvm_tdp_mmu_spte_changed fires here"
grep '"type":"maps"' "$TMP/j" | grep -Eq '"mapped":[1-9]' || fail "no mapping counted"
grep '"type":"role"' "$TMP/j" | grep -Eq '"created":[1-9]' || fail "no page-table page created"
grep '"type":"latency"' "$TMP/j" | grep '"stage":"fault->map"' | grep -Eq '"calls":[1-9]' || fail "no fault->map latency"
echo ok
