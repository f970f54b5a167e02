// SPDX-License-Identifier: MIT
/*
 * Compact unwind tables: a DSO's call frame information (.eh_frame, else
 * .debug_frame) reduced to one row per address range with the few rules a
 * stack walker needs (spec/pp-record.md, "Unwind tables"): where the CFA
 * is (SP or FP plus an offset, or x86-64's PLT expression), where the
 * caller's frame pointer and return address were saved (at CFA plus an
 * offset), or that this code has no rule we walk.
 *
 * The FDEs are enumerated here (dwarf_next_cfi(), their initial location
 * decoded by the CIE's pointer encoding); the rules of each row come from
 * elfutils' interpreter of the CFA programs (dwarf_cfi_addrframe(),
 * dwarf_frame_info() for the row's range). Rows are keyed by file offset,
 * so that a walker maps a PC through its mapping (pc - start + pgoff) with
 * no knowledge of the ELF's segments.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <elf.h>
#include <gelf.h>
#include <elfutils/libdw.h>
#include <dwarf.h>

#include "record.h"

/* DWARF register numbers of the registers the rows speak of. */
struct cfi_arch {
	int sp, fp, ra;
};

static const struct cfi_arch arch_x86_64 = { 7, 6, 16 };
static const struct cfi_arch arch_aarch64 = { 31, 29, 30 };

struct fde_range {
	uint64_t start, end;	/* ELF virtual addresses */
};

struct build {
	Elf *elf;
	const struct cfi_arch *arch;
	struct pp_cfi_table *t;
	size_t cap;
	GElf_Phdr *load;	/* executable PT_LOADs */
	size_t nr_load;
	struct fde_range *fdes;
	size_t nr_fdes, cap_fdes;
};

/* ---- FDE enumeration ---- */

static int read_uleb(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	unsigned int shift = 0;

	*v = 0;
	while (*p < end && shift < 64) {
		uint8_t b = *(*p)++;

		*v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			return 0;
	}
	return -1;
}

static int read_sleb(const uint8_t **p, const uint8_t *end, int64_t *v)
{
	unsigned int shift = 0;
	uint64_t r = 0;
	uint8_t b = 0x80;

	while (*p < end && (b & 0x80) && shift < 64) {
		b = *(*p)++;
		r |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	}
	if (b & 0x80)
		return -1;
	if (shift < 64 && (b & 0x40))
		r |= ~0ull << shift;
	*v = (int64_t)r;
	return 0;
}

/*
 * A pointer of encoding @enc (DW_EH_PE_*) at *@p, which is at address
 * @addr in the ELF; DW_EH_PE_pcrel is the only application the
 * initial_location of an FDE uses in practice, datarel/textrel/funcrel
 * and indirect ones are refused (-1).
 */
static int read_ptr(const uint8_t **p, const uint8_t *end, uint8_t enc, uint64_t addr,
		    int addr_size, uint64_t *v)
{
	const uint8_t *s = *p;
	uint64_t u = 0;
	int64_t sv;

	if (enc == DW_EH_PE_omit)
		return -1;
	switch (enc & 0x0f) {
	case DW_EH_PE_absptr:
		if (end - s < addr_size)
			return -1;
		if (addr_size == 8) {
			memcpy(&u, s, 8);
		} else {
			uint32_t w;

			memcpy(&w, s, 4);
			u = w;
		}
		*p = s + addr_size;
		break;
	case DW_EH_PE_uleb128:
		if (read_uleb(p, end, &u))
			return -1;
		break;
	case DW_EH_PE_sleb128:
		if (read_sleb(p, end, &sv))
			return -1;
		u = (uint64_t)sv;
		break;
	case DW_EH_PE_udata2:
	case DW_EH_PE_sdata2: {
		uint16_t w;

		if (end - s < 2)
			return -1;
		memcpy(&w, s, 2);
		u = (enc & 0x0f) == DW_EH_PE_sdata2 ? (uint64_t)(int64_t)(int16_t)w : w;
		*p = s + 2;
		break;
	}
	case DW_EH_PE_udata4:
	case DW_EH_PE_sdata4: {
		uint32_t w;

		if (end - s < 4)
			return -1;
		memcpy(&w, s, 4);
		u = (enc & 0x0f) == DW_EH_PE_sdata4 ? (uint64_t)(int64_t)(int32_t)w : w;
		*p = s + 4;
		break;
	}
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata8:
		if (end - s < 8)
			return -1;
		memcpy(&u, s, 8);
		*p = s + 8;
		break;
	default:
		return -1;
	}
	switch (enc & 0x70) {
	case DW_EH_PE_absptr:
		break;
	case DW_EH_PE_pcrel:
		u += addr;
		break;
	default:
		return -1;
	}
	if (enc & DW_EH_PE_indirect)
		return -1;
	*v = u;
	return 0;
}

