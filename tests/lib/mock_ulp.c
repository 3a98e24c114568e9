// SPDX-License-Identifier: GPL-2.0
/*
 * The recording ULP and test fixture of mock_ulp.h.
 */
#include <linux/err.h>
#include <linux/module.h>
#include <linux/sched.h>

#include "mock_ulp.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

static atomic_t kiwi_ulp_seq = ATOMIC_INIT(0);

/**
 * kiwi_ulp_handler() - the recording cm_id handler
 * @id: the id
 * @ev: the event
 *
 * Context: a kiwi_cm worker.
 * Return: the result of the hook of @id's fixture (its context), or,
 * without a hook, the fixture's ret_on entry for the event.
 */
int kiwi_ulp_handler(struct kiwi_cm_id *id, const struct kiwi_cm_event *ev)
{
	struct kiwi_ulp *u = id->context;
	const u8 *pdata = ev->private_data;
	unsigned long flags;
	int ret;

	spin_lock_irqsave(&u->lock, flags);
	if (in_interrupt() || !(current->flags & PF_WQ_WORKER))
		u->bad_ctx++;
	if (u->n < KIWI_ULP_MAX_RECS) {
		u->recs[u->n] = (struct kiwi_ulp_rec){
			.id = id,
			.event = ev->event,
			.status = ev->status,
			.len = ev->private_data_len,
			.pdata0 = ev->private_data_len ? pdata[0] : 0,
			.ird = ev->ird,
			.ord = ev->ord,
		};
		u->n++;
	}
	spin_unlock_irqrestore(&u->lock, flags);

	if (ev->event == KIWI_CM_EVENT_CONNECT_REQUEST)
		kiwi_ulp_own(u, id);
	ret = u->hook ? u->hook(u, id, ev) : u->ret_on[ev->event];
	if (ret)
		kiwi_ulp_forget(u, id); /* the core destroys it */
	wake_up_all(&u->wq);
	return ret;
}
EXPORT_SYMBOL_GPL(kiwi_ulp_handler);

/**
 * kiwi_ulp_own() - have the fixture destroy an id at the end of the test
 * @u: the fixture
 * @id: the id
 *
 * Context: any context.
 */
void kiwi_ulp_own(struct kiwi_ulp *u, struct kiwi_cm_id *id)
{
	unsigned long flags;

	spin_lock_irqsave(&u->lock, flags);
	if (!WARN_ON(u->nowned == KIWI_ULP_MAX_OWNED))
		u->owned[u->nowned++] = id;
	spin_unlock_irqrestore(&u->lock, flags);
}
EXPORT_SYMBOL_GPL(kiwi_ulp_own);

/**
 * kiwi_ulp_forget() - stop owning an id
 * @u: the fixture
 * @id: the id
 *
 * Context: any context.
 * Return: true if @id was owned.
 */
bool kiwi_ulp_forget(struct kiwi_ulp *u, struct kiwi_cm_id *id)
{
	unsigned long flags;
	bool found = false;
	int i;

	spin_lock_irqsave(&u->lock, flags);
	for (i = 0; i < u->nowned; i++) {
		if (u->owned[i] == id) {
			u->owned[i] = u->owned[--u->nowned];
			found = true;
			break;
		}
	}
	spin_unlock_irqrestore(&u->lock, flags);
	return found;
}
EXPORT_SYMBOL_GPL(kiwi_ulp_forget);

/**
 * kiwi_ulp_destroy() - destroy an owned id now
 * @u: the fixture
 * @id: the id
 *
 * Context: process context; sleeps. Legal in the handler.
 */
void kiwi_ulp_destroy(struct kiwi_ulp *u, struct kiwi_cm_id *id)
{
	if (kiwi_ulp_forget(u, id))
		kiwi_cm_destroy_id(id);
}
EXPORT_SYMBOL_GPL(kiwi_ulp_destroy);

/**
 * kiwi_ulp_id() - create an owned id with the recording handler
 * @u: the fixture
 *
 * Context: process context; sleeps. Asserts on failure.
 * Return: the id.
 */
struct kiwi_cm_id *kiwi_ulp_id(struct kiwi_ulp *u)
{
	struct kiwi_cm_id *id = kiwi_cm_create_id(u->dev, kiwi_ulp_handler, u);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(u->test, id);
	kiwi_ulp_own(u, id);
	return id;
}
EXPORT_SYMBOL_GPL(kiwi_ulp_id);

/**
 * kiwi_ulp_qp() - create a QP the fixture destroys at the end
 * @u: the fixture
 *
 * Context: process context; sleeps. Asserts on failure.
 * Return: its number.
 */
