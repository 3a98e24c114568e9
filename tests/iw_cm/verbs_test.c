// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_iwcm_verbs: protection domains, the CQ library in each poll
 * context, its budget and missed events, and verbs given bad arguments,
 * over the mock RNIC (whose sends complete at once on the send CQ).
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/err.h>
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/workqueue.h>

#include <kiwi/provider.h>
#include <rdma/rw.h>

#include "iwcm_test.h"
#include "kiwi_test.h"
#include "verbs_util.h"

/**
 * struct vt_req - a work request of the test and what its completion saw
 * @cqe: the callback the work request names
 * @done: completed by the callback
 * @calls: callbacks run
 * @softirq: the last one ran in softirq context
 * @work: the last one ran in a work
 * @task: the task the last one ran in
 * @status: the last completion's status
 */
struct vt_req {
	struct ib_cqe cqe;
	struct completion done;
	atomic_t calls;
	bool softirq;
	bool work;
	struct task_struct *task;
	enum ib_wc_status status;
};

static void vt_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct vt_req *r = container_of(wc->wr_cqe, struct vt_req, cqe);

	r->softirq = in_serving_softirq();
	r->work = !in_interrupt() && current_work();
	r->task = current;
	r->status = wc->status;
	atomic_inc(&r->calls);
	complete(&r->done);
}

static void vt_req_init(struct vt_req *r)
{
	*r = (struct vt_req) { .cqe.done = vt_done };
	init_completion(&r->done);
}

/* A QP of @u's PD over @cq for both queues. */
static struct ib_qp *vt_qp(struct kiwi_ulp *u, struct ib_cq *cq)
{
	struct ib_qp_init_attr init = {
		KT_QP_RC,
		.send_cq = cq, .recv_cq = cq,
		.cap = { .max_send_wr = 16, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ib_qp *qp = kiwi_create_qp(u->pd, &init);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(u->test, qp);
	return qp;
}

/* A signaled SEND naming @r; the mock completes it at once. */
static int vt_send(struct ib_qp *qp, struct vt_req *r)
{
	struct ib_send_wr wr = {
		.wr_cqe = &r->cqe, .opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};

	return ib_post_send(qp, &wr, NULL);
}

struct vt_ctx_case {
	enum ib_poll_context ctx;
	const char *name;
};

static const struct vt_ctx_case vt_ctx_cases[] = {
	{ IB_POLL_DIRECT, "direct" },
	{ IB_POLL_SOFTIRQ, "softirq" },
	{ IB_POLL_WORKQUEUE, "workqueue" },
	{ IB_POLL_UNBOUND_WORKQUEUE, "unbound workqueue" },
};

static void vt_ctx_case_desc(const struct vt_ctx_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(vt_ctx_case, vt_ctx_cases, vt_ctx_case_desc);

/*
 * ib_alloc_cq(): a completion runs its ib_cqe's done in the CQ's poll
 * context, once; a direct CQ only when its owner polls it.
 */
static void verbs_cq_poll_context(struct kunit *test)
{
	const struct vt_ctx_case *c = test->param_value;
	struct kiwi_ulp *u = kiwi_ulp_setup(test);
	struct vt_req r;
	struct ib_cq *cq;
	struct ib_qp *qp;

	cq = ib_alloc_cq(u->dev, u, 8, 0, c->ctx);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, cq);
	KUNIT_EXPECT_EQ(test, cq->poll_ctx, c->ctx);
	KUNIT_EXPECT_PTR_EQ(test, cq->cq_context, (void *)u);
	qp = vt_qp(u, cq);
	vt_req_init(&r);
	KUNIT_ASSERT_EQ(test, vt_send(qp, &r), 0);
	if (c->ctx == IB_POLL_DIRECT) {
		KUNIT_EXPECT_EQ(test, atomic_read(&r.calls), 0);
		KUNIT_EXPECT_EQ(test, ib_process_cq_direct(cq, 8), 1);
		KUNIT_EXPECT_PTR_EQ(test, r.task, current);
	}
	KUNIT_ASSERT_TRUE(test, wait_for_completion_timeout(&r.done, 5 * HZ));
	KUNIT_EXPECT_EQ(test, r.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, r.softirq, c->ctx == IB_POLL_SOFTIRQ);
	KUNIT_EXPECT_EQ(test, r.work, c->ctx == IB_POLL_WORKQUEUE ||
			c->ctx == IB_POLL_UNBOUND_WORKQUEUE);
	/* The CQ was re-armed: a second completion runs too. */
	reinit_completion(&r.done);
	KUNIT_ASSERT_EQ(test, vt_send(qp, &r), 0);
	if (c->ctx == IB_POLL_DIRECT)
		KUNIT_EXPECT_EQ(test, ib_process_cq_direct(cq, 8), 1);
	KUNIT_ASSERT_TRUE(test, wait_for_completion_timeout(&r.done, 5 * HZ));
	KUNIT_EXPECT_EQ(test, atomic_read(&r.calls), 2);
	kiwi_destroy_qp(qp);
	ib_free_cq(cq);
}

/* ib_process_cq_direct() takes at most its budget. */
static void verbs_cq_direct_budget(struct kunit *test)
{
	struct kiwi_ulp *u = kiwi_ulp_setup(test);
	struct vt_req r[5];
	struct ib_cq *cq;
	struct ib_qp *qp;
	int i;

	cq = ib_alloc_cq_any(u->dev, NULL, 8, IB_POLL_DIRECT);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, cq);
	KUNIT_EXPECT_LT(test, cq->comp_vector, (u32)u->dev->num_comp_vectors);
	qp = vt_qp(u, cq);
	for (i = 0; i < ARRAY_SIZE(r); i++) {
		vt_req_init(&r[i]);
		KUNIT_ASSERT_EQ(test, vt_send(qp, &r[i]), 0);
	}
	KUNIT_EXPECT_EQ(test, ib_process_cq_direct(cq, 2), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&r[1].calls), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&r[2].calls), 0);
	KUNIT_EXPECT_EQ(test, ib_process_cq_direct(cq, 64), 3);
	KUNIT_EXPECT_EQ(test, ib_process_cq_direct(cq, 64), 0);
	for (i = 0; i < ARRAY_SIZE(r); i++)
		KUNIT_EXPECT_EQ(test, atomic_read(&r[i].calls), 1);
	kiwi_destroy_qp(qp);
	ib_free_cq(cq);
}

