// SPDX-License-Identifier: GPL-2.0
/*
 * The mock RNIC: a complete kiwi provider with no wire underneath.
 * Documentation/provider-guide.rst uses it as its worked example.
 */
#include <linux/completion.h>
#include <linux/err.h>
#include <linux/irq_work.h>
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/slab.h>
#include <linux/timer.h>

#include "mock_rnic.h"

/* A QP: the core's part embedded first, freed on the last reference. */
struct kiwi_mock_qp {
	struct ib_qp qp;
	struct kiwi_mock *mock;
	refcount_t ref;
	struct list_head node;
	struct ib_cq *send_cq;
};

#define KIWI_MOCK_CQ_DEPTH 16

struct kiwi_mock_cq {
	struct ib_cq cq;
	spinlock_t lock;	/* protects wc, head, count, armed */
	struct ib_wc wc[KIWI_MOCK_CQ_DEPTH];
	unsigned int head;
	unsigned int count;
	bool armed;
};

struct kiwi_mock_mr {
	struct ib_mr mr;
};

static struct kiwi_mock *kiwi_mock_of(struct ib_device *dev)
{
	return container_of(dev, struct kiwi_mock, dev);
}

/* Count a call; return the next queued failure for @op, or 0. */
static int kiwi_mock_call(struct kiwi_mock *m, enum kiwi_mock_op op)
{
	unsigned long flags;
	int ret = 0;

	atomic_inc(&m->calls[op]);
	spin_lock_irqsave(&m->lock, flags);
	if (m->nfails[op]) {
		ret = m->fails[op][0];
		m->nfails[op]--;
		memmove(m->fails[op], m->fails[op] + 1,
			m->nfails[op] * sizeof(int));
	}
	spin_unlock_irqrestore(&m->lock, flags);
	return ret;
}

static int kiwi_mock_cm_call(struct kiwi_cm_id *id, enum kiwi_mock_op op)
{
	struct kiwi_mock *m = kiwi_mock_of(id->device);

	might_sleep();
	if (m->hook)
		m->hook(m, op, id);
	return kiwi_mock_call(m, op);
}

static void kiwi_mock_note_param(struct kiwi_mock *m,
				 const struct kiwi_conn_param *p)
{
	m->last_ird = p->ird;
	m->last_ord = p->ord;
	m->last_pdata_len = p->private_data_len;
	memcpy(m->last_pdata, p->private_data,
	       min_t(size_t, p->private_data_len, sizeof(m->last_pdata)));
}

static int kiwi_mock_connect(struct kiwi_cm_id *id,
			     const struct kiwi_conn_param *p)
{
	struct kiwi_mock *m = kiwi_mock_of(id->device);
	int ret = kiwi_mock_cm_call(id, KIWI_MOCK_CONNECT);

	if (ret)
		return ret;
	kiwi_mock_note_param(m, p);
	kiwi_mock_pin(m, id);
	return 0;
}

static int kiwi_mock_accept(struct kiwi_cm_id *id,
			    const struct kiwi_conn_param *p)
{
	struct kiwi_mock *m = kiwi_mock_of(id->device);
	int ret = kiwi_mock_cm_call(id, KIWI_MOCK_ACCEPT);

	if (ret)
		return ret;
	kiwi_mock_note_param(m, p);
	kiwi_mock_pin(m, id);
	return 0;
}

static int kiwi_mock_reject(struct kiwi_cm_id *id, const void *pdata, u16 len)
{
	struct kiwi_mock *m = kiwi_mock_of(id->device);

	m->last_pdata_len = len;
	return kiwi_mock_cm_call(id, KIWI_MOCK_REJECT);
}

static int kiwi_mock_create_listen(struct kiwi_cm_id *id, int backlog)
{
	kiwi_mock_of(id->device)->last_backlog = backlog;
	return kiwi_mock_cm_call(id, KIWI_MOCK_CREATE_LISTEN);
}

static int kiwi_mock_destroy_listen(struct kiwi_cm_id *id)
{
	return kiwi_mock_cm_call(id, KIWI_MOCK_DESTROY_LISTEN);
}