u32 kiwi_ulp_qp(struct kiwi_ulp *u)
{
	struct ib_qp_init_attr init = {
		.send_cq = u->cq,
		.recv_cq = u->cq,
		.cap = { .max_send_wr = 4,
			 .max_recv_wr = 4,
			 .max_send_sge = 1,
			 .max_recv_sge = 1 },
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
	};
	struct ib_qp *qp;

	KUNIT_ASSERT_LT(u->test, u->nqps, (int)ARRAY_SIZE(u->qps));
	qp = kiwi_create_qp(u->pd, &init);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(u->test, qp);
	u->qps[u->nqps++] = qp;
	return qp->qp_num;
}
EXPORT_SYMBOL_GPL(kiwi_ulp_qp);

/**
 * kiwi_ulp_wait() - wait until at least @n events were recorded
 * @u: the fixture
 * @n: number of events
 *
 * Context: process context; sleeps (at most 5 s).
 * Return: true if they were.
 */
bool kiwi_ulp_wait(struct kiwi_ulp *u, int n)
{
	return wait_event_timeout(u->wq, kiwi_ulp_count(u) >= n, 5 * HZ) > 0;
}
EXPORT_SYMBOL_GPL(kiwi_ulp_wait);

/**
 * kiwi_ulp_count() - number of events recorded
 * @u: the fixture
 *
 * Context: any context.
 * Return: the number.
 */
int kiwi_ulp_count(struct kiwi_ulp *u)
{
	unsigned long flags;
	int n;

	spin_lock_irqsave(&u->lock, flags);
	n = u->n;
	spin_unlock_irqrestore(&u->lock, flags);
	return n;
}
EXPORT_SYMBOL_GPL(kiwi_ulp_count);

/**
 * kiwi_ulp_rec() - a recorded event
 * @u: the fixture
 * @i: its index; out of range gives an empty record
 *
 * Context: any context.
 * Return: a copy of the record.
 */
struct kiwi_ulp_rec kiwi_ulp_rec(struct kiwi_ulp *u, int i)
{
	struct kiwi_ulp_rec r = { .event = KIWI_CM_NR_EVENTS };
	unsigned long flags;

	spin_lock_irqsave(&u->lock, flags);
	if (i >= 0 && i < u->n)
		r = u->recs[i];
	spin_unlock_irqrestore(&u->lock, flags);
	return r;
}
EXPORT_SYMBOL_GPL(kiwi_ulp_rec);

/**
 * kiwi_ulp_listen() - an owned listening id
 * @u: the fixture
 * @backlog: for kiwi_cm_listen()
 *
 * Context: process context; sleeps. Asserts on failure.
 * Return: the id.
 */
struct kiwi_cm_id *kiwi_ulp_listen(struct kiwi_ulp *u, int backlog)
{
	struct kiwi_cm_id *id = kiwi_ulp_id(u);

	KUNIT_ASSERT_EQ(u->test, kiwi_cm_listen(id, backlog), 0);
	return id;
}
EXPORT_SYMBOL_GPL(kiwi_ulp_listen);

/**
 * kiwi_ulp_request() - inject a CONNECT_REQUEST and get its child
 * @u: the fixture
 * @listener: a listening id of @u
 *
 * Context: process context; sleeps. Asserts on failure.
 * Return: the child id, delivered and owned.
 */
struct kiwi_cm_id *kiwi_ulp_request(struct kiwi_ulp *u,
				    struct kiwi_cm_id *listener)
{
	int n = kiwi_ulp_count(u);

	int ret = kiwi_ulp_ev(u, listener, KIWI_CM_EVENT_CONNECT_REQUEST, 0);

	KUNIT_ASSERT_EQ(u->test, ret, 0);
	KUNIT_ASSERT_TRUE(u->test, kiwi_ulp_wait(u, n + 1));
	KUNIT_ASSERT_EQ(u->test, kiwi_ulp_rec(u, n).event,
			KIWI_CM_EVENT_CONNECT_REQUEST);
	return kiwi_ulp_rec(u, n).id;
}
EXPORT_SYMBOL_GPL(kiwi_ulp_request);

/**
 * kiwi_ulp_connect() - an owned id in CONN_SENT, with a QP
 * @u: the fixture
 *
 * Context: process context; sleeps. Asserts on failure.
 * Return: the id.
 */
struct kiwi_cm_id *kiwi_ulp_connect(struct kiwi_ulp *u)
{
	struct kiwi_conn_param p = { .ird = 4, .ord = 4 };
	struct kiwi_cm_id *id = kiwi_ulp_id(u);

	p.qpn = kiwi_ulp_qp(u);
	KUNIT_ASSERT_EQ(u->test, kiwi_cm_connect(id, &p), 0);
	return id;
}
EXPORT_SYMBOL_GPL(kiwi_ulp_connect);

/**
 * kiwi_ulp_established() - an owned, connected id
 * @u: the fixture
 *
 * Context: process context; sleeps. Asserts on failure.
 * Return: the id; its CONNECT_REPLY was delivered.
 */
