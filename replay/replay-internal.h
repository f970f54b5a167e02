/* SPDX-License-Identifier: MIT */
/*
 * Private to replay/: the session structure shared by the source, merge,
 * decoding and symbolization files.
 */
#ifndef PP_REPLAY_INTERNAL_H
#define PP_REPLAY_INTERNAL_H

#include <stdint.h>
#include <sys/types.h>
#include <linux/perf_event.h>
#include "pp/analyzer.h"
#include "pp/format.h"
#include "pp/reader.h"
#include "pp/replay.h"
#include "pp/sample.h"
#include "btf-print.h"
#include "fmt-check.h"

#define PP_MAX_EVSELS	256
#define PP_MAX_STREAMS	4096

/* One sample id -> event. Open addressing, power-of-two size. */
struct pp_idmap_ent {
	uint64_t id;
	int evsel;
};


/* What is known of a thread. */
struct pp_task {
	uint32_t tid;		/* 0 = empty slot (tid 0 is kept aside) */
	uint32_t pid;
	char comm[16];
};

/* A chunk of the file, from the index or a scan. */
struct pp_entry {
	uint64_t offset;
	uint64_t first_ts, last_ts;
	uint32_t stream;
	uint16_t type;
	int32_t next;		/* next DATA entry of the same stream, -1 */
};

/* A per-stream cursor: its current chunk (copied) and next record. */
struct pp_stream {
	uint32_t id;
	int32_t next_entry;	/* next chunk of this stream to load, -1 = none */
	uint8_t *buf;		/* live streams: records copied from the ring */
	size_t cap;
	struct pp_reader *rd;	/* file streams: a reader of their own, whose */
	const uint8_t *data;	/* decoded chunk (data) is read in place */
	size_t rd_bytes;	/* its buffers' size at the last memory check */
	size_t len;
	size_t off;		/* next record in data */
	uint64_t *align;	/* a misaligned record's copy (65,536 bytes, on demand) */
	const uint8_t *head;	/* current record, NULL = exhausted; 8-byte aligned */
	uint16_t head_size;
	uint64_t head_ts;
	struct pp_evsel *head_ev;	/* its event, while head_idgen == idmap_gen */
	uint32_t head_idgen;
	uint64_t head_id;		/* its sample id */
	uint64_t last_ts;
	uint64_t records;
	uint64_t lost;
	uint64_t lost_samples;
};

/* Symbol tables (replay/symbols.c). */
struct pp_symtab;

/* A set of task ids (open addressing; id + 1 stored, 0 = empty). */
struct pp_idset {
	uint32_t *v;
	size_t cap, nr;		/* cap: power of two */
};

/* A profiler used as an event source inside the session's module (-e 'profile/-F 500/'). */
#define PP_MAX_SOURCES	8
struct pp_src {
	const struct pp_analyzer *a;
	struct pp_opts o;		/* its options; strings in @buf */
	void *state;
	int entry;			/* the host's -e entry */
	int inited;
	char buf[256];
};

/*
 * Resolved frame names by (symbol version, ip), valid while the version of
 * the process's maps and symbols holds (forked processes share it): samples
 * repeat the same call chains, and a name costs a map and a symbol search
 * plus string copies. Names live in blocks freed all at once.
 */
#define PP_FCACHE_SIZE		4096
#define PP_FCACHE_BLOCK		(64 * 1024)
#define PP_FCACHE_MAX_BLOCKS	64

struct pp_fcache_ent {
	uint64_t ip;
	uint64_t ver;			/* pp_symtab__version() */
	const char *name;		/* NULL: empty slot */
};

struct pp_fcache {
	struct pp_fcache_ent e[PP_FCACHE_SIZE];
	char *blocks[PP_FCACHE_MAX_BLOCKS];
	int nr_blocks;
	size_t used;			/* bytes used in the last block */
	int full;			/* start over at the next stack */
};

/* Lost windows held until the module's init; more are folded into the last. */
#define PP_EARLY_LOST_MAX	64

