// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_iwcm_race: the races that hit Linux's iw_cm over the years, and
 * upcalls from every context. Handlers that destroy ids are
 * kiwi_iwcm_race_handler's (race_handler_test.c), which shares the
 * destroy on a worker and the held delivery below (iwcm_test.h).
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/workqueue.h>

#include <kiwi/iw_cm.h>
#include <kiwi/provider.h>

#include "iwcm_test.h"

/**
 * kiwi_t_wait_state() - wait until an id reaches a state
 * @id: the id, pinned by the caller
 * @state: the state
 *
 * Return: true if it did, within 5 s.
 */
bool kiwi_t_wait_state(struct kiwi_cm_id *id, enum kiwi_cm_state state)
{
	int i;

	for (i = 0; i < 250 && kiwi_cm_id_state(id) != state; i++)
		msleep(20);
	return kiwi_cm_id_state(id) == state;
}

static void async_destroy_fn(struct work_struct *work)
{
	struct kiwi_t_async *ad =
		container_of(work, struct kiwi_t_async, work);

	kiwi_ulp_destroy(ad->u, ad->id);
	ad->seen = kiwi_ulp_count(ad->u);
	complete(&ad->done);
}

/*
 * Destroy @id on a WQ_MEM_RECLAIM worker; the caller waits for @ad->done
 * and then calls kiwi_t_async_destroy_end().
 */
struct workqueue_struct *
kiwi_t_async_destroy(struct kunit *test, struct kiwi_t_async *ad,
		     struct kiwi_ulp *u, struct kiwi_cm_id *id)
{
	struct workqueue_struct *wq;

	wq = alloc_workqueue("kiwi_t_reclaim", WQ_MEM_RECLAIM, 0);
	KUNIT_ASSERT_NOT_NULL(test, wq);
	INIT_WORK_ONSTACK(&ad->work, async_destroy_fn);
	init_completion(&ad->done);
	ad->u = u;
	ad->id = id;
	queue_work(wq, &ad->work);
	return wq;
}

void kiwi_t_async_destroy_end(struct workqueue_struct *wq,
			      struct kiwi_t_async *ad)
{
	destroy_workqueue(wq);
	destroy_work_on_stack(&ad->work);
}

/* Destroy while events are queued: they are dropped, the QP unpinned once. */
static void race_destroy_with_queued_events(struct kunit *test)
{
	struct kiwi_ulp *u = kiwi_ulp_setup(test);
	struct kiwi_cm_id *id = kiwi_ulp_connect(u);
	struct workqueue_struct *wq;
	struct kiwi_t_async ad;
	struct kiwi_t_block b;

	kiwi_t_block_init(u, &b, KIWI_CM_EVENT_CONNECT_REPLY);
	KUNIT_ASSERT_EQ(test,
			kiwi_ulp_ev(u, id, KIWI_CM_EVENT_CONNECT_REPLY, 0), 0);
	KUNIT_ASSERT_TRUE(test,
			  wait_for_completion_timeout(&b.entered, 5 * HZ));
	KUNIT_EXPECT_EQ(test, kiwi_ulp_ev(u, id, KIWI_CM_EVENT_DISCONNECT, 0),
			0);
	KUNIT_EXPECT_EQ(test, kiwi_ulp_ev(u, id, KIWI_CM_EVENT_CLOSE, 0), 0);
	wq = kiwi_t_async_destroy(test, &ad, u, id);
	KUNIT_EXPECT_TRUE(test,
			  kiwi_t_wait_state(id, KIWI_CM_STATE_DESTROYING));
	/* destroy waits for the running handler */
	msleep(50);
	KUNIT_EXPECT_FALSE(test, completion_done(&ad.done));
	complete(&b.release);
	KUNIT_EXPECT_TRUE(test, wait_for_completion_timeout(&ad.done, 5 * HZ));
	kiwi_t_async_destroy_end(wq, &ad);
	kiwi_cm_id_flush(id);
	KUNIT_EXPECT_EQ(test, kiwi_ulp_count(u), 1);
	KUNIT_EXPECT_EQ(test, kiwi_mock_calls(u->m, KIWI_MOCK_REM_REF),
			kiwi_mock_calls(u->m, KIWI_MOCK_ADD_REF));
	KUNIT_EXPECT_TRUE(test, kiwi_mock_release(u->m, id));
}

