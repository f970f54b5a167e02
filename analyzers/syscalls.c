// SPDX-License-Identifier: MIT
/*
 * syscalls: per-syscall latency (raw_syscalls:sys_enter -> sys_exit of the
 * same thread) and error counts (return values in [-4095, -1]): calls,
 * total, min, avg, p99, max, errors, by syscall name (a built-in x86_64
 * table; "syscall_N" elsewhere), overall or per process (--perins) or per
 * thread (--perthread). --than TIME prints each slower call. A lost window
 * drops every call in flight, so no latency spans a hole.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pp/replay.h"
#include "analyzers.h"
#include "hist.h"
#include "sched-common.h"
#include "json.h"

/* x86_64 syscall numbers -> names (from the kernel's asm/unistd_64.h). */
static const char *const x86_64_syscalls[] = {
	[0] = "read",
	[1] = "write",
	[2] = "open",
	[3] = "close",
	[4] = "stat",
	[5] = "fstat",
	[6] = "lstat",
	[7] = "poll",
	[8] = "lseek",
	[9] = "mmap",
	[10] = "mprotect",
	[11] = "munmap",
	[12] = "brk",
	[13] = "rt_sigaction",
	[14] = "rt_sigprocmask",
	[15] = "rt_sigreturn",
	[16] = "ioctl",
	[17] = "pread64",
	[18] = "pwrite64",
	[19] = "readv",
	[20] = "writev",
	[21] = "access",
	[22] = "pipe",
	[23] = "select",
	[24] = "sched_yield",
	[25] = "mremap",
	[26] = "msync",
	[27] = "mincore",
	[28] = "madvise",
	[29] = "shmget",
	[30] = "shmat",
	[31] = "shmctl",
	[32] = "dup",
	[33] = "dup2",
	[34] = "pause",
	[35] = "nanosleep",
	[36] = "getitimer",
	[37] = "alarm",
	[38] = "setitimer",
	[39] = "getpid",
	[40] = "sendfile",
	[41] = "socket",
	[42] = "connect",
	[43] = "accept",
	[44] = "sendto",
	[45] = "recvfrom",
	[46] = "sendmsg",
	[47] = "recvmsg",
	[48] = "shutdown",
	[49] = "bind",
	[50] = "listen",
	[51] = "getsockname",
	[52] = "getpeername",
	[53] = "socketpair",
	[54] = "setsockopt",
	[55] = "getsockopt",
	[56] = "clone",
	[57] = "fork",
	[58] = "vfork",
	[59] = "execve",
	[60] = "exit",
	[61] = "wait4",
	[62] = "kill",
	[63] = "uname",
	[64] = "semget",
	[65] = "semop",
	[66] = "semctl",
	[67] = "shmdt",
	[68] = "msgget",
	[69] = "msgsnd",
	[70] = "msgrcv",
	[71] = "msgctl",
	[72] = "fcntl",
	[73] = "flock",
	[74] = "fsync",
	[75] = "fdatasync",
	[76] = "truncate",
	[77] = "ftruncate",
	[78] = "getdents",
	[79] = "getcwd",
	[80] = "chdir",
	[81] = "fchdir",
	[82] = "rename",
	[83] = "mkdir",
	[84] = "rmdir",
	[85] = "creat",
	[86] = "link",
	[87] = "unlink",
	[88] = "symlink",
	[89] = "readlink",
	[90] = "chmod",
	[91] = "fchmod",
	[92] = "chown",
	[93] = "fchown",
	[94] = "lchown",
	[95] = "umask",
	[96] = "gettimeofday",
	[97] = "getrlimit",
	[98] = "getrusage",
	[99] = "sysinfo",
	[100] = "times",
	[101] = "ptrace",
	[102] = "getuid",
	[103] = "syslog",
	[104] = "getgid",
	[105] = "setuid",
	[106] = "setgid",
	[107] = "geteuid",
	[108] = "getegid",
	[109] = "setpgid",
	[110] = "getppid",
	[111] = "getpgrp",
	[112] = "setsid",
	[113] = "setreuid",
	[114] = "setregid",
	[115] = "getgroups",
	[116] = "setgroups",
	[117] = "setresuid",
	[118] = "getresuid",
	[119] = "setresgid",
	[120] = "getresgid",
	[121] = "getpgid",
	[122] = "setfsuid",
	[123] = "setfsgid",
	[124] = "getsid",
	[125] = "capget",
	[126] = "capset",
	[127] = "rt_sigpending",
	[128] = "rt_sigtimedwait",
	[129] = "rt_sigqueueinfo",
	[130] = "rt_sigsuspend",
	[131] = "sigaltstack",
	[132] = "utime",
	[133] = "mknod",
	[134] = "uselib",
	[135] = "personality",
	[136] = "ustat",
	[137] = "statfs",
	[138] = "fstatfs",
	[139] = "sysfs",
	[140] = "getpriority",
	[141] = "setpriority",
	[142] = "sched_setparam",
	[143] = "sched_getparam",
	[144] = "sched_setscheduler",
	[145] = "sched_getscheduler",
	[146] = "sched_get_priority_max",
	[147] = "sched_get_priority_min",
	[148] = "sched_rr_get_interval",
	[149] = "mlock",
	[150] = "munlock",
	[151] = "mlockall",
	[152] = "munlockall",
	[153] = "vhangup",
	[154] = "modify_ldt",
	[155] = "pivot_root",
	[156] = "_sysctl",
	[157] = "prctl",
	[158] = "arch_prctl",
	[159] = "adjtimex",
	[160] = "setrlimit",
	[161] = "chroot",
	[162] = "sync",
	[163] = "acct",
	[164] = "settimeofday",
	[165] = "mount",
	[166] = "umount2",
	[167] = "swapon",
	[168] = "swapoff",
	[169] = "reboot",
	[170] = "sethostname",
	[171] = "setdomainname",
	[172] = "iopl",
	[173] = "ioperm",
	[174] = "create_module",
	[175] = "init_module",
	[176] = "delete_module",
	[177] = "get_kernel_syms",
	[178] = "query_module",
	[179] = "quotactl",
	[180] = "nfsservctl",
	[181] = "getpmsg",
	[182] = "putpmsg",
	[183] = "afs_syscall",
	[184] = "tuxcall",
	[185] = "security",
	[186] = "gettid",
	[187] = "readahead",
	[188] = "setxattr",
	[189] = "lsetxattr",
	[190] = "fsetxattr",
	[191] = "getxattr",
	[192] = "lgetxattr",
	[193] = "fgetxattr",
	[194] = "listxattr",
	[195] = "llistxattr",
	[196] = "flistxattr",
	[197] = "removexattr",
	[198] = "lremovexattr",
	[199] = "fremovexattr",
	[200] = "tkill",
	[201] = "time",
	[202] = "futex",
	[203] = "sched_setaffinity",
	[204] = "sched_getaffinity",
	[205] = "set_thread_area",
	[206] = "io_setup",
	[207] = "io_destroy",
	[208] = "io_getevents",
	[209] = "io_submit",
	[210] = "io_cancel",
	[211] = "get_thread_area",
	[212] = "lookup_dcookie",
	[213] = "epoll_create",
	[214] = "epoll_ctl_old",
	[215] = "epoll_wait_old",
	[216] = "remap_file_pages",
	[217] = "getdents64",
	[218] = "set_tid_address",
	[219] = "restart_syscall",
	[220] = "semtimedop",
	[221] = "fadvise64",
	[222] = "timer_create",
	[223] = "timer_settime",
	[224] = "timer_gettime",
	[225] = "timer_getoverrun",
	[226] = "timer_delete",
	[227] = "clock_settime",
	[228] = "clock_gettime",
	[229] = "clock_getres",
	[230] = "clock_nanosleep",
	[231] = "exit_group",
	[232] = "epoll_wait",
	[233] = "epoll_ctl",
	[234] = "tgkill",
	[235] = "utimes",
	[236] = "vserver",
	[237] = "mbind",
	[238] = "set_mempolicy",
	[239] = "get_mempolicy",
	[240] = "mq_open",
	[241] = "mq_unlink",
	[242] = "mq_timedsend",
	[243] = "mq_timedreceive",
	[244] = "mq_notify",
	[245] = "mq_getsetattr",
	[246] = "kexec_load",
	[247] = "waitid",
	[248] = "add_key",
	[249] = "request_key",
	[250] = "keyctl",
	[251] = "ioprio_set",
	[252] = "ioprio_get",
	[253] = "inotify_init",
	[254] = "inotify_add_watch",
	[255] = "inotify_rm_watch",
	[256] = "migrate_pages",
	[257] = "openat",
	[258] = "mkdirat",
	[259] = "mknodat",
	[260] = "fchownat",
	[261] = "futimesat",
	[262] = "newfstatat",
	[263] = "unlinkat",
	[264] = "renameat",
	[265] = "linkat",
	[266] = "symlinkat",
	[267] = "readlinkat",
	[268] = "fchmodat",
	[269] = "faccessat",
	[270] = "pselect6",
	[271] = "ppoll",
	[272] = "unshare",
	[273] = "set_robust_list",
	[274] = "get_robust_list",
	[275] = "splice",
	[276] = "tee",
	[277] = "sync_file_range",
	[278] = "vmsplice",
	[279] = "move_pages",
	[280] = "utimensat",
	[281] = "epoll_pwait",
	[282] = "signalfd",
	[283] = "timerfd_create",
	[284] = "eventfd",
	[285] = "fallocate",
	[286] = "timerfd_settime",
	[287] = "timerfd_gettime",
	[288] = "accept4",
	[289] = "signalfd4",
	[290] = "eventfd2",
	[291] = "epoll_create1",
	[292] = "dup3",
	[293] = "pipe2",
	[294] = "inotify_init1",
	[295] = "preadv",
	[296] = "pwritev",
	[297] = "rt_tgsigqueueinfo",
	[298] = "perf_event_open",
	[299] = "recvmmsg",
	[300] = "fanotify_init",
	[301] = "fanotify_mark",
	[302] = "prlimit64",
	[303] = "name_to_handle_at",
	[304] = "open_by_handle_at",
	[305] = "clock_adjtime",
	[306] = "syncfs",
	[307] = "sendmmsg",
	[308] = "setns",
	[309] = "getcpu",
	[310] = "process_vm_readv",
	[311] = "process_vm_writev",
	[312] = "kcmp",
	[313] = "finit_module",
	[314] = "sched_setattr",
	[315] = "sched_getattr",
	[316] = "renameat2",
	[317] = "seccomp",
	[318] = "getrandom",
	[319] = "memfd_create",
	[320] = "kexec_file_load",
	[321] = "bpf",
	[322] = "execveat",
	[323] = "userfaultfd",
	[324] = "membarrier",
	[325] = "mlock2",
	[326] = "copy_file_range",
	[327] = "preadv2",
	[328] = "pwritev2",
	[329] = "pkey_mprotect",
	[330] = "pkey_alloc",
	[331] = "pkey_free",
	[332] = "statx",
	[333] = "io_pgetevents",
	[334] = "rseq",
	[424] = "pidfd_send_signal",
	[425] = "io_uring_setup",
	[426] = "io_uring_enter",
	[427] = "io_uring_register",
	[428] = "open_tree",
	[429] = "move_mount",
	[430] = "fsopen",
	[431] = "fsconfig",
	[432] = "fsmount",
	[433] = "fspick",
	[434] = "pidfd_open",
	[435] = "clone3",
	[436] = "close_range",
	[437] = "openat2",
	[438] = "pidfd_getfd",
	[439] = "faccessat2",
	[440] = "process_madvise",
	[441] = "epoll_pwait2",
	[442] = "mount_setattr",
	[443] = "quotactl_fd",
	[444] = "landlock_create_ruleset",
	[445] = "landlock_add_rule",
	[446] = "landlock_restrict_self",
	[447] = "memfd_secret",
	[448] = "process_mrelease",
	[449] = "futex_waitv",
	[450] = "set_mempolicy_home_node",
};

