// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_softiw_cq_events: IB_EVENT_CQ_ERR on softiw. A CQ that overflows
 * tells its owner once, through the event_handler given to
 * ib_create_cq(), in process context, and the QP whose completion was
 * lost hears IB_EVENT_QP_FATAL; no CQ event runs once ib_destroy_cq()
 * returned.
 */
#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/dma-mapping.h>
#include <linux/irqflags.h>
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "cm_fixture.h"
#include "verbs_util.h"

#define CQE_PORT	22601
#define CQE_WAIT	(5 * HZ)
#define CQE_ENTRIES	2			/* of the receiving CQ */
#define CQE_MSGS	(CQE_ENTRIES + 2)	/* RECVs and SENDs */
#define CQE_ROUNDS	32

/**
 * struct cqe_events - what the event handlers of a case heard
 * @lock: protects every field below but @wq and @cq
 * @wq: woken on each event
 * @cq: the CQ of the case, destroyed when the case ends
 * @live: the CQ whose events may still come; NULL once it is destroyed
 * @cq_errs: IB_EVENT_CQ_ERR events heard
 * @other: CQ events of another type heard
 * @late: CQ events heard for a CQ that is not @live
 * @atomic_ctx: a CQ event came in atomic context
 * @ev_cq: element.cq of the last CQ event
 * @ev_dev: its device
 * @qp_events: BIT(enum ib_event_type) of the receiving QP's events
 * @ev_qp: element.qp of its last event
 */
struct cqe_events {
	spinlock_t lock;	/* protects the fields below but wq and cq */
	wait_queue_head_t wq;
	struct ib_cq *cq;
	struct ib_cq *live;
	int cq_errs;
	int other;
	int late;
	bool atomic_ctx;
	struct ib_cq *ev_cq;
	struct ib_device *ev_dev;
	unsigned long qp_events;
	struct ib_qp *ev_qp;
};

static void cqe_cq_event(struct ib_event *ev, void *ctx)
{
	bool task = in_task() && !irqs_disabled();
	struct cqe_events *e = ctx;
	unsigned long flags;

	spin_lock_irqsave(&e->lock, flags);
	if (ev->event == IB_EVENT_CQ_ERR)
		e->cq_errs++;
	else
		e->other++;
	e->late += ev->element.cq != e->live;
	e->atomic_ctx |= !task;
	e->ev_cq = ev->element.cq;
	e->ev_dev = ev->device;
	spin_unlock_irqrestore(&e->lock, flags);
	wake_up_all(&e->wq);
}

static void cqe_qp_event(struct ib_event *ev, void *ctx)
{
	struct cqe_events *e = ctx;
	unsigned long flags;

	spin_lock_irqsave(&e->lock, flags);
	e->qp_events |= BIT(ev->event);
	e->ev_qp = ev->element.qp;
	spin_unlock_irqrestore(&e->lock, flags);
	wake_up_all(&e->wq);
}

static void cqe_release(struct kunit_resource *res)
{
	struct cqe_events *e = res->data;

	if (e->cq)
		ib_destroy_cq(e->cq);
	e->cq = NULL;
}

/*
 * The handlers' record, taken before cmt_setup(): its CQ is destroyed
 * after the fixture's QPs, and the record freed after that.
 */
static struct cqe_events *cqe_events(struct kunit *test)
{
	struct cqe_events *e = kunit_kzalloc(test, sizeof(*e), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, e);
	spin_lock_init(&e->lock);
	init_waitqueue_head(&e->wq);
	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test, NULL,
							 cqe_release,
							 GFP_KERNEL, e));
	return e;
}

/* A CQ of @entries whose events @e records, as @e->cq and @e->live. */
static void cqe_create_cq(struct kunit *test, struct cqe_events *e,
			  struct ib_device *dev, u32 entries)
{
	struct ib_cq_init_attr attr = { .cqe = entries };
	struct ib_cq *cq = ib_create_cq(dev, NULL, cqe_cq_event, e, &attr);
	unsigned long flags;