static int nonzero_when_destroyed_hook(struct kiwi_ulp *u,
				       struct kiwi_cm_id *id,
				       const struct kiwi_cm_event *ev)
{
	complete(u->hook_data);
	kiwi_t_wait_state(id, KIWI_CM_STATE_DESTROYING);
	return 1;
}

/* The handler returns non-zero while another thread destroys the id. */
static void race_nonzero_vs_destroy(struct kunit *test)
{
	struct kiwi_ulp *u = kiwi_ulp_setup(test);
	struct kiwi_cm_id *id = kiwi_ulp_connect(u);
	DECLARE_COMPLETION_ONSTACK(entered);

	u->hook_data = &entered;
	u->hook = nonzero_when_destroyed_hook;
	KUNIT_ASSERT_EQ(test,
			kiwi_ulp_ev(u, id, KIWI_CM_EVENT_CONNECT_REPLY, 0), 0);
	KUNIT_ASSERT_TRUE(test, wait_for_completion_timeout(&entered, 5 * HZ));
	kiwi_ulp_destroy(u, id);
	kiwi_cm_id_flush(id);
	KUNIT_EXPECT_EQ(test, kiwi_cm_id_state(id), KIWI_CM_STATE_DESTROYING);
	KUNIT_EXPECT_EQ(test, kiwi_mock_calls(u->m, KIWI_MOCK_REM_REF), 1);
	KUNIT_EXPECT_EQ(test, kiwi_mock_calls(u->m, KIWI_MOCK_MODIFY_QP), 1);
	KUNIT_EXPECT_TRUE(test, kiwi_mock_release(u->m, id));
}

/* iw_get_qp returning NULL: -EINVAL, nothing pinned, the id still usable. */
static void race_get_qp_null(struct kunit *test)
{
	struct kiwi_ulp *u = kiwi_ulp_setup(test);
	struct kiwi_conn_param p = { .qpn = kiwi_ulp_qp(u) };
	struct kiwi_cm_id *id = kiwi_ulp_id(u);
	struct kiwi_cm_id *child;

	kiwi_mock_fail(u->m, KIWI_MOCK_GET_QP, 1);
	KUNIT_EXPECT_EQ(test, kiwi_cm_connect(id, &p), -EINVAL);
	KUNIT_EXPECT_EQ(test, kiwi_cm_id_state(id), KIWI_CM_STATE_IDLE);
	KUNIT_EXPECT_EQ(test, kiwi_mock_calls(u->m, KIWI_MOCK_CONNECT), 0);
	KUNIT_EXPECT_EQ(test, kiwi_mock_calls(u->m, KIWI_MOCK_ADD_REF), 0);
	KUNIT_EXPECT_EQ(test, kiwi_cm_connect(id, &p), 0);

	child = kiwi_ulp_request(u, kiwi_ulp_listen(u, 0));
	kiwi_mock_fail(u->m, KIWI_MOCK_GET_QP, 1);
	KUNIT_EXPECT_EQ(test, kiwi_cm_accept(child, &p), -EINVAL);
	KUNIT_EXPECT_EQ(test, kiwi_cm_id_state(child), KIWI_CM_STATE_CONN_RECV);
	KUNIT_EXPECT_EQ(test, kiwi_mock_calls(u->m, KIWI_MOCK_ACCEPT), 0);
	p.qpn = 0xdead; /* no such QP */
	KUNIT_EXPECT_EQ(test, kiwi_cm_accept(child, &p), -EINVAL);
	p.qpn = kiwi_ulp_qp(u);
	KUNIT_EXPECT_EQ(test, kiwi_cm_accept(child, &p), 0);
}

