// SPDX-License-Identifier: MIT
/*
 * kvm-exit: exits of KVM guests by reason, with their latency, per vCPU
 * thread. Two kinds:
 *
 *  - kernel: handled in the host kernel, kvm:kvm_exit -> kvm:kvm_entry on
 *    the same thread; the reason is the hardware's (VMX exit reason or SVM
 *    exit code, by kvm_exit's isa);
 *  - user: handed to the VMM in user space, kvm:kvm_userspace_exit -> the
 *    next kvm:kvm_entry, or the thread's next KVM_RUN ioctl
 *    (syscalls:sys_enter_ioctl with cmd KVM_RUN) where kvm_entry does not
 *    fire; the reason is the KVM_EXIT_* one.
 *
 * A kernel exit that turns into a user exit ends, as a kernel exit, at the
 * kvm_userspace_exit. Calls count every exit; the latency figures those whose
 * end is in the trace (the last exit of a guest never re-enters). The
 * report says which kinds the file holds: a host whose kvm_exit does not
 * fire (nested virtualization) shows only user exits.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pp/replay.h"
#include "analyzers.h"
#include "heatmap.h"
#include "hist.h"
#include "json.h"
#include "latrow.h"
#include "sched-common.h"
#include "kvm-exit.h"

#define KVM_RUN_CMD	0xae80u		/* _IO(KVMIO, 0x80) */

enum { KE_KERNEL = 1, KE_USER = 2 };
enum { KE_EXIT, KE_ENTRY, KE_UEXIT, KE_IOCTL, KE_NR };
static const char *const ke_event[KE_NR] = {
	"kvm:kvm_exit", "kvm:kvm_entry", "kvm:kvm_userspace_exit", "syscalls:sys_enter_ioctl",
};

struct ke_vcpu {
	uint64_t since;			/* 0: in the guest (or unknown) */
	int kind;
	uint32_t isa, reason;
	int32_t err;
	uint32_t vcpu_id;
};

struct ke_stat {
	uint32_t tid;
	int kind;
	uint32_t isa, reason;
	int32_t err;
	uint64_t calls;
	struct pp_hist h;
};

struct kvm_exit {
	const struct pp_evsel *ev[KE_NR];
	struct tep_format_field *reason_f, *isa_f, *vcpu_f, *ureason_f, *uerr_f, *cmd_f;
	struct pp_kmap vcpus;		/* tid -> struct ke_vcpu */
	struct pp_kmap stats;		/* tid << 32 | kind << 24 | isa << 16 | reason -> ke_stat */
	struct pp_sched_opts so;
	struct pp_heatmap *hm;
	uint64_t seen[3];		/* exits of each kind in the whole trace */
	uint64_t lost;
};

