// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_iwcm_linger: destroying an id whose graceful close the owner
 * started finishes that close in the background (LINGER) instead of
 * aborting it; the QP stays pinned until the provider's CLOSE, the
 * timeout (abort), or the device's unregistration (abort).
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/workqueue.h>

#include "iwcm_test.h"

#define M(op) KIWI_MOCK_##op

/* How the connection was closing when its owner destroyed it. */
struct lg_case {
	const char *name;
	bool peer_first;	/* the peer's DISCONNECT came first */
	int ours;		/* our disconnect(): -1 none, or the mode */
	bool lingers;
};

static const struct lg_case lg_cases[] = {
	{ "ours", false, KIWI_CM_DISCONNECT_GRACEFUL, true },
	{ "peer's then ours", true, KIWI_CM_DISCONNECT_GRACEFUL, true },
	{ "peer's only", true, -1, false },
	{ "ours abortive", false, KIWI_CM_DISCONNECT_ABORTIVE, false },
};

static void lg_desc(const struct lg_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(lg, lg_cases, lg_desc);

static void lg_restore(struct kunit_resource *res)
{
	kiwi_cm_set_linger_ms((unsigned long)res->data);
}

/* Set linger_ms for the rest of the test. */
static void lg_set_linger(struct kunit *test, unsigned int ms)
{
	unsigned long old = kiwi_cm_set_linger_ms(ms);

	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test, NULL,
							 lg_restore,
							 GFP_KERNEL,
							 (void *)old));
}

/* Wait (at most 5 s) until @n ids are alive: the last put may be a worker's. */
static bool lg_wait_live(int n)
{
	int i;

	for (i = 0; i < 250 && kiwi_cm_live_ids() != n; i++)
		msleep(20);
	return kiwi_cm_live_ids() == n;
}

/* An established id, closed as @c says, then destroyed by its owner. */
static struct kiwi_cm_id *lg_destroyed(struct kiwi_ulp *u,
				       const struct lg_case *c)
{
	struct kiwi_cm_id *id = kiwi_ulp_established(u);
	int n;

	if (c->peer_first) {
		n = kiwi_ulp_count(u);
		KUNIT_ASSERT_EQ(u->test,
				kiwi_ulp_ev(u, id, KIWI_CM_EVENT_DISCONNECT, 0),
				0);
		KUNIT_ASSERT_TRUE(u->test, kiwi_ulp_wait(u, n + 1));
	}
	if (c->ours >= 0)
		KUNIT_ASSERT_EQ(u->test, kiwi_cm_disconnect(id, c->ours), 0);
	kiwi_ulp_destroy(u, id);	/* the mock's endpoint still pins it */
	return id;
}

/*
 * Destroy in each way of closing: only after our own graceful
 * disconnect() does the id linger, with no abort (the provider saw
 * CLOSING and nothing after it) and the QP still pinned; the CLOSE that
 * ends the close (or comes after an abort) is taken without a violation,
 * unpins the QP and is never delivered; the provider's last reference
 * then frees the id.
 */
static void linger_destroy_while_closing(struct kunit *test)
{
	const struct lg_case *c = test->param_value;
	struct kiwi_ulp *u = kiwi_ulp_setup(test);
	struct kiwi_cm_id *id;
	int modifies, rem_refs, n, live;

	lg_set_linger(test, 60000);
	id = lg_destroyed(u, c);
	n = kiwi_ulp_count(u);
	modifies = kiwi_mock_calls(u->m, M(MODIFY_QP));
	rem_refs = kiwi_mock_calls(u->m, M(REM_REF));
	if (c->lingers) {
		KUNIT_EXPECT_STREQ(test, kiwi_cm_state_name(kiwi_cm_id_state(id)),
				   "LINGER");
		KUNIT_EXPECT_EQ(test, u->m->last_qp_state, IB_QPS_SQD);
		/* the peer's half of the close, after ours */
		if (!c->peer_first)
			KUNIT_EXPECT_EQ(test,
					kiwi_ulp_ev(u, id,
						    KIWI_CM_EVENT_DISCONNECT, 0),
					0);
		msleep(20);
		KUNIT_EXPECT_EQ(test, kiwi_mock_calls(u->m, M(REM_REF)),
				rem_refs);
	} else {
		KUNIT_EXPECT_STREQ(test, kiwi_cm_state_name(kiwi_cm_id_state(id)),
				   "DESTROYING");
		KUNIT_EXPECT_EQ(test, u->m->last_qp_state, IB_QPS_ERR);
	}

	KUNIT_EXPECT_EQ(test, kiwi_ulp_ev(u, id, KIWI_CM_EVENT_CLOSE, 0), 0);
	if (c->lingers)
		KUNIT_EXPECT_TRUE(test, kiwi_t_wait_calls(u->m, M(REM_REF),
							  rem_refs + 1));
	KUNIT_EXPECT_TRUE(test,
			  kiwi_t_wait_state(id, KIWI_CM_STATE_DESTROYING));
	KUNIT_EXPECT_EQ(test, kiwi_mock_calls(u->m, M(MODIFY_QP)), modifies);
	KUNIT_EXPECT_EQ(test, u->m->last_qp_state,
			c->lingers ? IB_QPS_SQD : IB_QPS_ERR);
	KUNIT_EXPECT_EQ(test, kiwi_ulp_cnt(u, KIWI_DEV_CNT_VIOLATIONS), 0);
	KUNIT_EXPECT_EQ(test, kiwi_ulp_count(u), n);

	live = kiwi_cm_live_ids();
	KUNIT_EXPECT_TRUE(test, kiwi_mock_release(u->m, id));
	KUNIT_EXPECT_TRUE(test, lg_wait_live(live - 1));
	KUNIT_EXPECT_EQ(test, kiwi_ulp_count(u), n);
}

