/* SPDX-License-Identifier: (MIT OR GPL-2.0) */
/*
 * Shared by bpf/execsnoop.bpf.c and its readers: the record the program
 * emits through its perf event array at every exec. pp does not compile this
 * header into the analyzer: the trace file carries the struct as BTF
 * (FORMATS item PP_FMT_BTF), and pp-analyze decodes the records from that.
 */
#ifndef PP_BPF_EXECSNOOP_H
#define PP_BPF_EXECSNOOP_H

#define PP_EXECSNOOP_FILENAME	128

struct pp_execsnoop_event {
	unsigned int pid;		/* process that exec'd (tgid) */
	unsigned int ppid;		/* its parent */
	unsigned int uid;
	int old_pid;			/* pid before exec (differs when a thread exec'd) */
	char comm[16];			/* new comm */
	char filename[PP_EXECSNOOP_FILENAME];	/* path given to execve */
};

#endif /* PP_BPF_EXECSNOOP_H */