static const char *const vmx_names[] = {
	[0] = "EXCEPTION_NMI", [1] = "EXTERNAL_INTERRUPT", [2] = "TRIPLE_FAULT",
	[3] = "INIT_SIGNAL", [4] = "SIPI_SIGNAL", [5] = "IO_SMI", [6] = "OTHER_SMI",
	[7] = "INTERRUPT_WINDOW", [8] = "NMI_WINDOW", [9] = "TASK_SWITCH", [10] = "CPUID",
	[11] = "GETSEC", [12] = "HLT", [13] = "INVD", [14] = "INVLPG", [15] = "RDPMC",
	[16] = "RDTSC", [17] = "RSM", [18] = "VMCALL", [19] = "VMCLEAR", [20] = "VMLAUNCH",
	[21] = "VMPTRLD", [22] = "VMPTRST", [23] = "VMREAD", [24] = "VMRESUME",
	[25] = "VMWRITE", [26] = "VMOFF", [27] = "VMON", [28] = "CR_ACCESS",
	[29] = "DR_ACCESS", [30] = "IO_INSTRUCTION", [31] = "MSR_READ", [32] = "MSR_WRITE",
	[33] = "INVALID_STATE", [34] = "MSR_LOAD_FAIL", [36] = "MWAIT_INSTRUCTION",
	[37] = "MONITOR_TRAP_FLAG", [39] = "MONITOR_INSTRUCTION", [40] = "PAUSE_INSTRUCTION",
	[41] = "MCE_DURING_VMENTRY", [43] = "TPR_BELOW_THRESHOLD", [44] = "APIC_ACCESS",
	[45] = "EOI_INDUCED", [46] = "GDTR_IDTR", [47] = "LDTR_TR", [48] = "EPT_VIOLATION",
	[49] = "EPT_MISCONFIG", [50] = "INVEPT", [51] = "RDTSCP", [52] = "PREEMPTION_TIMER",
	[53] = "INVVPID", [54] = "WBINVD", [55] = "XSETBV", [56] = "APIC_WRITE",
	[57] = "RDRAND", [58] = "INVPCID", [59] = "VMFUNC", [60] = "ENCLS", [61] = "RDSEED",
	[62] = "PML_FULL", [63] = "XSAVES", [64] = "XRSTORS", [67] = "UMWAIT", [68] = "TPAUSE",
	[74] = "BUS_LOCK", [75] = "NOTIFY", [76] = "TDCALL",
};

struct svm_name {
	uint32_t code;
	const char *name;
};

static const struct svm_name svm_names[] = {
	{ 0x060, "INTR" }, { 0x061, "NMI" }, { 0x062, "SMI" }, { 0x063, "INIT" },
	{ 0x064, "VINTR" }, { 0x065, "CR0_SEL_WRITE" }, { 0x066, "IDTR_READ" },
	{ 0x067, "GDTR_READ" }, { 0x068, "LDTR_READ" }, { 0x069, "TR_READ" },
	{ 0x06a, "IDTR_WRITE" }, { 0x06b, "GDTR_WRITE" }, { 0x06c, "LDTR_WRITE" },
	{ 0x06d, "TR_WRITE" }, { 0x06e, "RDTSC" }, { 0x06f, "RDPMC" }, { 0x070, "PUSHF" },
	{ 0x071, "POPF" }, { 0x072, "CPUID" }, { 0x073, "RSM" }, { 0x074, "IRET" },
	{ 0x075, "SWINT" }, { 0x076, "INVD" }, { 0x077, "PAUSE" }, { 0x078, "HLT" },
	{ 0x079, "INVLPG" }, { 0x07a, "INVLPGA" }, { 0x07b, "IOIO" }, { 0x07c, "MSR" },
	{ 0x07d, "TASK_SWITCH" }, { 0x07e, "FERR_FREEZE" }, { 0x07f, "SHUTDOWN" },
	{ 0x080, "VMRUN" }, { 0x081, "VMMCALL" }, { 0x082, "VMLOAD" }, { 0x083, "VMSAVE" },
	{ 0x084, "STGI" }, { 0x085, "CLGI" }, { 0x086, "SKINIT" }, { 0x087, "RDTSCP" },
	{ 0x088, "ICEBP" }, { 0x089, "WBINVD" }, { 0x08a, "MONITOR" }, { 0x08b, "MWAIT" },
	{ 0x08c, "MWAIT_COND" }, { 0x08d, "XSETBV" }, { 0x08e, "RDPRU" },
	{ 0x08f, "EFER_WRITE_TRAP" }, { 0x0a0, "INVPCID" }, { 0x0a5, "BUS_LOCK" },
	{ 0x0a6, "IDLE_HLT" }, { 0x400, "NPF" }, { 0x401, "AVIC_INCOMPLETE_IPI" },
	{ 0x402, "AVIC_UNACCELERATED_ACCESS" }, { 0x403, "VMGEXIT" },
	{ 0xffff, "INVALID" },
};

