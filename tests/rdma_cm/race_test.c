// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_rdmacm_race: rdma_accept() on a CONNECT_REQUEST id while another
 * CPU destroys that id, or its listener.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/in.h>
#include <linux/workqueue.h>

#include "rdmacm_test.h"

enum ra_victim { RA_CHILD, RA_LISTENER };

/**
 * struct ra_race - one race, allocated with the test
 * @work: destroys @victim on another CPU
 * @rt: the fixture
 * @victim: the id destroyed
 * @jitter: microseconds the two sides wait before going
 */
struct ra_race {
	struct work_struct work;
	struct kiwi_rt *rt;
	struct rdma_cm_id *victim;
	unsigned int jitter;
};

static void ra_destroy_work(struct work_struct *work)
{
	struct ra_race *r = container_of(work, struct ra_race, work);

	udelay(r->jitter);
	kiwi_rt_destroy(r->rt, r->victim);
}

/*
 * Inside the provider's accept, so on the accepting thread after
 * rdma_accept() took the id: the destroy starts on another CPU while
 * accept is still on its way out. (Destroying before the call starts
 * would be the caller's use after free, not a race to test.)
 */
static void ra_accept_hook(struct kiwi_mock *m, enum kiwi_mock_op op,
			   struct kiwi_cm_id *id)
{
	struct ra_race *r = m->hook_data;

	if (op != KIWI_MOCK_ACCEPT || !r)
		return;
	queue_work(system_unbound_wq, &r->work);
	udelay(r->jitter / 2);
}

static void ra_unhook(struct kunit_resource *res)
{
	struct kiwi_rt *rt = res->data;

	if (rt->m) {
		rt->m->hook = NULL;
		rt->m->hook_data = NULL;
	}
}

static const enum ra_victim ra_victims[] = { RA_CHILD, RA_LISTENER };

static void ra_desc(const enum ra_victim *v, char *desc)
{
	strscpy(desc, *v == RA_CHILD ? "the id" : "its listener",
		KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ra, ra_victims, ra_desc);

/* A CONNECT_REQUEST id with a QP; @cm: its iw_cm id. */
static struct rdma_cm_id *ra_request(struct kiwi_rt *rt, struct rdma_cm_id *l,
				     struct kiwi_cm_id **cm)
{
	struct kiwi_qp_init_attr init = { .cap = { 1, 1, 1, 1 } };
	struct rdma_cm_id *child = kiwi_rt_request(rt, l);

	init.send_cq = rt->cq;
	init.recv_cq = rt->cq;
	KUNIT_ASSERT_EQ(rt->test, rdma_create_qp(child, NULL, &init), 0);
	*cm = kiwi_rdma_priv(child)->cm;
	return child;
}

/*
 * rdma_accept() on a request while another CPU destroys the id (from
 * inside accept) or its listener (from before the call), 200 times with
 * a varying head start: accept returns 0 or an error and the id is
 * destroyed once; when the listener goes the accept is unaffected.
 * KASAN, lockdep and kmemleak judge the rest; the fixture counts ids
 * and QPs at the end.
 */
static void rdmacm_accept_vs_destroy(struct kunit *test)
{
	enum ra_victim v = *(const enum ra_victim *)test->param_value;
	struct kiwi_rt *rt = kiwi_rt_setup(test, true);
	struct rdma_conn_param p = { .responder_resources = 1,
				     .initiator_depth = 1 };
	struct ra_race *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	int i, ok = 0;

	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test, NULL, ra_unhook,
							 GFP_KERNEL, rt));
	r->rt = rt;
	INIT_WORK(&r->work, ra_destroy_work);
	rt->ret_on[RDMA_CM_EVENT_CONNECT_REQUEST] = 0;
	for (i = 0; i < 200; i++) {
		struct rdma_cm_id *l, *child;
		struct kiwi_cm_id *cm;
		unsigned long flags;
		int ret;

		spin_lock_irqsave(&rt->lock, flags);
		rt->n = 0;	/* the fixture records 32 events */
		spin_unlock_irqrestore(&rt->lock, flags);
		l = kiwi_rt_listener(rt, AF_INET, 7400);
		child = ra_request(rt, l, &cm);

		r->jitter = (i % 20) * 10;
		if (v == RA_CHILD) {
			r->victim = child;
			rt->m->hook_data = r;
			rt->m->hook = ra_accept_hook;
		} else {
			r->victim = l;
			queue_work(system_unbound_wq, &r->work);
		}
		ret = rdma_accept(child, &p);
		flush_work(&r->work);
		rt->m->hook = NULL;
		rt->m->hook_data = NULL;
		KUNIT_ASSERT_TRUE_MSG(test, ret == 0 || ret < 0, "ret %d", ret);
		ok += !ret;
		if (v == RA_CHILD) {
			/* the race destroyed it: the fixture must not again */
			KUNIT_ASSERT_FALSE(test, kiwi_rt_forget(rt, child));
			KUNIT_ASSERT_EQ(test, kiwi_rdma_live_ids(), 1);
			kiwi_rt_destroy(rt, l);
		} else {
			KUNIT_ASSERT_EQ(test, ret, 0);
			KUNIT_ASSERT_EQ(test, kiwi_rdma_live_ids(), 1);
			KUNIT_ASSERT_EQ(test, kiwi_rt_state(child),
					KIWI_RDMA_CONNECT);
			kiwi_rt_destroy(rt, child);
		}
		kiwi_mock_release(rt->m, cm);
		KUNIT_ASSERT_EQ(test, kiwi_rdma_live_ids(), 0);
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&rt->m->qps_alive), 0);
	kunit_info(test, "%d of 200 accepts returned 0", ok);
}

static struct kunit_case rdmacm_race_cases[] = {
	KUNIT_CASE_PARAM(rdmacm_accept_vs_destroy, ra_gen_params),
	{}
};

static struct kunit_suite rdmacm_race_suite = {
	.name = "kiwi_rdmacm_race",
	.test_cases = rdmacm_race_cases,
};

kunit_test_suite(rdmacm_race_suite);
