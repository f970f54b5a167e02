// SPDX-License-Identifier: MIT
/*
 * Print plans against libtraceevent: for every event format of the running
 * kernel that pp_print_plan__compile() claims, random records must print
 * exactly what tep_print_event prints. Skips when tracefs is unavailable.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>
#include <cmocka.h>
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>
#include "pp/replay.h"

#define TRACEFS "/sys/kernel/tracing"

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	size_t n = 0, cap = 65536;

	if (!f)
		return NULL;
	buf = malloc(cap);
	if (buf)
		n = fread(buf, 1, cap - 1, f);
	fclose(f);
	if (buf)
		buf[n] = '\0';
	return buf;
}

/* Fill a record: random bytes, printable char arrays, valid __data_loc strings. */
static uint32_t fill(struct tep_event *ev, uint8_t *d, size_t cap)
{
	struct tep_format_field *f;
	uint32_t end = 0, dyn;

	for (size_t i = 0; i < cap; i++)
		d[i] = (uint8_t)(rand() & (rand() & 1 ? 0xff : 0x7));
	for (f = ev->format.fields; f; f = f->next)
		if ((uint32_t)(f->offset + f->size) > end)
			end = (uint32_t)(f->offset + f->size);
	for (f = ev->format.common_fields; f; f = f->next)
		if ((uint32_t)(f->offset + f->size) > end)
			end = (uint32_t)(f->offset + f->size);
	dyn = end;
	for (f = ev->format.fields; f; f = f->next) {
		if (f->flags & TEP_FIELD_IS_DYNAMIC) {
			uint32_t len = (uint32_t)(rand() % 12) + 1, off = dyn, loc;

			if (dyn + len + 1 > cap)
				continue;
			for (uint32_t k = 0; k < len - 1; k++)
				d[dyn + k] = (uint8_t)('a' + rand() % 26);
			d[dyn + len - 1] = 0;
			if (f->flags & TEP_FIELD_IS_RELATIVE)
				off -= (uint32_t)f->offset + 4;
			loc = off | len << 16;
			memcpy(d + f->offset, &loc, 4);
			dyn += len;
		} else if (f->flags & TEP_FIELD_IS_STRING) {
			for (int k = 0; k < f->size; k++)
				d[f->offset + k] = (uint8_t)('a' + rand() % 26);
			d[f->offset + f->size - 1 - rand() % f->size] = 0;
		} else if ((f->flags & TEP_FIELD_IS_SIGNED) && !(f->flags & TEP_FIELD_IS_ARRAY)) {
			/*
			 * Non-negative: a negative one is read, compared and
			 * divided as C does by the plan, as unsigned long long
			 * by libtraceevent (test_signed_fields).
			 */
			d[f->offset + f->size - 1] &= 0x7f;
		}
	}
	for (f = ev->format.common_fields; f; f = f->next)
		if (f->flags & TEP_FIELD_IS_SIGNED)
			d[f->offset + f->size - 1] &= 0x7f;
	return dyn;
}

/* The plan of a synthetic little-endian 64-bit format @fmt; *@tep: free it after. */
static struct pp_print_plan *plan_of(const char *fmt, struct tep_handle **tep)
{
	struct tep_event *ev = NULL;
	struct pp_print_plan *plan;