/* IB_CQ_REPORT_MISSED_EVENTS says whether completions wait. */
static void verbs_cq_missed_events(struct kunit *test)
{
	struct kiwi_ulp *u = kiwi_ulp_setup(test);
	const int next = IB_CQ_NEXT_COMP | IB_CQ_REPORT_MISSED_EVENTS;
	struct ib_wc wc;
	struct vt_req r;
	struct ib_qp *qp;

	qp = vt_qp(u, u->cq);
	KUNIT_EXPECT_EQ(test, ib_req_notify_cq(u->cq, next), 0);
	vt_req_init(&r);
	KUNIT_ASSERT_EQ(test, vt_send(qp, &r), 0);
	KUNIT_EXPECT_EQ(test, ib_req_notify_cq(u->cq, next), 1);
	KUNIT_EXPECT_EQ(test, ib_req_notify_cq(u->cq, IB_CQ_NEXT_COMP), 0);
	KUNIT_EXPECT_EQ(test, ib_poll_cq(u->cq, 1, &wc), 1);
	KUNIT_EXPECT_PTR_EQ(test, wc.wr_cqe, &r.cqe);
	KUNIT_EXPECT_EQ(test, ib_req_notify_cq(u->cq, next), 0);
	KUNIT_EXPECT_EQ(test, ib_req_notify_cq(u->cq, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, ib_req_notify_cq(u->cq, IB_CQ_SOLICITED_MASK),
			-EINVAL);
	kiwi_destroy_qp(qp);
}

/* A PD counts its QPs and MRs; each knows its PD. */
static void verbs_pd_users(struct kunit *test)
{
	struct kiwi_ulp *u = kiwi_ulp_setup(test);
	struct ib_pd *pd = ib_alloc_pd(u->dev, 0);
	struct ib_qp_init_attr init = {
		KT_QP_RC, .send_cq = u->cq, .recv_cq = u->cq,
	};
	void *buf = kunit_kzalloc(test, 64, GFP_KERNEL);
	struct ib_qp *qp;
	struct ib_mr *mr;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pd);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_EXPECT_PTR_EQ(test, pd->device, u->dev);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(ib_alloc_pd(u->dev, 2)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test,
			PTR_ERR_OR_ZERO(ib_alloc_pd(u->dev,
						    IB_PD_UNSAFE_GLOBAL_RKEY)),
			-EOPNOTSUPP);
	qp = kiwi_create_qp(pd, &init);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, qp);
	mr = kiwi_reg_kernel_mr(pd, buf, 64, IB_ACCESS_LOCAL_WRITE);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	KUNIT_EXPECT_PTR_EQ(test, qp->pd, pd);
	KUNIT_EXPECT_PTR_EQ(test, mr->pd, pd);
	KUNIT_EXPECT_EQ(test, atomic_read(&pd->usecnt), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&u->cq->usecnt), 2); /* both queues */
	KUNIT_EXPECT_EQ(test, ib_destroy_qp(qp), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&u->cq->usecnt), 0);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&pd->usecnt), 0);
	ib_dealloc_pd(pd);
}

