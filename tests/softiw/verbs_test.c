// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_softiw_verbs: Linux's verbs on softiw over a connection on lo:
 * SGEs named by the PD's local_dma_lkey and a DMA address, sends
 * signalled by the QP's sq_sig_type, the CQ library and missed events,
 * and send work requests softiw must refuse, leaving nothing queued.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "cm_fixture.h"
#include "verbs_util.h"

#define VT_PORT	22401
#define VT_LEN	64

/**
 * struct vt_pair - two connected QPs on the fixture's device
 * @t: the fixture
 * @qp: the active side (0) and the passive side (1)
 * @buf: a buffer of VT_LEN bytes for each
 * @dma: its DMA address, mapped with ib_dma_map_single()
 */
struct vt_pair {
	struct cmt *t;
	struct ib_qp *qp[2];
	u8 *buf[2];
	u64 dma[2];
};

static void vt_init(struct ib_qp_init_attr *init, struct ib_cq *scq,
		    struct ib_cq *rcq)
{
	*init = (struct ib_qp_init_attr) {
		KT_QP_RC,
		.send_cq = scq, .recv_cq = rcq,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
}

/* Connect QP 0 (send CQ @scq, the fixture's if NULL) to QP 1. */
static void vt_connect(struct vt_pair *p, struct ib_cq *scq)
{
	struct cmt *t = p->t;
	struct ib_qp_init_attr init;
	struct kiwi_cm_id *a;
	int i;

	vt_init(&init, scq ?: t->cq, t->cq);
	p->qp[0] = cmt_qp_init(t, &init);
	vt_init(&init, t->cq, t->cq);
	p->qp[1] = cmt_qp_init(t, &init);
	for (i = 0; i < 2; i++) {
		p->buf[i] = cmt_buf(t, VT_LEN);
		p->dma[i] = ib_dma_map_single(t->dev, p->buf[i], VT_LEN,
					      DMA_BIDIRECTIONAL);
		KUNIT_ASSERT_EQ(t->test, ib_dma_mapping_error(t->dev,
							      p->dma[i]), 0);
	}
	cmt_listen(t);
	a = cmt_connect_qp(t, NULL, t->port, p->qp[0]->qp_num);
	cmt_accept(t, a, t, p->qp[1]);
}

/* A SGE of side @i's buffer by DMA address and the PD's local_dma_lkey. */
static struct ib_sge vt_sge(struct vt_pair *p, int i)
{
	return (struct ib_sge) {
		.addr = p->dma[i], .length = VT_LEN,
		.lkey = p->t->pd->local_dma_lkey,
	};
}

static int vt_recv(struct vt_pair *p, u64 wr_id)
{
	struct ib_sge sge = vt_sge(p, 1);
	struct ib_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge,
				 .num_sge = 1 };

	return ib_post_recv(p->qp[1], &wr, NULL);
}

static int vt_send(struct vt_pair *p, u64 wr_id, int flags)
{
	struct ib_sge sge = vt_sge(p, 0);
	struct ib_send_wr wr = { .wr_id = wr_id, .sg_list = &sge,
				 .num_sge = 1, .opcode = IB_WR_SEND,
				 .send_flags = flags };

	return ib_post_send(p->qp[0], &wr, NULL);
}

/* The next completion on @cq, waiting up to 5 s. */
static int vt_poll(struct ib_cq *cq, struct ib_wc *wc)
{
	unsigned long end = jiffies + 5 * HZ;
	int n;

	do {
		n = ib_poll_cq(cq, 1, wc);
		if (n)
			return n;
		usleep_range(1000, 2000);
	} while (time_before(jiffies, end));
	return 0;
}

static struct vt_pair *vt_setup(struct kunit *test, u16 port)
{
	struct vt_pair *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	p->t = cmt_setup(test, port);
	return p;
}

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
 * only the RECV it fills does.
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
		KUNIT_ASSERT_EQ(test, vt_send(p, 1, 0), 0);
		/* A SEND completes once sent: before its RECV does. */
		while (!(seen & BIT(2))) {
			KUNIT_ASSERT_EQ(test, vt_poll(p->t->cq, &wc), 1);
			KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
			seen |= BIT(wc.wr_id);
		}
		while (ib_poll_cq(p->t->cq, 1, &wc) == 1)
			seen |= BIT(wc.wr_id);
		KUNIT_EXPECT_EQ(test, seen, all ? 0x6U : 0x4U);
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
	{ "REG_MR", IB_WR_REG_MR, 0, -EOPNOTSUPP },
	{ "unknown opcode", 0x7f, 0, -EOPNOTSUPP },
	{ "inline SEND", IB_WR_SEND, IB_SEND_INLINE, -EINVAL },
	{ "fenced SEND", IB_WR_SEND, IB_SEND_FENCE, -EINVAL },
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

static struct kunit_case verbs_cases[] = {
	KUNIT_CASE(verbs_local_dma_lkey),
	KUNIT_CASE(verbs_sig_all),
	KUNIT_CASE_PARAM(verbs_send_refused, vt_refused_case_gen_params),
	KUNIT_CASE(verbs_cq_library),
	{}
};

static struct kunit_suite verbs_suite = {
	.suite_init = cmt_suite_init,
	.suite_exit = cmt_suite_exit,
	.name = "kiwi_softiw_verbs",
	.test_cases = verbs_cases,
};

kunit_test_suite(verbs_suite);
