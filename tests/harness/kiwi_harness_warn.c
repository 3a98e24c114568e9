// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_harness_warn: a case that passes but raises two kernel WARNINGs.
 * Harness self-test: "make check" must fail on it, and on a declaration
 * (tests/expected-splats) that expects one of them only
 * (scripts/harness-selftest.sh).
 */
#include <kunit/test.h>
#include <linux/bug.h>

static void harness_warn(struct kunit *test)
{
	int i;

	for (i = 0; i < 2; i++)
		WARN(1, "kiwi_harness_warn: warning %d on purpose\n", i);
	KUNIT_SUCCEED(test);
}

static struct kunit_case harness_warn_cases[] = {
	KUNIT_CASE(harness_warn),
	{}
};

static struct kunit_suite harness_warn_suite = {
	.name = "kiwi_harness_warn",
	.test_cases = harness_warn_cases,
};

kunit_test_suite(harness_warn_suite);

MODULE_DESCRIPTION("kiwi harness self-test: warn");
MODULE_LICENSE("GPL");