	KUNIT_ASSERT_FALSE(test, IS_ERR(cq));
	spin_lock_irqsave(&e->lock, flags);
	e->cq = cq;
	e->live = cq;
	spin_unlock_irqrestore(&e->lock, flags);
}

/* Destroy @e->cq now; any event of it heard after is late. */
static void cqe_destroy_cq(struct cqe_events *e)
{
	struct ib_cq *cq = e->cq;
	unsigned long flags;

	e->cq = NULL;
	ib_destroy_cq(cq);
	spin_lock_irqsave(&e->lock, flags);
	e->live = NULL;
	spin_unlock_irqrestore(&e->lock, flags);
}

static bool cqe_wait_cq_errs(struct cqe_events *e, int n)
{
	return wait_event_timeout(e->wq, READ_ONCE(e->cq_errs) >= n,
				  CQE_WAIT);
}

static bool cqe_wait_qp_event(struct cqe_events *e, enum ib_event_type type)
{
	return wait_event_timeout(e->wq,
				  READ_ONCE(e->qp_events) & BIT(type),
				  CQE_WAIT);
}

static void cqe_post(struct kunit *test, struct ib_qp *qp, bool recv,
		     u64 wr_id, const struct ib_sge *sge)
{
	struct ib_recv_wr rwr = { .wr_id = wr_id,
				  .sg_list = (struct ib_sge *)sge,
				  .num_sge = 1 };
	struct ib_send_wr swr = { .wr_id = wr_id,
				  .sg_list = (struct ib_sge *)sge,
				  .num_sge = 1, .opcode = IB_WR_SEND };

	if (recv)
		KUNIT_ASSERT_EQ(test, ib_post_recv(qp, &rwr, NULL), 0);
	else
		KUNIT_ASSERT_EQ(test, ib_post_send(qp, &swr, NULL), 0);
}

/*
 * A receive CQ of CQE_ENTRIES takes CQE_MSGS RECV completions: the one
 * that does not fit overflows it. Its owner hears IB_EVENT_CQ_ERR about
 * that CQ, once, in process context, though more completions are lost
 * after (the QP's other RECV, flushed); the QP hears IB_EVENT_QP_FATAL.
 * The CQ gives the completions that fit, then -EOVERFLOW.
 */
