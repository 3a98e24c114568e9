// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_softiw_verbs: Linux's verbs on softiw over a connection on lo:
 * SGEs named by the PD's local_dma_lkey and a DMA address, sends
 * signalled by the QP's sq_sig_type, the CQ library and missed events,
 * and send work requests softiw must refuse, leaving nothing queued.
 * Fast registration and the rw API are kiwi_softiw_verbs_rw's.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "cm_fixture.h"
#include "kiwi_test.h"
#include "softiw.h"
#include "verbs_util.h"
#include "vt_pair.h"

/*
 * ULPs name local memory by DMA address and the PD's local_dma_lkey, no
 * MR: a SEND from such an SGE lands in a RECV of one.
 */
static void verbs_local_dma_lkey(struct kunit *test)
{
	struct vt_pair *p = vt_setup(test, VT_PORT);
	struct ib_sge sge = { .length = 8 };
	struct ib_send_wr wr = { .sg_list = &sge, .num_sge = 1,
				 .opcode = IB_WR_SEND };
	const struct ib_send_wr *bad = NULL;
	struct ib_wc wc;
	int i, seen = 0;

	vt_connect(p, NULL);
	memset(p->buf[0], 0x5a, VT_LEN);
	KUNIT_ASSERT_EQ(test, vt_recv(p, 2), 0);
	KUNIT_ASSERT_EQ(test, vt_send(p, 1, IB_SEND_SIGNALED), 0);
	for (i = 0; i < 2; i++) {
		KUNIT_ASSERT_EQ(test, vt_poll(p->t->cq, &wc), 1);
		KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
		if (wc.wr_id == 2) {
			KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RECV);
			KUNIT_EXPECT_EQ(test, wc.byte_len, (u32)VT_LEN);
			KUNIT_EXPECT_PTR_EQ(test, wc.qp, p->qp[1]);
		} else {
			KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_SEND);
			KUNIT_EXPECT_PTR_EQ(test, wc.qp, p->qp[0]);
		}
		seen |= BIT(wc.wr_id);
	}
	KUNIT_EXPECT_EQ(test, seen, 0x6);
	KUNIT_EXPECT_EQ(test, memcmp(p->buf[0], p->buf[1], VT_LEN), 0);
	/* A NULL DMA address names nothing. */
	sge.lkey = p->t->pd->local_dma_lkey;
	KUNIT_EXPECT_EQ(test, ib_post_send(p->qp[0], &wr, &bad), -EINVAL);
	KUNIT_EXPECT_PTR_EQ(test, bad, (const struct ib_send_wr *)&wr);
	cmt_teardown(p->t);
}

/*
 * IB_SIGNAL_ALL_WR: an unsignaled SEND completes too; IB_SIGNAL_REQ_WR:
 * only the RECV it fills does. A signaled SEND posted behind it tells:
 * sends complete in order, so the first one's completion, if any, comes
 * before the second's.
 */
static void verbs_sig_all(struct kunit *test)
{
	int all;

	for (all = 0; all < 2; all++) {
		struct vt_pair *p = vt_setup(test, VT_PORT + 1 + all);
		unsigned int seen = 0;
		struct ib_wc wc;

		p->t->sig_all = all;
		vt_connect(p, NULL);
		KUNIT_EXPECT_EQ(test, p->qp[0]->sq_sig_type,
				all ? IB_SIGNAL_ALL_WR : IB_SIGNAL_REQ_WR);
		KUNIT_ASSERT_EQ(test, vt_recv(p, 2), 0);
		KUNIT_ASSERT_EQ(test, vt_recv(p, 4), 0);
		KUNIT_ASSERT_EQ(test, vt_send(p, 1, 0), 0);
		KUNIT_ASSERT_EQ(test, vt_send(p, 3, IB_SEND_SIGNALED), 0);
		while ((seen & 0x1c) != 0x1c) {	/* 2, 3 and 4 */
			KUNIT_ASSERT_EQ(test, vt_poll(p->t->cq, &wc), 1);
			KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
			/* the first SEND's completion comes before the second's */
			if (wc.wr_id == 1)
				KUNIT_EXPECT_FALSE(test, seen & BIT(3));
			seen |= BIT(wc.wr_id);
		}
		KUNIT_EXPECT_EQ(test, seen, all ? 0x1eU : 0x1cU);
		KUNIT_EXPECT_EQ(test, ib_poll_cq(p->t->cq, 1, &wc), 0);
		cmt_teardown(p->t);
	}
}

