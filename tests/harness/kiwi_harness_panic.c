// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_harness_panic: a case that panics the kernel. The VM stops at once
 * (panic=-1, QEMU's -no-reboot).
 * Harness self-test: "make check" must fail on it (scripts/harness-selftest.sh).
 */
#include <kunit/test.h>
#include <linux/panic.h>

static void harness_panic(struct kunit *test)
{
	panic("kiwi_harness_panic: panic on purpose\n");
}

static struct kunit_case harness_panic_cases[] = {
	KUNIT_CASE(harness_panic),
	{}
};

static struct kunit_suite harness_panic_suite = {
	.name = "kiwi_harness_panic",
	.test_cases = harness_panic_cases,
};

kunit_test_suite(harness_panic_suite);

MODULE_DESCRIPTION("kiwi harness self-test: panic");
MODULE_LICENSE("GPL");