/* Listener destroyed while its CONNECT_REQUEST handler runs: it waits. */
static void race_listener_destroyed_in_request_handler(struct kunit *test)
{
	struct kiwi_ulp *u = kiwi_ulp_setup(test);
	struct kiwi_cm_id *l = kiwi_ulp_listen(u, 0);
	struct workqueue_struct *wq;
	struct kiwi_t_async ad;
	struct kiwi_t_block b;

	kiwi_t_block_init(u, &b, KIWI_CM_EVENT_CONNECT_REQUEST);
	KUNIT_ASSERT_EQ(test,
			kiwi_ulp_ev(u, l, KIWI_CM_EVENT_CONNECT_REQUEST, 0), 0);
	KUNIT_ASSERT_TRUE(test,
			  wait_for_completion_timeout(&b.entered, 5 * HZ));
	wq = kiwi_t_async_destroy(test, &ad, u, l);
	msleep(50);
	KUNIT_EXPECT_FALSE(test, completion_done(&ad.done));
	complete(&b.release);
	KUNIT_EXPECT_TRUE(test, wait_for_completion_timeout(&ad.done, 5 * HZ));
	kiwi_t_async_destroy_end(wq, &ad);
	KUNIT_EXPECT_EQ(test, kiwi_mock_calls(u->m, KIWI_MOCK_DESTROY_LISTEN),
			1);
	/* the child was handed over before: it lives on, owned by the ULP */
	KUNIT_EXPECT_EQ(test, kiwi_cm_id_state(kiwi_ulp_rec(u, 0).id),
			KIWI_CM_STATE_CONN_RECV);
}

/* Private data copy fails in atomic context: defined failure, no leak. */
static void race_pdata_copy_fails_atomic(struct kunit *test)
{
	struct kiwi_ulp *u = kiwi_ulp_setup(test);
	struct kiwi_cm_event ev = { .event = KIWI_CM_EVENT_CONNECT_REPLY,
				    .private_data = "abc",
				    .private_data_len = 3 };
	struct kiwi_cm_id *id = kiwi_ulp_connect(u);
	struct kiwi_cm_id *l;
	struct kiwi_ulp_rec r;
	int live;

	kiwi_fault_fail_nth(1);
	KUNIT_EXPECT_EQ(test,
			kiwi_mock_inject(u->m, id, &ev, KIWI_MOCK_HARDIRQ),
			-ENOMEM);
	kiwi_fault_fail_nth(0);
	kiwi_cm_id_flush(id);
	r = kiwi_ulp_rec(u, 0);
	KUNIT_EXPECT_EQ(test, r.event, KIWI_CM_EVENT_CONNECT_REPLY);
	KUNIT_EXPECT_EQ(test, r.status, -ENOMEM);
	KUNIT_EXPECT_EQ(test, r.len, 0);
	KUNIT_EXPECT_EQ(test, kiwi_cm_id_state(id), KIWI_CM_STATE_IDLE);
	KUNIT_EXPECT_EQ(test, kiwi_mock_calls(u->m, KIWI_MOCK_REM_REF), 1);

	l = kiwi_ulp_listen(u, 0);
	ev.event = KIWI_CM_EVENT_CONNECT_REQUEST;
	live = kiwi_cm_live_ids();
	kiwi_fault_fail_nth(2); /* the child's private data */
	KUNIT_EXPECT_EQ(test, kiwi_mock_inject(u->m, l, &ev, KIWI_MOCK_SOFTIRQ),
			-ENOMEM);
	kiwi_fault_fail_nth(1); /* the child itself */
	KUNIT_EXPECT_EQ(test, kiwi_mock_inject(u->m, l, &ev, KIWI_MOCK_HARDIRQ),
			-ENOMEM);
	kiwi_fault_fail_nth(0);
	KUNIT_EXPECT_EQ(test, kiwi_cm_live_ids(), live);
	KUNIT_EXPECT_EQ(test, kiwi_ulp_cnt(u, KIWI_DEV_CNT_ALLOC_DROPS), 3);
	KUNIT_EXPECT_EQ(test, kiwi_mock_inject(u->m, l, &ev, KIWI_MOCK_HARDIRQ),
			0);
	KUNIT_ASSERT_TRUE(test, kiwi_ulp_wait(u, 2));
	r = kiwi_ulp_rec(u, 1);
	KUNIT_EXPECT_EQ(test, r.event, KIWI_CM_EVENT_CONNECT_REQUEST);
	KUNIT_EXPECT_EQ(test, r.len, 3);
	KUNIT_EXPECT_EQ(test, r.pdata0, 'a');
}

