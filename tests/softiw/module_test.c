// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_softiw_module: the software RNIC is loaded, sound, and bound to the
 * core.
 */
#include <kunit/test.h>
#include <linux/module.h>

#include "kiwi_test.h"

static void softiw_module_metadata(struct kunit *test)
{
	const struct kiwi_test_module want = { .name = "kiwi_softiw" };

	kiwi_test_check_module(test, &want);
}

static struct kunit_case softiw_module_cases[] = {
	KUNIT_CASE(softiw_module_metadata),
	{}
};

static struct kunit_suite softiw_module_suite = {
	.name = "kiwi_softiw_module",
	.test_cases = softiw_module_cases,
};

kunit_test_suite(softiw_module_suite);

MODULE_DESCRIPTION("KUnit: kiwi_softiw module");
MODULE_LICENSE("GPL");