/*
 * No CLOSE within linger_ms: the core aborts (QP to ERROR) and unpins the
 * QP; the CLOSE the abort brings is absorbed.
 */
static void linger_timeout_aborts(struct kunit *test)
{
	struct kiwi_ulp *u = kiwi_ulp_setup(test);
	struct kiwi_cm_id *id;
	int modifies, rem_refs, n;

	lg_set_linger(test, 1000);
	id = lg_destroyed(u, &lg_cases[0]);
	n = kiwi_ulp_count(u);
	modifies = kiwi_mock_calls(u->m, M(MODIFY_QP));
	rem_refs = kiwi_mock_calls(u->m, M(REM_REF));
	KUNIT_EXPECT_EQ(test, kiwi_cm_id_state(id), KIWI_CM_STATE_LINGER);

	KUNIT_EXPECT_TRUE(test, kiwi_t_wait_calls(u->m, M(MODIFY_QP),
						  modifies + 1));
	KUNIT_EXPECT_EQ(test, u->m->last_qp_state, IB_QPS_ERR);
	KUNIT_EXPECT_TRUE(test, kiwi_t_wait_calls(u->m, M(REM_REF),
						  rem_refs + 1));
	KUNIT_EXPECT_EQ(test, kiwi_cm_id_state(id), KIWI_CM_STATE_DESTROYING);
	KUNIT_EXPECT_EQ(test,
			kiwi_ulp_ev(u, id, KIWI_CM_EVENT_CLOSE, -ECONNABORTED),
			0);
	KUNIT_EXPECT_EQ(test, kiwi_ulp_cnt(u, KIWI_DEV_CNT_VIOLATIONS), 0);
	KUNIT_EXPECT_EQ(test, kiwi_ulp_count(u), n);
}

struct lg_unregister {
	struct work_struct work;
	struct ib_device *dev;
	struct completion done;
};

static void lg_unregister_fn(struct work_struct *work)
{
	struct lg_unregister *au = container_of(work, struct lg_unregister,
						work);

	kiwi_unregister_device(au->dev);
	complete(&au->done);
}

/*
 * Unregistering the device aborts a background close at once rather than
 * wait linger_ms (60 s here): the QP goes to ERROR and is unpinned, and
 * unregistration completes once the provider drops its endpoint.
 */
static void linger_device_removal_aborts(struct kunit *test)
{
	struct kiwi_ulp *u = kiwi_ulp_setup(test);
	struct kiwi_mock *m = u->m;
	struct lg_unregister au;
	struct kiwi_cm_id *id;
	int modifies, n;

	lg_set_linger(test, 60000);
	id = lg_destroyed(u, &lg_cases[0]);
	n = kiwi_ulp_count(u);
	modifies = kiwi_mock_calls(m, M(MODIFY_QP));
	KUNIT_EXPECT_EQ(test, kiwi_cm_id_state(id), KIWI_CM_STATE_LINGER);

	INIT_WORK_ONSTACK(&au.work, lg_unregister_fn);
	init_completion(&au.done);
	au.dev = u->dev;
	u->m = NULL;	/* the test unregisters, not the fixture */
	queue_work(system_unbound_wq, &au.work);
	KUNIT_EXPECT_TRUE(test, kiwi_t_wait_calls(m, M(MODIFY_QP),
						  modifies + 1));
	KUNIT_EXPECT_EQ(test, m->last_qp_state, IB_QPS_ERR);
	KUNIT_EXPECT_EQ(test, kiwi_cm_id_state(id), KIWI_CM_STATE_DESTROYING);
	KUNIT_EXPECT_FALSE(test, completion_done(&au.done));

	while (u->nqps)
		kiwi_destroy_qp(u->qps[--u->nqps]);
	kiwi_destroy_cq(u->cq);
	kiwi_dealloc_pd(u->pd);
	kiwi_mock_release_all(m);
	KUNIT_EXPECT_TRUE(test, wait_for_completion_timeout(&au.done, 5 * HZ));
	flush_work(&au.work);
	destroy_work_on_stack(&au.work);
	KUNIT_EXPECT_EQ(test, atomic_read(&m->qps_alive), 0);
	KUNIT_EXPECT_EQ(test, kiwi_cm_live_ids(), u->live_ids);
	KUNIT_EXPECT_EQ(test, kiwi_ulp_count(u), n);
	kfree(m);
}

static struct kunit_case linger_cases[] = {
	KUNIT_CASE_PARAM(linger_destroy_while_closing, lg_gen_params),
	KUNIT_CASE(linger_timeout_aborts),
	KUNIT_CASE(linger_device_removal_aborts),
	{}
};

static struct kunit_suite linger_suite = {
	.name = "kiwi_iwcm_linger",
	.test_cases = linger_cases,
};

kunit_test_suite(linger_suite);
