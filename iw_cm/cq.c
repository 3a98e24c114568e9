// SPDX-License-Identifier: GPL-2.0
/*
 * Completion queues: the provider's CQs as ib_create_cq() makes them, and
 * the CQ library on top (ib_alloc_cq()), which polls a CQ in the context
 * its owner chose and hands each completion to the ib_cqe its work
 * request named.
 *
 * A library CQ is polled in batches of KIWI_CQ_BATCH completions, at most
 * a budget per run (KIWI_CQ_BUDGET_SOFTIRQ in softirq context,
 * KIWI_CQ_BUDGET_WORKQUEUE in a work), then re-armed with
 * IB_CQ_REPORT_MISSED_EVENTS so that a completion that arrived between
 * the last poll and the arming starts a new run rather than waiting for
 * the next one.
 */
#include <linux/err.h>
#include <linux/irq_poll.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/workqueue.h>

#include "iwcm.h"

#define KIWI_CQ_BATCH			16
#define KIWI_CQ_BUDGET_SOFTIRQ		256
#define KIWI_CQ_BUDGET_WORKQUEUE	65536
#define KIWI_CQ_BATCH_DIRECT		8	/* on the caller's stack */

/* The vector the last ib_alloc_cq_any() took. */
static atomic_t kiwi_cq_next_vector = ATOMIC_INIT(0);

static struct workqueue_struct *kiwi_comp_wq;
static struct workqueue_struct *kiwi_comp_unbound_wq;

/**
 * kiwi_create_cq() - create a completion queue (ib_create_cq())
 * @dev: the device
 * @comp_handler: completion handler, or NULL
 * @event_handler: asynchronous event handler, or NULL
 * @cq_context: cookie for both handlers
 * @cq_attr: entries and completion vector
 *
 * Context: process context; sleeps.
 * Return: the CQ, or ERR_PTR(-ENODEV) if @dev is going away, -EINVAL if
 * the entries are 0 or beyond the device's limit, the vector beyond the
 * device's or a flag is set, or the provider's error.
 */
struct ib_cq *kiwi_create_cq(struct ib_device *dev,
			     ib_comp_handler comp_handler,
			     void (*event_handler)(struct ib_event *, void *),
			     void *cq_context,
			     const struct ib_cq_init_attr *cq_attr)
{
	struct ib_cq *cq;

	might_sleep();
	if (!dev->ops->create_cq || !cq_attr || !cq_attr->cqe ||
	    cq_attr->cqe > dev->attrs.max_cqe || cq_attr->flags ||
	    cq_attr->comp_vector >= dev->num_comp_vectors)
		return ERR_PTR(-EINVAL);
	if (!kiwi_device_get_live(dev))
		return ERR_PTR(-ENODEV);
	cq = kiwi_should_fail() ? ERR_PTR(-ENOMEM) :
	     dev->ops->create_cq(dev, cq_attr);
	if (IS_ERR(cq)) {
		kiwi_device_put(dev);
		return cq;
	}
	cq->device = dev;
	cq->comp_handler = comp_handler;
	cq->event_handler = event_handler;
	cq->cq_context = cq_context;
	cq->comp_vector = cq_attr->comp_vector;
	cq->poll_ctx = IB_POLL_DIRECT;
	atomic_set(&cq->usecnt, 0);
	kiwi_cq_event_init(cq);
	kiwi_verbs_track(dev, &cq->res, RDMA_RESTRACK_CQ, &cq->node, &dev->cqs);
	return cq;
}
EXPORT_SYMBOL_GPL(kiwi_create_cq);

/**
 * kiwi_destroy_cq() - destroy a completion queue (ib_destroy_cq())
 * @cq: the CQ, made by kiwi_create_cq(); no QP uses it any more
 *
 * The CQ's event_handler is not running and never runs again once this
 * returns. A CQ still in use by a QP is a ULP bug: it is WARNed about and
 * kept (leaked), so that the QP's completions have somewhere to go.
 *
 * Context: process context; sleeps. Not from the CQ's event_handler.
 */
void kiwi_destroy_cq(struct ib_cq *cq)
{
	struct ib_device *dev = READ_ONCE(cq->device);

	might_sleep();
	if (!dev)
		return;		/* orphaned: its provider is gone */
	kiwi_cq_event_stop(cq, true);
	if (WARN_ONCE(atomic_read(&cq->usecnt),
		      "kiwi: %s: CQ destroyed with %d QPs using it\n",
		      dev->name, atomic_read(&cq->usecnt)))
		return;
	kiwi_verbs_untrack(dev, &cq->res, &cq->node);
	dev->ops->destroy_cq(cq);
	kiwi_device_put(dev);
}
EXPORT_SYMBOL_GPL(kiwi_destroy_cq);