static void kiwi_mock_qp_put(struct kiwi_mock_qp *mqp)
{
	if (!refcount_dec_and_test(&mqp->ref))
		return;
	atomic_dec(&mqp->mock->qps_alive);
	kfree(mqp);
}

static void kiwi_mock_add_ref(struct ib_qp *qp)
{
	struct kiwi_mock_qp *mqp = container_of(qp, struct kiwi_mock_qp, qp);

	atomic_inc(&mqp->mock->calls[KIWI_MOCK_ADD_REF]);
	refcount_inc(&mqp->ref);
}

static void kiwi_mock_rem_ref(struct ib_qp *qp)
{
	struct kiwi_mock_qp *mqp = container_of(qp, struct kiwi_mock_qp, qp);

	if (!preemptible())
		atomic_inc(&mqp->mock->rem_ref_atomic);
	atomic_inc(&mqp->mock->calls[KIWI_MOCK_REM_REF]);
	kiwi_mock_qp_put(mqp);
}

static struct ib_qp *kiwi_mock_get_qp(struct ib_device *dev, u32 qpn)
{
	struct kiwi_mock *m = kiwi_mock_of(dev);
	struct kiwi_mock_qp *mqp, *found = NULL;
	unsigned long flags;

	if (kiwi_mock_call(m, KIWI_MOCK_GET_QP))
		return NULL;
	spin_lock_irqsave(&m->lock, flags);
	list_for_each_entry(mqp, &m->qps, node)
		if (mqp->qp.qp_num == qpn)
			found = mqp;
	spin_unlock_irqrestore(&m->lock, flags);
	return found ? &found->qp : NULL;
}

static int kiwi_mock_query_device(struct ib_device *dev,
				  struct ib_device_attr *attr)
{
	int ret = kiwi_mock_call(kiwi_mock_of(dev), KIWI_MOCK_QUERY_DEVICE);

	if (ret)
		return ret;
	*attr = (struct ib_device_attr) {
		.max_qp = 64, .max_qp_wr = 64,
		.max_send_sge = 4, .max_recv_sge = 4,
		.max_cq = 64, .max_cqe = KIWI_MOCK_CQ_DEPTH, .max_mr = 64,
		.max_pd = 64,
		.max_qp_rd_atom = KIWI_CM_MAX_IRD_ORD,
		.max_qp_init_rd_atom = KIWI_CM_MAX_IRD_ORD,
	};
	return 0;
}

static struct ib_pd *kiwi_mock_alloc_pd(struct ib_device *dev)
{
	struct ib_pd *pd = kzalloc(sizeof(*pd), GFP_KERNEL);

	return pd ?: ERR_PTR(-ENOMEM);
}

static void kiwi_mock_dealloc_pd(struct ib_pd *pd)
{
	kfree(pd);
}

static struct ib_qp *kiwi_mock_create_qp(struct ib_pd *pd,
					 const struct ib_qp_init_attr *init)
{
	struct kiwi_mock *m = kiwi_mock_of(pd->device);
	struct kiwi_mock_qp *mqp;
	unsigned long flags;
	int ret;

	ret = kiwi_mock_call(m, KIWI_MOCK_CREATE_QP);
	if (ret)
		return ERR_PTR(ret);
	if (init->cap.max_inline_data)	/* the mock has no inline data */
		return ERR_PTR(-EINVAL);
	mqp = kzalloc(sizeof(*mqp), GFP_KERNEL);
	if (!mqp)
		return ERR_PTR(-ENOMEM);
	mqp->mock = m;
	refcount_set(&mqp->ref, 1);
	mqp->send_cq = init->send_cq;
	atomic_inc(&m->qps_alive);
	spin_lock_irqsave(&m->lock, flags);
	mqp->qp.qp_num = ++m->next_qpn;
	list_add_tail(&mqp->node, &m->qps);
	spin_unlock_irqrestore(&m->lock, flags);
	return &mqp->qp;
}

