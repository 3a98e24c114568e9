// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_harness_hang: a case that never finishes.
 * Harness self-test: "make check" must fail on it (scripts/harness-selftest.sh).
 */
#include <kunit/test.h>
#include <linux/delay.h>

static void harness_hang(struct kunit *test)
{
	for (;;)
		msleep(1000);
}

static struct kunit_case harness_hang_cases[] = {
	KUNIT_CASE(harness_hang),
	{}
};

static struct kunit_suite harness_hang_suite = {
	.name = "kiwi_harness_hang",
	.test_cases = harness_hang_cases,
};

kunit_test_suite(harness_hang_suite);

MODULE_DESCRIPTION("kiwi harness self-test: hang");
MODULE_LICENSE("GPL");