#define NR_X86_64_SYSCALLS (sizeof(x86_64_syscalls) / sizeof(x86_64_syscalls[0]))

struct sc_pending {
	uint64_t id;
	uint64_t since;		/* 0 = no call in flight */
};

struct sc_stat {
	uint32_t owner;		/* pid, tid or 0 */
	uint32_t id;
	uint64_t errors;
	char comm[16];
	struct pp_hist h;
};

struct syscalls {
	const struct pp_evsel *enter, *exit;
	struct tep_format_field *enter_id, *exit_id, *exit_ret;
	struct pp_sched_opts so;
	struct pp_kmap pending;		/* tid -> struct sc_pending */
	struct pp_kmap stats;		/* owner << 32 | id -> struct sc_stat */
	int x86_64;
	uint64_t lost, unmatched;
};

static int sc_events(const struct pp_opts *o, struct pp_event_reqs *out)
{
	out->nr = 2;
	out->req[0].spec = "raw_syscalls:sys_enter";
	out->req[1].spec = "raw_syscalls:sys_exit";
	out->req[1].callchain = o->callchain;
	return 0;
}

static int sc_init(struct pp_session *s)
{
	struct syscalls *sc = calloc(1, sizeof(*sc));
	const char *mach = pp_session__machine(s, "machine");
	size_t nr;
	struct pp_evsel *evs = pp_session__evsels(s, &nr);
	int ret;

	if (!sc)
		return -ENOMEM;
	pp_session__set_priv(s, sc);
	pp_kmap__init(&sc->pending, sizeof(struct sc_pending));
	pp_kmap__init(&sc->stats, sizeof(struct sc_stat));
	ret = pp_sched_opts__parse(&sc->so, pp_session__opts(s), "syscalls");
	if (ret)
		return ret;
	sc->x86_64 = !mach || !strcmp(mach, "x86_64");
	for (size_t i = 0; i < nr; i++) {
		if (!strcmp(evs[i].name, "raw_syscalls:sys_enter")) {
			sc->enter = &evs[i];
			sc->enter_id = pp_evsel__field(&evs[i], "id");
		} else if (!strcmp(evs[i].name, "raw_syscalls:sys_exit")) {
			sc->exit = &evs[i];
			sc->exit_id = pp_evsel__field(&evs[i], "id");
			sc->exit_ret = pp_evsel__field(&evs[i], "ret");
		}
	}
	if (!sc->enter || !sc->exit || !sc->enter_id || !sc->exit_id || !sc->exit_ret) {
		fprintf(stderr, "pp-analyze: syscalls needs raw_syscalls:sys_enter and raw_syscalls:sys_exit "
			"in the trace (pp-record -e raw_syscalls:sys_enter,raw_syscalls:sys_exit ...)\n");
		return -ENOENT;
	}
	return 0;
}