static int kiwi_mock_modify_qp(struct ib_qp *qp,
			       const struct ib_qp_attr *attr, int mask)
{
	struct kiwi_mock_qp *mqp = container_of(qp, struct kiwi_mock_qp, qp);
	int ret;

	might_sleep();
	ret = kiwi_mock_call(mqp->mock, KIWI_MOCK_MODIFY_QP);
	if (!ret && (mask & IB_QP_STATE))
		mqp->mock->last_qp_state = attr->qp_state;
	return ret;
}

static void kiwi_mock_destroy_qp(struct ib_qp *qp)
{
	struct kiwi_mock_qp *mqp = container_of(qp, struct kiwi_mock_qp, qp);
	unsigned long flags;

	spin_lock_irqsave(&mqp->mock->lock, flags);
	list_del(&mqp->node);
	spin_unlock_irqrestore(&mqp->mock->lock, flags);
	kiwi_mock_qp_put(mqp);
}

static bool kiwi_mock_cq_push(struct ib_cq *cq, const struct ib_wc *wc)
{
	struct kiwi_mock_cq *mcq = container_of(cq, struct kiwi_mock_cq, cq);
	unsigned long flags;
	bool notify;

	spin_lock_irqsave(&mcq->lock, flags);
	if (mcq->count == KIWI_MOCK_CQ_DEPTH) {
		spin_unlock_irqrestore(&mcq->lock, flags);
		return false;
	}
	mcq->wc[(mcq->head + mcq->count++) % KIWI_MOCK_CQ_DEPTH] = *wc;
	notify = mcq->armed;
	mcq->armed = false;
	spin_unlock_irqrestore(&mcq->lock, flags);
	if (notify && cq->comp_handler)
		cq->comp_handler(cq, cq->cq_context);
	return true;
}

/* Sends complete at once, successfully, on the send CQ. */
static int kiwi_mock_post_send(struct ib_qp *qp,
			       const struct ib_send_wr *wr,
			       const struct ib_send_wr **bad_wr)
{
	for (; wr; wr = wr->next) {
		struct ib_wc wc = {
			.wr_id = wr->wr_id, .qp = qp,
			.opcode = kiwi_wr_wc_opcode(wr->opcode),
		};

		if (wr->num_sge > qp->device->attrs.max_send_sge ||
		    ((wr->send_flags & IB_SEND_SIGNALED) &&
		     !kiwi_mock_cq_push(qp->send_cq, &wc))) {
			*bad_wr = wr;
			return -ENOMEM;
		}
	}
	return 0;
}

static int kiwi_mock_post_recv(struct ib_qp *qp,
			       const struct ib_recv_wr *wr,
			       const struct ib_recv_wr **bad_wr)
{
	for (; wr; wr = wr->next) {
		if (wr->num_sge > qp->device->attrs.max_recv_sge) {
			*bad_wr = wr;
			return -EINVAL;
		}
	}
	return 0;
}

static struct ib_cq *kiwi_mock_create_cq(struct ib_device *dev,
					 const struct ib_cq_init_attr *attr)
{
	struct kiwi_mock_cq *mcq;
	int ret;

	ret = kiwi_mock_call(kiwi_mock_of(dev), KIWI_MOCK_CREATE_CQ);
	if (ret)
		return ERR_PTR(ret);
	mcq = kzalloc(sizeof(*mcq), GFP_KERNEL);
	if (!mcq)
		return ERR_PTR(-ENOMEM);
	spin_lock_init(&mcq->lock);
	mcq->cq.cqe = KIWI_MOCK_CQ_DEPTH;
	return &mcq->cq;
}

static void kiwi_mock_destroy_cq(struct ib_cq *cq)
{
	kfree(container_of(cq, struct kiwi_mock_cq, cq));
}

static int kiwi_mock_poll_cq(struct ib_cq *cq, int num, struct ib_wc *wc)
{
	struct kiwi_mock_cq *mcq = container_of(cq, struct kiwi_mock_cq, cq);
	unsigned long flags;
	int n = 0;

	spin_lock_irqsave(&mcq->lock, flags);
	while (n < num && mcq->count) {
		wc[n++] = mcq->wc[mcq->head];
		mcq->head = (mcq->head + 1) % KIWI_MOCK_CQ_DEPTH;
		mcq->count--;
	}
	spin_unlock_irqrestore(&mcq->lock, flags);
	return n;
}