/**
 * kiwi_poll_cq() - take completions (ib_poll_cq())
 * @cq: the CQ
 * @num_entries: room at @wc
 * @wc: filled with completions
 *
 * Context: any context; does not sleep.
 * Return: number of completions taken, or a negative errno.
 */
int kiwi_poll_cq(struct ib_cq *cq, int num_entries, struct ib_wc *wc)
{
	return cq->device->ops->poll_cq(cq, num_entries, wc);
}
EXPORT_SYMBOL_GPL(kiwi_poll_cq);

/**
 * kiwi_req_notify_cq() - arm a CQ's completion handler (ib_req_notify_cq())
 * @cq: the CQ
 * @flags: IB_CQ_NEXT_COMP or IB_CQ_SOLICITED, optionally with
 *	IB_CQ_REPORT_MISSED_EVENTS
 *
 * Context: any context; does not sleep.
 * Return: 0; 1 with IB_CQ_REPORT_MISSED_EVENTS if completions wait to be
 * polled; -EINVAL for other flags; or the provider's negative errno.
 */
int kiwi_req_notify_cq(struct ib_cq *cq, enum ib_cq_notify_flags flags)
{
	unsigned int which = flags & IB_CQ_SOLICITED_MASK;

	if ((which != IB_CQ_NEXT_COMP && which != IB_CQ_SOLICITED) ||
	    (flags & ~(IB_CQ_SOLICITED_MASK | IB_CQ_REPORT_MISSED_EVENTS)))
		return -EINVAL;
	return cq->device->ops->req_notify_cq(cq, flags);
}
EXPORT_SYMBOL_GPL(kiwi_req_notify_cq);

/*
 * Poll up to @budget completions (any number if negative) into @wcs, of
 * @batch entries, and run their callbacks.
 */
static int kiwi_cq_process(struct ib_cq *cq, int budget, struct ib_wc *wcs,
			   int batch)
{
	int done = 0, n, i;

	if (budget < 0)
		budget = INT_MAX;
	while (done < budget) {
		n = kiwi_poll_cq(cq, min(budget - done, batch), wcs);
		if (n <= 0)
			break;
		for (i = 0; i < n; i++) {
			struct ib_wc *wc = &wcs[i];

			if (wc->wr_cqe)
				wc->wr_cqe->done(cq, wc);
			else
				WARN_ON_ONCE(wc->status == IB_WC_SUCCESS);
		}
		done += n;
		if (n < batch)
			break;
	}
	return done;
}

/* Arm again; true if completions came in meanwhile (run again). */
static bool kiwi_cq_rearm(struct ib_cq *cq)
{
	return kiwi_req_notify_cq(cq, IB_CQ_NEXT_COMP |
				  IB_CQ_REPORT_MISSED_EVENTS) > 0;
}

static int kiwi_cq_poll_softirq(struct irq_poll *iop, int budget)
{
	struct ib_cq *cq = container_of(iop, struct ib_cq, iop);
	int done = kiwi_cq_process(cq, budget, cq->wc, KIWI_CQ_BATCH);

	if (done < budget) {
		irq_poll_complete(iop);
		if (kiwi_cq_rearm(cq))
			irq_poll_sched(iop);
	}
	return done;
}

static void kiwi_cq_comp_softirq(struct ib_cq *cq, void *cq_context)
{
	irq_poll_sched(&cq->iop);
}

static void kiwi_cq_poll_work(struct work_struct *work)
{
	struct ib_cq *cq = container_of(work, struct ib_cq, work);
	int done = kiwi_cq_process(cq, KIWI_CQ_BUDGET_WORKQUEUE, cq->wc,
				   KIWI_CQ_BATCH);

	if (done >= KIWI_CQ_BUDGET_WORKQUEUE || kiwi_cq_rearm(cq))
		queue_work(cq->comp_wq, &cq->work);
}

static void kiwi_cq_comp_work(struct ib_cq *cq, void *cq_context)
{
	queue_work(cq->comp_wq, &cq->work);
}

