// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_softiw_depth: IRD and ORD of two softiw endpoints over loopback,
 * for every combination of the values their ULPs ask (0 included), over
 * MPA revision 2 (exchanged in the frames, RFC 6581), revision 1, and a
 * revision 2 Request answered by a revision 1 responder: the depths each
 * QP ends up with, the ones each event reports, and READs: beyond ORD
 * they wait (refused at post with ORD 0), so no Read Request reaches a
 * peer that cannot serve it.
 */
#include <kunit/test.h>
#include <linux/in.h>
#include <linux/kernel.h>
#include <linux/module.h>

#include "verbs_util.h"
#include "cm_fixture.h"
#include "softiw.h"

#define DEPTH_PORT	22301
#define DEPTH_BUF	4096
#define DEPTH_READ	8	/* bytes per READ */
#define DEPTH_SQ	8	/* send queue: ORD + 1 READs at most */

enum { DEPTH_REV2, DEPTH_REV1, DEPTH_FALLBACK, DEPTH_MODES };

static const char *const depth_mode_name[DEPTH_MODES] = {
	"rev2", "rev1", "v2->v1",
};

/* IRD and ORD of the initiator's ULP, then of the responder's. */
static const u16 depth_rows[][4] = {
	{ 0, 0, 0, 0 }, { 0, 0, 0, 4 }, { 0, 0, 4, 0 }, { 0, 0, 4, 4 },
	{ 0, 4, 0, 0 }, { 0, 4, 0, 4 }, { 0, 4, 4, 0 }, { 0, 4, 4, 4 },
	{ 4, 0, 0, 0 }, { 4, 0, 0, 4 }, { 4, 0, 4, 0 }, { 4, 0, 4, 4 },
	{ 4, 4, 0, 0 }, { 4, 4, 0, 4 }, { 4, 4, 4, 0 }, { 4, 4, 4, 4 },
	{ 4, 4, 1, 2 }, { 1, 2, 4, 4 }, { 3, 1, 2, 3 },
};

/**
 * struct depth_case - one connection of the table
 * @mode: DEPTH_REV2, DEPTH_REV1 or DEPTH_FALLBACK
 * @v: initiator IRD, initiator ORD, responder IRD, responder ORD
 */
struct depth_case {
	int mode;
	u16 v[4];
};

static struct depth_case depth_cases[DEPTH_MODES * ARRAY_SIZE(depth_rows)];

static const void *depth_gen_params(const void *prev, char *desc)
{
	const struct depth_case *c = prev;
	size_t i = c ? c - depth_cases + 1 : 0;
	struct depth_case *n;

	if (i >= ARRAY_SIZE(depth_cases))
		return NULL;
	n = &depth_cases[i];
	n->mode = i / ARRAY_SIZE(depth_rows);
	memcpy(n->v, depth_rows[i % ARRAY_SIZE(depth_rows)], sizeof(n->v));
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s i%u/%u r%u/%u",
		 depth_mode_name[n->mode], n->v[0], n->v[1], n->v[2], n->v[3]);
	return n;
}

/**
 * struct depth_side - one end of the connection
 * @id: its cm_id
 * @qp: its QP
 * @buf: its memory, DEPTH_BUF bytes
 * @mr: the MR over @buf, all rights
 * @ird: the IRD this end must end up with
 * @ord: the ORD
 */
struct depth_side {
	struct kiwi_cm_id *id;
	struct ib_qp *qp;
	u8 *buf;
	struct ib_mr *mr;
	u16 ird;
	u16 ord;
};

/*
 * What each end must use: in revision 2 the responder bounds its IRD by
 * the initiator's ORD and its ORD by the initiator's IRD, and the
 * initiator takes the Reply's values (RFC 6581); without the exchange
 * each end keeps what its ULP asked.
 */
static void depth_expect(const struct depth_case *c, struct depth_side *s)
{
	if (c->mode != DEPTH_REV2) {
		s[0].ird = c->v[0];
		s[0].ord = c->v[1];
		s[1].ird = c->v[2];
		s[1].ord = c->v[3];
		return;
	}
	s[1].ird = min(c->v[2], c->v[1]);
	s[1].ord = min(c->v[3], c->v[0]);
	s[0].ird = s[1].ord;
	s[0].ord = s[1].ird;
}

