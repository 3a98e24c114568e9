// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_rdmacm_removal: the device goes while an id is in each state. The
 * id hears DEVICE_REMOVAL once (or not at all where rdma_cm.rst says so),
 * and the unregistration completes once the ULP destroyed its ids, or,
 * for ids the ULP keeps, once rdma_cm cut them loose from the device.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/in.h>
#include <linux/netdevice.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <net/net_namespace.h>

#include "verbs_util.h"
#include "rdmacm_test.h"

enum rm_state {
	RM_IDLE, RM_BOUND, RM_QUERY, RM_ADDR, RM_ROUTE, RM_LISTEN, RM_WILD,
	RM_CONNECT, RM_REQUEST, RM_ACCEPTED, RM_ESTABLISHED, RM_DISCONNECTED,
};

/**
 * struct rm_case - one row of the table
 * @name: its name
 * @st: how the id is made
 * @state: the id's rdma_cm state when the device goes
 * @told: DEVICE_REMOVAL events the id hears
 * @others: DEVICE_REMOVAL events its listener hears (one each)
 * @addr_err: if not 0, the id hears ADDR_ERROR with this status instead
 */
struct rm_case {
	const char *name;
	enum rm_state st;
	enum kiwi_rdma_state state;
	int told;
	int others;
	int addr_err;
};

static const struct rm_case rm_cases[] = {
	{ "idle", RM_IDLE, KIWI_RDMA_IDLE, 0, 0 },
	{ "address bound", RM_BOUND, KIWI_RDMA_ADDR_BOUND, 1, 0 },
	{ "address resolving", RM_QUERY, KIWI_RDMA_ADDR_QUERY, 0, 0, -ENODEV },
	{ "address resolved", RM_ADDR, KIWI_RDMA_ADDR_RESOLVED, 1, 0 },
	{ "route resolved", RM_ROUTE, KIWI_RDMA_ROUTE_RESOLVED, 1, 0 },
	{ "listening", RM_LISTEN, KIWI_RDMA_LISTEN, 1, 0 },
	{ "listening wildcard", RM_WILD, KIWI_RDMA_LISTEN, 0, 0 },
	{ "connect sent", RM_CONNECT, KIWI_RDMA_CONNECT, 1, 0 },
	{ "request pending", RM_REQUEST, KIWI_RDMA_REQUEST, 1, 1 },
	{ "accepted", RM_ACCEPTED, KIWI_RDMA_CONNECT, 1, 1 },
	{ "established", RM_ESTABLISHED, KIWI_RDMA_ESTABLISHED, 1, 0 },
	{ "disconnected", RM_DISCONNECTED, KIWI_RDMA_DISCONNECTED, 1, 0 },
};

