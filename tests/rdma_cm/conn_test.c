// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_rdmacm_conn: connections over the mock RNIC bound to lo: every
 * connect outcome, accept and reject, disconnect, each call in each
 * state, destroy from the handler, and device removal with ids in every
 * state.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/workqueue.h>
#include <net/net_namespace.h>

#include "verbs_util.h"
#include "rdmacm_test.h"

struct reply_case {
	const char *name;
	int status;
	enum rdma_cm_event_type want;
	int want_status;
};

static const struct reply_case reply_cases[] = {
	{ "accepted", 0, RDMA_CM_EVENT_ESTABLISHED, 0 },
	{ "refused", -ECONNREFUSED, RDMA_CM_EVENT_REJECTED, -ECONNREFUSED },
	{ "reset", -ECONNRESET, RDMA_CM_EVENT_REJECTED, -ECONNREFUSED },
	{ "timed out", -ETIMEDOUT, RDMA_CM_EVENT_UNREACHABLE, -ETIMEDOUT },
	{ "EIO", -EIO, RDMA_CM_EVENT_CONNECT_ERROR, -EIO },
};

static void reply_case_desc(const struct reply_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(reply, reply_cases, reply_case_desc);

/* Ids destroyed after their handler returned go a moment later. */
static bool rt_wait_live(int n)
{
	int i;

	for (i = 0; i < 250 && kiwi_rdma_live_ids() != n; i++)
		msleep(20);
	return kiwi_rdma_live_ids() == n;
}

static u8 rt_reject_len;
static u8 rt_reject_byte;

static int rt_reject_hook(struct kiwi_rt *rt, struct rdma_cm_id *id,
			  struct rdma_cm_event *ev)
{
	const u8 *data = rdma_consumer_reject_data(id, ev, &rt_reject_len);

	rt_reject_byte = data ? data[0] : 0;
	return 0;
}

/* One status per outcome, whatever the provider said; reject data shown. */
static void rdmacm_connect_outcome(struct kunit *test)
{
	const struct reply_case *c = test->param_value;
	struct kiwi_rt *rt = kiwi_rt_setup(test, true);
	struct rdma_cm_id *id = kiwi_rt_resolved(rt, AF_INET);
	struct rdma_conn_param p = { .responder_resources = 7,
				     .initiator_depth = 9,
				     .private_data = "abc",
				     .private_data_len = 3 };
	struct kiwi_rt_rec r;

	rt->hook = rt_reject_hook;
	rt_reject_len = 0;
	KUNIT_ASSERT_EQ(test, rdma_connect(id, &p), 0);
	KUNIT_EXPECT_EQ(test, rt->m->last_ird, 7);
	KUNIT_EXPECT_EQ(test, rt->m->last_ord, 9);
	KUNIT_EXPECT_EQ(test, rt->m->last_pdata[0], 'a');
	KUNIT_EXPECT_EQ(test, rdma_connect(id, &p), -EINVAL);
	KUNIT_ASSERT_EQ(test, kiwi_rt_inject(rt, id, KIWI_CM_EVENT_CONNECT_REPLY,
					     c->status, "no"), 0);
	KUNIT_ASSERT_TRUE(test, kiwi_rt_wait(rt, 3));
	r = kiwi_rt_rec(rt, 2);
	KUNIT_EXPECT_EQ(test, r.event, c->want);
	KUNIT_EXPECT_EQ(test, r.status, c->want_status);
	if (c->want == RDMA_CM_EVENT_REJECTED) {
		KUNIT_EXPECT_EQ(test, rt_reject_len, 2);
		KUNIT_EXPECT_EQ(test, rt_reject_byte, 'n');
	} else {
		KUNIT_EXPECT_EQ(test, rt_reject_len, 0);
	}
}

/* A request: addresses, private data, IRD/ORD; accept; up; down. */
static void rdmacm_passive(struct kunit *test)
{
	int family = *(const int *)test->param_value;
	struct kiwi_rt *rt = kiwi_rt_setup(test, true);
	struct rdma_cm_id *l = kiwi_rt_listener(rt, family, 5000);
	struct rdma_cm_id *child = kiwi_rt_request(rt, l);
	struct rdma_conn_param p = { .responder_resources = 2,
				     .initiator_depth = 1 };
	struct ib_qp_init_attr init = { KT_QP_RC, .cap = { 4, 4, 1, 1 } };
	struct ib_qp_attr qa = {};
	struct kiwi_rt_rec r = kiwi_rt_rec(rt, 0);
	int mask = 0;

	KUNIT_EXPECT_PTR_NE(test, child, l);
	KUNIT_EXPECT_PTR_EQ(test, child->context, (void *)rt);
	KUNIT_EXPECT_EQ(test, r.len, 2);
	KUNIT_EXPECT_EQ(test, r.pdata0, 'h');
	KUNIT_EXPECT_EQ(test, r.ird, 3);
	KUNIT_EXPECT_EQ(test, r.ord, 5);
	KUNIT_EXPECT_EQ(test, rdma_get_local_addr(child)->sa_family, family);
	KUNIT_EXPECT_EQ(test, memcmp(rdma_get_local_addr(child),
				     rdma_get_local_addr(l),
				     sizeof(struct sockaddr_in)), 0);
	KUNIT_EXPECT_PTR_EQ(test, child->device, &rt->m->dev);
	init.send_cq = rt->cq;
	init.recv_cq = rt->cq;
	KUNIT_EXPECT_EQ(test, rdma_create_qp(child, NULL, &init), -EINVAL);
	KUNIT_EXPECT_NULL(test, child->qp);
	KUNIT_ASSERT_EQ(test, rdma_create_qp(child, rt->pd, &init), 0);
	KUNIT_EXPECT_EQ(test, rdma_init_qp_attr(child, &qa, &mask), 0);
	KUNIT_EXPECT_EQ(test, mask, IB_QP_ACCESS_FLAGS);
	KUNIT_EXPECT_EQ(test, rdma_notify(child, IB_EVENT_COMM_EST), 0);
	KUNIT_EXPECT_EQ(test, rdma_notify(kiwi_rt_id(rt), IB_EVENT_COMM_EST),
			-EINVAL);
	KUNIT_ASSERT_EQ(test, rdma_accept(child, &p), 0);
	KUNIT_EXPECT_EQ(test, rdma_accept(child, &p), -EINVAL);
	KUNIT_EXPECT_EQ(test, rt->m->last_ird, 2);
	KUNIT_ASSERT_EQ(test, kiwi_rt_inject(rt, child,
					     KIWI_CM_EVENT_ESTABLISHED, 0,
					     NULL), 0);
	KUNIT_ASSERT_TRUE(test, kiwi_rt_wait(rt, 2));
	KUNIT_EXPECT_EQ(test, kiwi_rt_rec(rt, 1).event,
			RDMA_CM_EVENT_ESTABLISHED);
	KUNIT_ASSERT_EQ(test, rdma_disconnect(child), 0);
	KUNIT_ASSERT_EQ(test, kiwi_rt_inject(rt, child, KIWI_CM_EVENT_CLOSE, 0,
					     NULL), 0);
	KUNIT_ASSERT_TRUE(test, kiwi_rt_wait(rt, 3));
	KUNIT_EXPECT_EQ(test, kiwi_rt_rec(rt, 2).event,
			RDMA_CM_EVENT_DISCONNECTED);
	/* Nothing left to close: a no-op, and no second DISCONNECTED. */
	KUNIT_EXPECT_EQ(test, rdma_disconnect(child), 0);
	rdma_destroy_qp(child);
	KUNIT_EXPECT_NULL(test, child->qp);
	KUNIT_EXPECT_EQ(test, kiwi_rt_count(rt), 3);
}

/*
 * The peer closes first: DISCONNECTED, after which rdma_disconnect()
 * closes this side's half gracefully (QP to CLOSING), where destroying
 * the id would reset the stream. The CLOSE that follows adds no event.
 */
static void rdmacm_passive_close(struct kunit *test)
{
	struct kiwi_rt *rt = kiwi_rt_setup(test, true);
	struct rdma_cm_id *id = kiwi_rt_established(rt, AF_INET);
	int n = kiwi_rt_count(rt);

	KUNIT_ASSERT_EQ(test, kiwi_rt_inject(rt, id, KIWI_CM_EVENT_DISCONNECT,
					     0, NULL), 0);
	KUNIT_ASSERT_TRUE(test, kiwi_rt_wait(rt, n + 1));
	KUNIT_EXPECT_EQ(test, kiwi_rt_rec(rt, n).event,
			RDMA_CM_EVENT_DISCONNECTED);
	rt->m->last_qp_state = IB_QPS_INIT;
	KUNIT_EXPECT_EQ(test, rdma_disconnect(id), 0);
	KUNIT_EXPECT_EQ(test, rt->m->last_qp_state, IB_QPS_SQD);
	KUNIT_ASSERT_EQ(test, kiwi_rt_inject(rt, id, KIWI_CM_EVENT_CLOSE, 0,
					     NULL), 0);
	KUNIT_EXPECT_EQ(test, rdma_disconnect(id), 0);
	KUNIT_EXPECT_FALSE(test, kiwi_rt_wait(rt, n + 2));
}

static const int families[] = { AF_INET, AF_INET6 };

static void family_desc(const int *f, char *desc)
{
	strscpy(desc, *f == AF_INET ? "IPv4" : "IPv6", KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(family, families, family_desc);

static void rdmacm_reject(struct kunit *test)
{
	struct kiwi_rt *rt = kiwi_rt_setup(test, true);
	struct rdma_cm_id *l = kiwi_rt_listener(rt, AF_INET, 5001);
	struct rdma_cm_id *child = kiwi_rt_request(rt, l);

	KUNIT_EXPECT_EQ(test, rdma_reject(child, "zz", 2, 0), 0);
	KUNIT_EXPECT_EQ(test, rt->m->last_pdata_len, 2);
	KUNIT_EXPECT_EQ(test, rdma_reject(child, NULL, 0, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdma_accept(child, &(struct rdma_conn_param){}),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, kiwi_mock_calls(rt->m, KIWI_MOCK_REJECT), 1);
}

/* A handler returning non-zero on CONNECT_REQUEST: the request is refused. */
static void rdmacm_request_refused_by_handler(struct kunit *test)
{
	struct kiwi_rt *rt = kiwi_rt_setup(test, true);
	struct rdma_cm_id *l = kiwi_rt_listener(rt, AF_INET, 5002);

	rt->ret_on[RDMA_CM_EVENT_CONNECT_REQUEST] = 1;
	kiwi_rt_request(rt, l);
	KUNIT_EXPECT_TRUE(test, rt_wait_live(1));
	KUNIT_EXPECT_EQ(test, kiwi_rt_state(l), KIWI_RDMA_LISTEN);
}

static int rt_destroy_hook(struct kiwi_rt *rt, struct rdma_cm_id *id,
			   struct rdma_cm_event *ev)
{
	if (ev->event == RDMA_CM_EVENT_DISCONNECTED && kiwi_rt_forget(rt, id))
		kiwi_rt_destroy_with_qp(id);
	return 0;
}

/* rdma_destroy_id() on its own id inside the handler. */
static void rdmacm_destroy_in_handler(struct kunit *test)
{
	struct kiwi_rt *rt = kiwi_rt_setup(test, true);
	struct rdma_cm_id *id = kiwi_rt_established(rt, AF_INET6);
	int n = kiwi_rt_count(rt);

	rt->hook = rt_destroy_hook;
	KUNIT_ASSERT_EQ(test, kiwi_rt_inject(rt, id, KIWI_CM_EVENT_DISCONNECT, 0,
					     NULL), 0);
	KUNIT_ASSERT_TRUE(test, kiwi_rt_wait(rt, n + 1));
	kiwi_mock_release_all(rt->m);
	KUNIT_EXPECT_TRUE(test, rt_wait_live(0));
}

enum rt_state { RT_IDLE, RT_BOUND, RT_ROUTE, RT_LISTEN, RT_REQUEST, RT_UP,
		RT_NR };
enum rt_call { RC_BIND, RC_ROUTE, RC_LISTEN, RC_CONNECT, RC_ACCEPT, RC_REJECT,
	       RC_DISCONNECT, RC_NR };

static const char *const rt_state_names[RT_NR] = {
	"idle", "bound", "route", "listen", "request", "up" };
static const char *const rt_call_names[RC_NR] = {
	"bind", "resolve_route", "listen", "connect", "accept", "reject",
	"disconnect" };

/* What each call returns in each state (0: it is legal there). */
static const int rt_expect[RT_NR][RC_NR] = {
	/*            bind     route    listen   connect  accept   reject   disc */
	/* listen binds an IDLE id to the wildcard first, as Linux does */
	[RT_IDLE] = { 0,       -EINVAL, 0,       -EINVAL, -EINVAL, -EINVAL, -EINVAL },
	[RT_BOUND] = { -EINVAL, -EINVAL, 0,      -EINVAL, -EINVAL, -EINVAL, -EINVAL },
	[RT_ROUTE] = { -EINVAL, -EINVAL, -EINVAL, 0,      -EINVAL, -EINVAL, -EINVAL },
	[RT_LISTEN] = { -EINVAL, -EINVAL, -EINVAL, -EINVAL, -EINVAL, -EINVAL, -EINVAL },
	[RT_REQUEST] = { -EINVAL, -EINVAL, -EINVAL, -EINVAL, 0,     0,       -EINVAL },
	[RT_UP] = { -EINVAL, -EINVAL, -EINVAL, -EINVAL, -EINVAL, -EINVAL, 0 },
};

static int call_params[RT_NR * RC_NR];

static const void *call_gen_params(const void *prev, char *desc)
{
	const int *p = prev ? (const int *)prev + 1 : call_params;
	int i = p - call_params;

	if (i >= RT_NR * RC_NR)
		return NULL;
	call_params[i] = i;
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s in %s",
		 rt_call_names[i % RC_NR], rt_state_names[i / RC_NR]);
	return p;
}

static struct rdma_cm_id *rt_in_state(struct kiwi_rt *rt, enum rt_state s)
{
	struct ib_qp_init_attr init = { KT_QP_RC, .send_cq = rt->cq,
					.recv_cq = rt->cq,
					.cap = { 4, 4, 1, 1 } };
	struct sockaddr_storage ss;
	struct rdma_cm_id *id;

	switch (s) {
	case RT_IDLE:
		return kiwi_rt_id(rt);
	case RT_BOUND:
		id = kiwi_rt_id(rt);
		kiwi_rt_addr(&ss, AF_INET, "127.0.0.1", 0);
		KUNIT_ASSERT_EQ(rt->test,
				rdma_bind_addr(id, (struct sockaddr *)&ss), 0);
		return id;
	case RT_ROUTE:
		return kiwi_rt_resolved(rt, AF_INET);
	case RT_LISTEN:
		return kiwi_rt_listener(rt, AF_INET, 5003);
	case RT_REQUEST:
		id = kiwi_rt_request(rt, kiwi_rt_listener(rt, AF_INET, 5004));
		KUNIT_ASSERT_EQ(rt->test, rdma_create_qp(id, rt->pd, &init), 0);
		return id;
	default:
		return kiwi_rt_established(rt, AF_INET);
	}
}

static int rt_call(struct rdma_cm_id *id, enum rt_call c)
{
	struct rdma_conn_param p = {};
	struct sockaddr_storage ss;

	switch (c) {
	case RC_BIND:
		kiwi_rt_addr(&ss, AF_INET, "127.0.0.1", 0);
		return rdma_bind_addr(id, (struct sockaddr *)&ss);
	case RC_ROUTE:
		return rdma_resolve_route(id, 100);
	case RC_LISTEN:
		return rdma_listen(id, 0);
	case RC_CONNECT:
		return rdma_connect(id, &p);
	case RC_ACCEPT:
		return rdma_accept(id, &p);
	case RC_REJECT:
		return rdma_reject(id, NULL, 0, 0);
	default:
		return rdma_disconnect(id);
	}
}

/* Every call in every state: legal ones succeed, the others change nothing. */
static void rdmacm_call_in_state(struct kunit *test)
{
	int i = *(const int *)test->param_value;
	enum rt_state s = i / RC_NR;
	enum rt_call c = i % RC_NR;
	struct kiwi_rt *rt = kiwi_rt_setup(test, true);
	struct rdma_cm_id *id = rt_in_state(rt, s);
	enum kiwi_rdma_state before = kiwi_rt_state(id);
	int want = rt_expect[s][c];

	KUNIT_EXPECT_EQ(test, rt_call(id, c), want);
	if (want)
		KUNIT_EXPECT_EQ(test, kiwi_rt_state(id), before);
}

struct rt_req {
	struct work_struct work;
	struct kiwi_rt *rt;
	struct kiwi_cm_id *cm;
	int ret;
};

static void rt_req_work(struct work_struct *work)
{
	struct rt_req *r = container_of(work, struct rt_req, work);
	struct kiwi_cm_event ev = { .event = KIWI_CM_EVENT_CONNECT_REQUEST };

	r->ret = kiwi_mock_inject(r->rt->m, r->cm, &ev, KIWI_MOCK_PROCESS);
}

/*
 * A request arriving while its listener is destroyed, on 2 CPUs: the
 * request is delivered before destroy returns, or refused; nothing leaks.
 */
static void rdmacm_request_vs_destroy(struct kunit *test)
{
	struct kiwi_rt *rt = kiwi_rt_setup(test, true);
	struct rt_req r = { .rt = rt };
	int i;

	rt->ret_on[RDMA_CM_EVENT_CONNECT_REQUEST] = 1;
	INIT_WORK_ONSTACK(&r.work, rt_req_work);
	for (i = 0; i < 100; i++) {
		struct rdma_cm_id *l = kiwi_rt_listener(rt, AF_INET, 6000);
		int n;

		r.cm = kiwi_rdma_priv(l)->cm;
		kiwi_mock_pin(rt->m, r.cm);
		queue_work(system_unbound_wq, &r.work);
		udelay(i * 3);
		kiwi_rt_destroy(rt, l);
		n = kiwi_rt_count(rt);
		flush_work(&r.work);
		KUNIT_EXPECT_EQ(test, kiwi_rt_count(rt), n);
		kiwi_mock_release(rt->m, r.cm);
	}
	destroy_work_on_stack(&r.work);
	KUNIT_EXPECT_TRUE(test, rt_wait_live(0));
}

struct rt_unreg {
	struct work_struct work;
	struct ib_device *dev;
};

static void rt_unreg_work(struct work_struct *work)
{
	kiwi_unregister_device(container_of(work, struct rt_unreg, work)->dev);
}

/*
 * The device goes with ids in every state: each hears DEVICE_REMOVAL once,
 * returns non-zero, and the unregistration completes. A wildcard listener
 * is not told: it stops listening on the device and listens on.
 */
static void rdmacm_device_removal(struct kunit *test)
{
	struct kiwi_rt *rt = kiwi_rt_setup(test, true);
	struct rt_unreg u = { .dev = &rt->m->dev };
	struct kiwi_mock *m = rt->m;
	struct sockaddr_storage ss;
	struct rdma_cm_id *ids[7], *wild;
	int i, removals = 0, n;

	ids[0] = kiwi_rt_resolved(rt, AF_INET);
	ids[1] = kiwi_rt_listener(rt, AF_INET, 5005);
	ids[2] = kiwi_rt_request(rt, ids[1]);
	ids[3] = kiwi_rt_established(rt, AF_INET6);
	ids[4] = kiwi_rt_resolved(rt, AF_INET6);
	KUNIT_ASSERT_EQ(test, rdma_connect(ids[4],
					   &(struct rdma_conn_param){}), 0);
	ids[5] = kiwi_rt_id(rt);
	kiwi_rt_addr(&ss, AF_INET, "127.0.0.1", 0);
	KUNIT_ASSERT_EQ(test, rdma_bind_addr(ids[5], (struct sockaddr *)&ss), 0);
	ids[6] = kiwi_rt_id(rt);	/* no device: not told */
	wild = kiwi_rt_id(rt);
	kiwi_rt_addr(&ss, AF_INET6, "::", 5006);
	KUNIT_ASSERT_EQ(test, rdma_bind_addr(wild, (struct sockaddr *)&ss), 0);
	KUNIT_ASSERT_EQ(test, rdma_listen(wild, 0), 0);
	KUNIT_ASSERT_EQ(test, kiwi_rdma_fan_count(kiwi_rdma_priv(wild)), 1);
	n = kiwi_rt_count(rt);
	rt->ret_on[RDMA_CM_EVENT_DEVICE_REMOVAL] = 1;
	kiwi_mock_release_all(m);
	INIT_WORK_ONSTACK(&u.work, rt_unreg_work);
	queue_work(system_unbound_wq, &u.work);
	KUNIT_EXPECT_TRUE(test, kiwi_rt_wait(rt, n + 6));
	for (i = n; i < kiwi_rt_count(rt); i++)
		removals += kiwi_rt_rec(rt, i).event ==
			    RDMA_CM_EVENT_DEVICE_REMOVAL;
	KUNIT_EXPECT_EQ(test, removals, 6);
	kiwi_destroy_cq(rt->cq);
	kiwi_dealloc_pd(rt->pd);
	flush_work(&u.work);
	destroy_work_on_stack(&u.work);
	rt->m = NULL;
	KUNIT_EXPECT_EQ(test, atomic_read(&m->qps_alive), 0);
	kfree(m);
	KUNIT_EXPECT_EQ(test, kiwi_rdma_live_ids(), 2);
	KUNIT_EXPECT_EQ(test, kiwi_rt_count(rt), n + 6);
	KUNIT_EXPECT_EQ(test, kiwi_rdma_fan_count(kiwi_rdma_priv(wild)), 0);
	KUNIT_EXPECT_EQ(test, kiwi_rt_state(wild), KIWI_RDMA_LISTEN);
}

static struct kunit_case rdmacm_conn_cases[] = {
	KUNIT_CASE_PARAM(rdmacm_connect_outcome, reply_gen_params),
	KUNIT_CASE_PARAM(rdmacm_passive, family_gen_params),
	KUNIT_CASE(rdmacm_passive_close),
	KUNIT_CASE(rdmacm_reject),
	KUNIT_CASE(rdmacm_request_refused_by_handler),
	KUNIT_CASE(rdmacm_destroy_in_handler),
	KUNIT_CASE(rdmacm_request_vs_destroy),
	KUNIT_CASE_PARAM(rdmacm_call_in_state, call_gen_params),
	KUNIT_CASE(rdmacm_device_removal),
	{}
};

static struct kunit_suite rdmacm_conn_suite = {
	.name = "kiwi_rdmacm_conn",
	.test_cases = rdmacm_conn_cases,
};

kunit_test_suite(rdmacm_conn_suite);
