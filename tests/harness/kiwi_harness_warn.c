// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_harness_warn: a case that passes but raises a kernel WARNING.
 * Harness self-test: "make check" must fail on it (scripts/harness-selftest.sh).
 */
#include <kunit/test.h>
#include <linux/bug.h>

static void harness_warn(struct kunit *test)
{
	WARN(1, "kiwi_harness_warn: warning on purpose\n");
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
