// SPDX-License-Identifier: (MIT OR GPL-2.0)
/* Kernel symbols one by one, for recordings without an aggregator (ksym.bpf.h). */
#include "vmlinux-min.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "Dual MIT/GPL";

#include "ksym.bpf.h"