static int kiwi_mock_req_notify_cq(struct ib_cq *cq,
				   enum ib_cq_notify_flags flags)
{
	struct kiwi_mock_cq *mcq = container_of(cq, struct kiwi_mock_cq, cq);
	unsigned long irqflags;
	int missed;

	spin_lock_irqsave(&mcq->lock, irqflags);
	mcq->armed = true;
	missed = (flags & IB_CQ_REPORT_MISSED_EVENTS) && mcq->count;
	spin_unlock_irqrestore(&mcq->lock, irqflags);
	return missed;
}

static struct ib_mr *kiwi_mock_reg_mr(struct ib_pd *pd, void *addr,
				      size_t length, u32 access)
{
	struct kiwi_mock *m = kiwi_mock_of(pd->device);
	struct kiwi_mock_mr *mmr;
	int ret;

	ret = kiwi_mock_call(m, KIWI_MOCK_REG_MR);
	if (ret)
		return ERR_PTR(ret);
	mmr = kzalloc(sizeof(*mmr), GFP_KERNEL);
	if (!mmr)
		return ERR_PTR(-ENOMEM);
	mmr->mr.lkey = ++m->next_key;
	mmr->mr.rkey = mmr->mr.lkey | 0x80000000;
	mmr->mr.iova = (uintptr_t)addr;
	mmr->mr.length = length;
	return &mmr->mr;
}

static void kiwi_mock_dereg_mr(struct ib_mr *mr)
{
	kfree(container_of(mr, struct kiwi_mock_mr, mr));
}

static const struct kiwi_provider_ops kiwi_mock_ops = {
	.iw_connect = kiwi_mock_connect,
	.iw_accept = kiwi_mock_accept,
	.iw_reject = kiwi_mock_reject,
	.iw_create_listen = kiwi_mock_create_listen,
	.iw_destroy_listen = kiwi_mock_destroy_listen,
	.iw_add_ref = kiwi_mock_add_ref,
	.iw_rem_ref = kiwi_mock_rem_ref,
	.iw_get_qp = kiwi_mock_get_qp,
	.query_device = kiwi_mock_query_device,
	.alloc_pd = kiwi_mock_alloc_pd,
	.dealloc_pd = kiwi_mock_dealloc_pd,
	.create_qp = kiwi_mock_create_qp,
	.modify_qp = kiwi_mock_modify_qp,
	.destroy_qp = kiwi_mock_destroy_qp,
	.post_send = kiwi_mock_post_send,
	.post_recv = kiwi_mock_post_recv,
	.create_cq = kiwi_mock_create_cq,
	.destroy_cq = kiwi_mock_destroy_cq,
	.poll_cq = kiwi_mock_poll_cq,
	.req_notify_cq = kiwi_mock_req_notify_cq,
	.reg_kernel_mr = kiwi_mock_reg_mr,
	.dereg_mr = kiwi_mock_dereg_mr,
};

/**
 * kiwi_mock_create() - create and register a mock RNIC
 * @name: device name, unique among registered kiwi devices
 *
 * Context: process context; sleeps.
 * Return: the mock, or an ERR_PTR().
 */
struct kiwi_mock *kiwi_mock_create(const char *name)
{
	return kiwi_mock_create_on(name, NULL);
}
EXPORT_SYMBOL_GPL(kiwi_mock_create);

/**
 * kiwi_mock_create_on() - create and register a mock RNIC on a net_device
 * @name: device name, unique among registered kiwi devices
 * @netdev: the net_device the device is bound to, or NULL
 *
 * Context: process context; sleeps.
 * Return: the mock, or an ERR_PTR().
 */
struct kiwi_mock *kiwi_mock_create_on(const char *name,
				      struct net_device *netdev)
{
	return kiwi_mock_create_hooked(name, netdev, NULL, NULL);
}
EXPORT_SYMBOL_GPL(kiwi_mock_create_on);

