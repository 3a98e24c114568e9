// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_softiw_verbs_more: more of Linux's verbs on softiw over a
 * connection on lo: ib_drain_sq() and ib_drain_rq() with work
 * outstanding, and a peer's SEND with Invalidate naming an MR of another
 * PD, which is refused and leaves the MR valid.
 */
#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/module.h>
#include <linux/string.h>
#include <linux/wait.h>

#include "cm_fixture.h"
#include "softiw.h"
#include "verbs_util.h"
#include "vt_pair.h"

#define VM_PORT		22651
#define VM_WAIT		(5 * HZ)

/**
 * struct vm_drain - a CQ of the CQ library and its completions, counted
 *	by status
 * @cq: the CQ, freed when the case ends
 * @cqe: the callback of every work request the case posts on it
 * @ok: successful completions
 * @flushed: flushed ones
 * @other: ones of another status
 * @wq: woken on each
 */
struct vm_drain {
	struct ib_cq *cq;
	struct ib_cqe cqe;
	atomic_t ok;
	atomic_t flushed;
	atomic_t other;
	wait_queue_head_t wq;
};

static void vm_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct vm_drain *d = container_of(wc->wr_cqe, struct vm_drain, cqe);

	if (wc->status == IB_WC_SUCCESS)
		atomic_inc(&d->ok);
	else if (wc->status == IB_WC_WR_FLUSH_ERR)
		atomic_inc(&d->flushed);
	else
		atomic_inc(&d->other);
	wake_up_all(&d->wq);
}

static void vm_drain_free(struct kunit_resource *res)
{
	struct vm_drain *d = res->data;

	if (d->cq)
		ib_free_cq(d->cq);
	d->cq = NULL;
}

/*
 * Taken before vt_setup(), so that the CQ is freed after the fixture's
 * QPs and the counts outlive every callback, even if the case aborts.
 */
static struct vm_drain *vm_drain_setup(struct kunit *test)
{
	struct vm_drain *d = kunit_kzalloc(test, sizeof(*d), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, d);
	d->cqe.done = vm_done;
	init_waitqueue_head(&d->wq);
	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test, NULL,
							 vm_drain_free,
							 GFP_KERNEL, d));
	return d;
}

/* Connect @p, QP 0 on @d's new CQ (IB_POLL_WORKQUEUE) for both queues. */
static void vm_drain_connect(struct kunit *test, struct vm_drain *d,
			     struct vt_pair *p)
{
	struct ib_cq *cq = ib_alloc_cq(p->t->dev, NULL, 32, 0,
				       IB_POLL_WORKQUEUE);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, cq);
	d->cq = cq;
	vt_connect_cqs(p, cq, cq);
}

/* A signaled SEND of QP 0's buffer, completing to @d. */
static int vm_send(struct vt_pair *p, struct vm_drain *d)
{
	struct ib_sge sge = vt_sge(p, 0);
	struct ib_send_wr wr = { .wr_cqe = &d->cqe, .sg_list = &sge,
				 .num_sge = 1, .opcode = IB_WR_SEND,
				 .send_flags = IB_SEND_SIGNALED };

	return ib_post_send(p->qp[0], &wr, NULL);
}

/* A RECV into QP 0's buffer, completing to @d. */
static int vm_recv(struct vt_pair *p, struct vm_drain *d)
{
	struct ib_sge sge = vt_sge(p, 0);
	struct ib_recv_wr wr = { .wr_cqe = &d->cqe, .sg_list = &sge,
				 .num_sge = 1 };

	return ib_post_recv(p->qp[0], &wr, NULL);
}

/*
 * ib_drain_sq() with sends outstanding: two SENDs completed before it,
 * two posted just before it. When it returns the QP is in ERROR and the
 * callback of each of the four has run: the first two successful, the
 * others successful or flushed.
 */