/* The completion handler of a library CQ polled in @poll_ctx. */
static ib_comp_handler kiwi_cq_handler(enum ib_poll_context poll_ctx)
{
	switch (poll_ctx) {
	case IB_POLL_SOFTIRQ:
		return kiwi_cq_comp_softirq;
	case IB_POLL_WORKQUEUE:
	case IB_POLL_UNBOUND_WORKQUEUE:
		return kiwi_cq_comp_work;
	default:
		return NULL;
	}
}

/**
 * kiwi_alloc_cq() - a CQ of the CQ library (ib_alloc_cq())
 * @dev: the device
 * @private: the owner's cookie (&ib_cq.cq_context)
 * @nr_cqe: entries
 * @comp_vector: completion vector below the device's num_comp_vectors,
 *	or -1 for any (ib_alloc_cq_any()): the next, in turn
 * @poll_ctx: how its completions' &ib_cqe.done callbacks run
 *
 * Every work request posted to a QP using the CQ must name its callback
 * in wr_cqe. For IB_POLL_DIRECT the owner polls with
 * kiwi_process_cq_direct(); for the others the CQ is armed here and
 * polled in that context whenever completions arrive.
 *
 * Context: process context; sleeps.
 * Return: the CQ, or ERR_PTR(-EINVAL) for an unknown @poll_ctx, -ENOMEM,
 * or kiwi_create_cq()'s error.
 */
struct ib_cq *kiwi_alloc_cq(struct ib_device *dev, void *private,
			    int nr_cqe, int comp_vector,
			    enum ib_poll_context poll_ctx)
{
	struct ib_cq_init_attr attr = { .cqe = nr_cqe };
	struct ib_cq *cq;
	struct ib_wc *wc;

	might_sleep();
	if (poll_ctx > IB_POLL_DIRECT || nr_cqe <= 0)
		return ERR_PTR(-EINVAL);
	/* Any vector: the next one, round the device's and the CPUs. */
	if (comp_vector < 0)
		comp_vector = atomic_inc_return(&kiwi_cq_next_vector) %
			      min_t(int, max(dev->num_comp_vectors, 1),
				    num_online_cpus());
	attr.comp_vector = comp_vector;
	wc = kiwi_should_fail() ? NULL :
	     kmalloc_array(KIWI_CQ_BATCH, sizeof(*wc), GFP_KERNEL);
	if (!wc)
		return ERR_PTR(-ENOMEM);
	cq = kiwi_create_cq(dev, kiwi_cq_handler(poll_ctx), NULL, private,
			    &attr);
	if (IS_ERR(cq)) {
		kfree(wc);
		return cq;
	}
	cq->wc = wc;
	cq->poll_ctx = poll_ctx;
	switch (poll_ctx) {
	case IB_POLL_SOFTIRQ:
		irq_poll_init(&cq->iop, KIWI_CQ_BUDGET_SOFTIRQ,
			      kiwi_cq_poll_softirq);
		break;
	case IB_POLL_WORKQUEUE:
	case IB_POLL_UNBOUND_WORKQUEUE:
		INIT_WORK(&cq->work, kiwi_cq_poll_work);
		cq->comp_wq = poll_ctx == IB_POLL_WORKQUEUE ?
			kiwi_comp_wq : kiwi_comp_unbound_wq;
		break;
	default:
		return cq;
	}
	kiwi_req_notify_cq(cq, IB_CQ_NEXT_COMP);
	return cq;
}
EXPORT_SYMBOL_GPL(kiwi_alloc_cq);

/**
 * kiwi_free_cq() - free a CQ of the CQ library (ib_free_cq())
 * @cq: the CQ, made by kiwi_alloc_cq(); no QP uses it any more
 *
 * Waits for a run of its callbacks in progress.
 *
 * Context: process context; sleeps.
 */
void kiwi_free_cq(struct ib_cq *cq)
{
	struct ib_wc *wc = cq->wc;

	might_sleep();
	if (WARN_ON_ONCE(!wc))
		return;		/* not a library CQ: kiwi_destroy_cq() */
	if (WARN_ONCE(atomic_read(&cq->usecnt),
		      "kiwi: CQ freed with %d QPs using it\n",
		      atomic_read(&cq->usecnt)))
		return;
	switch (cq->poll_ctx) {
	case IB_POLL_SOFTIRQ:
		irq_poll_disable(&cq->iop);
		break;
	case IB_POLL_WORKQUEUE:
	case IB_POLL_UNBOUND_WORKQUEUE:
		cancel_work_sync(&cq->work);
		break;
	default:
		break;
	}
	kiwi_destroy_cq(cq);
	kfree(wc);
}
EXPORT_SYMBOL_GPL(kiwi_free_cq);