static void cq_err_on_overflow(struct kunit *test)
{
	struct cqe_events *e = cqe_events(test);
	struct cmt *t = cmt_setup(test, CQE_PORT);
	struct ib_qp_init_attr init = {
		KT_QP_RC,
		.send_cq = t->cq,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ib_wc wc[CQE_MSGS];
	struct ib_sge rsge, ssge;
	struct kiwi_cm_id *a;
	struct ib_qp *rq, *sq;
	u8 *buf;
	u64 dma;
	int i;

	cqe_create_cq(test, e, t->dev, CQE_ENTRIES);
	init.recv_cq = e->cq;
	init.event_handler = cqe_qp_event;
	init.qp_context = e;
	rq = cmt_qp_init(t, &init);
	init.recv_cq = t->cq;
	init.event_handler = NULL;
	init.qp_context = NULL;
	sq = cmt_qp_init(t, &init);
	buf = cmt_buf(t, 64);
	dma = ib_dma_map_single(t->dev, buf, 64, DMA_BIDIRECTIONAL);
	KUNIT_ASSERT_EQ(test, ib_dma_mapping_error(t->dev, dma), 0);
	rsge = (struct ib_sge) { .addr = dma, .length = 32,
				 .lkey = t->pd->local_dma_lkey };
	ssge = (struct ib_sge) { .addr = dma + 32, .length = 8,
				 .lkey = t->pd->local_dma_lkey };
	for (i = 0; i < CQE_MSGS; i++)
		cqe_post(test, rq, true, i, &rsge);
	cmt_listen(t);
	a = cmt_connect_qp(t, NULL, t->port, rq->qp_num);
	cmt_accept(t, a, t, sq);
	for (i = 0; i < CQE_MSGS; i++)
		cqe_post(test, sq, false, i, &ssge);

	KUNIT_ASSERT_TRUE(test, cqe_wait_cq_errs(e, 1));
	KUNIT_EXPECT_PTR_EQ(test, e->ev_cq, e->cq);
	KUNIT_EXPECT_PTR_EQ(test, e->ev_dev, t->dev);
	KUNIT_EXPECT_TRUE(test, cqe_wait_qp_event(e, IB_EVENT_QP_FATAL));
	KUNIT_EXPECT_PTR_EQ(test, e->ev_qp, rq);

	/*
	 * Once the connection is closed and the QP destroyed nothing is
	 * pushed to the CQ any more: an event raised again would be
	 * pending by now, and flushing the core's delivery work delivers
	 * it. Exactly one came.
	 */
	KUNIT_ASSERT_NOT_NULL(test, cmt_wait(t, KIWI_CM_EVENT_CLOSE, a));
	cmt_destroy_qp(t, rq);
	flush_work(&e->cq->ev_work);
	KUNIT_EXPECT_EQ(test, e->cq_errs, 1);
	KUNIT_EXPECT_EQ(test, e->other, 0);
	KUNIT_EXPECT_EQ(test, e->late, 0);
	KUNIT_EXPECT_FALSE(test, e->atomic_ctx);
	KUNIT_EXPECT_EQ(test, ib_poll_cq(e->cq, CQE_MSGS, wc), CQE_ENTRIES);
	KUNIT_EXPECT_EQ(test, ib_poll_cq(e->cq, 1, wc), -EOVERFLOW);
	ib_dma_unmap_single(t->dev, dma, 64, DMA_BIDIRECTIONAL);
	cmt_teardown(t);
}

/*
 * An event raised just before ib_destroy_cq() is delivered before it
 * returns or never: in even rounds the CQ is destroyed at once, in odd
 * ones after the delivery. No handler runs for a destroyed CQ (KASAN
 * would see it touch the freed CQ, and @late counts it).
 */
static void cq_err_not_after_destroy(struct kunit *test)
{
	struct cqe_events *e = cqe_events(test);
	struct cmt *t = cmt_setup(test, CQE_PORT + 1);
	int i, waited = 0;

	for (i = 0; i < CQE_ROUNDS; i++) {
		cqe_create_cq(test, e, t->dev, 4);
		kiwi_cq_event(e->cq, IB_EVENT_CQ_ERR);
		if (i & 1) {
			waited++;
			KUNIT_EXPECT_TRUE(test, cqe_wait_cq_errs(e, waited));
		}
		cqe_destroy_cq(e);
		waited = READ_ONCE(e->cq_errs);
	}
	/* A last one, waited for. */
	cqe_create_cq(test, e, t->dev, 4);
	kiwi_cq_event(e->cq, IB_EVENT_CQ_ERR);
	KUNIT_EXPECT_TRUE(test, cqe_wait_cq_errs(e, waited + 1));
	cqe_destroy_cq(e);
	KUNIT_EXPECT_EQ(test, e->late, 0);
	KUNIT_EXPECT_EQ(test, e->other, 0);
	KUNIT_EXPECT_GE(test, e->cq_errs, CQE_ROUNDS / 2 + 1);
	KUNIT_EXPECT_LE(test, e->cq_errs, CQE_ROUNDS + 1);
	KUNIT_EXPECT_FALSE(test, e->atomic_ctx);
	cmt_teardown(t);
}

static struct kunit_case cq_events_cases[] = {
	KUNIT_CASE(cq_err_on_overflow),
	KUNIT_CASE(cq_err_not_after_destroy),
	{}
};

static struct kunit_suite cq_events_suite = {
	.suite_init = cmt_suite_init,
	.suite_exit = cmt_suite_exit,
	.name = "kiwi_softiw_cq_events",
	.test_cases = cq_events_cases,
};

kunit_test_suite(cq_events_suite);