static void verbs_more_drain_sq(struct kunit *test)
{
	struct vm_drain *d = vm_drain_setup(test);
	struct vt_pair *p = vt_setup(test, VM_PORT);
	int i;

	vm_drain_connect(test, d, p);
	for (i = 0; i < 4; i++)
		KUNIT_ASSERT_EQ(test, vt_recv(p, i), 0);
	for (i = 0; i < 2; i++)
		KUNIT_ASSERT_EQ(test, vm_send(p, d), 0);
	KUNIT_ASSERT_TRUE(test, wait_event_timeout(d->wq,
						   atomic_read(&d->ok) == 2,
						   VM_WAIT));
	for (i = 0; i < 2; i++)
		KUNIT_ASSERT_EQ(test, vm_send(p, d), 0);
	ib_drain_sq(p->qp[0]);
	KUNIT_EXPECT_EQ(test, kiwi_softiw_qp_state(p->qp[0]), IB_QPS_ERR);
	KUNIT_EXPECT_EQ(test, atomic_read(&d->ok) + atomic_read(&d->flushed),
			4);
	KUNIT_EXPECT_GE(test, atomic_read(&d->ok), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&d->other), 0);
	cmt_teardown(p->t);
}

/*
 * ib_drain_rq() with receives outstanding: four RECVs, the first filled
 * by the peer's SEND before the drain. When it returns the QP is in
 * ERROR and the callback of each has run: the first successful, the
 * three nothing filled flushed.
 */
static void verbs_more_drain_rq(struct kunit *test)
{
	struct vm_drain *d = vm_drain_setup(test);
	struct vt_pair *p = vt_setup(test, VM_PORT + 1);
	struct ib_sge sge;
	struct ib_send_wr wr = { .wr_id = 9, .sg_list = &sge, .num_sge = 1,
				 .opcode = IB_WR_SEND,
				 .send_flags = IB_SEND_SIGNALED };
	int i;

	vm_drain_connect(test, d, p);
	for (i = 0; i < 4; i++)
		KUNIT_ASSERT_EQ(test, vm_recv(p, d), 0);
	sge = vt_sge(p, 1);
	KUNIT_ASSERT_EQ(test, ib_post_send(p->qp[1], &wr, NULL), 0);
	KUNIT_ASSERT_TRUE(test, wait_event_timeout(d->wq,
						   atomic_read(&d->ok) == 1,
						   VM_WAIT));
	ib_drain_rq(p->qp[0]);
	KUNIT_EXPECT_EQ(test, kiwi_softiw_qp_state(p->qp[0]), IB_QPS_ERR);
	KUNIT_EXPECT_EQ(test, atomic_read(&d->ok), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&d->flushed), 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&d->other), 0);
	cmt_teardown(p->t);
}

/*
 * @p's QP 0 WRITEs its buffer to @mr and SENDs behind it: once the SEND
 * is received the WRITE is placed.
 */
static void vm_write(struct kunit *test, struct vt_pair *p, struct ib_mr *mr)
{
	struct ib_sge sge = vt_sge(p, 0);
	struct ib_send_wr send = { .wr_id = 4, .sg_list = &sge, .num_sge = 1,
				   .opcode = IB_WR_SEND,
				   .send_flags = IB_SEND_SIGNALED };
	struct ib_rdma_wr write = {
		.wr = { .wr_id = 3, .opcode = IB_WR_RDMA_WRITE,
			.sg_list = &sge, .num_sge = 1, .next = &send },
		.remote_addr = mr->iova, .rkey = mr->rkey,
	};
	unsigned int seen = 0;
	struct ib_wc wc;
	int i;

	KUNIT_ASSERT_EQ(test, vt_recv(p, 5), 0);
	KUNIT_ASSERT_EQ(test, ib_post_send(p->qp[0], &write.wr, NULL), 0);
	for (i = 0; i < 2; i++) {
		KUNIT_ASSERT_EQ(test, vt_poll(p->t->cq, &wc), 1);
		KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
		seen |= BIT(wc.wr_id);
	}
	KUNIT_EXPECT_EQ(test, seen, 0x30U);	/* 4 and 5: SEND and RECV */
}

