// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_iwcm_fault: fail every allocation site of the core once, in turn,
 * during a scenario that reaches all of them (ids, children, private data
 * of requests and replies, from process and atomic context), and show that
 * nothing leaks and nothing hangs.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/module.h>

#include <kiwi/iw_cm.h>
#include <kiwi/provider.h>

#include "iwcm_test.h"

/* Every step tolerates an injected failure and skips what depends on it. */
static void fault_scenario(struct kiwi_ulp *u, u32 qpn)
{
	struct kiwi_cm_event ev = { .private_data = "pd",
				    .private_data_len = 2 };
	struct kiwi_conn_param p = { .qpn = qpn };
	struct kiwi_cm_id *l, *a;
	int n;

	l = kiwi_cm_create_id(u->dev, kiwi_ulp_handler, u);
	if (!IS_ERR(l)) {
		kiwi_ulp_own(u, l);
		if (!kiwi_cm_listen(l, 0)) {
			n = kiwi_ulp_count(u);
			ev.event = KIWI_CM_EVENT_CONNECT_REQUEST;
			if (!kiwi_mock_inject(u->m, l, &ev, KIWI_MOCK_SOFTIRQ))
				kiwi_ulp_wait(u, n + 1);
		}
	}
	a = kiwi_cm_create_id(u->dev, kiwi_ulp_handler, u);
	if (!IS_ERR(a)) {
		kiwi_ulp_own(u, a);
		if (!kiwi_cm_connect(a, &p)) {
			ev.event = KIWI_CM_EVENT_CONNECT_REPLY;
			kiwi_mock_inject(u->m, a, &ev, KIWI_MOCK_HARDIRQ);
			kiwi_cm_id_flush(a);
		}
	}
	while (u->nowned)
		kiwi_ulp_destroy(u, u->owned[0]);
	kiwi_mock_release_all(u->m);
}

static bool wait_live_ids(int want)
{
	int i;

	for (i = 0; i < 250 && kiwi_cm_live_ids() != want; i++)
		msleep(20);
	return kiwi_cm_live_ids() == want;
}

static void fault_every_site_once(struct kunit *test)
{
	struct kiwi_ulp *u = kiwi_ulp_setup(test);
	u32 qpn = kiwi_ulp_qp(u);
	int base = kiwi_cm_live_ids();
	int nth, left = 0;

	for (nth = 1; nth < 32; nth++) {
		kiwi_fault_fail_nth(nth);
		fault_scenario(u, qpn);
		left = kiwi_fault_remaining();
		kiwi_fault_fail_nth(0);
		KUNIT_EXPECT_TRUE_MSG(test, wait_live_ids(base),
				      "ids leaked when failing site %d", nth);
		KUNIT_EXPECT_EQ(test, kiwi_mock_calls(u->m, KIWI_MOCK_REM_REF),
				kiwi_mock_calls(u->m, KIWI_MOCK_ADD_REF));
		if (left)
			break; /* the scenario has fewer sites: done */
	}
	/*
	 * ids, the child, its private data, the reply's private data, and
	 * the provider ops listen and connect
	 */
	KUNIT_EXPECT_GE(test, nth, 7);
	KUNIT_EXPECT_GT(test, left, 0);
	KUNIT_EXPECT_GT(test, kiwi_ulp_cnt(u, KIWI_DEV_CNT_ALLOC_DROPS), 0);
}

static struct kunit_case fault_cases[] = {
	KUNIT_CASE(fault_every_site_once),
	{}
};

static struct kunit_suite fault_suite = {
	.name = "kiwi_iwcm_fault",
	.test_cases = fault_cases,
};

kunit_test_suite(fault_suite);