/* The FDE pointer encoding of a CIE ('R' of its augmentation), absptr without one. */
static uint8_t cie_fde_encoding(const Dwarf_CIE *cie)
{
	const uint8_t *p = cie->augmentation_data, *end;
	const char *a = cie->augmentation;

	if (!a || a[0] != 'z' || !p)
		return DW_EH_PE_absptr;
	end = p + cie->augmentation_data_size;
	for (a++; *a && p < end; a++) {
		uint64_t dummy;

		switch (*a) {
		case 'R':
			return *p;
		case 'L':
			p++;
			break;
		case 'P': {
			uint8_t enc = *p++;

			/* skip the personality pointer; its address does not matter */
			if (read_ptr(&p, end, enc & 0x0f, 0, 8, &dummy) &&
			    (enc & 0x0f) != DW_EH_PE_absptr)
				return DW_EH_PE_omit;
			break;
		}
		case 'S':
		case 'B':
			break;
		default:
			return DW_EH_PE_omit;	/* cannot tell */
		}
	}
	return DW_EH_PE_absptr;
}

static int add_fde(struct build *b, uint64_t start, uint64_t len)
{
	if (!len)
		return 0;
	if (b->nr_fdes == b->cap_fdes) {
		size_t n = b->cap_fdes ? b->cap_fdes * 2 : 1024;
		struct fde_range *v = realloc(b->fdes, n * sizeof(*v));

		if (!v)
			return -ENOMEM;
		b->fdes = v;
		b->cap_fdes = n;
	}
	b->fdes[b->nr_fdes].start = start;
	b->fdes[b->nr_fdes].end = start + len;
	b->nr_fdes++;
	return 0;
}

/* Collect the FDEs' ranges of section @scn (@eh: .eh_frame, else .debug_frame). */
static int collect_fdes(struct build *b, Elf_Scn *scn, int eh)
{
	const unsigned char *ident = (const unsigned char *)elf_getident(b->elf, NULL);
	int addr_size = ident[EI_CLASS] == ELFCLASS64 ? 8 : 4;
	Elf_Data *data = elf_getdata(scn, NULL);
	Dwarf_Off off = 0, next;
	GElf_Shdr sh;
	int ret;

	if (!data || !gelf_getshdr(scn, &sh) || !data->d_buf)
		return 0;
	for (;;) {
		Dwarf_CFI_Entry e, ce;
		Dwarf_Off cnext;
		const uint8_t *p, *end;
		uint64_t start, len;
		uint8_t enc;

		ret = dwarf_next_cfi(ident, data, eh, off, &next, &e);
		if (ret > 0)
			break;
		if (ret < 0) {
			if (next == (Dwarf_Off)-1 || next <= off)
				break;
			off = next;
			continue;
		}
		off = next;
		if (dwarf_cfi_cie_p(&e))
			continue;
		if (dwarf_next_cfi(ident, data, eh, e.fde.CIE_pointer, &cnext, &ce) ||
		    !dwarf_cfi_cie_p(&ce))
			continue;
		enc = eh ? cie_fde_encoding(&ce.cie) : DW_EH_PE_absptr;
		if (enc == DW_EH_PE_omit)
			continue;
		p = e.fde.start;
		end = e.fde.end;
		if (read_ptr(&p, end, enc, sh.sh_addr + (uint64_t)(p - (const uint8_t *)data->d_buf),
			     addr_size, &start) ||
		    read_ptr(&p, end, enc & 0x0f, 0, addr_size, &len))
			continue;
		ret = add_fde(b, start, len);
		if (ret)
			return ret;
	}
	return 0;
}

