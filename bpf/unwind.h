/* SPDX-License-Identifier: (MIT OR GPL-2.0) */
/*
 * Shared by bpf/unwind.bpf.h (the kernel-side walk of user stacks, in the
 * sample filter program) and record/ (which fills its maps): the compact
 * unwind rows of record/cfi.c as the BPF maps hold them, a process's
 * executable mappings, and the record the walk writes for each sample.
 * Plain fixed-size types only (both compilers).
 */
#ifndef PP_BPF_UNWIND_H
#define PP_BPF_UNWIND_H

#define PP_UNWIND_FRAMES	127	/* PERF_MAX_STACK_DEPTH */
#define PP_UNWIND_MAPS		250	/* executable mappings of a process the walk knows */

/* CFA rules (struct pp_cfi_row.cfa: record/record.h) */
#define PP_UW_NONE		0
#define PP_UW_CFA_SP		1
#define PP_UW_CFA_FP		2
#define PP_UW_CFA_PLT		3
#define PP_UW_END		4
#define PP_UW_UNSUPPORTED	5
/* register rules */
#define PP_UW_SAME		0
#define PP_UW_AT		1
#define PP_UW_UNDEF		2

/* One row, as struct pp_cfi_row (16 bytes). */
struct pp_unwind_row {
	unsigned int off;
	unsigned char cfa, fp, ra, arg;
	int cfa_off;
	short fp_off, ra_off;
};

/* A DSO's table: its rows are the inner map of dso_rows under the same id. */
struct pp_unwind_dso {
	unsigned int nr_rows;
	unsigned int flags;
};

/* An executable mapping; dso 0: no table (walked by frame pointer). */
struct pp_unwind_map {
	unsigned long long start, end, pgoff;
	unsigned int dso;
	unsigned int pad;
};

/*
 * A process's executable mappings, sorted by start; @arg_start: its
 * mm->arg_start when they were read (0: unknown), which an exec changes: a
 * process whose differs has exec'd since, and is walked as unknown.
 */
struct pp_unwind_proc {
	unsigned int nr;
	unsigned int pad;
	unsigned long long arg_start;
	struct pp_unwind_map m[PP_UNWIND_MAPS];
};

/* Why a walk stopped (pp_unwind_out.end). */
#define PP_UW_END_START		0	/* the outermost frame: whole */
#define PP_UW_END_DEPTH		1	/* PP_UNWIND_FRAMES frames */
#define PP_UW_END_READ		2	/* the stack could not be read there */
#define PP_UW_END_UNSUP		3	/* a rule the walk does not follow */
#define PP_UW_END_FP		4	/* the frame-pointer walk ended (zero, or going down) */
#define PP_UW_END_NO_REGS	5	/* no user registers (a kernel thread) */
#define PP_UW_END_NR		6

/*
 * What the walk writes for a sample, just before the kernel writes the
 * sample itself (bpf_perf_event_output() to the CPU's ring): the user
 * frames, innermost first (the interrupted PC, then return addresses).
 */
struct pp_unwind_out {
	unsigned int magic;	/* PP_UNWIND_MAGIC */
	unsigned int tid;
	unsigned short nr;	/* frames in ips[] */
	unsigned char end;	/* PP_UW_END_* */
	unsigned char pad;
	unsigned short by_cfi;	/* frames the tables walked (the others: frame pointers) */
	unsigned short no_table;	/* frames in a mapping whose table was not loaded */
	unsigned long long ips[PP_UNWIND_FRAMES];
};
#define PP_UNWIND_MAGIC		0x77756e70u	/* "pnuw" */
#define PP_UNWIND_OUT_HDR	16

/*
 * A process the walker does not know (or not since its exec), as it asks
 * for it (unwind_ask): when (bpf_ktime_get_ns()), and its mm->arg_start
 * then, which the maps read after it go with.
 */
struct pp_unwind_ask {
	unsigned int tgid;
	unsigned int pad;
	unsigned long long time;
	unsigned long long arg_start;
};

/* A process the walker does not know is asked for at most this often (unwind_ask). */
#define PP_UW_ASK_NS		100000000ull

/* Counters (a per-CPU array, indexed so). */
#define PP_UW_STAT_STACKS	0
#define PP_UW_STAT_FRAMES_CFI	1
#define PP_UW_STAT_FRAMES_FP	2
#define PP_UW_STAT_NO_TABLE	3	/* frames walked by FP while a table was not ready */
#define PP_UW_STAT_NO_PROC	4	/* stacks of a process the maps do not hold (or not since its exec) */
#define PP_UW_STAT_OUT_FAIL	5	/* the record could not be written */
#define PP_UW_STAT_FORKED	6	/* processes whose maps the walk copied from their parent's */
#define PP_UW_STAT_END		7	/* + PP_UW_END_*: how stacks ended */
#define PP_UW_STATS		(PP_UW_STAT_END + PP_UW_END_NR)

#endif /* PP_BPF_UNWIND_H */