static const char *const user_names[] = {
	"UNKNOWN", "EXCEPTION", "IO", "HYPERCALL", "DEBUG", "HLT", "MMIO", "IRQ_WINDOW_OPEN",
	"SHUTDOWN", "FAIL_ENTRY", "INTR", "SET_TPR", "TPR_ACCESS", "S390_SIEIC", "S390_RESET",
	"DCR", "NMI", "INTERNAL_ERROR", "OSI", "PAPR_HCALL", "S390_UCONTROL", "WATCHDOG",
	"S390_TSCH", "EPR", "SYSTEM_EVENT", "S390_STSI", "IOAPIC_EOI", "HYPERV", "ARM_NISV",
	"X86_RDMSR", "X86_WRMSR", "DIRTY_RING_FULL", "AP_RESET_HOLD", "X86_BUS_LOCK", "XEN",
	"RISCV_SBI", "RISCV_CSR", "NOTIFY", "LOONGARCH_IOCSR", "MEMORY_FAULT", "TDX",
};

const char *pp_kvm_exit_reason(uint32_t isa, uint32_t reason, char *buf, size_t len)
{
	if (isa == PP_KVM_ISA_VMX) {
		uint32_t basic = reason & 0xffff;

		if (basic < sizeof(vmx_names) / sizeof(vmx_names[0]) && vmx_names[basic])
			return vmx_names[basic];
		snprintf(buf, len, "VMX_%u", basic);
		return buf;
	}
	if (isa == PP_KVM_ISA_SVM) {
		uint32_t c = reason == 0xffffffffu ? 0xffff : reason;
		static const char *const excp[32] = {
			[0] = "DE", [1] = "DB", [2] = "NMI", [3] = "BP", [4] = "OF", [5] = "BR",
			[6] = "UD", [7] = "NM", [8] = "DF", [10] = "TS", [11] = "NP", [12] = "SS",
			[13] = "GP", [14] = "PF", [16] = "MF", [17] = "AC", [18] = "MC", [19] = "XM",
			[20] = "VE", [21] = "CP", [28] = "HV", [29] = "VC", [30] = "SX",
		};

		if (c < 0x10)
			snprintf(buf, len, "READ_CR%u", c);
		else if (c < 0x20)
			snprintf(buf, len, "WRITE_CR%u", c - 0x10);
		else if (c < 0x30)
			snprintf(buf, len, "READ_DR%u", c - 0x20);
		else if (c < 0x40)
			snprintf(buf, len, "WRITE_DR%u", c - 0x30);
		else if (c < 0x60 && excp[c - 0x40])
			snprintf(buf, len, "EXCP_%s", excp[c - 0x40]);
		else if (c < 0x60)
			snprintf(buf, len, "EXCP_%u", c - 0x40);
		else if (c >= 0x090 && c < 0x0a0)
			snprintf(buf, len, "CR%u_WRITE_TRAP", c - 0x90);
		else {
			for (size_t i = 0; i < sizeof(svm_names) / sizeof(svm_names[0]); i++)
				if (svm_names[i].code == c)
					return svm_names[i].name;
			snprintf(buf, len, "SVM_0x%x", reason);
		}
		return buf;
	}
	snprintf(buf, len, "ISA%u_%u", isa, reason);
	return buf;
}

const char *pp_kvm_user_reason(uint32_t reason, int32_t err, char *buf, size_t len)
{
	if (err < 0)
		return err == -EINTR ? "restart" : "error";
	if (reason < sizeof(user_names) / sizeof(user_names[0]))
		return user_names[reason];
	snprintf(buf, len, "EXIT_%u", reason);
	return buf;
}

static int ke_events(const struct pp_opts *o, struct pp_event_reqs *out)
{
	(void)o;
	out->nr = KE_NR;
	out->req[KE_EXIT].spec = ke_event[KE_EXIT];
	out->req[KE_ENTRY].spec = ke_event[KE_ENTRY];
	out->req[KE_UEXIT].spec = ke_event[KE_UEXIT];
	/* KVM_RUN only: the VMM re-entering the guest after a user exit */
	out->req[KE_IOCTL].spec = "syscalls:sys_enter_ioctl/cmd==0xae80/";
	return 0;
}

