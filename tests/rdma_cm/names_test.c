// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_rdmacm_names: the renaming header turns every ULP-facing rdma_* name
 * into its kiwi_-prefixed symbol, so kiwi can load beside Linux's rdma_cm.
 */
#include <kunit/test.h>
#include <linux/stringify.h>

#include <rdma/rdma_cm.h>

struct name_case {
	const char *ulp_name;
	const char *symbol;
};

#define NAME_CASE(n) { #n, __stringify(n) }

static const struct name_case name_cases[] = {
	NAME_CASE(rdma_create_id),
	NAME_CASE(rdma_destroy_id),
	NAME_CASE(rdma_bind_addr),
	NAME_CASE(rdma_resolve_addr),
	NAME_CASE(rdma_resolve_route),
	NAME_CASE(rdma_listen),
	NAME_CASE(rdma_connect),
	NAME_CASE(rdma_connect_locked),
	NAME_CASE(rdma_accept),
	NAME_CASE(rdma_reject),
	NAME_CASE(rdma_disconnect),
	NAME_CASE(rdma_create_qp),
	NAME_CASE(rdma_destroy_qp),
	NAME_CASE(rdma_init_qp_attr),
	NAME_CASE(rdma_set_service_type),
	NAME_CASE(rdma_set_option),
	NAME_CASE(rdma_event_msg),
	NAME_CASE(rdma_reject_msg),
	NAME_CASE(rdma_consumer_reject_data),
};

static void name_case_desc(const struct name_case *c, char *desc)
{
	strscpy(desc, c->ulp_name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(name, name_cases, name_case_desc);

static void rdmacm_name_is_prefixed(struct kunit *test)
{
	const struct name_case *c = test->param_value;

	KUNIT_EXPECT_TRUE_MSG(test, strncmp(c->symbol, "kiwi_", 5) == 0,
			      "%s compiles to %s", c->ulp_name, c->symbol);
	KUNIT_EXPECT_STREQ(test, c->symbol + 5, c->ulp_name);
}

static struct kunit_case rdmacm_names_cases[] = {
	KUNIT_CASE_PARAM(rdmacm_name_is_prefixed, name_gen_params),
	{}
};

static struct kunit_suite rdmacm_names_suite = {
	.name = "kiwi_rdmacm_names",
	.test_cases = rdmacm_names_cases,
};

kunit_test_suite(rdmacm_names_suite);