static void rm_case_desc(const struct rm_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(rm, rm_cases, rm_case_desc);

/* Allocated apart from the test: a hung unregistration leaks, never UAFs. */
struct rm_unreg {
	struct work_struct work;
	struct kiwi_mock *m;
	struct completion done;
};

static void rm_unreg_work(struct work_struct *work)
{
	struct rm_unreg *u = container_of(work, struct rm_unreg, work);

	kiwi_mock_release_all(u->m);
	kiwi_unregister_device(&u->m->dev);
	complete_all(&u->done);	/* a case may wait for it twice */
}

/* Unregister @m on another worker; u->done tells when it returned. */
static struct rm_unreg *rm_unreg_start(struct kunit *test, struct kiwi_mock *m)
{
	struct rm_unreg *u = kzalloc(sizeof(*u), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, u);
	u->m = m;
	init_completion(&u->done);
	INIT_WORK(&u->work, rm_unreg_work);
	queue_work(system_unbound_wq, &u->work);
	return u;
}

static struct rdma_cm_id *rm_bound(struct kiwi_rt *rt, const char *ip,
				   u16 port)
{
	struct rdma_cm_id *id = kiwi_rt_id(rt);
	struct sockaddr_storage ss;

	kiwi_rt_addr(&ss, AF_INET, ip, port);
	KUNIT_ASSERT_EQ(rt->test, rdma_bind_addr(id, (struct sockaddr *)&ss),
			0);
	return id;
}

/*
 * Wait up to 2 s until the resolution's worker started resolving the
 * neighbour (it looks again until the neighbour is known). Return: it did.
 */
static bool rm_neigh_kicked(struct rdma_cm_id *id)
{
	int i;

	for (i = 0; i < 100; i++) {
		if (READ_ONCE(kiwi_rdma_priv(id)->neigh_kicked))
			return true;
		msleep(20);
	}
	return false;
}

/*
 * Address resolution waiting for ARP on kv0. The id takes kv0's device only
 * once the neighbour is known: until then it has none and is not told;
 * its resolution fails with -ENODEV when it finds kv0 without a device.
 */
static struct rdma_cm_id *rm_query(struct kiwi_rt *rt,
				   struct kiwi_mock ***slot)
{
	struct net_device *nd = dev_get_by_name(&init_net, "kv0");
	struct rdma_cm_id *id;
	struct sockaddr_storage dst;

	KUNIT_ASSERT_NOT_NULL(rt->test, nd);
	dev_put(nd);	/* the VM's fixture keeps it registered */
	*slot = kiwi_rt_mock(rt, nd, NULL);
	id = kiwi_rt_id(rt);
	kiwi_rt_addr(&dst, AF_INET, "198.18.0.77", 7300);
	KUNIT_ASSERT_EQ(rt->test, rdma_resolve_addr(id, NULL,
						    (struct sockaddr *)&dst,
						    10000), 0);
	/* the worker waits for the neighbour */
	KUNIT_ASSERT_TRUE(rt->test, rm_neigh_kicked(id));
	KUNIT_ASSERT_NULL(rt->test, READ_ONCE(id->device));
	return id;
}

static struct rdma_cm_id *rm_addr(struct kiwi_rt *rt)
{
	struct rdma_cm_id *id = kiwi_rt_id(rt);
	struct sockaddr_storage dst;

	kiwi_rt_addr(&dst, AF_INET, "127.0.0.1", 7301);
	KUNIT_ASSERT_EQ(rt->test, rdma_resolve_addr(id, NULL,
						    (struct sockaddr *)&dst,
						    1000), 0);
	KUNIT_ASSERT_TRUE(rt->test, kiwi_rt_wait(rt, 1));
	KUNIT_ASSERT_EQ(rt->test, kiwi_rt_rec(rt, 0).event,
			RDMA_CM_EVENT_ADDR_RESOLVED);
	return id;
}

static struct rdma_cm_id *rm_accepted(struct kiwi_rt *rt)
{
	struct rdma_cm_id *l = kiwi_rt_listener(rt, AF_INET, 7302);
	struct rdma_cm_id *child = kiwi_rt_request(rt, l);
	struct ib_qp_init_attr init = { KT_QP_RC, .cap = { 4, 4, 1, 1 } };
	struct rdma_conn_param p = { .responder_resources = 1,
				     .initiator_depth = 1 };

	init.send_cq = rt->cq;
	init.recv_cq = rt->cq;
	KUNIT_ASSERT_EQ(rt->test, rdma_create_qp(child, rt->pd, &init), 0);
	KUNIT_ASSERT_EQ(rt->test, rdma_accept(child, &p), 0);
	return child;
}

static struct rdma_cm_id *rm_disconnected(struct kiwi_rt *rt)
{
	struct rdma_cm_id *id = kiwi_rt_established(rt, AF_INET);
	int n = kiwi_rt_count(rt);

	KUNIT_ASSERT_EQ(rt->test, kiwi_rt_inject(rt, id, KIWI_CM_EVENT_CLOSE,
						 0, NULL), 0);
	KUNIT_ASSERT_TRUE(rt->test, kiwi_rt_wait(rt, n + 1));
	KUNIT_ASSERT_EQ(rt->test, kiwi_rt_rec(rt, n).event,
			RDMA_CM_EVENT_DISCONNECTED);
	return id;
}

/* The id in state @st; *@slot holds the device that will go. */
static struct rdma_cm_id *rm_make(struct kiwi_rt *rt, enum rm_state st,
				  struct kiwi_mock ***slot)
{
	struct rdma_cm_id *id;

	switch (st) {
	case RM_IDLE:
		return kiwi_rt_id(rt);
	case RM_BOUND:
		return rm_bound(rt, "127.0.0.1", 0);
	case RM_QUERY:
		return rm_query(rt, slot);
	case RM_ADDR:
		return rm_addr(rt);
	case RM_ROUTE:
		return kiwi_rt_resolved(rt, AF_INET);
	case RM_LISTEN:
		return kiwi_rt_listener(rt, AF_INET, 7303);
	case RM_WILD:
		id = rm_bound(rt, "0.0.0.0", 7304);
		KUNIT_ASSERT_EQ(rt->test, rdma_listen(id, 0), 0);
		return id;
	case RM_CONNECT:
		id = kiwi_rt_resolved(rt, AF_INET);
		KUNIT_ASSERT_EQ(rt->test,
				rdma_connect(id, &(struct rdma_conn_param){}),
				0);
		return id;
	case RM_REQUEST:
		return kiwi_rt_request(rt, kiwi_rt_listener(rt, AF_INET,
							    7305));
	case RM_ACCEPTED:
		return rm_accepted(rt);
	case RM_ESTABLISHED:
		return kiwi_rt_established(rt, AF_INET);
	case RM_DISCONNECTED:
		return rm_disconnected(rt);
	}
	return NULL;
}

/* DEVICE_REMOVAL events since @from for @id (any id if NULL); @dup: twice */
static int rm_told(struct kiwi_rt *rt, int from, struct rdma_cm_id *id,
		   bool *dup)
{
	int i, j, told = 0;

	for (i = from; i < kiwi_rt_count(rt); i++) {
		struct kiwi_rt_rec r = kiwi_rt_rec(rt, i);

		if (r.event != RDMA_CM_EVENT_DEVICE_REMOVAL)
			continue;
		if (!id || r.id == id)
			told++;
		for (j = from; j < i; j++)
			if (kiwi_rt_rec(rt, j).id == r.id &&
			    kiwi_rt_rec(rt, j).event == r.event)
				*dup = true;
	}
	return told;
}

/*
 * The device goes with the id in the row's state: the id hears what the
 * row says, no id hears it twice, and the unregistration, which waits for
 * the ULP, completes once the ULP destroyed its ids (and its CQ).
 */
static void rdmacm_removal_in_state(struct kunit *test)
{
	const struct rm_case *c = test->param_value;
	struct kiwi_rt *rt = kiwi_rt_setup(test, true);
	struct kiwi_mock **slot = &rt->m, *m;
	struct rdma_cm_id *id;
	struct rm_unreg *u;
	bool dup = false;
	int n, want, extra;

	id = rm_make(rt, c->st, &slot);
	m = *slot;
	KUNIT_ASSERT_EQ(test, kiwi_rt_state(id), c->state);
	n = kiwi_rt_count(rt);
	want = c->told + c->others;
	extra = !!c->addr_err;
	u = rm_unreg_start(test, m);
	if (want + extra)
		KUNIT_EXPECT_TRUE(test, kiwi_rt_wait(rt, n + want + extra));
	msleep(100);	/* a second event would come now */
	KUNIT_EXPECT_EQ(test, rm_told(rt, n, id, &dup), c->told);
	KUNIT_EXPECT_EQ(test, rm_told(rt, n, NULL, &dup), want);
	KUNIT_EXPECT_FALSE(test, dup);
	KUNIT_EXPECT_EQ(test, kiwi_rt_count(rt), n + want + extra);
	if (extra) {
		KUNIT_EXPECT_EQ(test, kiwi_rt_rec(rt, n).event,
				RDMA_CM_EVENT_ADDR_ERROR);
		KUNIT_EXPECT_EQ(test, kiwi_rt_rec(rt, n).status, c->addr_err);
	}
	while (rt->nowned)
		kiwi_rt_destroy(rt, rt->owned[0]);
	if (slot == &rt->m) {
		kiwi_destroy_cq(rt->cq);
		kiwi_dealloc_pd(rt->pd);
	}
	*slot = NULL;	/* a hang leaks the mock rather than free it twice */
	KUNIT_ASSERT_TRUE_MSG(test, wait_for_completion_timeout(&u->done,
								30 * HZ),
			      "unregistration hangs");
	KUNIT_EXPECT_EQ(test, atomic_read(&m->qps_alive), 0);
	kfree(u);
	kfree(m);
	KUNIT_EXPECT_EQ(test, kiwi_rdma_live_ids(), 0);
}

static void rm_restore(struct kunit *test)
{
	kiwi_rdma_set_removal_grace(10000);
	kiwi_device_set_drain_timeout(60);
}

/*
 * The ULP hears DEVICE_REMOVAL and keeps its id (as a ULP that ignores
 * the event does); it destroys its QPs and CQ, so that only the id holds
 * the device. The unregistration still ends soon after removal_grace_ms:
 * the id was cut loose (REMOVED, no device, every call refused) and is
 * destroyed later as any other.
 */
static void rdmacm_removal_kept(struct kunit *test)
{
	const struct rm_case *c = test->param_value;
	struct kiwi_rt *rt = kiwi_rt_setup(test, true);
	struct kiwi_mock **slot = &rt->m, *m;
	struct rdma_cm_id *id;
	struct rm_unreg *u;
	unsigned long start;
	bool done;
	int i, n;

	kiwi_rdma_set_removal_grace(200);
	kiwi_device_set_drain_timeout(30);
	id = rm_make(rt, c->st, &slot);
	m = *slot;
	n = kiwi_rt_count(rt);
	for (i = 0; i < rt->nowned; i++)
		if (rt->owned[i]->qp)
			rdma_destroy_qp(rt->owned[i]);
	if (slot == &rt->m) {
		kiwi_destroy_cq(rt->cq);
		kiwi_dealloc_pd(rt->pd);
	}
	*slot = NULL;	/* a hang leaks the mock rather than free it twice */
	start = jiffies;
	u = rm_unreg_start(test, m);
	/* well before the core's 30 s: nothing is left for it to orphan */
	done = wait_for_completion_timeout(&u->done, 5 * HZ);
	KUNIT_EXPECT_TRUE_MSG(test, done, "unregistration waits for the kept id");
	if (done)
		kunit_info(test, "unregistered in %u ms",
			   jiffies_to_msecs(jiffies - start));
	KUNIT_EXPECT_EQ(test, rm_told(rt, n, id, &(bool){ false }), c->told);
	if (c->told) {
		KUNIT_EXPECT_EQ(test, kiwi_rt_state(id), KIWI_RDMA_REMOVED);
		KUNIT_EXPECT_NULL(test, READ_ONCE(id->device));
		KUNIT_EXPECT_EQ(test, rdma_disconnect(id), -EINVAL);
		KUNIT_EXPECT_EQ(test, rdma_listen(id, 0), -EINVAL);
	} else {
		KUNIT_EXPECT_NE(test, kiwi_rt_state(id), KIWI_RDMA_REMOVED);
	}
	while (rt->nowned)
		kiwi_rt_destroy(rt, rt->owned[0]);
	KUNIT_ASSERT_TRUE_MSG(test, wait_for_completion_timeout(&u->done,
								30 * HZ),
			      "unregistration hangs");
	KUNIT_EXPECT_EQ(test, atomic_read(&m->qps_alive), 0);
	kfree(u);
	kfree(m);
	KUNIT_EXPECT_EQ(test, kiwi_rdma_live_ids(), 0);
}

/* DEVICE_REMOVAL: slower than the grace, then rdma_cm is to destroy it. */
static int rm_slow_hook(struct kiwi_rt *rt, struct rdma_cm_id *id,
			struct rdma_cm_event *ev)
{
	if (ev->event != RDMA_CM_EVENT_DEVICE_REMOVAL)
		return 0;
	msleep(500);
	return 1;
}

/*
 * A listener's handler takes longer than removal_grace_ms over
 * DEVICE_REMOVAL and then asks for the id's teardown, while rdma_cm is
 * cutting the id loose (and waits for that handler): the cut runs the
 * teardown once the handler is done, and the unregistration ends.
 */
static void rdmacm_removal_slow_handler(struct kunit *test)
{
	struct kiwi_rt *rt = kiwi_rt_setup(test, true);
	struct kiwi_mock *m;
	struct rdma_cm_id *l;
	struct rm_unreg *u;
	int i;

	kiwi_rdma_set_removal_grace(100);
	l = kiwi_rt_listener(rt, AF_INET, 7306);
	KUNIT_ASSERT_TRUE(test, kiwi_rt_forget(rt, l));
	rt->hook = rm_slow_hook;
	m = rt->m;
	kiwi_destroy_cq(rt->cq);
	kiwi_dealloc_pd(rt->pd);
	rt->m = NULL;	/* a hang leaks the mock rather than free it twice */
	u = rm_unreg_start(test, m);
	KUNIT_ASSERT_TRUE_MSG(test, wait_for_completion_timeout(&u->done,
								10 * HZ),
			      "unregistration hangs");
	for (i = 0; i < 50 && kiwi_rdma_live_ids(); i++)
		msleep(20);
	KUNIT_EXPECT_EQ(test, kiwi_rdma_live_ids(), 0);
	kfree(u);
	kfree(m);
}

static struct kunit_case rdmacm_removal_cases[] = {
	KUNIT_CASE_PARAM(rdmacm_removal_in_state, rm_gen_params),
	KUNIT_CASE_PARAM(rdmacm_removal_kept, rm_gen_params),
	KUNIT_CASE(rdmacm_removal_slow_handler),
	{}
};

static struct kunit_suite rdmacm_removal_suite = {
	.name = "kiwi_rdmacm_removal",
	.exit = rm_restore,
	.test_cases = rdmacm_removal_cases,
};

kunit_test_suite(rdmacm_removal_suite);