static int ke_init(struct pp_session *s)
{
	struct kvm_exit *ke = calloc(1, sizeof(*ke));
	size_t nr;
	struct pp_evsel *evs = pp_session__evsels(s, &nr);
	int ret;

	if (!ke)
		return -ENOMEM;
	pp_session__set_priv(s, ke);
	pp_kmap__init(&ke->vcpus, sizeof(struct ke_vcpu));
	pp_kmap__init(&ke->stats, sizeof(struct ke_stat));
	ret = pp_sched_opts__parse(&ke->so, pp_session__opts(s), "kvm-exit");
	if (ret)
		return ret;
	for (size_t i = 0; i < nr; i++)
		for (int k = 0; k < KE_NR; k++)
			if (evs[i].tp && !strcmp(evs[i].name, ke_event[k]))
				ke->ev[k] = &evs[i];
	if (ke->ev[KE_EXIT]) {
		ke->reason_f = pp_evsel__field(ke->ev[KE_EXIT], "exit_reason");
		ke->isa_f = pp_evsel__field(ke->ev[KE_EXIT], "isa");
		ke->vcpu_f = pp_evsel__field(ke->ev[KE_EXIT], "vcpu_id");
		if (!ke->reason_f)
			ke->ev[KE_EXIT] = NULL;
	}
	if (ke->ev[KE_UEXIT]) {
		ke->ureason_f = pp_evsel__field(ke->ev[KE_UEXIT], "reason");
		ke->uerr_f = pp_evsel__field(ke->ev[KE_UEXIT], "errno");
		if (!ke->ureason_f)
			ke->ev[KE_UEXIT] = NULL;
	}
	if (ke->ev[KE_IOCTL] && !(ke->cmd_f = pp_evsel__field(ke->ev[KE_IOCTL], "cmd")))
		ke->ev[KE_IOCTL] = NULL;
	if (!ke->ev[KE_EXIT] && !ke->ev[KE_UEXIT])
		return pp_analyzer__err("kvm-exit", -ENOENT, "the trace has neither kvm:kvm_exit nor "
			"kvm:kvm_userspace_exit; record with: pp-record kvm-exit");
	if (ke->so.heatmap) {
		ret = pp_session__output_ok(s, "--heatmap", ke->so.heatmap);
		if (ret)
			return ret;
		ke->hm = pp_heatmap__new(0);
		if (!ke->hm)
			return -ENOMEM;
	}
	return 0;
}

static struct ke_stat *ke_stat(struct kvm_exit *ke, uint32_t tid, int kind, uint32_t isa,
			       uint32_t reason, int32_t err)
{
	int created;
	uint32_t r = kind == KE_USER && err < 0 ? (err == -EINTR ? 0xfffe : 0xffff) : reason & 0xffff;
	uint64_t key = (uint64_t)tid << 32 | (uint64_t)kind << 24 | (uint64_t)(isa & 0xff) << 16 | r;
	struct ke_stat *st = pp_kmap__get(&ke->stats, key, &created);

	if (st && created) {
		st->tid = tid;
		st->kind = kind;
		st->isa = isa;
		st->reason = reason;
		st->err = err;
		pp_hist__init(&st->h);
	}
	return st;
}