static void depth_side_init(struct cmt *t, struct depth_side *s)
{
	struct ib_qp_init_attr init = {
		KT_QP_RC,
		.send_cq = t->cq, .recv_cq = t->cq,
		.cap = { .max_send_wr = DEPTH_SQ, .max_recv_wr = 2,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	s->qp = cmt_qp_init(t, &init);
	s->buf = cmt_buf(t, DEPTH_BUF);
	s->mr = cmt_mr(t, s->buf, DEPTH_BUF, KIWI_ACCESS_ALL);
}

static int depth_rev(struct kiwi_cm_id *id, u32 rev)
{
	return kiwi_cm_set_option(id, KIWI_IWARP_OPT_MPA_REV, &rev,
				  sizeof(rev));
}

static int depth_post(struct depth_side *s, u64 wr_id, int opcode, u32 off,
		      u64 raddr, u32 rkey)
{
	struct ib_sge sge = {
		.addr = s->mr->iova + off, .length = DEPTH_READ,
		.lkey = s->mr->lkey,
	};
	struct ib_rdma_wr wr = {
		.wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
			.opcode = opcode, .send_flags = IB_SEND_SIGNALED },
		.remote_addr = raddr, .rkey = rkey,
	};
	const struct ib_send_wr *bad;

	return kiwi_post_send(s->qp, &wr.wr, &bad);
}

static int depth_poll(struct cmt *t, struct ib_wc *wc)
{
	int i, n = 0;

	for (i = 0; i < 400 && !n; i++) {
		n = kiwi_poll_cq(t->cq, 1, wc);
		if (!n)
			usleep_range(5000, 10000);
	}
	return n;
}

/*
 * Connect s[0] to s[1] with the case's values; the responder has a RECV
 * for the SEND the initiator sends first (revision 1: it may send only
 * after that). Check the depths each event reports.
 */
static void depth_connect(struct cmt *t, const struct depth_case *c,
			  struct depth_side *s)
{
	struct kunit *test = t->test;
	struct kiwi_conn_param p = { .ird = c->v[0], .ord = c->v[1] };
	struct ib_sge sge = {
		.addr = s[1].mr->iova, .length = DEPTH_READ,
		.lkey = s[1].mr->lkey,
	};
	struct ib_recv_wr rwr = { .wr_id = 100, .sg_list = &sge,
				    .num_sge = 1 };
	struct sockaddr_in *sin;
	const struct ib_recv_wr *bad;
	const struct cmt_rec *r;
	struct kiwi_cm_id *lst;

	lst = cmt_id_on(t, t->dev);
	if (c->mode != DEPTH_REV2)
		KUNIT_ASSERT_EQ(test, depth_rev(lst, 1), 0);
	cmt_any_addr(&lst->local_addr, t->port);
	KUNIT_ASSERT_EQ(test, kiwi_cm_listen(lst, 8), 0);
	s[0].id = cmt_id_on(t, t->dev);
	if (c->mode == DEPTH_REV1)
		KUNIT_ASSERT_EQ(test, depth_rev(s[0].id, 1), 0);
	cmt_any_addr(&s[0].id->remote_addr, t->port);
	sin = (struct sockaddr_in *)&s[0].id->remote_addr;
	sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	p.qpn = s[0].qp->qp_num;
	KUNIT_ASSERT_EQ(test, kiwi_cm_connect(s[0].id, &p), 0);

	r = cmt_wait(t, KIWI_CM_EVENT_CONNECT_REQUEST, NULL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	s[1].id = r->id;
	/* What the initiator offered, else the most this end could serve. */
	KUNIT_EXPECT_EQ(test, r->ird, c->mode == DEPTH_REV1 ?
			SOFTIW_MAX_IRD_ORD : c->v[0]);
	KUNIT_EXPECT_EQ(test, r->ord, c->mode == DEPTH_REV1 ?
			SOFTIW_MAX_IRD_ORD : c->v[1]);
	KUNIT_ASSERT_EQ(test, kiwi_post_recv(s[1].qp, &rwr, &bad), 0);
	p = (struct kiwi_conn_param) {
		.ird = c->v[2], .ord = c->v[3], .qpn = s[1].qp->qp_num,
	};
	KUNIT_ASSERT_EQ(test, kiwi_cm_accept(s[1].id, &p), 0);

	/* Up: @ird is the peer's IRD (this end's ORD), @ord its ORD. */
	r = cmt_wait(t, KIWI_CM_EVENT_ESTABLISHED, s[1].id);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->ird, s[1].ord);
	KUNIT_EXPECT_EQ(test, r->ord, s[1].ird);
	r = cmt_wait(t, KIWI_CM_EVENT_CONNECT_REPLY, s[0].id);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_ASSERT_EQ(test, r->status, 0);
	KUNIT_EXPECT_EQ(test, r->ird, s[0].ord);
	KUNIT_EXPECT_EQ(test, r->ord, s[0].ird);
	KUNIT_EXPECT_EQ(test, s[0].id->ird, s[0].ord);
	KUNIT_EXPECT_EQ(test, s[0].id->ord, s[0].ird);
}

/* The initiator's first FPDU: a SEND into the responder's RECV. */
static void depth_first_send(struct cmt *t, struct depth_side *s)
{
	struct kunit *test = t->test;
	struct ib_wc wc;
	int i, recv = 0;

	KUNIT_ASSERT_EQ(test, depth_post(&s[0], 101, IB_WR_SEND, 0, 0, 0),
			0);
	for (i = 0; i < 2; i++) {
		KUNIT_ASSERT_EQ(test, depth_poll(t, &wc), 1);
		KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
		recv += wc.opcode == IB_WC_RECV;
	}
	KUNIT_EXPECT_EQ(test, recv, 1);
}

/*
 * @s[0] READs from @s[1]: ORD + 1 of them, the last one waiting for a
 * response; all complete, in order, with the peer's bytes, and the peer
 * (which refuses a Read Request beyond its IRD with a TERMINATE) stays
 * up. With ORD 0 a READ is refused at post.
 */
static void depth_reads(struct cmt *t, struct depth_side *s)
{
	struct kunit *test = t->test;
	struct ib_wc wc;
	int i, n = s[0].ord + 1;

	if (!s[0].ord) {
		KUNIT_EXPECT_EQ(test, depth_post(&s[0], 1, IB_WR_RDMA_READ,
						 64, s[1].mr->iova,
						 s[1].mr->rkey), -EINVAL);
		return;
	}
	for (i = 0; i < DEPTH_BUF; i++)
		s[1].buf[i] = i * 7 + 1;
	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ(test, depth_post(&s[0], i, IB_WR_RDMA_READ,
						 64 + i * DEPTH_READ,
						 s[1].mr->iova + i * 16,
						 s[1].mr->rkey), 0);
	for (i = 0; i < n; i++) {
		KUNIT_ASSERT_EQ(test, depth_poll(t, &wc), 1);
		KUNIT_EXPECT_EQ(test, wc.wr_id, (u64)i);
		KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
		KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RDMA_READ);
		CMT_EXPECT_MEM(test, s[0].buf + 64 + i * DEPTH_READ,
			       s[1].buf + i * 16, DEPTH_READ);
	}
	KUNIT_EXPECT_EQ(test, kiwi_softiw_qp_state(s[1].qp), IB_QPS_RTS);
	KUNIT_EXPECT_EQ(test, kiwi_softiw_qp_state(s[0].qp), IB_QPS_RTS);
}