struct kiwi_cm_id *kiwi_ulp_established(struct kiwi_ulp *u)
{
	struct kiwi_cm_id *id = kiwi_ulp_connect(u);
	int n = kiwi_ulp_count(u);

	KUNIT_ASSERT_EQ(u->test,
			kiwi_ulp_ev(u, id, KIWI_CM_EVENT_CONNECT_REPLY, 0), 0);
	KUNIT_ASSERT_TRUE(u->test, kiwi_ulp_wait(u, n + 1));
	return id;
}
EXPORT_SYMBOL_GPL(kiwi_ulp_established);

/**
 * kiwi_ulp_ev() - the mock reports a simple event from process context
 * @u: the fixture
 * @id: the id
 * @event: the event type
 * @status: its status
 *
 * Context: process context.
 * Return: what kiwi_cm_upcall() returned.
 */
int kiwi_ulp_ev(struct kiwi_ulp *u, struct kiwi_cm_id *id, u8 event, int status)
{
	return kiwi_mock_event(u->m, id, event, status);
}
EXPORT_SYMBOL_GPL(kiwi_ulp_ev);

/**
 * kiwi_ulp_cnt() - a counter of the fixture's device
 * @u: the fixture
 * @c: the counter
 *
 * Context: any context.
 * Return: its value.
 */
unsigned long kiwi_ulp_cnt(struct kiwi_ulp *u, enum kiwi_device_counter c)
{
	return kiwi_device_counter(u->dev, c);
}
EXPORT_SYMBOL_GPL(kiwi_ulp_cnt);

/**
 * kiwi_ulp_teardown() - destroy everything the fixture owns, check leaks
 * @u: the fixture; nothing happens if already torn down
 *
 * Destroys the owned ids, the QPs and the CQ, drops the mock's endpoint
 * references and unregisters the device (which waits for every id to be
 * freed), then expects every mock QP freed, no iw_rem_ref in atomic
 * context, no event outside a worker and no id left.
 *
 * Context: process context; sleeps.
 */
void kiwi_ulp_teardown(struct kiwi_ulp *u)
{
	struct kiwi_mock *m = u->m;
	struct kunit *test = u->test;

	if (!m)
		return;
	u->m = NULL;
	while (u->nowned)
		kiwi_ulp_destroy(u, u->owned[0]);
	while (u->nqps)
		kiwi_destroy_qp(u->qps[--u->nqps]);
	kiwi_destroy_cq(u->cq);
	kiwi_dealloc_pd(u->pd);
	kiwi_mock_release_all(m);
	kiwi_unregister_device(&m->dev);
	KUNIT_EXPECT_EQ(test, atomic_read(&m->qps_alive), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&m->rem_ref_atomic), 0);
	KUNIT_EXPECT_EQ(test, u->bad_ctx, 0);
	KUNIT_EXPECT_EQ(test, kiwi_cm_live_ids(), u->live_ids);
	kfree(m);
}
EXPORT_SYMBOL_GPL(kiwi_ulp_teardown);

static void kiwi_ulp_free(struct kunit_resource *res)
{
	kiwi_ulp_teardown(res->data);
}

/**
 * kiwi_ulp_setup() - a fixture with its own mock RNIC, torn down at the
 * end of the test even when an assertion aborts it
 * @test: the running test
 *
 * Context: process context; sleeps. Asserts on failure.
 * Return: the fixture.
 */
struct kiwi_ulp *kiwi_ulp_setup(struct kunit *test)
{
	struct kiwi_ulp *u = kunit_kzalloc(test, sizeof(*u), GFP_KERNEL);
	struct ib_cq_init_attr cq_attr = { .cqe = 8 };
	char name[16];

	KUNIT_ASSERT_NOT_NULL(test, u);
	u->test = test;
	spin_lock_init(&u->lock);
	init_waitqueue_head(&u->wq);
	u->live_ids = kiwi_cm_live_ids();
	snprintf(name, sizeof(name), "mock%d",
		 atomic_inc_return(&kiwi_ulp_seq));
	u->m = kiwi_mock_create(name);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, u->m);
	u->dev = &u->m->dev;
	u->cq = kiwi_create_cq(u->dev, NULL, NULL, NULL, &cq_attr);
	if (IS_ERR(u->cq)) {
		kiwi_mock_destroy(u->m);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, u->cq);
	}
	u->pd = kiwi_alloc_pd(u->dev, 0);
	if (IS_ERR(u->pd)) {
		kiwi_destroy_cq(u->cq);
		kiwi_mock_destroy(u->m);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, u->pd);
	}
	KUNIT_ASSERT_NOT_NULL(test,
			      kunit_alloc_resource(test, NULL, kiwi_ulp_free,
						   GFP_KERNEL, u));
	return u;
}
EXPORT_SYMBOL_GPL(kiwi_ulp_setup);