/**
 * struct vt_refused_case - a send work request softiw refuses
 * @name: what it is
 * @opcode: its opcode
 * @flags: its send flags
 * @ret: what posting it returns
 */
struct vt_refused_case {
	const char *name;
	enum ib_wr_opcode opcode;
	int flags;
	int ret;
};

static const struct vt_refused_case vt_refused_cases[] = {
	{ "SEND with immediate", IB_WR_SEND_WITH_IMM, 0, -EOPNOTSUPP },
	{ "WRITE with immediate", IB_WR_RDMA_WRITE_WITH_IMM, 0, -EOPNOTSUPP },
	{ "compare and swap", IB_WR_ATOMIC_CMP_AND_SWP, 0, -EOPNOTSUPP },
	{ "fetch and add", IB_WR_ATOMIC_FETCH_AND_ADD, 0, -EOPNOTSUPP },
	{ "bind MW", IB_WR_BIND_MW, 0, -EOPNOTSUPP },
	{ "LSO", IB_WR_LSO, 0, -EOPNOTSUPP },
	{ "READ with invalidate", IB_WR_RDMA_READ_WITH_INV, 0, -EOPNOTSUPP },
	{ "masked compare and swap", IB_WR_MASKED_ATOMIC_CMP_AND_SWP, 0,
	  -EOPNOTSUPP },
	{ "REG_MR without an MR", IB_WR_REG_MR, 0, -EINVAL },
	{ "READ into the local_dma_lkey", IB_WR_RDMA_READ, 0, -EINVAL },
	{ "unknown opcode", 0x7f, 0, -EOPNOTSUPP },
	{ "checksummed SEND", IB_WR_SEND, IB_SEND_IP_CSUM, -EINVAL },
};

static void vt_refused_case_desc(const struct vt_refused_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(vt_refused_case, vt_refused_cases, vt_refused_case_desc);

/*
 * Refused with the case's errno and bad_wr at the request; the SEND
 * chained behind it is not queued either, and a SEND posted next is the
 * first to complete.
 */
static void verbs_send_refused(struct kunit *test)
{
	const struct vt_refused_case *c = test->param_value;
	struct vt_pair *p = vt_setup(test, VT_PORT + 3);
	struct ib_sge sge;
	struct ib_send_wr next = { .wr_id = 8, .sg_list = &sge, .num_sge = 1,
				   .opcode = IB_WR_SEND,
				   .send_flags = IB_SEND_SIGNALED };
	struct ib_send_wr wr = { .wr_id = 7, .sg_list = &sge, .num_sge = 1,
				 .opcode = c->opcode,
				 .send_flags = IB_SEND_SIGNALED | c->flags,
				 .next = &next };
	const struct ib_send_wr *bad = NULL;
	unsigned int seen = 0;
	struct ib_wc wc;
	int i;

	vt_connect(p, NULL);
	sge = vt_sge(p, 0);
	KUNIT_EXPECT_EQ(test, ib_post_send(p->qp[0], &wr, &bad), c->ret);
	KUNIT_EXPECT_PTR_EQ(test, bad, (const struct ib_send_wr *)&wr);
	KUNIT_ASSERT_EQ(test, vt_recv(p, 2), 0);
	KUNIT_ASSERT_EQ(test, vt_send(p, 1, IB_SEND_SIGNALED), 0);
	for (i = 0; i < 2; i++) {
		KUNIT_ASSERT_EQ(test, vt_poll(p->t->cq, &wc), 1);
		KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
		seen |= BIT(wc.wr_id);
	}
	KUNIT_EXPECT_EQ(test, seen, 0x6U);	/* not 7 nor 8 */
	KUNIT_EXPECT_EQ(test, ib_poll_cq(p->t->cq, 1, &wc), 0);
	cmt_teardown(p->t);
}

/**
 * struct vt_lib - a completion of the CQ library
 * @cqe: its callback
 * @done: completed by it
 * @wc: the completion it got
 */
struct vt_lib {
	struct ib_cqe cqe;
	struct completion done;
	struct ib_wc wc;
};

static void vt_lib_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct vt_lib *l = container_of(wc->wr_cqe, struct vt_lib, cqe);

	l->wc = *wc;
	complete(&l->done);
}