/**
 * struct vt_bad_case - a QP that must not be created
 * @name: what is wrong
 * @edit: makes the init attributes wrong
 */
struct vt_bad_case {
	const char *name;
	void (*edit)(struct ib_qp_init_attr *init, struct ib_cq *foreign);
};

static void vt_no_cq(struct ib_qp_init_attr *a, struct ib_cq *f)
{
	a->recv_cq = NULL;
}

static void vt_foreign_cq(struct ib_qp_init_attr *a, struct ib_cq *f)
{
	a->send_cq = f;
}

static void vt_srq(struct ib_qp_init_attr *a, struct ib_cq *f)
{
	a->srq = (struct ib_srq *)f;
}

static void vt_xrcd(struct ib_qp_init_attr *a, struct ib_cq *f)
{
	a->xrcd = (struct ib_xrcd *)f;
}

static void vt_rwq_ind(struct ib_qp_init_attr *a, struct ib_cq *f)
{
	a->rwq_ind_tbl = (struct ib_rwq_ind_table *)f;
}

static void vt_source_qpn(struct ib_qp_init_attr *a, struct ib_cq *f)
{
	a->source_qpn = 1;
}

static void vt_flags(struct ib_qp_init_attr *a, struct ib_cq *f)
{
	a->create_flags = 1;
}

static void vt_type(struct ib_qp_init_attr *a, struct ib_cq *f)
{
	a->qp_type = 0;
}

static void vt_sig(struct ib_qp_init_attr *a, struct ib_cq *f)
{
	a->sq_sig_type = 7;
}

static void vt_sge(struct ib_qp_init_attr *a, struct ib_cq *f)
{
	a->cap.max_send_sge = 5;	/* the mock has 4 */
}

static void vt_depth(struct ib_qp_init_attr *a, struct ib_cq *f)
{
	a->cap.max_recv_wr = 65;	/* the mock has 64 */
}

static const struct vt_bad_case vt_bad_cases[] = {
	{ "no receive CQ", vt_no_cq },
	{ "CQ of another device", vt_foreign_cq },
	{ "an SRQ", vt_srq },
	{ "an XRC domain", vt_xrcd },
	{ "a receive WQ indirection table", vt_rwq_ind },
	{ "a source QP number", vt_source_qpn },
	{ "create flags", vt_flags },
	{ "not RC", vt_type },
	{ "unknown signalling", vt_sig },
	{ "too many SGEs", vt_sge },
	{ "too deep", vt_depth },
};

static void vt_bad_case_desc(const struct vt_bad_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(vt_bad_case, vt_bad_cases, vt_bad_case_desc);

/* Each is -EINVAL, and nothing was created or counted. */
static void verbs_create_qp_refused(struct kunit *test)
{
	const struct vt_bad_case *c = test->param_value;
	struct kiwi_ulp *u = kiwi_ulp_setup(test);
	struct kiwi_ulp *other = kiwi_ulp_setup(test);
	struct ib_qp_init_attr init = {
		KT_QP_RC, .send_cq = u->cq, .recv_cq = u->cq,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	int before = kiwi_mock_calls(u->m, KIWI_MOCK_CREATE_QP);

	c->edit(&init, other->cq);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(kiwi_create_qp(u->pd, &init)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, kiwi_mock_calls(u->m, KIWI_MOCK_CREATE_QP),
			before);
	KUNIT_EXPECT_EQ(test, atomic_read(&u->pd->usecnt), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&u->cq->usecnt), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&u->m->qps_alive), 0);
}