static const char *sc_name(const struct syscalls *sc, uint32_t id, char *buf, size_t len)
{
	if (sc->x86_64 && id < NR_X86_64_SYSCALLS && x86_64_syscalls[id])
		return x86_64_syscalls[id];
	snprintf(buf, len, "syscall_%u", id);
	return buf;
}

static void sc_exit(struct pp_session *s, struct syscalls *sc, const struct pp_event *e)
{
	const struct pp_opts *o = pp_session__opts(s);
	struct sc_pending *p = pp_kmap__find(&sc->pending, e->tid);
	uint64_t id, ret, d, key;
	uint32_t owner;
	struct sc_stat *st;
	const char *comm;
	int created;

	if (pp_event__num(e, sc->exit_id, &id) || pp_event__num(e, sc->exit_ret, &ret))
		return;
	if (!p || !p->since || p->id != id || e->time < p->since) {
		sc->unmatched++;
		return;
	}
	d = e->time - p->since;
	p->since = 0;
	comm = pp_session__comm(s, e->tid);
	if (!pp_sched_opts__comm_ok(&sc->so, comm))
		return;
	owner = sc->so.perthread ? e->tid : o->perins ? e->pid : 0;
	key = (uint64_t)owner << 32 | (uint32_t)id;
	st = pp_kmap__get(&sc->stats, key, &created);
	if (!st)
		return;
	if (created) {
		st->owner = owner;
		st->id = (uint32_t)id;
		pp_hist__init(&st->h);
	}
	if (owner && (created || !st->comm[0]))
		snprintf(st->comm, sizeof(st->comm), "%s", comm);
	pp_hist__add(&st->h, d);
	if ((int64_t)ret < 0 && (int64_t)ret >= -4095)
		st->errors++;
	if (o->than_set && d > o->than && o->json) {
		char nb[24];

		pp_json__begin(s, "outlier", e->time - d);
		pp_json__task(s, e);
		pp_json__str(s, "syscall", sc_name(sc, (uint32_t)id, nb, sizeof(nb)));
		pp_json__u64(s, "id", id);
		pp_json__u64(s, "duration", d);
		pp_json__i64(s, "ret", (int64_t)ret);
		pp_json__stack(s, e);
		pp_json__end(s);
	} else if (o->than_set && d > o->than) {
		char tb[32], db[16], nb[24];

		pp_session__format_time(s, e->time - d, tb);
		pp_out__printf(pp_session__out(s), "%s %16s %7u/%-7u [%03u] %s took %s, ret %lld\n", tb,
			       comm, e->pid, e->tid, e->cpu, sc_name(sc, (uint32_t)id, nb, sizeof(nb)),
			       pp_sched_ns(db, d), (long long)ret);
		if (e->nr_callchain)
			pp_session__print_stack(s, e, "\t");
	}
}