/*
 * A send CQ of the CQ library (IB_POLL_WORKQUEUE): the SEND's ib_cqe is
 * called with its completion; the RECV's CQ tells of missed events.
 */
static void verbs_cq_library(struct kunit *test)
{
	struct vt_pair *p = vt_setup(test, VT_PORT + 4);
	const int next = IB_CQ_NEXT_COMP | IB_CQ_REPORT_MISSED_EVENTS;
	struct vt_lib l = { .cqe.done = vt_lib_done };
	struct ib_sge sge;
	struct ib_send_wr wr = { .wr_cqe = &l.cqe, .sg_list = &sge,
				 .num_sge = 1, .opcode = IB_WR_SEND,
				 .send_flags = IB_SEND_SIGNALED };
	struct ib_cq *cq;
	struct ib_wc wc;
	int i;

	init_completion(&l.done);
	cq = ib_alloc_cq(p->t->dev, p, 8, 0, IB_POLL_WORKQUEUE);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, cq);
	vt_connect(p, cq);
	sge = vt_sge(p, 0);
	KUNIT_EXPECT_EQ(test, ib_req_notify_cq(p->t->cq, next), 0);
	KUNIT_ASSERT_EQ(test, vt_recv(p, 2), 0);
	KUNIT_ASSERT_EQ(test, ib_post_send(p->qp[0], &wr, NULL), 0);
	KUNIT_ASSERT_TRUE(test, wait_for_completion_timeout(&l.done, 5 * HZ));
	KUNIT_EXPECT_EQ(test, l.wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, l.wc.opcode, IB_WC_SEND);
	KUNIT_EXPECT_PTR_EQ(test, l.wc.qp, p->qp[0]);
	/* Armed while the RECV's completion waits: missed, so poll again. */
	for (i = 0; i < 500 && ib_req_notify_cq(p->t->cq, next) != 1; i++)
		usleep_range(1000, 2000);
	KUNIT_EXPECT_LT(test, i, 500);
	KUNIT_ASSERT_EQ(test, ib_poll_cq(p->t->cq, 1, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 2ULL);
	KUNIT_EXPECT_EQ(test, ib_req_notify_cq(p->t->cq, next), 0);
	cmt_teardown(p->t);
	ib_free_cq(cq);
}

/**
 * struct vt_count - completions of the CQ library counted by status
 * @cqe: the callback
 * @ok: successful ones
 * @flushed: flushed ones
 */
struct vt_count {
	struct ib_cqe cqe;
	atomic_t ok;
	atomic_t flushed;
};

static void vt_count_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct vt_count *c = container_of(wc->wr_cqe, struct vt_count, cqe);

	atomic_inc(wc->status == IB_WC_SUCCESS ? &c->ok : &c->flushed);
}

/*
 * ib_drain_qp(): when it returns the QP is in ERROR and the callbacks of
 * every work request posted before it ran: two RECVs nothing filled
 * (flushed), a WRITE (done or flushed).
 */
