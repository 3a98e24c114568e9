// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_harness_leak: a case that passes but leaks a kmalloc.
 * Harness self-test: "make check" must fail on it (scripts/harness-selftest.sh).
 */
#include <kunit/test.h>
#include <linux/compiler.h>
#include <linux/slab.h>

/*
 * Several objects, because a stale copy of the last pointer may survive on a
 * stack that kmemleak still scans (a cached thread stack, say) and hide it.
 */
#define HARNESS_LEAKS 8

static void harness_leak(struct kunit *test)
{
	int i;

	for (i = 0; i < HARNESS_LEAKS; i++) {
		char *p = kmalloc(64, GFP_KERNEL);

		KUNIT_ASSERT_NOT_NULL(test, p);
		snprintf(p, 64, "kiwi_harness_leak: leaked on purpose (%d)", i);
		OPTIMIZER_HIDE_VAR(p);
	}
}

static struct kunit_case harness_leak_cases[] = {
	KUNIT_CASE(harness_leak),
	{}
};

static struct kunit_suite harness_leak_suite = {
	.name = "kiwi_harness_leak",
	.test_cases = harness_leak_cases,
};

kunit_test_suite(harness_leak_suite);

MODULE_DESCRIPTION("kiwi harness self-test: leak");
MODULE_LICENSE("GPL");