/*
 * Without the exchange the ULPs must agree on their own: READs are
 * tried only where this end's ORD fits the peer's IRD.
 */
static bool depth_agreed(const struct depth_side *s)
{
	return s[0].ord <= s[1].ird;
}

static void depth_negotiation(struct kunit *test)
{
	const struct depth_case *c = test->param_value;
	struct cmt *t = cmt_setup(test, DEPTH_PORT);
	struct depth_side s[2] = {}, r[2];
	u16 ird, ord;
	int i;

	for (i = 0; i < 2; i++)
		depth_side_init(t, &s[i]);
	depth_expect(c, s);
	depth_connect(t, c, s);
	for (i = 0; i < 2; i++) {
		kiwi_softiw_qp_depths(s[i].qp, &ird, &ord);
		KUNIT_EXPECT_EQ_MSG(test, ird, s[i].ird, "side %d", i);
		KUNIT_EXPECT_EQ_MSG(test, ord, s[i].ord, "side %d", i);
	}
	depth_first_send(t, s);
	r[0] = s[1];
	r[1] = s[0];
	if (c->mode == DEPTH_REV2 || depth_agreed(s))
		depth_reads(t, s);
	if (c->mode == DEPTH_REV2 || depth_agreed(r))
		depth_reads(t, r);
	cmt_teardown(t);
}

static struct kunit_case depth_test_cases[] = {
	KUNIT_CASE_PARAM(depth_negotiation, depth_gen_params),
	{}
};

static struct kunit_suite depth_suite = {
	.suite_init = cmt_suite_init,
	.suite_exit = cmt_suite_exit,
	.name = "kiwi_softiw_depth",
	.test_cases = depth_test_cases,
};

kunit_test_suite(depth_suite);
