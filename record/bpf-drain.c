// SPDX-License-Identifier: MIT
/*
 * What the aggregators' drains (record/bpf-offcpu.c, bpf-lock.c) share on
 * the recorder's side: the windows of a generation-flipping aggregator, and
 * synthetic samples that teach the symbol collector the addresses of the
 * aggregated stacks. The items themselves are written with the codec of
 * format/bpf-agg.c.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/membarrier.h>
#include <linux/perf_event.h>

#include "pp/bpf-agg.h"
#include "pp/meta.h"
#include "record.h"
#include "bpf-internal.h"

/* Synthetic samples: IDENTIFIER | TID | CALLCHAIN, any id. */
#define SYNTH_SAMPLE_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN)

/**
 * pp_bpf_synth_sample() - append a synthetic sample carrying one stack.
 * @b: destination; @pid, @tid: its task; @kips, @nr_kernel, @uips, @nr_user:
 * the frames, innermost first.
 */
void pp_bpf_synth_sample(struct pp_buf *b, uint32_t pid, uint32_t tid, const uint64_t *kips,
			 unsigned int nr_kernel, const uint64_t *uips, unsigned int nr_user)
{
	uint64_t nr = (uint64_t)nr_kernel + nr_user + (nr_kernel ? 1 : 0) + (nr_user ? 1 : 0);
	size_t size = 8 + 8 + 8 + 8 + nr * 8;
	struct perf_event_header h = {
		.type = PERF_RECORD_SAMPLE, .misc = PERF_RECORD_MISC_KERNEL, .size = (uint16_t)size,
	};
	uint64_t id = 1, mark;
	uint32_t pt[2] = { pid, tid };

	if (size > 0xffff)
		return;
	pp_buf__append(b, &h, sizeof(h));
	pp_buf__append(b, &id, 8);
	pp_buf__append(b, pt, 8);
	pp_buf__append(b, &nr, 8);
	if (nr_kernel) {
		mark = (uint64_t)PERF_CONTEXT_KERNEL;
		pp_buf__append(b, &mark, 8);
		pp_buf__append(b, kips, nr_kernel * 8);
	}
	if (nr_user) {
		mark = (uint64_t)PERF_CONTEXT_USER;
		pp_buf__append(b, &mark, 8);
		pp_buf__append(b, uips, nr_user * 8);
	}
}

static uint64_t synth_type(uint64_t id, void *ctx)
{
	return SYNTH_SAMPLE_TYPE;
}

/**
 * pp_bpf_scan_synth() - feed synthetic samples to the symbol collector.
 * @syms: collector; @b: records from pp_bpf_synth_sample().
 */
void pp_bpf_scan_synth(struct pp_syms *syms, const struct pp_buf *b)
{
	if (b->len && !b->error)
		pp_syms__scan(syms, b->data, b->len, synth_type, NULL);
}

void pp_bpf_windows__close(struct pp_bpf_windows *ws, unsigned int *gen, uint16_t source)
{
	struct pp_bpf_agg_window *w = &ws->w;

	if (ws->closed)
		return;
	ws->old = __atomic_load_n(gen, __ATOMIC_RELAXED) & 1;
	/* New events go to the other generation from now on. */
	__atomic_store_n(gen, ws->old ^ 1, __ATOMIC_RELEASE);
	memset(w, 0, sizeof(*w));
	w->source = source;
	w->start_ns = ws->start_ns;
	w->end_ns = pp_bpf_mono_ns();
	ws->start_ns = w->end_ns;
	ws->closed = 1;
}

/*
 * Return once every BPF program that may have read the old generation
 * before the flip has returned, so that none adds to an entry after it is
 * read and deleted, or creates one that the next drain of that generation
 * (two windows later, or never at the end) would find. Tracing programs run
 * inside RCU read-side sections, and MEMBARRIER_CMD_GLOBAL waits for an RCU
 * grace period (0.1 to 70 ms under a heavy scheduler load here, once a
 * second on the writer thread). Where it is refused (nohz_full) a program's
 * few microseconds are waited out a thousand times over.
 */
static void wait_programs(void)
{
	if (syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0))
		usleep(1000);
}

unsigned int pp_bpf_windows__take(struct pp_bpf_windows *ws, unsigned int *gen, uint16_t source,
				  const unsigned long long *dropped,
				  const unsigned long long *lost, struct pp_bpf_agg_window *w)
{
	uint64_t n;

	pp_bpf_windows__close(ws, gen, source);
	wait_programs();
	/*
	 * The counters are read once no program of the closed window runs:
	 * what one drops while the flip happens is in this window, not in
	 * the next one (which, at the end, never comes).
	 */
	n = __atomic_load_n(dropped, __ATOMIC_RELAXED);
	ws->w.dropped = n - ws->dropped_seen;
	ws->dropped_seen = n;
	if (lost) {
		n = __atomic_load_n(lost, __ATOMIC_RELAXED);
		ws->w.stacks_lost = n - ws->lost_seen;
		ws->lost_seen = n;
	}
	ws->closed = 0;
	*w = ws->w;
	return ws->old;
}