/*
 * The private data copy of a DISCONNECT fails: the provider was told to
 * abort without further upcalls, so the core itself ends the connection
 * with the one terminal event (CLOSE) and unpins the QP.
 */
static void race_pdata_copy_fails_mid_connection(struct kunit *test)
{
	struct kiwi_ulp *u = kiwi_ulp_setup(test);
	struct kiwi_cm_event ev = { .event = KIWI_CM_EVENT_DISCONNECT,
				    .private_data = "d",
				    .private_data_len = 1 };
	struct kiwi_cm_id *id = kiwi_ulp_established(u);
	int n = kiwi_ulp_count(u);
	char got[8];

	kiwi_fault_fail_nth(1);
	KUNIT_EXPECT_EQ(test, kiwi_mock_inject(u->m, id, &ev, KIWI_MOCK_SOFTIRQ),
			-ENOMEM);
	kiwi_fault_fail_nth(0);
	kiwi_cm_id_flush(id);
	kiwi_t_events(u, id, n, got, sizeof(got));
	KUNIT_EXPECT_STREQ(test, got, "DC");
	KUNIT_EXPECT_EQ(test, kiwi_ulp_rec(u, n).status, -ENOMEM);
	KUNIT_EXPECT_EQ(test, kiwi_ulp_rec(u, n + 1).status, -ENOMEM);
	KUNIT_EXPECT_EQ(test, kiwi_cm_id_state(id), KIWI_CM_STATE_IDLE);
	KUNIT_EXPECT_EQ(test, kiwi_mock_calls(u->m, KIWI_MOCK_REM_REF), 1);
}

struct reenter {
	int reply_ret;
	int request_ret;
};

static void reenter_hook(struct kiwi_mock *m, enum kiwi_mock_op op,
			 struct kiwi_cm_id *id)
{
	struct reenter *r = m->hook_data;

	switch (op) {
	case KIWI_MOCK_CONNECT:
		r->reply_ret =
			kiwi_mock_event(m, id, KIWI_CM_EVENT_CONNECT_REPLY, 0);
		break;
	case KIWI_MOCK_DESTROY_LISTEN:
		r->request_ret = kiwi_mock_event(m, id, T_REQUEST, 0);
		break;
	case KIWI_MOCK_REJECT:
		kiwi_cm_id_add_ref(id);
		kiwi_cm_id_rem_ref(id);
		break;
	default:
		break;
	}
}

/* The provider calls back into the CM from inside its ops. */
static void race_provider_reenters(struct kunit *test)
{
	struct kiwi_ulp *u = kiwi_ulp_setup(test);
	struct reenter r = { -1, -1 };
	struct kiwi_cm_id *id, *l, *child;

	l = kiwi_ulp_listen(u, 0);
	child = kiwi_ulp_request(u, l);
	u->m->hook_data = &r;
	u->m->hook = reenter_hook;
	id = kiwi_ulp_connect(u);
	KUNIT_EXPECT_EQ(test, r.reply_ret, 0);
	kiwi_cm_id_flush(id);
	KUNIT_EXPECT_EQ(test, kiwi_cm_id_state(id), KIWI_CM_STATE_ESTABLISHED);
	KUNIT_EXPECT_EQ(test, kiwi_ulp_rec(u, 1).event,
			KIWI_CM_EVENT_CONNECT_REPLY);
	KUNIT_EXPECT_EQ(test, kiwi_cm_reject(child, NULL, 0), 0);
	kiwi_ulp_destroy(u, l);
	KUNIT_EXPECT_EQ(test, r.request_ret, -ECONNREFUSED);
	u->m->hook = NULL;
}