static void verbs_drain_qp(struct kunit *test)
{
	struct vt_pair *p = vt_setup(test, VT_PORT + 7);
	struct vt_count sc = { .cqe.done = vt_count_done };
	struct vt_count rc = { .cqe.done = vt_count_done };
	struct ib_sge sge;
	struct ib_recv_wr rwr = { .wr_cqe = &rc.cqe, .sg_list = &sge,
				  .num_sge = 1 };
	struct ib_rdma_wr wwr = {
		.wr = { .wr_cqe = &sc.cqe, .opcode = IB_WR_RDMA_WRITE,
			.sg_list = &sge, .num_sge = 1,
			.send_flags = IB_SEND_SIGNALED },
	};
	struct ib_mr *mr;
	struct ib_cq *cq;
	int i;

	cq = ib_alloc_cq(p->t->dev, NULL, 16, 0, IB_POLL_WORKQUEUE);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, cq);
	vt_connect_cqs(p, cq, cq);
	sge = vt_sge(p, 0);
	for (i = 0; i < 2; i++)
		KUNIT_ASSERT_EQ(test, ib_post_recv(p->qp[0], &rwr, NULL), 0);
	mr = cmt_mr(p->t, p->buf[1], VT_LEN, KIWI_ACCESS_ALL);
	wwr.remote_addr = mr->iova;
	wwr.rkey = mr->rkey;
	KUNIT_ASSERT_EQ(test, ib_post_send(p->qp[0], &wwr.wr, NULL), 0);
	ib_drain_qp(p->qp[0]);
	KUNIT_EXPECT_EQ(test, kiwi_softiw_qp_state(p->qp[0]), IB_QPS_ERR);
	KUNIT_EXPECT_EQ(test, atomic_read(&rc.flushed), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&rc.ok), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&sc.ok) + atomic_read(&sc.flushed),
			1);
	cmt_teardown(p->t);
	ib_free_cq(cq);
}

/* ib_query_qp() tells what a connected QP has: state, queues, IRD/ORD. */
static void verbs_query_qp(struct kunit *test)
{
	struct vt_pair *p = vt_setup(test, VT_PORT + 11);
	struct ib_qp_init_attr init;
	struct ib_qp_attr attr;
	u16 ird, ord;

	vt_connect(p, NULL);
	KUNIT_ASSERT_EQ(test, ib_query_qp(p->qp[0], &attr, ~0, &init), 0);
	kiwi_softiw_qp_depths(p->qp[0], &ird, &ord);
	KUNIT_EXPECT_EQ(test, attr.qp_state, IB_QPS_RTS);
	KUNIT_EXPECT_EQ(test, attr.cur_qp_state, IB_QPS_RTS);
	KUNIT_EXPECT_GE(test, attr.cap.max_send_wr, 8U);
	KUNIT_EXPECT_GE(test, attr.cap.max_recv_wr, 8U);
	KUNIT_EXPECT_GE(test, attr.cap.max_send_sge, 1U);
	KUNIT_EXPECT_EQ(test, attr.max_rd_atomic, ord);
	KUNIT_EXPECT_EQ(test, attr.max_dest_rd_atomic, ird);
	KUNIT_EXPECT_EQ(test, attr.dest_qp_num, 0U);
	KUNIT_EXPECT_PTR_EQ(test, init.send_cq, p->t->cq);
	KUNIT_EXPECT_PTR_EQ(test, init.recv_cq, p->t->cq);
	KUNIT_EXPECT_EQ(test, init.qp_type, IB_QPT_RC);
	KUNIT_EXPECT_EQ(test, init.cap.max_recv_wr, attr.cap.max_recv_wr);

	KUNIT_ASSERT_EQ(test, ib_modify_qp(p->qp[1], &(struct ib_qp_attr) {
			.qp_state = IB_QPS_ERR }, IB_QP_STATE), 0);
	KUNIT_ASSERT_EQ(test, ib_query_qp(p->qp[1], &attr, ~0, &init), 0);
	KUNIT_EXPECT_EQ(test, attr.qp_state, IB_QPS_ERR);
}

/**
 * struct vt_events - what a device event handler heard
 * @h: the handler
 * @lock: protects @seen and @n
 * @seen: the events, in order
 * @n: how many
 * @port: the port number of the last
 */
