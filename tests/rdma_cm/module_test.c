// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_rdmacm_module: the front end is loaded, sound, and bound to the core.
 */
#include <kunit/test.h>
#include <linux/module.h>

#include "kiwi_test.h"

static void rdmacm_module_metadata(struct kunit *test)
{
	const struct kiwi_test_module want = { .name = "kiwi_rdmacm" };

	kiwi_test_check_module(test, &want);
}

static struct kunit_case rdmacm_module_cases[] = {
	KUNIT_CASE(rdmacm_module_metadata),
	{}
};

static struct kunit_suite rdmacm_module_suite = {
	.name = "kiwi_rdmacm_module",
	.test_cases = rdmacm_module_cases,
};

kunit_test_suite(rdmacm_module_suite);

MODULE_DESCRIPTION("KUnit: kiwi_rdmacm module and ULP names");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
