// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_harness_fail: a case that fails an expectation.
 * Harness self-test: "make check" must fail on it (scripts/harness-selftest.sh).
 */
#include <kunit/test.h>

static void harness_fail(struct kunit *test)
{
	KUNIT_EXPECT_EQ_MSG(test, 1 + 1, 3, "this case fails on purpose");
}

static struct kunit_case harness_fail_cases[] = {
	KUNIT_CASE(harness_fail),
	{}
};

static struct kunit_suite harness_fail_suite = {
	.name = "kiwi_harness_fail",
	.test_cases = harness_fail_cases,
};

kunit_test_suite(harness_fail_suite);

MODULE_DESCRIPTION("kiwi harness self-test: fail");
MODULE_LICENSE("GPL");
