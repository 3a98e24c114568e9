// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_harness_kasan: a case that passes but reads one byte past a
 * kmalloc'd object, which KASAN reports.
 * Harness self-test: "make check" must fail on it (scripts/harness-selftest.sh).
 */
#include <kunit/test.h>
#include <linux/compiler.h>
#include <linux/slab.h>

static void harness_kasan(struct kunit *test)
{
	const size_t len = 40;
	char *p = kunit_kmalloc(test, len, GFP_KERNEL);
	char c;

	KUNIT_ASSERT_NOT_NULL(test, p);
	OPTIMIZER_HIDE_VAR(p);
	c = READ_ONCE(p[len]);	/* out of bounds on purpose */
	OPTIMIZER_HIDE_VAR(c);
	KUNIT_SUCCEED(test);
}

static struct kunit_case harness_kasan_cases[] = {
	KUNIT_CASE(harness_kasan),
	{}
};

static struct kunit_suite harness_kasan_suite = {
	.name = "kiwi_harness_kasan",
	.test_cases = harness_kasan_cases,
};

kunit_test_suite(harness_kasan_suite);

MODULE_DESCRIPTION("kiwi harness self-test: KASAN");
MODULE_LICENSE("GPL");