struct vt_events {
	struct ib_event_handler h;
	spinlock_t lock;	/* protects seen, n */
	enum ib_event_type seen[8];
	int n;
	u32 port;
};

static void vt_event(struct ib_event_handler *h, struct ib_event *ev)
{
	struct vt_events *e = container_of(h, struct vt_events, h);

	spin_lock(&e->lock);
	if (e->n < ARRAY_SIZE(e->seen))
		e->seen[e->n++] = ev->event;
	e->port = ev->element.port_num;
	spin_unlock(&e->lock);
}

static int vt_events_seen(struct vt_events *e)
{
	int n;

	spin_lock(&e->lock);
	n = e->n;
	spin_unlock(&e->lock);
	return n;
}

static void vt_link(struct kunit *test, struct net_device *nd, bool up)
{
	int ret;

	rtnl_lock();
	ret = dev_change_flags(nd, up ? nd->flags | IFF_UP :
			       nd->flags & ~IFF_UP, NULL);
	rtnl_unlock();
	KUNIT_EXPECT_EQ(test, ret, 0);
}

/*
 * softiw's port follows its interface, as siw's does: kv1 (in the peer
 * namespace, which keeps its addresses while down) going down and up
 * gives IB_EVENT_PORT_ERR, then IB_EVENT_PORT_ACTIVE, on port 1. (That a
 * handler hears nothing once unregistered is verbs_device_events' on
 * the mock: taking kv1 down and up twice in a row here left its IPv6
 * route to kv0 broken for kiwi_testnet's later connect.)
 */
static void verbs_port_events(struct kunit *test)
{
	struct net *peer = kiwi_test_peer_net(test);
	struct cmt *t = cmt_setup_in(test, peer, "kv1", "softiw_kv1",
				     VT_PORT + 12);
	struct vt_events *e = kunit_kzalloc(test, sizeof(*e), GFP_KERNEL);
	struct ib_device *dev = t->dev;
	struct net_device *nd;
	unsigned long end;

	KUNIT_ASSERT_NOT_NULL(test, e);
	nd = dev_get_by_name(peer, "kv1");
	KUNIT_ASSERT_NOT_NULL(test, nd);
	spin_lock_init(&e->lock);
	INIT_IB_EVENT_HANDLER(&e->h, dev, vt_event);
	ib_register_event_handler(&e->h);
	vt_link(test, nd, false);
	vt_link(test, nd, true);
	end = jiffies + 5 * HZ;
	while (vt_events_seen(e) < 2 && time_before(jiffies, end))
		usleep_range(1000, 2000);
	ib_unregister_event_handler(&e->h);
	/* leave the test network as found: kv1 up and running again */
	end = jiffies + 5 * HZ;
	while (!netif_oper_up(nd) && time_before(jiffies, end))
		usleep_range(1000, 2000);
	KUNIT_EXPECT_TRUE(test, netif_oper_up(nd));
	KUNIT_EXPECT_EQ(test, vt_events_seen(e), 2);
	KUNIT_EXPECT_EQ(test, e->seen[0], IB_EVENT_PORT_ERR);
	KUNIT_EXPECT_EQ(test, e->seen[1], IB_EVENT_PORT_ACTIVE);
	KUNIT_EXPECT_EQ(test, e->port, 1U);
	dev_put(nd);
}

static struct kunit_case verbs_cases[] = {
	KUNIT_CASE(verbs_local_dma_lkey),
	KUNIT_CASE(verbs_sig_all),
	KUNIT_CASE_PARAM(verbs_send_refused, vt_refused_case_gen_params),
	KUNIT_CASE(verbs_cq_library),
	KUNIT_CASE(verbs_drain_qp),
	KUNIT_CASE(verbs_query_qp),
	KUNIT_CASE(verbs_port_events),
	{}
};

static struct kunit_suite verbs_suite = {
	.suite_init = cmt_suite_init,
	.suite_exit = cmt_suite_exit,
	.name = "kiwi_softiw_verbs",
	.test_cases = verbs_cases,
};

kunit_test_suite(verbs_suite);