/* CQs and calls that must be refused, with what they return. */
static void verbs_cq_refused(struct kunit *test)
{
	struct kiwi_ulp *u = kiwi_ulp_setup(test);
	struct ib_cq_init_attr attr = { .cqe = 4 };
	struct ib_qp_attr qa = {};
	struct ib_qp *qp;

	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(ib_alloc_cq(u->dev, NULL, 4, 0,
							  IB_POLL_DIRECT + 1)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(ib_alloc_cq(u->dev, NULL, 0, 0,
							  IB_POLL_DIRECT)),
			-EINVAL);
	attr.comp_vector = u->dev->num_comp_vectors;
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(ib_create_cq(u->dev, NULL, NULL,
							   NULL, &attr)),
			-EINVAL);
	attr.comp_vector = 0;
	attr.flags = 1;
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(ib_create_cq(u->dev, NULL, NULL,
							   NULL, &attr)),
			-EINVAL);
	qp = vt_qp(u, u->cq);
	KUNIT_EXPECT_EQ(test, ib_modify_qp(qp, &qa, IB_QP_STATE << 2),
			-EINVAL);
	qa.qp_access_flags = IB_ACCESS_REMOTE_ATOMIC;
	KUNIT_EXPECT_EQ(test, ib_modify_qp(qp, &qa, IB_QP_ACCESS_FLAGS),
			-EINVAL);
	kiwi_destroy_qp(qp);
}

/* The names of statuses and events, and the iWARP answers. */
static void verbs_names_and_caps(struct kunit *test)
{
	struct kiwi_ulp *u = kiwi_ulp_setup(test);

	KUNIT_EXPECT_STREQ(test, ib_wc_status_msg(IB_WC_WR_FLUSH_ERR),
			   "WR flushed");
	KUNIT_EXPECT_STREQ(test, ib_wc_status_msg(IB_WC_SUCCESS), "success");
	KUNIT_EXPECT_STREQ(test, ib_wc_status_msg(99), "unrecognized status");
	KUNIT_EXPECT_STREQ(test, ib_event_msg(IB_EVENT_QP_FATAL),
			   "QP fatal error");
	KUNIT_EXPECT_STREQ(test, ib_event_msg(-1), "unrecognized event");
	KUNIT_EXPECT_TRUE(test, rdma_protocol_iwarp(u->dev, 1));
	KUNIT_EXPECT_FALSE(test, rdma_protocol_ib(u->dev, 1));
	KUNIT_EXPECT_FALSE(test, rdma_ib_or_roce(u->dev, 1));
	KUNIT_EXPECT_FALSE(test, rdma_cap_read_inv(u->dev, 1));
	KUNIT_EXPECT_EQ(test, u->dev->node_type, RDMA_NODE_RNIC);
	KUNIT_EXPECT_EQ(test, u->dev->phys_port_cnt, 1U);
	KUNIT_EXPECT_EQ(test, u->dev->num_comp_vectors, 1);
	KUNIT_EXPECT_TRUE(test, ib_uses_virt_dma(u->dev));
	KUNIT_EXPECT_EQ(test, ib_dma_map_single(u->dev, u, 8, DMA_TO_DEVICE),
			(u64)(uintptr_t)u);
	KUNIT_EXPECT_EQ(test, ib_dma_mapping_error(u->dev, 0), 0);
}

/*
 * Each PD, CQ, QP and MR gets a restrack id distinct among the live ones
 * of its type on the device (NFS/RDMA names its queues and MRs by them).
 */