/* Destroy from a WQ_MEM_RECLAIM worker while the id's handler runs. */
static void race_destroy_from_reclaim_worker(struct kunit *test)
{
	struct kiwi_ulp *u = kiwi_ulp_setup(test);
	struct kiwi_cm_id *id = kiwi_ulp_established(u);
	struct workqueue_struct *wq;
	struct kiwi_t_async ad;
	struct kiwi_t_block b;

	kiwi_t_block_init(u, &b, KIWI_CM_EVENT_DISCONNECT);
	KUNIT_ASSERT_EQ(test, kiwi_ulp_ev(u, id, KIWI_CM_EVENT_DISCONNECT, 0),
			0);
	KUNIT_ASSERT_TRUE(test,
			  wait_for_completion_timeout(&b.entered, 5 * HZ));
	wq = kiwi_t_async_destroy(test, &ad, u, id);
	KUNIT_EXPECT_TRUE(test,
			  kiwi_t_wait_state(id, KIWI_CM_STATE_DESTROYING));
	msleep(50);
	/* the reclaim worker is blocked on the running handler */
	KUNIT_EXPECT_FALSE(test, completion_done(&ad.done));
	complete(&b.release);
	KUNIT_EXPECT_TRUE(test, wait_for_completion_timeout(&ad.done, 5 * HZ));
	kiwi_t_async_destroy_end(wq, &ad);
	KUNIT_EXPECT_TRUE(test, kiwi_mock_release(u->m, id));
}

static void hold_fn(struct kiwi_cm_id *id, const struct kiwi_cm_event *ev,
		    void *data)
{
	struct kiwi_t_hold *h = data;

	if (!h || ev->event != h->event || (h->id && id != h->id))
		return;
	complete(&h->held);
	wait_for_completion_timeout(&h->release, 10 * HZ);
}

static void hold_free(struct kunit_resource *res)
{
	struct kiwi_t_hold *h = res->data;

	kiwi_fault_hook_deliver(NULL, NULL);
	complete_all(&h->release);
}

/* @h must outlive the fixture's teardown: allocate it first. */
void kiwi_t_hold_arm(struct kunit *test, struct kiwi_t_hold *h,
		     struct kiwi_cm_id *id, u8 event)
{
	h->id = id;
	h->event = event;
	init_completion(&h->held);
	init_completion(&h->release);
	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test, NULL, hold_free,
							 GFP_KERNEL, h));
	kiwi_fault_hook_deliver(hold_fn, h);
}

/* Where the listener's destroy starts, relative to a CONNECT_REQUEST. */
enum lq_order { LQ_HELD, LQ_DESTROYING, LQ_QUEUED };

static const enum lq_order lq_orders[] = { LQ_HELD, LQ_DESTROYING,
					   LQ_QUEUED };

