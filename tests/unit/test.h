/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A tiny unit-test harness: TEST(name) { ... } registers a test; CHECK*
 * record failures and carry on; main() runs every test and prints one
 * "ok - name" or "not ok - name" line each, which tests/run counts.
 */
#ifndef SLCTL_TEST_H
#define SLCTL_TEST_H

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct test {
	const char *name;
	void (*fn)(void);
};

#define TEST_MAX 512
static struct test tests_registry[TEST_MAX];
static int tests_count;
static int test_failed;

#define TEST(name)                                                          \
	static void test_##name(void);                                      \
	__attribute__((constructor)) static void register_##name(void)      \
	{                                                                   \
		if (tests_count < TEST_MAX)                                 \
			tests_registry[tests_count++] =                     \
				(struct test){ #name, test_##name };        \
	}                                                                   \
	static void test_##name(void)

#define CHECK(cond)                                                         \
	do {                                                                \
		if (!(cond)) {                                              \
			fprintf(stderr, "  %s:%d: CHECK(%s) failed\n",      \
				__FILE__, __LINE__, #cond);                 \
			test_failed = 1;                                    \
		}                                                           \
	} while (0)

#define CHECK_INT(a, b)                                                     \
	do {                                                                \
		long long a_ = (long long)(a), b_ = (long long)(b);         \
		if (a_ != b_) {                                             \
			fprintf(stderr, "  %s:%d: %s == %lld, expected %lld\n", \
				__FILE__, __LINE__, #a, a_, b_);            \
			test_failed = 1;                                    \
		}                                                           \
	} while (0)

#define CHECK_STR(a, b)                                                     \
	do {                                                                \
		const char *a_ = (a), *b_ = (b);                            \
		if (!a_ || !b_ || strcmp(a_, b_) != 0) {                    \
			fprintf(stderr, "  %s:%d: %s == \"%s\", expected \"%s\"\n", \
				__FILE__, __LINE__, #a, a_ ? a_ : "(null)", \
				b_ ? b_ : "(null)");                        \
			test_failed = 1;                                    \
		}                                                           \
	} while (0)

int main(int argc, char **argv)
{
	int failures = 0;

	for (int i = 0; i < tests_count; i++) {
		if (argc > 1 && strcmp(argv[1], tests_registry[i].name) != 0)
			continue;
		test_failed = 0;
		tests_registry[i].fn();
		printf("%s - %s\n", test_failed ? "not ok" : "ok",
		       tests_registry[i].name);
		failures += test_failed;
	}
	return failures ? 1 : 0;
}

#endif
