/* SPDX-License-Identifier: (MIT OR GPL-2.0) */
/* Shared by bpf/ksym.bpf.c and record/ksym.c. */
#ifndef PP_BPF_KSYM_H
#define PP_BPF_KSYM_H

/* KSYM_NAME_LEN (512) + "+0x<off>/0x<size> [<module>]" */
#define PP_KSYM_TEXT_LEN	640

#endif /* PP_BPF_KSYM_H */