/* ---- rows ---- */

static int fde_cmp(const void *a, const void *b)
{
	const struct fde_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* The file offset of virtual address @va in an executable PT_LOAD; -1 if none. */
static int64_t va_to_off(const struct build *b, uint64_t va)
{
	for (size_t i = 0; i < b->nr_load; i++) {
		const GElf_Phdr *ph = &b->load[i];

		if (va >= ph->p_vaddr && va < ph->p_vaddr + ph->p_filesz)
			return (int64_t)(va - ph->p_vaddr + ph->p_offset);
	}
	return -1;
}

static int put_row(struct build *b, const struct pp_cfi_row *r)
{
	struct pp_cfi_table *t = b->t;

	/* a row that says what the last one says extends it */
	if (t->nr) {
		struct pp_cfi_row *l = &t->rows[t->nr - 1];

		if (l->off == r->off) {
			*l = *r;
			return 0;
		}
		if (l->cfa == r->cfa && l->fp == r->fp && l->ra == r->ra && l->arg == r->arg &&
		    l->cfa_off == r->cfa_off && l->fp_off == r->fp_off && l->ra_off == r->ra_off)
			return 0;
	}
	if (t->nr == b->cap) {
		size_t n = b->cap ? b->cap * 2 : 4096;
		struct pp_cfi_row *v = realloc(t->rows, n * sizeof(*v));

		if (!v)
			return -ENOMEM;
		t->rows = v;
		b->cap = n;
	}
	t->rows[t->nr++] = *r;
	return 0;
}

/* The rule of register @reg in @f: PP_CFI_SAME, PP_CFI_AT (*off), PP_CFI_UNDEF, or -1. */
static int reg_rule(Dwarf_Frame *f, int reg, int64_t *off)
{
	Dwarf_Op mem[3], *ops = NULL;
	size_t n = 0;

	*off = 0;
	if (dwarf_frame_register(f, reg, mem, &ops, &n))
		return -1;
	if (!n)
		return ops ? PP_CFI_UNDEF : PP_CFI_SAME;
	if (ops[0].atom != DW_OP_call_frame_cfa)
		return -1;
	if (n == 1)
		return PP_CFI_AT;
	if (n == 2 && ops[1].atom == DW_OP_plus_uconst) {
		*off = (int64_t)ops[1].number;
		return PP_CFI_AT;
	}
	return -1;
}

/*
 * x86-64's PLT entries: CFA = RSP + 8 + ((RIP & 15) >= N ? 8 : 0), the
 * expression every linker writes for .plt (N 11) and .plt.sec (N 10).
 */
static int plt_expr(const Dwarf_Op *o, size_t n, uint8_t *ge)
{
	if (n != 9 || o[0].atom != DW_OP_breg7 || o[0].number != 8 ||
	    o[1].atom != DW_OP_breg16 || o[1].number != 0 || o[2].atom != DW_OP_lit15 ||
	    o[3].atom != DW_OP_and || o[4].atom < DW_OP_lit0 || o[4].atom > DW_OP_lit31 ||
	    o[5].atom != DW_OP_ge || o[6].atom != DW_OP_lit3 || o[7].atom != DW_OP_shl ||
	    o[8].atom != DW_OP_plus)
		return -1;
	*ge = (uint8_t)(o[4].atom - DW_OP_lit0);
	return 0;
}

/* The row of frame state @f; its cfa is PP_CFI_UNSUPPORTED where a rule is not one we walk. */
static void frame_row(const struct build *b, Dwarf_Frame *f, struct pp_cfi_row *r)
{
	const struct cfi_arch *a = b->arch;
	Dwarf_Op *ops = NULL;
	size_t n = 0;
	int64_t off;
	int rule;

	r->cfa = PP_CFI_UNSUPPORTED;
	if (dwarf_frame_cfa(f, &ops, &n) || !n)
		return;
	if (n == 1 && ops[0].atom == DW_OP_bregx && (int)ops[0].number == a->sp) {
		r->cfa = PP_CFI_CFA_SP;
		off = (int64_t)ops[0].number2;
	} else if (n == 1 && ops[0].atom == DW_OP_bregx && (int)ops[0].number == a->fp) {
		r->cfa = PP_CFI_CFA_FP;
		off = (int64_t)ops[0].number2;
	} else if (a == &arch_x86_64 && !plt_expr(ops, n, &r->arg)) {
		r->cfa = PP_CFI_CFA_PLT;
		off = 8;
	} else {
		return;
	}
	if (off < INT32_MIN || off > INT32_MAX)
		goto unsupported;
	r->cfa_off = (int32_t)off;
	rule = reg_rule(f, a->fp, &off);
	if (rule < 0 || off < INT16_MIN || off > INT16_MAX)
		goto unsupported;
	r->fp = (uint8_t)rule;
	r->fp_off = (int16_t)off;
	rule = reg_rule(f, a->ra, &off);
	/* the return address: saved at CFA + off; on aarch64 also still in x30 */
	if (rule == PP_CFI_UNDEF) {
		r->cfa = PP_CFI_END;	/* the outermost frame (_start, a thread's start) */
		return;
	}
	if (rule < 0 || off < INT16_MIN || off > INT16_MAX ||
	    (rule == PP_CFI_SAME && a == &arch_x86_64))
		goto unsupported;
	r->ra = (uint8_t)rule;
	r->ra_off = (int16_t)off;
	return;
unsupported:
	r->cfa = PP_CFI_UNSUPPORTED;
	r->cfa_off = 0;
}

/* Rows of FDE [@start, @end), then a PP_CFI_NONE row at its end. */
static int fde_rows(struct build *b, Dwarf_CFI *cfi, uint64_t start, uint64_t end)
{
	uint64_t pc = start;
	int64_t o;
	int ret;

	while (pc < end) {
		struct pp_cfi_row r = { 0 };
		Dwarf_Frame *f = NULL;
		Dwarf_Addr s, e;

		if (dwarf_cfi_addrframe(cfi, pc, &f) || !f)
			break;
		if (dwarf_frame_info(f, &s, &e, NULL) < 0 || e <= pc) {
			free(f);
			break;
		}
		frame_row(b, f, &r);
		free(f);
		o = va_to_off(b, pc);
		if (o >= 0 && o <= UINT32_MAX) {
			r.off = (uint32_t)o;
			ret = put_row(b, &r);
			if (ret)
				return ret;
			b->t->covered += (e < end ? e : end) - pc;
		}
		pc = e;
	}
	o = va_to_off(b, end - 1);
	if (o >= 0 && o < UINT32_MAX) {
		struct pp_cfi_row none = { .off = (uint32_t)o + 1, .cfa = PP_CFI_NONE };

		return put_row(b, &none);
	}
	return 0;
}

static int elf_arch(Elf *elf, const struct cfi_arch **a)
{
	GElf_Ehdr eh;

	if (!gelf_getehdr(elf, &eh))
		return -EINVAL;
	if (eh.e_machine == EM_X86_64)
		*a = &arch_x86_64;
	else if (eh.e_machine == EM_AARCH64)
		*a = &arch_aarch64;
	else
		return -EOPNOTSUPP;
	return 0;
}

static int load_segments(struct build *b)
{
	size_t n;

	if (elf_getphdrnum(b->elf, &n))
		return -EINVAL;
	b->load = calloc(n ? n : 1, sizeof(*b->load));
	if (!b->load)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(b->elf, (int)i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X))
			b->load[b->nr_load++] = ph;
	}
	return b->nr_load ? 0 : -ENOENT;
}