struct pp_session {
	struct pp_analyzer a;		/* copy with stubs filled */
	struct pp_fcache *fcache;	/* lazily allocated by pp_session__stack_frames() */
	struct pp_btf_fmts btf_fmts;	/* decoders of BPF output records (FORMATS BTF) */
	struct pp_opts opts;
	struct pp_out out;
	void *priv;
	volatile int stop;
	int fail;			/* pp_session__fail(): what pp_session__run() returns */
	const char *path;		/* the trace file, NULL live */

	/* file source */
	struct pp_reader *reader;
	struct pp_scratch scratch;	/* buffers the streams' readers share */
	struct pp_entry *entries;
	size_t nr_entries;
	size_t meta_next;		/* next entry to process as metadata */
	uint64_t scan_last_seq;		/* scanned (no footer): the last complete chunk */
	char torn[192];			/* the reader's "file truncated" warning, held */
	struct pp_stream *streams;
	size_t nr_streams;
	struct pp_stream **heap;	/* merge heap, nr_streams > PP_MERGE_SCAN_MAX */
	size_t heap_cap;

	/* the source of records: a file (session.c) or the live kernel (live.c) */
	const struct pp_input_ops *src;
	void *live;			/* the live source's state */

	/* BPF aggregates of either source (replay/bpf-agg.c) */
	struct pp_bpf_agg_feed *bpf_agg_feed;
	int running;			/* the module is inited: items may be delivered */
	/* lost windows met before that (a LOST chunk before the first DATA) */
	struct pp_lost early_lost[PP_EARLY_LOST_MAX];
	size_t nr_early_lost;

	/* metadata */
	uint8_t *machine;
	size_t machine_len;
	uint64_t start_real, start_mono;
	int have_clock;
	struct pp_evsel evsels[PP_MAX_EVSELS];
	size_t nr_evsels;
	struct pp_idmap_ent *idmap;
	size_t idmap_cap, idmap_nr;
	uint32_t idmap_gen;		/* bumped by every change of the id map */
	struct pp_sample_layout fast[PP_MAX_EVSELS];	/* by evsel idx */
	uint8_t mod_req[PP_MAX_EVSELS];	/* no -e names it but the module's ->events() asks for it (hrtimer's cpu-clock) */
	struct tep_handle *tep;
	int header_page_ok;
	struct tep_event **refused;	/* parsed formats whose fields do not fit a record */
	size_t nr_refused;
	unsigned int fmt_warned;	/* refused formats warned about (replay/session.c) */
	struct pp_evspec specs[64];
	int nr_specs;
	struct pp_src srcs[PP_MAX_SOURCES];
	int nr_srcs;
	struct pp_task *tasks;
	size_t tasks_cap, tasks_nr;
	uint32_t comm_gen;		/* bumped by every pp_session__set_comm() */
	struct pp_symtab *syms;

	/* filters */
	uint64_t cpu_mask[16];		/* -C: bit per CPU, up to 1024 */
	int cpu_filter;
	uint32_t pids[64];
	int nr_pids;
	uint32_t tids[64];
	int nr_tids;
	/* targets of pp_session__is_target(): -p/-t, the live COMMAND, the file's */
	struct pp_idset tgt_procs, tgt_tids;
	int targets;			/* 0: every task is a target */

	/* --time: records from win_start to win_end (replay/window.c) */
	int win;
	uint64_t win_start, win_end;

	/* dispatch */
	uint64_t last_ts;
	uint64_t next_tick;
	int tick_pending;
	uint64_t delivered;
	struct pp_session_stats stats;
	uint64_t warnings;
	uint32_t nr_cpus;		/* MACHINE's nr_cpus when valid, else 0: samples' CPUs are below it */
	uint64_t reader_warnings;	/* distinct damage reports of the reader */
	uint64_t warned[256];		/* their hashes */
	size_t nr_warned;
};

