// SPDX-License-Identifier: GPL-2.0
/*
 * Draining a QP (ib_drain_qp() and its halves): move it to ERROR, which
 * flushes every work request it holds, then post a marker to each queue
 * and wait for the marker's completion. A provider completes work
 * requests in order, and one posted to a QP in ERROR at once, flushed:
 * so once the marker's completion is handled, every completion of the
 * queue before it was handled too.
 *
 * The queue's CQ must be of the CQ library (ib_alloc_cq()), whose
 * callbacks run the marker's; for an IB_POLL_DIRECT CQ the drain polls
 * it itself.
 */
#include <linux/completion.h>
#include <linux/module.h>

#include "iwcm.h"

/**
 * struct kiwi_drain - a drain's marker work request
 * @cqe: its callback
 * @done: completed by it
 */
struct kiwi_drain {
	struct ib_cqe cqe;
	struct completion done;
};

static void kiwi_drain_done(struct ib_cq *cq, struct ib_wc *wc)
{
	complete(&container_of(wc->wr_cqe, struct kiwi_drain, cqe)->done);
}

/* Move @qp to ERROR; false (and a warning) if it cannot be drained. */
static bool kiwi_drain_start(struct ib_qp *qp, struct ib_cq *cq)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	int ret;

	if (WARN_ONCE(!cq->wc, "kiwi: drain: CQ not of ib_alloc_cq()\n"))
		return false;
	ret = kiwi_modify_qp(qp, &attr, IB_QP_STATE);
	WARN_ONCE(ret, "kiwi: drain: moving QP %u to ERROR failed: %d\n",
		  qp->qp_num, ret);
	return !ret;
}

/* Wait for @d's completion on @cq, polling it if nothing else will. */
static void kiwi_drain_wait(struct ib_cq *cq, struct kiwi_drain *d)
{
	if (cq->poll_ctx != IB_POLL_DIRECT) {
		wait_for_completion(&d->done);
		return;
	}
	while (!wait_for_completion_timeout(&d->done, HZ / 10))
		kiwi_process_cq_direct(cq, INT_MAX);
}

/**
 * kiwi_drain_sq() - flush a QP's send queue and wait for its completions
 *	(ib_drain_sq())
 * @qp: the QP; its send CQ of ib_alloc_cq()
 *
 * The QP is in ERROR afterwards. Every send work request posted before
 * has completed, its callback run.
 *
 * Context: process context; sleeps. Not from a callback of the CQ.
 */
void kiwi_drain_sq(struct ib_qp *qp)
{
	struct kiwi_drain d = { .cqe.done = kiwi_drain_done };
	struct ib_rdma_wr wr = {
		.wr = { .wr_cqe = &d.cqe, .opcode = IB_WR_RDMA_WRITE },
	};
	const struct ib_send_wr *bad;
	int ret;

	might_sleep();
	if (!kiwi_drain_start(qp, qp->send_cq))
		return;
	init_completion(&d.done);
	ret = kiwi_post_send(qp, &wr.wr, &bad);
	if (WARN_ONCE(ret, "kiwi: drain: marker not posted: %d\n", ret))
		return;
	kiwi_drain_wait(qp->send_cq, &d);
}
EXPORT_SYMBOL_GPL(kiwi_drain_sq);

/**
 * kiwi_drain_rq() - flush a QP's receive queue and wait for its
 *	completions (ib_drain_rq())
 * @qp: the QP; its receive CQ of ib_alloc_cq()
 *
 * As kiwi_drain_sq(), for receive work requests.
 *
 * Context: process context; sleeps. Not from a callback of the CQ.
 */
void kiwi_drain_rq(struct ib_qp *qp)
{
	struct kiwi_drain d = { .cqe.done = kiwi_drain_done };
	struct ib_recv_wr wr = { .wr_cqe = &d.cqe };
	const struct ib_recv_wr *bad;
	int ret;

	might_sleep();
	if (!kiwi_drain_start(qp, qp->recv_cq))
		return;
	init_completion(&d.done);
	ret = kiwi_post_recv(qp, &wr, &bad);
	if (WARN_ONCE(ret, "kiwi: drain: marker not posted: %d\n", ret))
		return;
	kiwi_drain_wait(qp->recv_cq, &d);
}
EXPORT_SYMBOL_GPL(kiwi_drain_rq);

/**
 * kiwi_drain_qp() - flush both queues of a QP and wait for their
 *	completions (ib_drain_qp())
 * @qp: the QP; its CQs of ib_alloc_cq()
 *
 * Context: process context; sleeps. Not from a callback of its CQs.
 */
void kiwi_drain_qp(struct ib_qp *qp)
{
	kiwi_drain_sq(qp);
	kiwi_drain_rq(qp);
}
EXPORT_SYMBOL_GPL(kiwi_drain_qp);