static void verbs_restrack_ids(struct kunit *test)
{
	struct kiwi_ulp *u = kiwi_ulp_setup(test);
	struct ib_pd *pd[2] = { ib_alloc_pd(u->dev, 0), ib_alloc_pd(u->dev, 0) };
	struct ib_cq *cq = ib_alloc_cq(u->dev, NULL, 4, 0, IB_POLL_DIRECT);
	struct ib_qp_init_attr init = {
		KT_QP_RC, .send_cq = u->cq, .recv_cq = cq,
	};
	void *buf = kunit_kzalloc(test, 64, GFP_KERNEL);
	struct ib_qp *qp[2];
	struct ib_mr *mr[2];
	int i;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pd[0]);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pd[1]);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, cq);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (i = 0; i < 2; i++) {
		qp[i] = kiwi_create_qp(pd[0], &init);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, qp[i]);
		mr[i] = kiwi_reg_kernel_mr(pd[i], buf, 64, IB_ACCESS_LOCAL_WRITE);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr[i]);
	}
	KUNIT_EXPECT_NE(test, pd[0]->res.id, pd[1]->res.id);
	KUNIT_EXPECT_NE(test, u->cq->res.id, cq->res.id);
	KUNIT_EXPECT_NE(test, qp[0]->res.id, qp[1]->res.id);
	KUNIT_EXPECT_NE(test, mr[0]->res.id, mr[1]->res.id);
	KUNIT_EXPECT_EQ(test, pd[1]->res.type, RDMA_RESTRACK_PD);
	KUNIT_EXPECT_EQ(test, cq->res.type, RDMA_RESTRACK_CQ);
	KUNIT_EXPECT_EQ(test, qp[1]->res.type, RDMA_RESTRACK_QP);
	KUNIT_EXPECT_EQ(test, mr[1]->res.type, RDMA_RESTRACK_MR);
	KUNIT_EXPECT_TRUE(test, pd[0]->res.valid && cq->res.valid &&
			  qp[0]->res.valid && mr[0]->res.valid);
	for (i = 0; i < 2; i++) {
		KUNIT_EXPECT_EQ(test, ib_destroy_qp(qp[i]), 0);
		KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr[i]), 0);
	}
	for (i = 0; i < 2; i++)
		ib_dealloc_pd(pd[i]);
	ib_free_cq(cq);
}

struct vt_dev_events {
	struct ib_event_handler h;
	atomic_t fatal;
	struct completion heard;
};

static void vt_dev_event(struct ib_event_handler *h, struct ib_event *ev)
{
	struct vt_dev_events *e = container_of(h, struct vt_dev_events, h);

	if (ev->event == IB_EVENT_DEVICE_FATAL && ev->element.port_num == 1 &&
	    ev->device == h->device)
		atomic_inc(&e->fatal);
	complete(&e->heard);
}

/*
 * A provider's device event reaches every handler registered on the
 * device, in process context, and none that was unregistered.
 */
static void verbs_device_events(struct kunit *test)
{
	struct kiwi_ulp *u = kiwi_ulp_setup(test);
	struct vt_dev_events *e = kunit_kcalloc(test, 3, sizeof(*e),
						 GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, e);
	for (i = 0; i < 3; i++) {
		init_completion(&e[i].heard);
		INIT_IB_EVENT_HANDLER(&e[i].h, u->dev, vt_dev_event);
		ib_register_event_handler(&e[i].h);
	}
	ib_unregister_event_handler(&e[2].h);
	kiwi_device_event(u->dev, IB_EVENT_DEVICE_FATAL);
	for (i = 0; i < 2; i++) {
		KUNIT_EXPECT_NE(test, wait_for_completion_timeout(&e[i].heard,
								  5 * HZ), 0UL);
		KUNIT_EXPECT_EQ(test, atomic_read(&e[i].fatal), 1);
	}
	for (i = 0; i < 2; i++)
		ib_unregister_event_handler(&e[i].h);
	KUNIT_EXPECT_EQ(test, atomic_read(&e[2].fatal), 0);
	KUNIT_EXPECT_FALSE(test, completion_done(&e[2].heard));
}

struct vt_dev_order {
	struct ib_event_handler h;
	enum ib_event_type seen[4];
	int n;
	struct completion entered;
	struct completion release;
	struct completion three;
};

/* Records each event; holds the delivery of DEVICE_FATAL until released. */
static void vt_dev_order_event(struct ib_event_handler *h,
			       struct ib_event *ev)
{
	struct vt_dev_order *o = container_of(h, struct vt_dev_order, h);

	if (o->n < ARRAY_SIZE(o->seen))
		o->seen[o->n++] = ev->event;
	if (ev->event == IB_EVENT_DEVICE_FATAL) {
		complete(&o->entered);
		wait_for_completion_timeout(&o->release, 5 * HZ);
	}
	if (o->n == 3)
		complete(&o->three);
}

/*
 * A port that goes down and up again while an earlier event is being
 * delivered is heard going down, then up: in the order raised, the last
 * state last (not in the order of the event types' values).
 */