/* The exit the thread is in, if any, ends at @now. */
static void ke_close(struct pp_session *s, struct kvm_exit *ke, uint32_t tid, struct ke_vcpu *v,
		     uint64_t now)
{
	const struct pp_opts *o = pp_session__opts(s);
	struct ke_stat *st;
	uint64_t d;

	if (!v->since || now < v->since) {
		v->since = 0;
		return;
	}
	d = now - v->since;
	st = ke_stat(ke, o->perins ? tid : 0, v->kind, v->isa, v->reason, v->err);
	if (st)
		pp_hist__add(&st->h, d);
	if (ke->hm)
		pp_heatmap__add(ke->hm, now, d);
	if (o->than_set && d > o->than) {
		char rb[32], tb[32], db[16];
		const char *rn = v->kind == KE_KERNEL ?
			pp_kvm_exit_reason(v->isa, v->reason, rb, sizeof(rb)) :
			pp_kvm_user_reason(v->reason, v->err, rb, sizeof(rb));

		if (o->json) {
			pp_json__begin(s, "outlier", v->since);
			pp_json__str(s, "comm", pp_session__comm(s, tid));
			pp_json__u64(s, "tid", tid);
			pp_json__str(s, "kind", v->kind == KE_KERNEL ? "kernel" : "user");
			pp_json__str(s, "reason", rn);
			pp_json__u64(s, "duration", d);
			pp_json__end(s);
		} else {
			pp_session__format_time(s, v->since, tb);
			pp_out__printf(pp_session__out(s), "%s %16s %7u %s exit %s took %s\n", tb,
				       pp_session__comm(s, tid), tid,
				       v->kind == KE_KERNEL ? "kernel" : "user", rn, pp_sched_ns(db, d));
		}
	}
	v->since = 0;
}

static void ke_open(struct pp_session *s, struct kvm_exit *ke, uint32_t tid, struct ke_vcpu *v,
		    uint64_t now, int kind, uint32_t isa, uint32_t reason, int32_t err)
{
	const struct pp_opts *o = pp_session__opts(s);
	struct ke_stat *st = ke_stat(ke, o->perins ? tid : 0, kind, isa, reason, err);

	if (st)
		st->calls++;
	ke->seen[kind]++;
	v->since = now;
	v->kind = kind;
	v->isa = isa;
	v->reason = reason;
	v->err = err;
}

static void ke_sample(struct pp_session *s, const struct pp_event *e)
{
	struct kvm_exit *ke = pp_session__priv(s);
	struct ke_vcpu *v;
	uint64_t a = 0, b = 0;

	if (!e->evsel || (e->evsel != ke->ev[KE_EXIT] && e->evsel != ke->ev[KE_ENTRY] &&
			  e->evsel != ke->ev[KE_UEXIT] && e->evsel != ke->ev[KE_IOCTL]))
		return;
	if (e->evsel == ke->ev[KE_IOCTL]) {
		/* Only a vCPU thread that left to user space waits for its KVM_RUN. */
		if (pp_event__num(e, ke->cmd_f, &a) || (uint32_t)a != KVM_RUN_CMD)
			return;
		v = pp_kmap__find(&ke->vcpus, e->tid);
		if (v && v->since && v->kind == KE_USER)
			ke_close(s, ke, e->tid, v, e->time);
		return;
	}
	v = pp_kmap__get(&ke->vcpus, e->tid, NULL);
	if (!v)
		return;
	if (e->evsel == ke->ev[KE_ENTRY]) {
		ke_close(s, ke, e->tid, v, e->time);
	} else if (e->evsel == ke->ev[KE_EXIT]) {
		if (pp_event__num(e, ke->reason_f, &a))
			return;
		if (ke->isa_f)
			pp_event__num(e, ke->isa_f, &b);
		else
			b = PP_KVM_ISA_VMX;
		v->since = 0;		/* an exit without its entry: the entry was lost */
		ke_open(s, ke, e->tid, v, e->time, KE_KERNEL, (uint32_t)b, (uint32_t)a, 0);
	} else {
		if (pp_event__num(e, ke->ureason_f, &a))
			return;
		if (ke->uerr_f)
			pp_event__num(e, ke->uerr_f, &b);
		if (v->since && v->kind == KE_KERNEL)
			ke_close(s, ke, e->tid, v, e->time);
		v->since = 0;
		ke_open(s, ke, e->tid, v, e->time, KE_USER, 0, (uint32_t)a, (int32_t)b);
	}
}

