/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A unit test binary that passes its first test and then crashes: what a
 * use-after-free under ASan or a plain segfault looks like to tests/run,
 * which must count it as a failure (tests/cli/runner.sh checks it does).
 * Built as build/tests/selftest-crash, never matched by test-*.
 */
#include <signal.h>

#include "test.h"

TEST(passes_before_the_crash)
{
	CHECK(1);
}

TEST(crashes)
{
	raise(SIGSEGV);
}

TEST(never_reached)
{
	CHECK(1);
}