/* replay/session.c: the session and its run */
void pp_session__dispatch_sideband(struct pp_session *s, uint32_t stream, const uint8_t *rec,
				   uint16_t size, struct pp_evsel *ev);
void pp_session__set_comm(struct pp_session *s, uint32_t pid, uint32_t tid, const char *comm);
void pp_session__add_target(struct pp_session *s, uint32_t id, int thread);

/* replay/metadata.c: events, formats, MACHINE and the other metadata chunks */
int pp_session__meta_chunk(struct pp_session *s, uint16_t type, const uint8_t *data, size_t len,
			   uint32_t stream);
int pp_session__add_evsel(struct pp_session *s, const struct perf_event_attr *attr, size_t attr_size,
			  const char *name, const uint64_t *ids, size_t nr_ids);
struct pp_evsel *pp_session__evsel_by_id(const struct pp_session *s, uint64_t id);
int pp_session__record_ts(const struct pp_session *s, const uint8_t *rec, size_t size, uint64_t *ts);
void pp_session__link_formats(struct pp_session *s);
/** pp_session__spec_matches() - does the event @name match the -e entry @sp? */
int pp_session__spec_matches(const struct pp_evspec *sp, const char *name);
/**
 * pp_session__deliver_lost() - every lost window reaches the module
 * through here: held (a bounded number) until its init, then delivered.
 */
void pp_session__deliver_lost(struct pp_session *s, const struct pp_lost *l);

/* replay/dispatch.c: each record checked, decoded and handed to the profiler */
void pp_session__dispatch(struct pp_session *s, uint32_t stream, const uint8_t *rec, uint16_t size);
/** pp_session__dispatch_ev() - pp_session__dispatch() with the record's evsel found (@ev, or NULL). */
void pp_session__dispatch_ev(struct pp_session *s, uint32_t stream, const uint8_t *rec,
			     uint16_t size, struct pp_evsel *ev);
void pp_session__tick(struct pp_session *s, uint64_t ts);
int pp_session__pass_tasks(const struct pp_session *s, uint32_t pid, uint32_t tid);

/* replay/file-source.c: chunks, streams, claims checked, the k-way merge */
int pp_session__merge(struct pp_session *s, uint64_t limit);
void pp_session__stream_advance(struct pp_session *s, struct pp_stream *st);
int pp_session__check_claim(void *ctx, struct pp_data_claim *c);
int pp_session__lie(const struct pp_session *s, const struct pp_reader_stats *rs, size_t i,
		    const char **name, const char **key, uint64_t *n);
uint64_t pp_session__lies(const struct pp_session *s, const struct pp_reader_stats *rs, char *buf,
			  size_t len);

/* Small helpers of the hot path, shared by session.c, dispatch.c and metadata.c. */

/* The task table's slot of @tid: its entry, or the empty slot it would take (NULL: no table). */
static inline struct pp_task *task_slot(const struct pp_session *s, uint32_t tid)
{
	size_t mask = s->tasks_cap - 1, i;

	if (!s->tasks_cap)
		return NULL;
	for (i = (tid * 2654435761u) & mask;; i = (i + 1) & mask) {
		struct pp_task *t = &s->tasks[i];

		if (t->tid == tid + 1 || !t->tid)
			return t;
	}
}

/* Does the open-addressed @set hold @id? */
static inline int idset_has(const struct pp_idset *set, uint32_t id)
{
	size_t mask = set->cap - 1;

	if (!set->cap)
		return 0;
	for (size_t i = (id * 2654435761u) & mask;; i = (i + 1) & mask) {
		if (set->v[i] == id + 1)
			return 1;
		if (!set->v[i])
			return 0;
	}
}

/* Is the task @pid/@tid (both known, as in a sample) a target? */
static inline int target_has(const struct pp_session *s, uint32_t pid, uint32_t tid)
{
	return idset_has(&s->tgt_tids, tid) || idset_has(&s->tgt_procs, pid);
}