/* The section named @name, or NULL. */
static Elf_Scn *find_section(Elf *elf, const char *name)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *n;

		if (gelf_getshdr(scn, &sh) && (n = elf_strptr(elf, shstrndx, sh.sh_name)) &&
		    !strcmp(n, name) && sh.sh_type != SHT_NOBITS)
			return scn;
	}
	return NULL;
}

/* See record/record.h. */
int pp_cfi__build_elf(Elf *elf, struct pp_cfi_table *t)
{
	struct build b = { .elf = elf, .t = t };
	Elf_Scn *eh = find_section(elf, ".eh_frame"), *dbg = NULL;
	Dwarf_CFI *cfi = NULL;
	Dwarf *dw = NULL;
	int ret;

	memset(t, 0, sizeof(*t));
	ret = elf_arch(elf, &b.arch);
	if (!ret)
		ret = load_segments(&b);
	if (ret)
		goto out;
	if (eh) {
		cfi = dwarf_getcfi_elf(elf);
		ret = cfi ? collect_fdes(&b, eh, 1) : 0;
	}
	if (!ret && !b.nr_fdes && (dbg = find_section(elf, ".debug_frame"))) {
		if (cfi)
			dwarf_cfi_end(cfi);
		cfi = NULL;
		dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
		if (dw && (cfi = dwarf_getcfi(dw)))
			ret = collect_fdes(&b, dbg, 0);
	}
	if (ret)
		goto out;
	if (!cfi || !b.nr_fdes) {
		ret = -ENOENT;
		goto out;
	}
	qsort(b.fdes, b.nr_fdes, sizeof(*b.fdes), fde_cmp);
	for (size_t i = 0; i < b.nr_fdes && !ret; i++) {
		/* overlapping FDEs (rare, broken): the later one starts where the earlier ended */
		uint64_t s = b.fdes[i].start;

		if (i && s < b.fdes[i - 1].end)
			s = b.fdes[i - 1].end;
		if (s < b.fdes[i].end)
			ret = fde_rows(&b, cfi, s, b.fdes[i].end);
	}
	t->fdes = b.nr_fdes;
out:
	if (dw)
		dwarf_end(dw);
	else if (cfi)
		dwarf_cfi_end(cfi);
	free(b.load);
	free(b.fdes);
	if (ret)
		pp_cfi__free(t);
	return ret;
}