static void ke_lost(struct pp_session *s, const struct pp_lost *l)
{
	struct kvm_exit *ke = pp_session__priv(s);

	(void)l;
	for (size_t i = 0; i < ke->vcpus.cap; i++) {
		struct ke_vcpu *v = pp_kmap__nth(&ke->vcpus, i, NULL);

		if (v)
			v->since = 0;
	}
	ke->lost++;
}

static int ke_cmp(const void *x, const void *y)
{
	const struct ke_stat *a = *(const struct ke_stat *const *)x;
	const struct ke_stat *b = *(const struct ke_stat *const *)y;

	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	if (a->kind != b->kind)
		return a->kind - b->kind;
	if (a->calls != b->calls)
		return a->calls > b->calls ? -1 : 1;
	return a->reason < b->reason ? -1 : a->reason > b->reason;
}

static void ke_print(struct pp_session *s, uint64_t now)
{
	struct kvm_exit *ke = pp_session__priv(s);
	const struct pp_opts *o = pp_session__opts(s);
	struct pp_out *out = pp_session__out(s);
	struct ke_stat **list = malloc((ke->stats.nr ? ke->stats.nr : 1) * sizeof(*list));
	size_t n = 0;
	char tb[32];

	if (!list)
		return;
	for (size_t i = 0; i < ke->stats.cap; i++) {
		struct ke_stat *st = pp_kmap__nth(&ke->stats, i, NULL);

		if (st && (st->calls || st->h.calls))
			list[n++] = st;
	}
	qsort(list, n, sizeof(*list), ke_cmp);
	pp_session__format_time(s, now, tb);
	if (o->json) {
		pp_json__begin(s, "kinds", now);
		pp_json__u64(s, "kernel", ke->seen[KE_KERNEL]);
		pp_json__u64(s, "user", ke->seen[KE_USER]);
		pp_json__u64(s, "has_kvm_exit", !!ke->ev[KE_EXIT]);
		pp_json__u64(s, "has_kvm_entry", !!ke->ev[KE_ENTRY]);
		pp_json__end(s);
	} else {
		pp_out__printf(out, "%s kvm exits: %llu handled in the kernel (kvm_exit -> kvm_entry%s), "
			       "%llu to user space (kvm_userspace_exit -> next entry or KVM_RUN)\n", tb,
			       (unsigned long long)ke->seen[KE_KERNEL],
			       ke->ev[KE_EXIT] ? "" : ": not in this file",
			       (unsigned long long)ke->seen[KE_USER]);
		if (ke->ev[KE_EXIT] && !ke->seen[KE_KERNEL])
			pp_out__printf(out, "  (kvm:kvm_exit was recorded but never fired: no guest "
				       "ran, or the hardware exits are hidden from this kernel, as under "
				       "nested virtualization)\n");
		if (n)
			pp_out__printf(out, "%s%-6s %-26s %8s  latency of the %s\n",
				       o->perins ? "            vcpu thread " : "", "kind", "reason",
				       "exits", "exits that re-entered:");
	}
	for (size_t i = 0; i < n; i++) {
		struct ke_stat *st = list[i];
		char rb[32], label[96];
		const char *rn = st->kind == KE_KERNEL ?
			pp_kvm_exit_reason(st->isa, st->reason, rb, sizeof(rb)) :
			pp_kvm_user_reason(st->reason, st->err, rb, sizeof(rb));

		if (o->json) {
			pp_json__begin(s, "row", now);
			if (o->perins) {
				pp_json__str(s, "comm", pp_session__comm(s, st->tid));
				pp_json__u64(s, "tid", st->tid);
			}
			pp_json__str(s, "kind", st->kind == KE_KERNEL ? "kernel" : "user");
			if (st->kind == KE_KERNEL)
				pp_json__str(s, "isa", st->isa == PP_KVM_ISA_SVM ? "svm" : "vmx");
			pp_json__str(s, "reason", rn);
			pp_json__u64(s, "calls", st->calls);
			pp_latrow__json(s, "latency", &st->h);
			pp_json__end(s);
			continue;
		}
		if (!i)
			pp_latrow__header(out, o->perins ? 66 : 42, "");
		if (o->perins)
			snprintf(label, sizeof(label), "%16s %7u %-6s %-26s %8llu",
				 pp_session__comm(s, st->tid), st->tid,
				 st->kind == KE_KERNEL ? "kernel" : "user", rn,
				 (unsigned long long)st->calls);
		else
			snprintf(label, sizeof(label), "%-6s %-26s %8llu",
				 st->kind == KE_KERNEL ? "kernel" : "user", rn,
				 (unsigned long long)st->calls);
		pp_latrow__text(out, o->perins ? 66 : 42, label, &st->h);
	}
	for (size_t i = 0; i < n; i++) {
		list[i]->calls = 0;
		pp_hist__reset(&list[i]->h);
	}
	free(list);
}

