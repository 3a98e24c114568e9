// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_harness_leak: a case that passes but leaks a kmalloc.
 * Harness self-test: "make check" must fail on it (scripts/harness-selftest.sh).
 */
#include <kunit/test.h>
#include <linux/compiler.h>
#include <linux/slab.h>

static void harness_leak(struct kunit *test)
{
	char *p = kmalloc(64, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	strscpy(p, "kiwi_harness_leak: leaked on purpose", 64);
	OPTIMIZER_HIDE_VAR(p);
	p = NULL;
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
