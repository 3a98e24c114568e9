// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_harness_rdmacm_leak: a case that passes but leaves an rdma_cm id
 * behind, as a ULP that forgets rdma_destroy_id() would. When
 * kiwi_rdmacm unloads after this module, it must name the id it tears
 * down. Harness self-test: "make check" must fail on it
 * (scripts/harness-selftest.sh).
 */
#include <kunit/test.h>
#include <linux/err.h>
#include <net/net_namespace.h>
#include <rdma/rdma_cm.h>

/* Never called: the id gets no event before it is reaped. */
static int harness_rdmacm_handler(struct rdma_cm_id *id,
				  struct rdma_cm_event *ev)
{
	return 0;
}

static void harness_rdmacm_leak(struct kunit *test)
{
	struct rdma_cm_id *id;

	id = rdma_create_id(&init_net, harness_rdmacm_handler, NULL,
			    RDMA_PS_TCP, IB_QPT_RC);
	KUNIT_ASSERT_FALSE(test, IS_ERR(id));
}

static struct kunit_case harness_rdmacm_leak_cases[] = {
	KUNIT_CASE(harness_rdmacm_leak),
	{}
};

static struct kunit_suite harness_rdmacm_leak_suite = {
	.name = "kiwi_harness_rdmacm_leak",
	.test_cases = harness_rdmacm_leak_cases,
};

kunit_test_suite(harness_rdmacm_leak_suite);

MODULE_DESCRIPTION("kiwi harness self-test: an rdma_cm id left behind");
MODULE_LICENSE("GPL");