/**
 * kiwi_cq_pool_get() - a CQ for a QP, from the device's pool
 *	(ib_cq_pool_get())
 * @dev: the device
 * @nr_cqe: entries the QP needs
 * @comp_vector_hint: the completion vector wanted (modulo the device's
 *	num_comp_vectors, as Linux takes it), or -1 for any
 * @poll_ctx: how its done callbacks run; not IB_POLL_DIRECT
 *
 * kiwi's pool gives each caller a CQ of its own, of @nr_cqe entries:
 * sharing one among QPs would save memory, not change what a ULP sees.
 *
 * Context: process context; sleeps.
 * Return: the CQ, or ERR_PTR() with kiwi_alloc_cq()'s errors, -EINVAL
 * for IB_POLL_DIRECT.
 */
struct ib_cq *kiwi_cq_pool_get(struct ib_device *dev, unsigned int nr_cqe,
			       int comp_vector_hint,
			       enum ib_poll_context poll_ctx)
{
	struct ib_cq *cq;

	if (poll_ctx == IB_POLL_DIRECT || !nr_cqe || nr_cqe > INT_MAX)
		return ERR_PTR(-EINVAL);
	if (comp_vector_hint >= 0)
		comp_vector_hint %= max(dev->num_comp_vectors, 1);
	cq = kiwi_alloc_cq(dev, NULL, nr_cqe, comp_vector_hint, poll_ctx);
	if (IS_ERR(cq))
		return cq;
	cq->shared = true;
	cq->cqe_used = nr_cqe;
	return cq;
}
EXPORT_SYMBOL_GPL(kiwi_cq_pool_get);

/**
 * kiwi_cq_pool_put() - give back a CQ of kiwi_cq_pool_get()
 *	(ib_cq_pool_put())
 * @cq: the CQ, no QP using it any more
 * @nr_cqe: the entries it was got with
 *
 * Context: process context; sleeps.
 */
void kiwi_cq_pool_put(struct ib_cq *cq, unsigned int nr_cqe)
{
	if (WARN_ON_ONCE(!cq->shared || cq->cqe_used != nr_cqe))
		return;
	cq->shared = false;
	kiwi_free_cq(cq);
}
EXPORT_SYMBOL_GPL(kiwi_cq_pool_put);

/**
 * kiwi_process_cq_direct() - poll a CQ and run its completions'
 *	callbacks (ib_process_cq_direct())
 * @cq: the CQ, normally of IB_POLL_DIRECT
 * @budget: most completions to handle; negative for no limit
 *
 * Runs the &ib_cqe.done callbacks in the caller's context, into a batch
 * of its own: callers polling one CQ at once are safe, though a CQ of
 * another poll context is better left to its own poller. The CQ is
 * never armed.
 *
 * Context: any context the callbacks allow; does not sleep itself.
 * Return: the completions handled.
 */
int kiwi_process_cq_direct(struct ib_cq *cq, int budget)
{
	struct ib_wc wcs[KIWI_CQ_BATCH_DIRECT];

	return kiwi_cq_process(cq, budget, wcs, ARRAY_SIZE(wcs));
}
EXPORT_SYMBOL_GPL(kiwi_process_cq_direct);

/**
 * kiwi_cq_init() - create the CQ library's workqueues
 *
 * Context: module init.
 * Return: 0 or -ENOMEM.
 */
int kiwi_cq_init(void)
{
	kiwi_comp_wq = alloc_workqueue("kiwi_comp_wq",
				       WQ_HIGHPRI | WQ_MEM_RECLAIM | WQ_SYSFS,
				       0);
	if (!kiwi_comp_wq)
		return -ENOMEM;
	kiwi_comp_unbound_wq = alloc_workqueue("kiwi_comp_unbound_wq",
					       WQ_UNBOUND | WQ_HIGHPRI |
					       WQ_MEM_RECLAIM | WQ_SYSFS,
					       WQ_UNBOUND_MAX_ACTIVE);
	if (!kiwi_comp_unbound_wq) {
		destroy_workqueue(kiwi_comp_wq);
		return -ENOMEM;
	}
	return 0;
}

/**
 * kiwi_cq_exit() - destroy the CQ library's workqueues
 *
 * Context: module exit; every library CQ freed.
 */
void kiwi_cq_exit(void)
{
	destroy_workqueue(kiwi_comp_unbound_wq);
	destroy_workqueue(kiwi_comp_wq);
}