static void lq_desc(const enum lq_order *o, char *desc)
{
	static const char *const names[] = { "delivery started",
					     "destroy first", "request queued" };

	strscpy(desc, names[*o], KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(lq, lq_orders, lq_desc);

/* At the child's allocation: the upcall passed the listener's checks. */
static void lq_destroy_hook(void *data)
{
	struct kiwi_t_async *ad = data;

	kiwi_ulp_destroy(ad->u, ad->id);
	ad->seen = kiwi_ulp_count(ad->u);
}

/*
 * LQ_QUEUED: the upcall took the request, then the destroy ran to its end
 * before the child's request was queued: the upcall returns 0, the
 * delivery finds the listener gone and the core rejects the request,
 * with no handler call.
 */
static void lq_queued(struct kunit *test, struct kiwi_ulp *u,
		      struct kiwi_cm_id *l, int n)
{
	struct kiwi_t_async ad = { .u = u, .id = l, .seen = -1 };

	kiwi_fault_hook_nth(1, lq_destroy_hook, &ad);	/* 1: the child */
	KUNIT_EXPECT_EQ(test, kiwi_ulp_ev(u, l, T_REQUEST, 0), 0);
	kiwi_fault_hook_nth(0, NULL, NULL);
	KUNIT_EXPECT_EQ(test, ad.seen, n);	/* the hook ran */
	KUNIT_EXPECT_TRUE(test, kiwi_t_wait_calls(u->m, KIWI_MOCK_REJECT, 1));
	KUNIT_EXPECT_EQ(test, kiwi_mock_calls(u->m, KIWI_MOCK_REJECT), 1);
	KUNIT_EXPECT_EQ(test, kiwi_ulp_count(u), n);
}

/*
 * The listener is destroyed around a CONNECT_REQUEST; each order has one
 * outcome. LQ_HELD: the core has started the delivery (registered with
 * the listener, held before the handler) when the destroy starts on a
 * worker; LQ_DESTROYING: the destroy has started and waits for the
 * handler, blocked in that request, when a second request comes. The
 * destroy waits for the call, the request reaches the handler before it
 * returns and the child lives on; in LQ_DESTROYING the upcall itself
 * refuses the second request (-ECONNREFUSED: the provider refuses the
 * peer; no child, nothing for the core to reject). LQ_QUEUED: above.
 */
static void race_listener_destroyed_request_queued(struct kunit *test)
{
	enum lq_order o = *(const enum lq_order *)test->param_value;
	struct kiwi_t_hold *h = kunit_kzalloc(test, sizeof(*h), GFP_KERNEL);
	struct workqueue_struct *wq;
	struct kiwi_t_async ad;
	struct kiwi_t_block b;
	struct kiwi_cm_id *l;
	struct kiwi_ulp *u;
	int n, live;

	KUNIT_ASSERT_NOT_NULL(test, h);
	u = kiwi_ulp_setup(test);
	l = kiwi_ulp_listen(u, 0);
	n = kiwi_ulp_count(u);
	if (o == LQ_QUEUED) {
		lq_queued(test, u, l, n);
		return;
	}
	if (o == LQ_HELD)
		kiwi_t_hold_arm(test, h, NULL, T_REQUEST);
	else
		kiwi_t_block_init(u, &b, T_REQUEST);
	KUNIT_ASSERT_EQ(test, kiwi_ulp_ev(u, l, T_REQUEST, 0), 0);
	KUNIT_ASSERT_TRUE(test, wait_for_completion_timeout(o == LQ_HELD ?
							    &h->held :
							    &b.entered,
							    5 * HZ));
	wq = kiwi_t_async_destroy(test, &ad, u, l);
	/* past the provider's destroy_listen: waiting for the call */
	KUNIT_EXPECT_TRUE(test,
			  kiwi_t_wait_calls(u->m, KIWI_MOCK_DESTROY_LISTEN, 1));
	if (o == LQ_DESTROYING) {
		live = kiwi_cm_live_ids();
		KUNIT_EXPECT_EQ(test, kiwi_ulp_ev(u, l, T_REQUEST, 0),
				-ECONNREFUSED);
		KUNIT_EXPECT_EQ(test, kiwi_cm_live_ids(), live);
	}
	KUNIT_EXPECT_FALSE(test, wait_for_completion_timeout(&ad.done, HZ / 5));
	complete_all(o == LQ_HELD ? &h->release : &b.release);
	KUNIT_EXPECT_TRUE(test, wait_for_completion_timeout(&ad.done, 5 * HZ));
	kiwi_t_async_destroy_end(wq, &ad);
	u->hook = NULL;
	KUNIT_EXPECT_EQ(test, ad.seen, n + 1);	/* handled before it returned */
	KUNIT_ASSERT_EQ(test, kiwi_ulp_count(u), n + 1);
	KUNIT_ASSERT_EQ(test, kiwi_ulp_rec(u, n).event, T_REQUEST);
	KUNIT_EXPECT_EQ(test, kiwi_cm_id_state(kiwi_ulp_rec(u, n).id),
			KIWI_CM_STATE_CONN_RECV);
	KUNIT_EXPECT_EQ(test, kiwi_mock_calls(u->m, KIWI_MOCK_REJECT), 0);
	KUNIT_EXPECT_EQ(test, kiwi_mock_calls(u->m, KIWI_MOCK_DESTROY_LISTEN),
			1);
}

static const enum kiwi_mock_ctx ctx_cases[] = {
	KIWI_MOCK_PROCESS,
	KIWI_MOCK_SOFTIRQ,
	KIWI_MOCK_HARDIRQ,
};

static void ctx_case_desc(const enum kiwi_mock_ctx *c, char *desc)
{
	static const char *const names[] = { "process", "softirq", "hardirq" };

	strscpy(desc, names[*c], KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ctx, ctx_cases, ctx_case_desc);

/* Every upcall from every context; handlers always run in a worker. */
static void race_upcall_contexts(struct kunit *test)
{
	enum kiwi_mock_ctx ctx = *(const enum kiwi_mock_ctx *)test->param_value;
	struct kiwi_ulp *u = kiwi_ulp_setup(test);
	struct kiwi_cm_event ev = { .private_data = "q",
				    .private_data_len = 1 };
	struct kiwi_cm_id *a = kiwi_ulp_connect(u);
	struct kiwi_cm_id *l = kiwi_ulp_listen(u, 0);
	struct kiwi_conn_param p = {};
	struct kiwi_cm_id *b;
	char got[8];
	int i;
	static const u8 active[] = { KIWI_CM_EVENT_CONNECT_REPLY,
				     KIWI_CM_EVENT_DISCONNECT,
				     KIWI_CM_EVENT_CLOSE };
	static const u8 passive[] = { KIWI_CM_EVENT_ESTABLISHED,
				      KIWI_CM_EVENT_DISCONNECT,
				      KIWI_CM_EVENT_CLOSE };

	for (i = 0; i < ARRAY_SIZE(active); i++) {
		ev.event = active[i];
		KUNIT_EXPECT_EQ(test, kiwi_mock_inject(u->m, a, &ev, ctx), 0);
	}
	ev.event = KIWI_CM_EVENT_CONNECT_REQUEST;
	KUNIT_ASSERT_EQ(test, kiwi_mock_inject(u->m, l, &ev, ctx), 0);
	KUNIT_ASSERT_TRUE(test, kiwi_ulp_wait(u, 4));
	kiwi_cm_id_flush(a);
	kiwi_t_events(u, a, 0, got, sizeof(got));
	KUNIT_EXPECT_STREQ(test, got, "RDC");
	for (i = 0; i < kiwi_ulp_count(u); i++)
		if (kiwi_ulp_rec(u, i).event == KIWI_CM_EVENT_CONNECT_REQUEST)
			break;
	b = kiwi_ulp_rec(u, i).id;
	KUNIT_ASSERT_NOT_NULL(test, b);
	p.qpn = kiwi_ulp_qp(u);
	KUNIT_ASSERT_EQ(test, kiwi_cm_accept(b, &p), 0);
	for (i = 0; i < ARRAY_SIZE(passive); i++) {
		ev.event = passive[i];
		KUNIT_EXPECT_EQ(test, kiwi_mock_inject(u->m, b, &ev, ctx), 0);
	}
	kiwi_cm_id_flush(b);
	kiwi_t_events(u, b, 0, got, sizeof(got));
	KUNIT_EXPECT_STREQ(test, got, "QEDC");
}

static struct kunit_case race_cases[] = {
	KUNIT_CASE(race_destroy_with_queued_events),
	KUNIT_CASE(race_nonzero_vs_destroy),
	KUNIT_CASE(race_get_qp_null),
	KUNIT_CASE_PARAM(race_listener_destroyed_request_queued, lq_gen_params),
	KUNIT_CASE(race_listener_destroyed_in_request_handler),
	KUNIT_CASE(race_pdata_copy_fails_atomic),
	KUNIT_CASE(race_pdata_copy_fails_mid_connection),
	KUNIT_CASE(race_provider_reenters),
	KUNIT_CASE(race_destroy_from_reclaim_worker),
	KUNIT_CASE_PARAM(race_upcall_contexts, ctx_gen_params),
	{}
};

static struct kunit_suite race_suite = {
	.name = "kiwi_iwcm_race",
	.test_cases = race_cases,
};

kunit_test_suite(race_suite);