/**
 * kiwi_mock_create_hooked() - kiwi_mock_create_on() with a hook set before
 *	the device is registered
 * @name: device name, unique among registered kiwi devices
 * @netdev: the net_device the device is bound to, or NULL
 * @hook: called inside every connection op, from the first one on
 * @hook_data: for @hook
 *
 * Context: process context; sleeps.
 * Return: the mock, or an ERR_PTR().
 */
struct kiwi_mock *kiwi_mock_create_hooked(const char *name,
					  struct net_device *netdev,
					  kiwi_mock_hook hook, void *hook_data)
{
	struct kiwi_mock *m;
	int ret;

	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return ERR_PTR(-ENOMEM);
	strscpy(m->dev.name, name, sizeof(m->dev.name));
	m->dev.ops = &kiwi_mock_ops;
	m->dev.iw_max_private_data = KIWI_CM_MAX_PRIVATE_DATA;
	m->dev.netdev = netdev;
	spin_lock_init(&m->lock);
	INIT_LIST_HEAD(&m->qps);
	m->hook = hook;
	m->hook_data = hook_data;
	ret = kiwi_register_device(&m->dev);
	if (ret) {
		kfree(m);
		return ERR_PTR(ret);
	}
	return m;
}
EXPORT_SYMBOL_GPL(kiwi_mock_create_hooked);

/**
 * kiwi_mock_destroy() - unregister and free a mock RNIC
 * @m: the mock
 *
 * Drops the endpoint references the mock still holds first, as a real
 * provider tears its endpoints down; the owner must have destroyed its
 * ids and verbs objects (or must do so on DEVICE_REMOVAL).
 *
 * Context: process context; sleeps.
 */
void kiwi_mock_destroy(struct kiwi_mock *m)
{
	kiwi_mock_release_all(m);
	kiwi_unregister_device(&m->dev);
	kfree(m);
}
EXPORT_SYMBOL_GPL(kiwi_mock_destroy);

/**
 * kiwi_mock_fail() - queue a return value for the next call of an op
 * @m: the mock
 * @op: the op
 * @err: negative errno (any non-zero value for KIWI_MOCK_GET_QP)
 *
 * Context: any context.
 */
void kiwi_mock_fail(struct kiwi_mock *m, enum kiwi_mock_op op, int err)
{
	unsigned long flags;

	spin_lock_irqsave(&m->lock, flags);
	if (m->nfails[op] < KIWI_MOCK_MAX_FAILS)
		m->fails[op][m->nfails[op]++] = err;
	spin_unlock_irqrestore(&m->lock, flags);
}
EXPORT_SYMBOL_GPL(kiwi_mock_fail);

/**
 * kiwi_mock_calls() - how often an op was called
 * @m: the mock
 * @op: the op
 *
 * Context: any context.
 * Return: the number of calls.
 */
int kiwi_mock_calls(struct kiwi_mock *m, enum kiwi_mock_op op)
{
	return atomic_read(&m->calls[op]);
}
EXPORT_SYMBOL_GPL(kiwi_mock_calls);

/**
 * kiwi_mock_pin() - pin an id for a mock endpoint (kiwi_cm_id_add_ref)
 * @m: the mock
 * @id: the id
 *
 * Context: any context.
 */
void kiwi_mock_pin(struct kiwi_mock *m, struct kiwi_cm_id *id)
{
	unsigned long flags;

	spin_lock_irqsave(&m->lock, flags);
	if (m->neps < KIWI_MOCK_MAX_EPS) {
		kiwi_cm_id_add_ref(id);
		m->eps[m->neps++] = id;
	}
	spin_unlock_irqrestore(&m->lock, flags);
}
EXPORT_SYMBOL_GPL(kiwi_mock_pin);

/**
 * kiwi_mock_release() - tear down the mock endpoint of an id
 * @m: the mock
 * @id: the id; may be freed by this call
 *
 * Context: any context.
 * Return: true if the mock held @id.
 */
