/* SPDX-License-Identifier: MIT */
/*
 * assert_valid_xml(): a unit test's SVG parsed by python's XML parser, the
 * one check two tests share. Whether python3 runs is asked once per test
 * program: a python start costs seconds on a loaded host.
 * Include after <cmocka.h>.
 */
#ifndef PP_TESTS_XML_VALID_H
#define PP_TESTS_XML_VALID_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void assert_valid_xml(const char *text)
{
	static int have_python = -1;
	char path[] = "/tmp/pp-test-xml-XXXXXX";
	char cmd[256];
	int fd;

	if (have_python < 0)
		have_python = system("python3 -c '' 2>/dev/null") == 0;
	if (!have_python) {
		print_message("python3 missing: XML validity not checked\n");
		return;
	}
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	snprintf(cmd, sizeof(cmd),
		 "python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' %s", path);
	if (system(cmd))
		fail_msg("invalid XML kept in %s", path);
	unlink(path);
}

#endif
