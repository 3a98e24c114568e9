// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_softiw completion queues: a ring of work completions per CQ, the
 * completion handler called once per arming, and overflow.
 *
 * A completion that does not fit is not dropped silently: the CQ is
 * marked overflowed for good and refuses every later one, its handler is
 * called whether armed or not, and once the completions that fit have
 * been polled, poll returns -EOVERFLOW. The first lost completion raises
 * IB_EVENT_CQ_ERR for the CQ's owner, once. The QP whose completion was
 * lost goes to ERROR (see softiw_wq_complete()). Size a CQ for the queues
 * of every QP using it.
 */
#include <linux/slab.h>

#include "softiw.h"

/*
 * What struct softiw_cqe narrows must fit: opcodes and the flags softiw
 * sets (the only ones there are) in a u8.
 */
static_assert(IB_WC_RECV <= U8_MAX);
static_assert(IB_WC_WITH_INVALIDATE <= U8_MAX);

static void softiw_cqe_pack(struct softiw_cqe *cqe, const struct ib_wc *wc)
{
	*cqe = (struct softiw_cqe) {
		.wr_id = wc->wr_id,
		.qp = wc->qp,
		.status = wc->status,
		.byte_len = wc->byte_len,
		.invalidate_rkey = wc->ex.invalidate_rkey,
		.opcode = wc->opcode,
		.wc_flags = wc->wc_flags,
	};
}

static void softiw_cqe_unpack(struct ib_wc *wc, const struct softiw_cqe *cqe)
{
	*wc = (struct ib_wc) {
		.wr_id = cqe->wr_id,
		.status = cqe->status,
		.opcode = cqe->opcode,
		.byte_len = cqe->byte_len,
		.qp = cqe->qp,
		.wc_flags = cqe->wc_flags,
		.ex.invalidate_rkey = cqe->invalidate_rkey,
	};
}

struct ib_cq *softiw_create_cq(struct ib_device *kdev,
			       const struct ib_cq_init_attr *attr)
{
	u32 cqe = attr->cqe;
	struct softiw_cq *scq;

	might_sleep();
	scq = kiwi_should_fail() ? NULL : kzalloc(sizeof(*scq), GFP_KERNEL);
	if (!scq)
		return ERR_PTR(-ENOMEM);
	scq->wc = kiwi_should_fail() ? NULL :
		  kvcalloc(cqe, sizeof(*scq->wc), GFP_KERNEL);
	if (!scq->wc) {
		kfree(scq);
		return ERR_PTR(-ENOMEM);
	}
	spin_lock_init(&scq->lock);
	scq->size = cqe;
	scq->cq.cqe = cqe;
	return &scq->cq;
}

void softiw_destroy_cq(struct ib_cq *cq)
{
	struct softiw_cq *scq = softiw_cq(cq);

	kvfree(scq->wc);
	kfree(scq);
}

int softiw_poll_cq(struct ib_cq *cq, int num_entries, struct ib_wc *wc)
{
	struct softiw_cq *scq = softiw_cq(cq);
	unsigned long flags;
	int n = 0;

	spin_lock_irqsave(&scq->lock, flags);
	while (n < num_entries && scq->count) {
		softiw_cqe_unpack(&wc[n++], &scq->wc[scq->head]);
		scq->head = (scq->head + 1) % scq->size;
		scq->count--;
	}
	if (!n && num_entries > 0 && scq->overflow)
		n = -EOVERFLOW;
	spin_unlock_irqrestore(&scq->lock, flags);
	return n;
}

int softiw_req_notify_cq(struct ib_cq *cq, enum ib_cq_notify_flags flags)
{
	unsigned int which = flags & IB_CQ_SOLICITED_MASK;
	struct softiw_cq *scq = softiw_cq(cq);
	unsigned long irqflags;
	int missed = 0;

	spin_lock_irqsave(&scq->lock, irqflags);
	/* NEXT_COMP covers SOLICITED: never narrow an arming. */
	if (scq->armed != IB_CQ_NEXT_COMP)
		scq->armed = which;
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) && scq->count)
		missed = 1;
	spin_unlock_irqrestore(&scq->lock, irqflags);
	return missed;
}

/**
 * softiw_cq_push() - add a completion
 * @scq: the CQ
 * @wc: the completion
 * @solicited: it completes a RECV of a solicited message
 *
 * The handler is not called here (the caller may hold a queue lock the
 * handler would take by posting): call softiw_cq_notify() after.
 * A failed completion wakes a CQ armed for solicited ones too.
 *
 * Context: any context.
 * Return: 0, or -EOVERFLOW if the CQ was full or overflowed before (the
 * completion is lost; the CQ is marked overflowed and takes no more, so
 * that completions never resume after a gap). The push that overflows
 * the CQ raises IB_EVENT_CQ_ERR; later ones do not.
 */
int softiw_cq_push(struct softiw_cq *scq, const struct ib_wc *wc,
		   bool solicited)
{
	bool first = false;
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(&scq->lock, flags);
	if (scq->overflow || scq->count == scq->size) {
		first = !scq->overflow;
		scq->overflow = true;
		scq->notify = true;
		ret = -EOVERFLOW;
		goto unlock;
	}
	softiw_cqe_pack(&scq->wc[(scq->head + scq->count) % scq->size], wc);
	scq->count++;
	if (scq->armed == IB_CQ_NEXT_COMP ||
	    (scq->armed == IB_CQ_SOLICITED && (solicited || wc->status))) {
		scq->armed = 0;
		scq->notify = true;
	}
unlock:
	spin_unlock_irqrestore(&scq->lock, flags);
	if (first)
		kiwi_cq_event(&scq->cq, IB_EVENT_CQ_ERR);
	return ret;
}

/**
 * softiw_cq_notify() - call the completion handler if a push made it due
 * @scq: the CQ
 *
 * Context: any context; no queue lock held.
 */
void softiw_cq_notify(struct softiw_cq *scq)
{
	unsigned long flags;
	bool due;

	spin_lock_irqsave(&scq->lock, flags);
	due = scq->notify;
	scq->notify = false;
	spin_unlock_irqrestore(&scq->lock, flags);
	if (due && scq->cq.comp_handler)
		scq->cq.comp_handler(&scq->cq, scq->cq.cq_context);
}
