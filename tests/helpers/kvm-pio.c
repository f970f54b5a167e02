// SPDX-License-Identifier: MIT
/*
 * Test workload: a tiny KVM guest through the KVM API (no QEMU): one VM, one
 * vCPU in real mode running
 *
 *	mov cx, N ; mov dx, 0xe9 ; mov al, 'x'
 *   1:	out dx, al ; dec cx ; jnz 1b
 *	hlt
 *
 * so the guest makes exactly N port I/O exits to user space (KVM_EXIT_IO on
 * port 0xe9), then one KVM_EXIT_HLT. Usage: kvm-pio N (1..65535). Prints
 * "io N hlt 1" when the guest did what it should; exits 77 when there is no
 * /dev/kvm (or it cannot run a guest), 1 on a wrong exit.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/kvm.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#define GUEST_ADDR	0x1000
#define GUEST_SIZE	0x1000
#define PORT		0xe9

static int skip(const char *what)
{
	fprintf(stderr, "kvm-pio: %s: %s\n", what, strerror(errno));
	return 77;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 100;
	struct kvm_userspace_memory_region mr;
	struct kvm_sregs sregs;
	struct kvm_regs regs;
	struct kvm_run *run;
	long io = 0, hlt = 0;
	int kvm, vm, vcpu, run_size;
	uint8_t *mem, *p;

	if (n < 1 || n > 65535) {
		fprintf(stderr, "usage: kvm-pio N (1..65535)\n");
		return 2;
	}
	kvm = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (kvm < 0)
		return skip("/dev/kvm");
	if (ioctl(kvm, KVM_GET_API_VERSION, 0) != KVM_API_VERSION)
		return skip("KVM API version");
	vm = ioctl(kvm, KVM_CREATE_VM, 0);
	if (vm < 0)
		return skip("KVM_CREATE_VM");
	mem = mmap(NULL, GUEST_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return skip("mmap");
	p = mem;
	*p++ = 0xb9; *p++ = (uint8_t)n; *p++ = (uint8_t)(n >> 8);	/* mov cx, N */
	*p++ = 0xba; *p++ = PORT; *p++ = 0x00;				/* mov dx, 0xe9 */
	*p++ = 0xb0; *p++ = 'x';					/* mov al, 'x' */
	*p++ = 0xee;							/* 1: out dx, al */
	*p++ = 0x49;							/* dec cx */
	*p++ = 0x75; *p++ = 0xfc;					/* jnz 1b */
	*p++ = 0xf4;							/* hlt */
	memset(&mr, 0, sizeof(mr));
	mr.slot = 0;
	mr.guest_phys_addr = GUEST_ADDR;
	mr.memory_size = GUEST_SIZE;
	mr.userspace_addr = (uint64_t)(uintptr_t)mem;
	if (ioctl(vm, KVM_SET_USER_MEMORY_REGION, &mr) < 0)
		return skip("KVM_SET_USER_MEMORY_REGION");
	vcpu = ioctl(vm, KVM_CREATE_VCPU, 0);
	if (vcpu < 0)
		return skip("KVM_CREATE_VCPU");
	run_size = ioctl(kvm, KVM_GET_VCPU_MMAP_SIZE, 0);
	if (run_size < (int)sizeof(*run))
		return skip("KVM_GET_VCPU_MMAP_SIZE");
	run = mmap(NULL, (size_t)run_size, PROT_READ | PROT_WRITE, MAP_SHARED, vcpu, 0);
	if (run == MAP_FAILED)
		return skip("mmap kvm_run");
	if (ioctl(vcpu, KVM_GET_SREGS, &sregs) < 0)
		return skip("KVM_GET_SREGS");
	sregs.cs.base = 0;
	sregs.cs.selector = 0;
	if (ioctl(vcpu, KVM_SET_SREGS, &sregs) < 0)
		return skip("KVM_SET_SREGS");
	memset(&regs, 0, sizeof(regs));
	regs.rip = GUEST_ADDR;
	regs.rflags = 0x2;
	if (ioctl(vcpu, KVM_SET_REGS, &regs) < 0)
		return skip("KVM_SET_REGS");
	for (;;) {
		if (ioctl(vcpu, KVM_RUN, 0) < 0) {
			if (errno == EINTR)
				continue;
			return skip("KVM_RUN");
		}
		if (run->exit_reason == KVM_EXIT_IO && run->io.direction == KVM_EXIT_IO_OUT &&
		    run->io.port == PORT && run->io.size == 1 && run->io.count == 1) {
			io++;
			continue;
		}
		if (run->exit_reason == KVM_EXIT_HLT) {
			hlt++;
			break;
		}
		fprintf(stderr, "kvm-pio: unexpected exit reason %u after %ld I/O exits\n",
			run->exit_reason, io);
		return 1;
	}
	printf("io %ld hlt %ld\n", io, hlt);
	return io == n && hlt == 1 ? 0 : 1;
}