	*tep = tep_alloc();
	assert_non_null(*tep);
	tep_set_long_size(*tep, 8);
	tep_set_file_bigendian(*tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(*tep, TEP_LITTLE_ENDIAN);
	assert_int_equal(tep_parse_format(*tep, &ev, fmt, strlen(fmt), "test"), 0);
	plan = pp_print_plan__compile(*tep, ev);
	assert_non_null(plan);
	return plan;
}

/* @plan prints record @d of @size as @want of @len: printed, then from the memo. */
static void prints(struct pp_print_plan *plan, const uint8_t *d, uint32_t size, const char *want,
		   size_t len, struct pp_out *out)
{
	for (int pass = 0; pass < 2; pass++) {
		out->len = 0;
		assert_int_equal(pp_print_plan__run(plan, d, size, out), 0);
		assert_int_equal(out->len, len);
		assert_memory_equal(out->buf, want, len);
	}
	out->len = 0;
}

/*
 * Signed fields as the kernel prints them (C's REC->field): an s8 of -1 is
 * -1 with %d and below 0, a short of -500 is -500 with %d and %hd, an int
 * of -1 is -1 with %lld, an s64 of -1000 divides to -333 and is early (as
 * kvm's timer formats test); an unsigned char of 255 stays 255.
 * libtraceevent prints 255, 65036, 4294967295, finds the s8 not below 0 and
 * the s64 late.
 */
static void test_signed_fields(void **state)
{
	static const char fmt[] =
		"name: sgn\nID: 7\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		"\tfield:s8 c;\toffset:8;\tsize:1;\tsigned:1;\n"
		"\tfield:u8 u;\toffset:9;\tsize:1;\tsigned:0;\n"
		"\tfield:short h;\toffset:10;\tsize:2;\tsigned:1;\n"
		"\tfield:int i;\toffset:12;\tsize:4;\tsigned:1;\n"
		"\tfield:s64 q;\toffset:16;\tsize:8;\tsigned:1;\n\n"
		"print fmt: \"c=%d u=%d h=%d hd=%hd i=%lld neg=%d sum=%d q/3=%lld (%s)\", REC->c, "
		"REC->u, REC->h, REC->h, REC->i, REC->c < 0, REC->c + REC->h, REC->q / 3, "
		"REC->q < 0 ? \"early\" : \"late\"\n";
	static const uint8_t d[24] = { 7, 0, 0, 0, 5, 0, 0, 0, 0xff, 0xff, 0x0c, 0xfe,
				       0xff, 0xff, 0xff, 0xff, 0x18, 0xfc, 0xff, 0xff,
				       0xff, 0xff, 0xff, 0xff };
	static const char want[] = "c=-1 u=255 h=-500 hd=-500 i=-1 neg=1 sum=-501 q/3=-333 (early)";
	struct tep_handle *tep;
	struct pp_print_plan *plan = plan_of(fmt, &tep);
	struct pp_out out;

	(void)state;
	pp_out__init(&out, -1);
	prints(plan, d, sizeof(d), want, strlen(want), &out);
	pp_out__exit(&out);
	pp_print_plan__free(plan);
	tep_free(tep);
}

/*
 * A char[16] field (a comm) with %s: written as is up to its NUL when every
 * byte before is printable ASCII, else escaped by pp_out__text_n() - for
 * each kind of byte (a NUL, below 0x20, 0x7f, above 0x7f) at each place,
 * and for 16 printable bytes without a NUL.
 */
static void test_string_field(void **state)
{
	static const char fmt[] =
		"name: str\nID: 8\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n\n"
		"print fmt: \"comm=%s.\", REC->comm\n";
	static const uint8_t odd[] = { 0, 0x01, 0x1f, 0x7f, 0x80, 0xff };
	struct tep_handle *tep;
	struct pp_print_plan *plan = plan_of(fmt, &tep);
	struct pp_out out, want;

	(void)state;
	pp_out__init(&out, -1);
	pp_out__init(&want, -1);
	for (size_t k = 0; k <= sizeof(odd); k++) {
		for (int at = 0; at < 16; at++) {
			uint8_t d[24] = { 8 };
			size_t n;

			for (int i = 0; i < 16; i++)
				d[8 + i] = (uint8_t)('a' + i);
			if (k < sizeof(odd))
				d[8 + at] = odd[k];	/* else: no NUL at all */
			n = strnlen((const char *)d + 8, 16);
			want.len = 0;
			pp_out__write(&want, "comm=", 5);
			pp_out__text_n(&want, (const char *)d + 8, n);
			pp_out__write(&want, ".", 1);
			prints(plan, d, sizeof(d), want.buf, want.len, &out);
			if (k < sizeof(odd) && odd[k] == 0)	/* printable up to the NUL: as is */
				assert_int_equal(want.len, 5 + (size_t)at + 1);
		}
	}
	want.len = 0;
	pp_out__exit(&out);
	pp_out__exit(&want);
	pp_print_plan__free(plan);
	tep_free(tep);
}

static void test_plan_matches_tep(void **state)
{
	struct tep_handle *tep = tep_alloc();
	char *hp, path[1024];
	DIR *sys;
	struct dirent *s;
	int claimed = 0, total = 0, mismatches = 0;
	struct pp_out out;

	if (access(TRACEFS "/events/header_page", R_OK))
		mount("nodev", TRACEFS, "tracefs", 0, NULL);
	hp = slurp(TRACEFS "/events/header_page");
	if (!hp) {
		tep_free(tep);
		skip();
	}
	tep_set_long_size(tep, 8);
	tep_parse_header_page(tep, hp, strlen(hp), 8);
	free(hp);
	sys = opendir(TRACEFS "/events");
	assert_non_null(sys);
	pp_out__init(&out, -1);
	srand(42);
	while ((s = readdir(sys))) {
		DIR *evd;
		struct dirent *e;

		if (s->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), TRACEFS "/events/%s", s->d_name);
		evd = opendir(path);
		if (!evd)
			continue;
		while ((e = readdir(evd))) {
			struct tep_event *ev = NULL;
			struct pp_print_plan *plan;
			char *fmt;

			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), TRACEFS "/events/%s/%s/format", s->d_name, e->d_name);
			fmt = slurp(path);
			if (!fmt)
				continue;
			if (tep_parse_event(tep, fmt, strlen(fmt), s->d_name)) {
				free(fmt);
				continue;
			}
			free(fmt);
			ev = tep_find_event_by_name(tep, s->d_name, e->d_name);
			if (!ev)
				continue;
			total++;
			plan = pp_print_plan__compile(tep, ev);
			if (!plan)
				continue;
			claimed++;
			/*
			 * Each record three times: as filled, again (the memo's
			 * copy), and with its common header changed (a byte the
			 * memo skips must be one no field of the plan reads).
			 */
			for (int round = 0; round < 50 * 3; round++) {
				static uint8_t d[1024];
				static uint32_t size;
				uint16_t id = (uint16_t)ev->id;

				if (round % 3 == 0)
					size = fill(ev, d, sizeof(d));
				else if (round % 3 == 2)
					d[2] ^= 0x5a, d[3] ^= 0xa5, d[4] ^= 0x3c;
				memcpy(d, &id, 2);	/* common_type */
				struct tep_record r = { .data = d, .size = (int)size };
				struct trace_seq seq;

				out.len = 0;
				if (pp_print_plan__run(plan, d, size, &out))
					continue;
				trace_seq_init(&seq);
				tep_print_event(tep, &seq, &r, "%s", TEP_PRINT_INFO);
				trace_seq_terminate(&seq);
				if (out.len != seq.len || memcmp(out.buf, seq.buffer, out.len)) {
					if (mismatches < 10)
						fprintf(stderr, "%s:%s (pass %d)\n  tep:  %.*s\n  plan: %.*s\n",
							s->d_name, e->d_name, round % 3, (int)seq.len,
							seq.buffer, (int)out.len, out.buf);
					mismatches++;
					trace_seq_destroy(&seq);
					break;
				}
				trace_seq_destroy(&seq);
			}
			pp_print_plan__free(plan);
		}
		closedir(evd);
	}
	closedir(sys);
	out.len = 0;
	pp_out__exit(&out);
	fprintf(stderr, "plan claims %d of %d formats, %d mismatches\n", claimed, total, mismatches);
	tep_free(tep);
	assert_true(claimed > total / 2);
	assert_int_equal(mismatches, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plan_matches_tep),
		cmocka_unit_test(test_signed_fields),
		cmocka_unit_test(test_string_field),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