/* @a + @b, saturated at UINT64_MAX. */
static inline uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* --time: is a record or window at @first..@last outside it? */
static inline int window_out(const struct pp_session *s, uint64_t first, uint64_t last)
{
	return s->win && (last < s->win_start || first > s->win_end);
}

/* replay/bpf-agg.c */
struct pp_bpf_agg_feed;
int pp_bpf_agg_feed__payload(struct pp_session *s, const uint8_t *p, size_t len);
int pp_bpf_agg_feed__open_live(struct pp_session *s, pid_t workload);
void pp_bpf_agg_feed__poll(struct pp_session *s, uint64_t now);
void pp_bpf_agg_feed__drain(struct pp_session *s);
void pp_bpf_agg_feed__finish(struct pp_session *s);
void pp_bpf_agg_feed__free(struct pp_session *s);
int pp_bpf_agg_feed__file_has(struct pp_session *s);

/* replay/symbols.c */
struct pp_symtab *pp_symtab__new(void);
void pp_symtab__free(struct pp_symtab *t);
int pp_symtab__add_ksyms(struct pp_symtab *t, const uint8_t *body, size_t size);
int pp_symtab__add_usyms(struct pp_symtab *t, const uint8_t *body, size_t size);
int pp_symtab__add_mmap(struct pp_symtab *t, uint32_t pid, uint64_t start, uint64_t len,
			uint64_t pgoff, const uint8_t *build_id, size_t build_id_size,
			const char *filename);
void pp_symtab__fork(struct pp_symtab *t, uint32_t ppid, uint32_t pid);
uint32_t pp_symtab__gen(const struct pp_symtab *t);
uint64_t pp_symtab__version(const struct pp_symtab *t, uint32_t pid, int kernel);
int pp_symtab__lookup(struct pp_symtab *t, uint32_t pid, uint64_t addr, int kernel, char *buf,
		      size_t len, const char **dso);
int pp_symtab__map(struct pp_symtab *t, uint32_t pid, uint64_t addr, int kernel,
		   struct pp_map_info *m);
int pp_symtab__sym_offset(struct pp_symtab *t, uint32_t pid, uint64_t addr, int kernel,
			  uint64_t *off);
void pp_symtab__coverage(struct pp_symtab *t, uint64_t *ksyms, uint64_t *dsos, uint64_t *dsos_syms,
			 uint64_t *maps);
void pp_symtab__set_demangle(struct pp_symtab *t, int on);
int pp_symtab__dso(const struct pp_symtab *t, size_t i, const char **path, int *source,
		   size_t *nr_syms);
uint32_t pp_symtab__cut_chain(const struct pp_symtab *t, uint32_t pid, const uint64_t *chain,
			      uint32_t nr, int *junk);

void pp_symtab__set_debuginfod(struct pp_symtab *t, int on);

/* replay/debuginfod.c */
int pp_debuginfod_find(const uint8_t *bid, int size);
int pp_debuginfod_urls(const char *urls);

/* replay/demangle.c */
char *pp_demangle(const char *name);

/**
 * struct pp_input_ops - the input of records behind one interface (a file,
 * live rings): the session never asks which one it has.
 * @name: "file", "live".
 * @run: deliver every record: fill the streams (pp_stream.data/len) and
 *       merge (pp_session__merge()) until the source ends or s->stop.
 * @refill: @st's records are used up: give it more now (1) or none for now
 *          (0: the end of a file stream; a live stream waits for its ring).
 * @free: release the source; fine if it never opened.
 */
struct pp_input_ops {
	const char *name;
	int (*run)(struct pp_session *s);
	int (*refill)(struct pp_session *s, struct pp_stream *st);
	void (*free)(struct pp_session *s);
};

/* replay/live.c: opens the events, then sets s->src to its ops. */
int pp_live__open(struct pp_session *s);

/* replay/pprof-symbols.c: `pp-analyze --symbols BINARY`, pprof's symbolizer protocol. */
int pp_pprof_symbols(const char *binary, FILE *in, FILE *out);

#endif /* PP_REPLAY_INTERNAL_H */
