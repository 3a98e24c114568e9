// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_rdmacm_resolve_race: the id's work runs while rdma_resolve_addr()
 * is still in its call, right after the id moved to ADDR_QUERY (a
 * removal or a netdev event kicks the work at any time). Commit 2a3a55a
 * made the query whole by then: the destination and the deadline are
 * written with the state, under the id's lock. The race point of
 * <kiwi/fault.h> runs the work there every time.
 */
#include <kunit/test.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include <kiwi/fault.h>

#include "kiwi_test.h"
#include "rdmacm_test.h"

/**
 * struct rw_window - what the id's work found in the window
 * @rt: the fixture
 * @id: the id resolving
 * @n: events recorded before rdma_resolve_addr()
 * @ran: the race point was reached with @id
 * @state: the id's state there
 * @dst: its destination there
 * @left: jiffies left until its deadline there
 * @events: events the work delivered there
 */
struct rw_window {
	struct kiwi_rt *rt;
	struct rdma_cm_id *id;
	int n;
	bool ran;
	enum kiwi_rdma_state state;
	struct sockaddr_storage dst;
	long left;
	int events;
};

/*
 * In rdma_resolve_addr(), the id in ADDR_QUERY: note what a reader of
 * the state sees with it, then kick the id's work as a netdev event
 * does (ADDR_CHANGE is not due in ADDR_QUERY: the work only runs the
 * resolution) and wait until it has run.
 */
static void rw_at_resolve(void *obj, void *data)
{
	struct rw_window *w = data;
	struct kiwi_rdma_priv *priv;
	unsigned long flags;

	if (!w || obj != w->id)
		return;
	priv = kiwi_rdma_priv(w->id);
	spin_lock_irqsave(&priv->lock, flags);
	w->state = priv->state;
	w->dst = w->id->route.addr.dst_addr;
	w->left = (long)(priv->deadline - jiffies);
	spin_unlock_irqrestore(&priv->lock, flags);
	kiwi_rdma_kick(priv, KIWI_RDMA_TODO_CHANGE);
	flush_delayed_work(&priv->work);
	w->events = kiwi_rt_count(w->rt) - w->n;
	w->ran = true;
}

static void rw_disarm(struct kunit_resource *res)
{
	kiwi_race_hook(KIWI_RACE_RESOLVE_ADDR, NULL, NULL);
}

/*
 * The id's work runs the resolution between the state change and the
 * call's return: it must find the destination and deadline the call was
 * given (before the fix: none yet, and a resolution of the zero address
 * ended in ADDR_ERROR), resolve it (ADDR_RESOLVED, status 0, lo's
 * device), and be the only resolution: the work the call queues after
 * finds nothing left to do.
 */
static void rdmacm_resolve_addr_window(struct kunit *test)
{
	int family = kiwi_test_family(test);
	struct rw_window *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	struct sockaddr_storage dst;
	struct kiwi_rt_rec r;
	struct kiwi_rt *rt;
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, w);
	rt = kiwi_rt_setup(test, true);
	w->rt = rt;
	w->id = kiwi_rt_id(rt);
	w->n = kiwi_rt_count(rt);
	kiwi_rt_addr(&dst, family, family == AF_INET ? "127.0.0.1" : "::1",
		     7490);
	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test, NULL, rw_disarm,
							 GFP_KERNEL, w));
	kiwi_race_hook(KIWI_RACE_RESOLVE_ADDR, rw_at_resolve, w);
	ret = rdma_resolve_addr(w->id, NULL, (struct sockaddr *)&dst, 5000);
	kiwi_race_hook(KIWI_RACE_RESOLVE_ADDR, NULL, NULL);
	flush_delayed_work(&kiwi_rdma_priv(w->id)->work);
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_ASSERT_TRUE_MSG(test, w->ran, "the race point was not reached");

	/* what the work saw with ADDR_QUERY */
	KUNIT_EXPECT_EQ(test, w->state, KIWI_RDMA_ADDR_QUERY);
	KUNIT_EXPECT_EQ(test, w->dst.ss_family, family);
	KUNIT_EXPECT_EQ_MSG(test, memcmp(&w->dst, &dst, sizeof(dst)), 0,
			    "not the destination asked for");
	KUNIT_EXPECT_GT_MSG(test, w->left, 0L, "the deadline had passed");
	KUNIT_EXPECT_EQ(test, w->events, 1);

	/* what it did: the resolution asked for, once */
	KUNIT_ASSERT_GE(test, kiwi_rt_count(rt), w->n + 1);
	r = kiwi_rt_rec(rt, w->n);
	KUNIT_EXPECT_PTR_EQ(test, r.id, w->id);
	KUNIT_EXPECT_EQ(test, r.event, RDMA_CM_EVENT_ADDR_RESOLVED);
	KUNIT_EXPECT_EQ(test, r.status, 0);
	KUNIT_EXPECT_EQ(test, kiwi_rt_count(rt), w->n + 1);
	KUNIT_EXPECT_EQ(test, kiwi_rt_state(w->id), KIWI_RDMA_ADDR_RESOLVED);
	KUNIT_EXPECT_PTR_EQ(test, w->id->device, &rt->m->dev);
}

static struct kunit_case rw_cases[] = {
	KUNIT_CASE_PARAM(rdmacm_resolve_addr_window, kiwi_test_family_params),
	{}
};

static struct kunit_suite rw_suite = {
	.name = "kiwi_rdmacm_resolve_race",
	.test_cases = rw_cases,
};

kunit_test_suite(rw_suite);