/* See record/record.h. */
int pp_cfi__build(const char *path, struct pp_cfi_table *t)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret;
	Elf *elf;

	memset(t, 0, sizeof(*t));
	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf) {
		close(fd);
		return -EINVAL;
	}
	ret = pp_cfi__build_elf(elf, t);
	elf_end(elf);
	close(fd);
	return ret;
}

/* See record/record.h. */
const struct pp_cfi_row *pp_cfi__find(const struct pp_cfi_table *t, uint64_t off)
{
	size_t lo = 0, hi = t->nr;

	if (!t->nr || off < t->rows[0].off || off > UINT32_MAX)
		return NULL;
	/* the last row whose off <= @off */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->rows[mid].off <= off)
			lo = mid;
		else
			hi = mid;
	}
	return &t->rows[lo];
}

/* See record/record.h. */
void pp_cfi__free(struct pp_cfi_table *t)
{
	free(t->rows);
	memset(t, 0, sizeof(*t));
}

/* See record/record.h. */
int pp_cfi__step(const struct pp_cfi_row *row, int x86, struct pp_cfi_regs *r,
		 int (*read)(void *ctx, uint64_t addr, uint64_t *v), void *ctx)
{
	uint64_t cfa, ra, fp = r->fp;

	switch (row ? row->cfa : PP_CFI_UNSUPPORTED) {
	case PP_CFI_CFA_SP:
		cfa = r->sp + (uint64_t)(int64_t)row->cfa_off;
		break;
	case PP_CFI_CFA_FP:
		cfa = r->fp + (uint64_t)(int64_t)row->cfa_off;
		break;
	case PP_CFI_CFA_PLT:
		cfa = r->sp + 8 + ((r->pc & 15) >= row->arg ? 8 : 0);
		break;
	case PP_CFI_END:
		return 1;
	default:
		return -1;
	}
	if (row->ra == PP_CFI_AT) {
		if (read(ctx, cfa + (uint64_t)(int64_t)row->ra_off, &ra))
			return -1;
	} else if (row->ra == PP_CFI_SAME && !x86 && r->lr) {
		ra = r->lr;
	} else {
		return -1;
	}
	if (row->fp == PP_CFI_AT && read(ctx, cfa + (uint64_t)(int64_t)row->fp_off, &fp))
		return -1;
	/* a stack grows down: a caller's frame is above (x86-64: the return address between) */
	if (!ra || cfa < r->sp || (x86 && cfa == r->sp))
		return -1;
	if (!x86)
		ra &= 0x0000ffffffffffffull;	/* pointer authentication bits */
	r->pc = ra;
	r->sp = cfa;
	r->fp = fp;
	r->lr = 0;
	return 0;
}