/*
 * A peer's SEND with Invalidate naming an MR of the receiving device of
 * another PD than the receiving QP's: refused with RFC 5040's TERMINATE
 * "STag cannot be invalidated" (RDMAP, remote protection, 0x09), the
 * RECV flushed, not completed; the receiver's owner hears
 * IB_EVENT_QP_ACCESS_ERR, the sender's IB_EVENT_QP_FATAL. The MR is
 * still valid: a WRITE to it over a connection of its own PD lands.
 */
static void verbs_more_send_inv_other_pd(struct kunit *test)
{
	struct vt_pair *p = vt_setup(test, VM_PORT + 2);
	struct vt_pair *q = vt_setup(test, VM_PORT + 3);
	struct ib_sge sge;
	struct ib_send_wr inv = { .wr_id = 1, .sg_list = &sge, .num_sge = 1,
				  .opcode = IB_WR_SEND_WITH_INV,
				  .send_flags = IB_SEND_SIGNALED };
	bool recv_seen = false;
	struct ib_mr *mr;
	struct ib_wc wc;
	u32 ctrl = 0;
	u8 *mem;
	int i;

	mem = cmt_buf(q->t, VT_LEN);
	mr = cmt_mr(q->t, mem, VT_LEN,
		    IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE);
	KUNIT_ASSERT_PTR_EQ(test, q->t->dev, p->t->dev);
	KUNIT_ASSERT_PTR_NE(test, q->t->pd, p->t->pd);

	vt_connect(p, NULL);
	KUNIT_ASSERT_EQ(test, vt_recv(p, 2), 0);
	sge = vt_sge(p, 0);
	inv.ex.invalidate_rkey = mr->rkey;
	KUNIT_ASSERT_EQ(test, ib_post_send(p->qp[0], &inv, NULL), 0);
	KUNIT_EXPECT_NOT_NULL(test, cmt_wait_qp_event(p->t,
						      IB_EVENT_QP_ACCESS_ERR));
	KUNIT_EXPECT_NOT_NULL(test, cmt_wait_qp_event(p->t,
						      IB_EVENT_QP_FATAL));
	KUNIT_EXPECT_TRUE(test, kiwi_softiw_qp_terminate(p->qp[0], &ctrl));
	KUNIT_EXPECT_EQ(test, ctrl >> 16, 0x0109U);
	KUNIT_EXPECT_EQ(test, kiwi_softiw_qp_state(p->qp[1]), IB_QPS_ERR);
	/* The SEND's completion, any status, and the RECV's, flushed. */
	for (i = 0; i < 2 && !recv_seen; i++) {
		KUNIT_ASSERT_EQ(test, vt_poll(p->t->cq, &wc), 1);
		if (wc.wr_id != 2)
			continue;
		recv_seen = true;
		KUNIT_EXPECT_EQ(test, wc.status, IB_WC_WR_FLUSH_ERR);
		KUNIT_EXPECT_FALSE(test, wc.wc_flags & IB_WC_WITH_INVALIDATE);
	}
	KUNIT_EXPECT_TRUE(test, recv_seen);
	cmt_teardown(p->t);

	vt_connect(q, NULL);
	memset(q->buf[0], 0xa5, VT_LEN);
	vm_write(test, q, mr);
	KUNIT_EXPECT_EQ(test, memcmp(mem, q->buf[0], VT_LEN), 0);
	cmt_teardown(q->t);
}

static struct kunit_case verbs_more_cases[] = {
	KUNIT_CASE(verbs_more_drain_sq),
	KUNIT_CASE(verbs_more_drain_rq),
	KUNIT_CASE(verbs_more_send_inv_other_pd),
	{}
};

static struct kunit_suite verbs_more_suite = {
	.suite_init = cmt_suite_init,
	.suite_exit = cmt_suite_exit,
	.name = "kiwi_softiw_verbs_more",
	.test_cases = verbs_more_cases,
};

kunit_test_suite(verbs_more_suite);
