/* SPDX-License-Identifier: MIT */
/* blktrace helpers exposed for unit tests (tests/test-catalog.c). */
#ifndef PP_ANALYZERS_BLKTRACE_H
#define PP_ANALYZERS_BLKTRACE_H

#include <stddef.h>
#include <stdint.h>

enum pp_blk_op {
	PP_BLK_READ, PP_BLK_WRITE, PP_BLK_FLUSH, PP_BLK_DISCARD, PP_BLK_SECURE_ERASE,
	PP_BLK_WRITE_ZEROES, PP_BLK_OTHER, PP_BLK_OP_NR,
};

extern const char *const pp_blk_op_names[PP_BLK_OP_NR];

/**
 * pp_blk_op() - the operation of a block tracepoint's rwbs ("WS", "FWS",
 * "R", "F", "D", "DE"): a leading F before another operation letter is a
 * preflush, not the operation. Return: an enum pp_blk_op.
 */
int pp_blk_op(const char *rwbs);

/**
 * pp_blk_dev_name() - the name of device @major:@minor in @list, the
 * MACHINE key block_devices ("7:0=loop0,8:0=sda,..."), into @buf.
 * Return: @buf, or NULL when @list is NULL or lacks the device.
 */
const char *pp_blk_dev_name(const char *list, uint32_t major, uint32_t minor, char *buf,
			    size_t len);

#endif /* PP_ANALYZERS_BLKTRACE_H */
