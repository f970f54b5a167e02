// SPDX-License-Identifier: MIT
/*
 * Print plans: a tracepoint's print_fmt compiled once into field reads and
 * formatted writes (placeholder: no format handled yet).
 */
#include <stdlib.h>
#include "pp/replay.h"

/**
 * pp_print_plan__compile() - compile @ev's print format.
 * @tep: handle; @ev: event.
 * Return: plan, or NULL when the format is not handled.
 */
struct pp_print_plan *pp_print_plan__compile(struct tep_handle *tep, struct tep_event *ev)
{
	return NULL;
}

/**
 * pp_print_plan__run() - print a record with @plan.
 * @plan: plan; @raw, @size: record; @o: output.
 * Return: 0 or -EINVAL.
 */
int pp_print_plan__run(const struct pp_print_plan *plan, const void *raw, uint32_t size,
		       struct pp_out *o)
{
	return -22;
}

/**
 * pp_print_plan__free() - free a plan; accepts NULL.
 * @plan: plan.
 */
void pp_print_plan__free(struct pp_print_plan *plan)
{
	free(plan);
}
