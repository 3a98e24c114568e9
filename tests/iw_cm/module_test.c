// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_iwcm_module: the core module is loaded, sound, depended on by the
 * front end and the software RNIC, and refuses callers built for another ABI.
 */
#include <kunit/test.h>
#include <linux/module.h>

#include <kiwi/iw_cm.h>

#include "kiwi_test.h"

static const char *const iwcm_holders[] = {
	"kiwi_rdmacm", "kiwi_softiw", "kiwi_testlib", NULL
};

static void iwcm_module_metadata(struct kunit *test)
{
	const struct kiwi_test_module want = {
		.name = "kiwi_iwcm",
		.holders = iwcm_holders,
	};

	kiwi_test_check_module(test, &want);
}

struct abi_case {
	unsigned int abi;
	int ret;
};

static const struct abi_case abi_cases[] = {
	{ KIWI_ABI_VERSION, 0 },
	{ KIWI_ABI_VERSION + 1, -EPROTO },
	{ KIWI_ABI_VERSION - 1, -EPROTO },
	{ ~0U, -EPROTO },
};

static void abi_case_desc(const struct abi_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "abi %u", c->abi);
}

KUNIT_ARRAY_PARAM(abi, abi_cases, abi_case_desc);

static void iwcm_abi_check(struct kunit *test)
{
	const struct abi_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, kiwi_iwcm_abi_check(c->abi), c->ret);
}

static struct kunit_case iwcm_module_cases[] = {
	KUNIT_CASE(iwcm_module_metadata),
	KUNIT_CASE_PARAM(iwcm_abi_check, abi_gen_params),
	{}
};

static struct kunit_suite iwcm_module_suite = {
	.name = "kiwi_iwcm_module",
	.test_cases = iwcm_module_cases,
};

kunit_test_suite(iwcm_module_suite);

MODULE_DESCRIPTION("KUnit: kiwi_iwcm module");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