static void verbs_device_events_in_order(struct kunit *test)
{
	struct kiwi_ulp *u = kiwi_ulp_setup(test);
	struct vt_dev_order *o = kunit_kzalloc(test, sizeof(*o), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, o);
	init_completion(&o->entered);
	init_completion(&o->release);
	init_completion(&o->three);
	INIT_IB_EVENT_HANDLER(&o->h, u->dev, vt_dev_order_event);
	ib_register_event_handler(&o->h);
	kiwi_device_event(u->dev, IB_EVENT_DEVICE_FATAL);
	KUNIT_EXPECT_NE(test, wait_for_completion_timeout(&o->entered,
							  5 * HZ), 0UL);
	kiwi_device_event(u->dev, IB_EVENT_PORT_ERR);
	kiwi_device_event(u->dev, IB_EVENT_PORT_ACTIVE);
	complete(&o->release);
	KUNIT_EXPECT_NE(test, wait_for_completion_timeout(&o->three, 5 * HZ),
			0UL);
	ib_unregister_event_handler(&o->h);
	KUNIT_EXPECT_EQ(test, o->n, 3);
	KUNIT_EXPECT_EQ(test, o->seen[1], IB_EVENT_PORT_ERR);
	KUNIT_EXPECT_EQ(test, o->seen[2], IB_EVENT_PORT_ACTIVE);
}

/* A provider without query_qp (the mock) makes ib_query_qp() refuse. */
static void verbs_query_qp_absent(struct kunit *test)
{
	struct kiwi_ulp *u = kiwi_ulp_setup(test);
	struct ib_qp_init_attr init = {
		KT_QP_RC, .send_cq = u->cq, .recv_cq = u->cq,
	};
	struct ib_qp_attr attr;
	struct ib_qp *qp = kiwi_create_qp(u->pd, &init);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, qp);
	KUNIT_EXPECT_EQ(test, ib_query_qp(qp, &attr, ~0, &init), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, ib_destroy_qp(qp), 0);
}

/* The rw API's send queue sizing, for ULPs that size it themselves. */
static void verbs_rw_max_send_wr(struct kunit *test)
{
	struct kiwi_ulp *u = kiwi_ulp_setup(test);

	/* a REG_MR, the READ or WRITE and a LOCAL_INV per context */
	KUNIT_EXPECT_EQ(test, rdma_rw_max_send_wr(u->dev, 1, 10, 0), 30U);
	KUNIT_EXPECT_EQ(test, rdma_rw_max_send_wr(u->dev, 1, 0, 0), 0U);
	KUNIT_EXPECT_EQ(test, rdma_rw_max_send_wr(u->dev, 1, UINT_MAX / 2, 0),
			UINT_MAX);
}

/* Every device gets a node GUID of its own. */
static void verbs_node_guids_differ(struct kunit *test)
{
	struct kiwi_ulp *a = kiwi_ulp_setup(test);
	struct kiwi_ulp *b = kiwi_ulp_setup(test);

	KUNIT_EXPECT_NE(test, be64_to_cpu(a->dev->node_guid), 0ULL);
	KUNIT_EXPECT_NE(test, be64_to_cpu(a->dev->node_guid),
			be64_to_cpu(b->dev->node_guid));
}

static struct kunit_case verbs_cases[] = {
	KUNIT_CASE_PARAM(verbs_cq_poll_context, vt_ctx_case_gen_params),
	KUNIT_CASE(verbs_cq_direct_budget),
	KUNIT_CASE(verbs_cq_missed_events),
	KUNIT_CASE(verbs_pd_users),
	KUNIT_CASE_PARAM(verbs_create_qp_refused, vt_bad_case_gen_params),
	KUNIT_CASE(verbs_cq_refused),
	KUNIT_CASE(verbs_names_and_caps),
	KUNIT_CASE(verbs_node_guids_differ),
	KUNIT_CASE(verbs_restrack_ids),
	KUNIT_CASE(verbs_rw_max_send_wr),
	KUNIT_CASE(verbs_device_events),
	KUNIT_CASE(verbs_device_events_in_order),
	KUNIT_CASE(verbs_query_qp_absent),
	{}
};

static struct kunit_suite verbs_suite = {
	.name = "kiwi_iwcm_verbs",
	.test_cases = verbs_cases,
};

kunit_test_suite(verbs_suite);
