/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A tiny unit-test harness: TEST(name) { ... } registers a test; CHECK*
 * record failures and carry on; main() runs every test and prints one
 * "ok - name" or "not ok - name" line each after a TAP plan ("1..N"),
 * which tests/run checks against the exit status.
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
	struct test *next;
};

/* Registered in definition order; no limit on their number. */
static struct test *tests_first, **tests_last = &tests_first;
static int test_failed;
static const char *test_skip_reason;

#define TEST(name)                                                          \
	static void test_##name(void);                                      \
	static struct test test_node_##name = { #name, test_##name, NULL }; \
	__attribute__((constructor)) static void register_##name(void)      \
	{                                                                   \
		*tests_last = &test_node_##name;                            \
		tests_last = &test_node_##name.next;                        \
	}                                                                   \
	static void test_##name(void)

/* Ends the current test as skipped; tests/run counts it apart. */
#define SKIP(reason)                                                        \
	do {                                                                \
		test_skip_reason = (reason);                                \
		return;                                                     \
	} while (0)

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

/*
 * TAP: the plan first, so that tests/run sees a binary that dies part-way
 * as one that did not finish, then one line a test.
 */
int main(int argc, char **argv)
{
	const char *only = argc > 1 ? argv[1] : NULL;
	int failures = 0, planned = 0;
	struct test *t;

	for (t = tests_first; t; t = t->next)
		planned += !only || strcmp(only, t->name) == 0;
	/* A name that matches no test (a typo) is a failure, not 1..0. */
	if (only && !planned) {
		fprintf(stderr, "%s: no test named '%s'\n", argv[0], only);
		printf("1..0\n");
		return 1;
	}
	printf("1..%d\n", planned);
	fflush(stdout);
	for (t = tests_first; t; t = t->next) {
		if (only && strcmp(only, t->name) != 0)
			continue;
		test_failed = 0;
		test_skip_reason = NULL;
		t->fn();
		if (test_skip_reason && !test_failed)
			printf("ok - %s # SKIP %s\n", t->name, test_skip_reason);
		else
			printf("%s - %s\n", test_failed ? "not ok" : "ok", t->name);
		/* A crash in the next test must not lose this line. */
		fflush(stdout);
		failures += test_failed;
	}
	return failures ? 1 : 0;
}

#endif