static void ke_report(struct pp_session *s)
{
	struct kvm_exit *ke = pp_session__priv(s);

	if (!pp_session__opts(s)->interval_ns)
		ke_print(s, pp_session__stats(s)->last_ts);
	if (ke->lost)
		pp_analyzer__warn("kvm-exit", "%llu lost windows: exits open across them were "
			"dropped", (unsigned long long)ke->lost);
	if (ke->hm) {
		struct pp_heatmap_opts ho = { .title = "pp kvm-exit latency",
					      .subtitle = "exit -> entry", .unit = PP_UNIT_NS };
		int ret = pp_heatmap__write_file(ke->hm, ke->so.heatmap, &ho);

		if (!ret)
			fprintf(stderr, "pp-analyze: wrote heat map %s\n", ke->so.heatmap);
		pp_session__fail(s, ret);
	}
}

static void ke_deinit(struct pp_session *s)
{
	struct kvm_exit *ke = pp_session__priv(s);

	if (!ke)
		return;
	for (size_t i = 0; i < ke->stats.cap; i++) {
		struct ke_stat *st = pp_kmap__nth(&ke->stats, i, NULL);

		if (st)
			pp_hist__exit(&st->h);
	}
	pp_kmap__exit(&ke->stats);
	pp_kmap__exit(&ke->vcpus);
	pp_heatmap__free(ke->hm);
	pp_sched_opts__exit(&ke->so);
	free(ke);
}

static const struct pp_mod_opt ke_mod_opts[] = {
	{ "heatmap", 0, 1, "NAME  exit latency heat map (time x latency): NAME.svg" },
	{ NULL, 0, 0, NULL },
};

const struct pp_analyzer pp_analyzer_kvm_exit = {
	.name = "kvm-exit",
	.desc = "KVM guest exits by reason with their latency: in the kernel and to user space",
	.help = "pp-analyze kvm-exit [--perins] [--than TIME] [--heatmap NAME] [-i MS] [--json] [FILE]\n"
		"  kernel exits: kvm:kvm_exit -> kvm:kvm_entry (VMX exit reasons, SVM exit codes);\n"
		"  user exits: kvm:kvm_userspace_exit -> kvm_entry or the next KVM_RUN ioctl\n"
		"  (KVM_EXIT_IO, MMIO, HLT, ...); per vCPU thread with --perins\n"
		"  record with: pp-record kvm-exit -p VMM_PID (or -- VMM ...)\n"
		"  example: pp-analyze kvm-exit --perins --than 100us FILE\n",
	.mod_opts = ke_mod_opts,
	.no_symbols = 1,
	.opts = PP_OPT_INTERVAL | PP_OPT_THAN | PP_OPT_PERINS | PP_OPT_JSON,
	.events = ke_events,
	.init = ke_init,
	.sample = ke_sample,
	.lost = ke_lost,
	.interval = ke_print,
	.report = ke_report,
	.deinit = ke_deinit,
};