bool kiwi_mock_release(struct kiwi_mock *m, struct kiwi_cm_id *id)
{
	unsigned long flags;
	int i;

	spin_lock_irqsave(&m->lock, flags);
	for (i = 0; i < m->neps; i++)
		if (m->eps[i] == id)
			break;
	if (i == m->neps) {
		spin_unlock_irqrestore(&m->lock, flags);
		return false;
	}
	m->eps[i] = m->eps[--m->neps];
	spin_unlock_irqrestore(&m->lock, flags);
	kiwi_cm_id_rem_ref(id);
	return true;
}
EXPORT_SYMBOL_GPL(kiwi_mock_release);

/**
 * kiwi_mock_release_all() - tear down every mock endpoint
 * @m: the mock
 *
 * Context: any context.
 */
void kiwi_mock_release_all(struct kiwi_mock *m)
{
	while (READ_ONCE(m->neps))
		kiwi_mock_release(m, m->eps[0]);
}
EXPORT_SYMBOL_GPL(kiwi_mock_release_all);

struct kiwi_mock_shot {
	struct kiwi_cm_id *id;
	const struct kiwi_cm_event *ev;
	int ret;
	bool right_ctx;
	struct completion done;
	struct timer_list timer;
	struct irq_work work;
};

static void kiwi_mock_shot_timer(struct timer_list *t)
{
	struct kiwi_mock_shot *s = from_timer(s, t, timer);

	s->right_ctx = in_serving_softirq();
	s->ret = kiwi_cm_upcall(s->id, s->ev);
	complete(&s->done);
}

static void kiwi_mock_shot_irq(struct irq_work *w)
{
	struct kiwi_mock_shot *s = container_of(w, struct kiwi_mock_shot, work);

	s->right_ctx = in_hardirq() && irqs_disabled();
	s->ret = kiwi_cm_upcall(s->id, s->ev);
	complete(&s->done);
}

/**
 * kiwi_mock_inject() - report an event to the core from a given context
 * @m: the mock
 * @id: the id (the listener for CONNECT_REQUEST)
 * @ev: the event
 * @ctx: where to call kiwi_cm_upcall() from
 *
 * Waits until the upcall has returned.
 *
 * Context: process context; sleeps.
 * Return: what kiwi_cm_upcall() returned, or -EFAULT if the requested
 * context could not be reached.
 */
int kiwi_mock_inject(struct kiwi_mock *m, struct kiwi_cm_id *id,
		     const struct kiwi_cm_event *ev, enum kiwi_mock_ctx ctx)
{
	struct kiwi_mock_shot s = { .id = id, .ev = ev };

	if (ctx == KIWI_MOCK_PROCESS)
		return kiwi_cm_upcall(id, ev);
	init_completion(&s.done);
	if (ctx == KIWI_MOCK_SOFTIRQ) {
		timer_setup_on_stack(&s.timer, kiwi_mock_shot_timer, 0);
		mod_timer(&s.timer, jiffies);
		wait_for_completion(&s.done);
		del_timer_sync(&s.timer);
		destroy_timer_on_stack(&s.timer);
	} else {
		init_irq_work(&s.work, kiwi_mock_shot_irq);
		irq_work_queue(&s.work);
		wait_for_completion(&s.done);
		irq_work_sync(&s.work);
	}
	return s.right_ctx ? s.ret : -EFAULT;
}
EXPORT_SYMBOL_GPL(kiwi_mock_inject);

/**
 * kiwi_mock_event() - report a simple event from process context
 * @m: the mock
 * @id: the id
 * @type: the event type
 * @status: its status
 *
 * Context: process context.
 * Return: what kiwi_cm_upcall() returned.
 */
int kiwi_mock_event(struct kiwi_mock *m, struct kiwi_cm_id *id,
		    enum kiwi_cm_event_type type, int status)
{
	struct kiwi_cm_event ev = { .event = type, .status = status };

	return kiwi_mock_inject(m, id, &ev, KIWI_MOCK_PROCESS);
}
EXPORT_SYMBOL_GPL(kiwi_mock_event);