static void sc_sample(struct pp_session *s, const struct pp_event *e)
{
	struct syscalls *sc = pp_session__priv(s);

	if (e->evsel == sc->enter) {
		struct sc_pending *p = pp_kmap__get(&sc->pending, e->tid, NULL);
		uint64_t id;

		if (p && !pp_event__num(e, sc->enter_id, &id)) {
			p->id = id;
			p->since = e->time;
		}
	} else if (e->evsel == sc->exit) {
		sc_exit(s, sc, e);
	}
}

static void sc_lost(struct pp_session *s, const struct pp_lost *l)
{
	struct syscalls *sc = pp_session__priv(s);

	for (size_t i = 0; i < sc->pending.cap; i++) {
		struct sc_pending *p = pp_kmap__nth(&sc->pending, i, NULL);

		if (p)
			p->since = 0;
	}
	sc->lost++;
}

static int cmp_stat(const void *a, const void *b)
{
	const struct sc_stat *x = *(const struct sc_stat *const *)a;
	const struct sc_stat *y = *(const struct sc_stat *const *)b;

	if (x->owner != y->owner)
		return x->owner < y->owner ? -1 : 1;
	if (x->h.total != y->h.total)
		return x->h.total > y->h.total ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static void sc_print(struct pp_session *s, uint64_t now)
{
	struct syscalls *sc = pp_session__priv(s);
	const struct pp_opts *o = pp_session__opts(s);
	struct pp_out *out = pp_session__out(s);
	struct sc_stat **list = malloc((sc->stats.nr ? sc->stats.nr : 1) * sizeof(*list));
	int owners = o->perins || sc->so.perthread;
	size_t n = 0;
	char tbuf[32];

	if (!list)
		return;
	for (size_t i = 0; i < sc->stats.cap; i++) {
		struct sc_stat *st = pp_kmap__nth(&sc->stats, i, NULL);

		if (st && st->h.calls)
			list[n++] = st;
	}
	qsort(list, n, sizeof(*list), cmp_stat);
	pp_session__format_time(s, now, tbuf);
	if (!o->json)
		pp_out__printf(out, "%s\n%s%-20s %8s %10s %10s %10s %10s %10s %8s\n", tbuf,
			       owners ? "            comm     pid " : "", "syscall", "calls", "total",
			       "min", "avg", "p99", "max", "errors");
	for (size_t i = 0; i < n; i++) {
		struct sc_stat *st = list[i];
		struct pp_hist_stats hs;
		char b[6][16], nb[24];
		const char *name = sc_name(sc, st->id, nb, sizeof(nb));

		pp_hist__stats(&st->h, &hs);
		if (o->json) {
			pp_json__begin(s, "row", now);
			if (owners) {
				pp_out__puts(out, ",\"comm\":");
				pp_out__json_str(out, st->comm);
				pp_out__printf(out, ",\"%s\":%u", sc->so.perthread ? "tid" : "pid", st->owner);
			}
			pp_out__puts(out, ",\"syscall\":");
			pp_out__json_str(out, name);
			pp_out__printf(out, ",\"id\":%u,\"calls\":%llu,\"total\":%llu,\"min\":%llu,\"avg\":%llu,"
				       "\"p99\":%llu,\"max\":%llu,\"errors\":%llu}\n", st->id,
				       (unsigned long long)hs.calls, (unsigned long long)hs.total,
				       (unsigned long long)hs.min, (unsigned long long)hs.avg,
				       (unsigned long long)hs.p99, (unsigned long long)hs.max,
				       (unsigned long long)st->errors);
		} else {
			if (owners)
				pp_out__printf(out, "%16s %7u ", st->comm, st->owner);
			pp_out__printf(out, "%-20s %8llu %10s %10s %10s %10s %10s %8llu\n", name,
				       (unsigned long long)hs.calls, pp_sched_ns(b[0], hs.total),
				       pp_sched_ns(b[1], hs.min), pp_sched_ns(b[2], hs.avg),
				       pp_sched_ns(b[3], hs.p99), pp_sched_ns(b[4], hs.max),
				       (unsigned long long)st->errors);
		}
		pp_hist__reset(&st->h);
		st->errors = 0;
	}
	free(list);
}

static void sc_report(struct pp_session *s)
{
	struct syscalls *sc = pp_session__priv(s);

	if (!pp_session__opts(s)->interval_ns)
		sc_print(s, pp_session__stats(s)->last_ts);
	if (sc->lost)
		pp_analyzer__warn("syscalls", "%llu lost windows: calls in flight across them were dropped",
			(unsigned long long)sc->lost);
}

static void sc_deinit(struct pp_session *s)
{
	struct syscalls *sc = pp_session__priv(s);

	if (!sc)
		return;
	for (size_t i = 0; i < sc->stats.cap; i++) {
		struct sc_stat *st = pp_kmap__nth(&sc->stats, i, NULL);

		if (st)
			pp_hist__exit(&st->h);
	}
	pp_kmap__exit(&sc->stats);
	pp_kmap__exit(&sc->pending);
	pp_sched_opts__exit(&sc->so);
	free(sc);
}

static const struct pp_mod_opt sc_mod_opts[] = {
	{ "perthread", 0, 0, "per thread instead of per process" },
	PP_SCHED_OPT_FILTER,
	{ NULL, 0, 0, NULL },
};

const struct pp_analyzer pp_analyzer_syscalls = {
	.name = "syscalls",
	.desc = "per-syscall latency (sys_enter -> sys_exit) and errors, per process or thread",
	.help = "pp-analyze syscalls [--perins] [--than TIME [-g]] [-i MS] [--json] [FILE]\n"
		"  needs raw_syscalls:sys_enter and raw_syscalls:sys_exit (pp-record syscalls ... or\n"
		"    pp-record -e raw_syscalls:sys_enter,raw_syscalls:sys_exit -- CMD)\n"
		"  --perins: per process; --perthread: per thread\n"
		"  example: pp-analyze syscalls --perins --than 10ms --filter 'nginx*'\n",
	.mod_opts = sc_mod_opts,
	.opts = PP_OPT_INTERVAL | PP_OPT_THAN | PP_OPT_PERINS | PP_OPT_JSON | PP_OPT_CALLCHAIN,
	.events = sc_events,
	.init = sc_init,
	.sample = sc_sample,
	.lost = sc_lost,
	.interval = sc_print,
	.report = sc_report,
	.deinit = sc_deinit,
};
