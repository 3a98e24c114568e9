// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_softiw_rtr: the end of connection setup (RFC 6581, RFC 5044).
 * Two softiw ends in peer-to-peer mode with each RTR type, then data
 * both ways, on lo and from kv0 to kv1 in the peer namespace; a raw TCP
 * peer on either side that reads every setup FPDU byte for byte: the
 * RTR, the READ response, the TERMINATEs of a wrong RTR, of a missing
 * one, of insufficient IRD and of no matching RTR type; and the MPA
 * revision 1 rule that the responder sends no FPDU before it has
 * received one. The per-id iWARP options are kiwi_softiw_rtr_option's.
 */
#include <asm/unaligned.h>
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/string.h>

#include "cm_fixture.h"
#include "fpdu.h"
#include "kiwi_test.h"
#include "rtr_util.h"
#include "softiw.h"

static const char *rtr_name(int type)
{
	return type == RTR_WRITE ? "WRITE" : type == RTR_READ ? "READ" :
	       "SEND";
}

static void rtr_set_type(struct kunit *test, int type)
{
	char v[4];

	snprintf(v, sizeof(v), "%d", type);
	cmt_param(test, "mpa_p2p", "Y");
	cmt_param(test, "mpa_rtr", v);
}

/* Each RTR frame as it travels without CRC (CRC field zero). */
static const u8 rtr_write_frame[20] = {
	0x00, 0x0e, 0xc1, 0x40,			/* len 14; T L v1; v1 WRITE */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,	/* STag 0, TO 0 */
	0, 0, 0, 0,				/* CRC field */
};

static const u8 rtr_read_frame[52] = {
	0x00, 0x2e, 0x41, 0x41,			/* len 46; L v1; v1 READ REQ */
	0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1,	/* rsvd, queue 1, MSN 1 */
	0, 0, 0, 0,				/* MO 0 */
	/* sink STag, sink TO, size 0, source STag, source TO: all 0 */
	[48] = 0, 0, 0, 0,			/* CRC field */
};

static const u8 rtr_send_frame[24] = {
	0x00, 0x12, 0x41, 0x43,			/* len 18; L v1; v1 SEND */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,	/* rsvd, queue 0, MSN 1 */
	0, 0, 0, 0,				/* MO 0 */
	0, 0, 0, 0,				/* CRC field */
};

static const u8 rtr_read_resp_frame[20] = {
	0x00, 0x0e, 0xc1, 0x42,			/* len 14; T L v1; READ RESP */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,	/* STag 0, TO 0 */
	0, 0, 0, 0,
};

static const u8 rtr_term_crc[28] = RTR_TERM(0x02);
static const u8 rtr_term_ird[28] = RTR_TERM(0x06);

static const u8 *rtr_frame(int type, int *len)
{
	switch (type) {
	case RTR_WRITE:
		*len = sizeof(rtr_write_frame);
		return rtr_write_frame;
	case RTR_READ:
		*len = sizeof(rtr_read_frame);
		return rtr_read_frame;
	default:
		*len = sizeof(rtr_send_frame);
		return rtr_send_frame;
	}
}

/* Nothing arrives on @s for @ms. */
static void rtr_expect_silence(struct kunit *test, struct socket *s, int ms)
{
	u8 b;

	KUNIT_EXPECT_EQ(test, cmt_raw_recv(s, &b, 1, ms), -EAGAIN);
}

/* ---- two softiw ends ---- */

/**
 * struct rtr_pair_case - a softiw to softiw connection in P2P mode
 * @type: the RTR type both ends use
 * @crc: mpa_crc
 */
struct rtr_pair_case {
	int type;
	bool crc;
};

static const struct rtr_pair_case rtr_pair_cases[] = {
	{ RTR_WRITE, false }, { RTR_READ, false }, { RTR_SEND, false },
	{ RTR_WRITE, true }, { RTR_READ, true }, { RTR_SEND, true },
};

static void rtr_pair_desc(const struct rtr_pair_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s crc %d", rtr_name(c->type),
		 c->crc);
}

KUNIT_ARRAY_PARAM(rtr_pair, rtr_pair_cases, rtr_pair_desc);

static void rtr_post_recv(struct kunit *test, struct ib_qp *qp,
			  struct ib_mr *mr, u64 wr_id, u32 off)
{
	struct ib_sge sge = {
		.addr = mr->iova + off, .length = 64, .lkey = mr->lkey,
	};
	struct ib_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge,
				   .num_sge = 1 };
	const struct ib_recv_wr *bad;

	KUNIT_ASSERT_EQ(test, kiwi_post_recv(qp, &wr, &bad), 0);
}

static void rtr_post_send(struct kunit *test, struct ib_qp *qp,
			  struct ib_mr *mr, u64 wr_id, u32 off, u32 len)
{
	struct ib_sge sge = {
		.addr = mr->iova + off, .length = len, .lkey = mr->lkey,
	};
	struct ib_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
		.opcode = IB_WR_SEND, .send_flags = IB_SEND_SIGNALED,
	};
	const struct ib_send_wr *bad;

	KUNIT_ASSERT_EQ(test, kiwi_post_send(qp, &wr, &bad), 0);
}

static int rtr_poll(struct cmt *t, struct ib_wc *wc)
{
	unsigned long end = jiffies + msecs_to_jiffies(5000);
	int n;

	do {
		n = kiwi_poll_cq(t->cq, 1, wc);
		if (!n)
			usleep_range(500, 2000);
	} while (!n && time_before(jiffies, end));
	return n;
}

/* Wait for the completion of @wr_id on the fixture's CQ. */
static void rtr_expect_wc(struct cmt *t, u64 wr_id, u32 byte_len)
{
	struct ib_wc wc;

	KUNIT_ASSERT_EQ(t->test, rtr_poll(t, &wc), 1);
	KUNIT_EXPECT_EQ(t->test, wc.wr_id, wr_id);
	KUNIT_EXPECT_EQ(t->test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(t->test, wc.byte_len, byte_len);
}

/* A SEND @snd of 4 bytes and the RECV @rcv it fills, in either order. */
static void rtr_expect_pair(struct cmt *t, u64 snd, u64 rcv)
{
	struct ib_wc wc;
	int i;

	for (i = 0; i < 2; i++) {
		KUNIT_ASSERT_EQ(t->test, rtr_poll(t, &wc), 1);
		KUNIT_EXPECT_TRUE(t->test, wc.wr_id == snd || wc.wr_id == rcv);
		KUNIT_EXPECT_EQ(t->test, wc.status, IB_WC_SUCCESS);
		KUNIT_EXPECT_EQ(t->test, wc.byte_len, wc.wr_id == rcv ? 4 : 0);
	}
}

/*
 * The RTR completes no RECV: each side's first RECV gets the first ULP
 * message, "ping" one way and "pong" the other.
 */
static void rtr_pair(struct kunit *test)
{
	const struct rtr_pair_case *c = test->param_value;
	struct cmt *t = cmt_setup(test, 24000 + (c - rtr_pair_cases));
	struct ib_qp *qa, *qb;
	struct ib_mr *mr;
	struct kiwi_cm_id *a;
	const struct cmt_rec *r;
	struct ib_wc wc;
	u8 *buf;

	rtr_set_type(test, c->type);
	cmt_param(test, "mpa_crc", c->crc ? "Y" : "N");
	buf = cmt_buf(t, 512);
	mr = cmt_mr(t, buf, 512, IB_ACCESS_LOCAL_WRITE);
	cmt_qp(t);
	qa = t->qps[t->nqps - 1];
	cmt_qp(t);
	qb = t->qps[t->nqps - 1];
	rtr_post_recv(test, qa, mr, 1, 0);
	rtr_post_recv(test, qb, mr, 2, 64);
	memcpy(buf + 256, "ping", 4);
	memcpy(buf + 320, "pong", 4);

	cmt_listen(t);
	a = cmt_connect_qp(t, "p2p", t->port, qa->qp_num);
	r = cmt_accept(t, a, t, qb);
	CMT_EXPECT_MEM(test, r->pd, "", 0);
	/* Both ends are up: their setup state (MPA, RTR buffers) is freed. */
	KUNIT_EXPECT_FALSE(test, kiwi_softiw_qp_in_setup(qa));
	KUNIT_EXPECT_FALSE(test, kiwi_softiw_qp_in_setup(qb));
	/* The RTR, and a READ RTR's response, completed nothing. */
	KUNIT_EXPECT_EQ(test, kiwi_poll_cq(t->cq, 1, &wc), 0);

	rtr_post_send(test, qa, mr, 3, 256, 4);
	rtr_expect_pair(t, 3, 2);
	CMT_EXPECT_MEM(test, buf + 64, "ping", 4);
	rtr_post_send(test, qb, mr, 4, 320, 4);
	rtr_expect_pair(t, 4, 1);
	CMT_EXPECT_MEM(test, buf, "pong", 4);
	cmt_teardown(t);
}

/* ---- two softiw ends across namespaces: kv0 to kv1 ---- */

static const int rtr_types[] = { RTR_WRITE, RTR_READ, RTR_SEND };

static void rtr_type_desc(const int *type, char *desc)
{
	strscpy(desc, rtr_name(*type), KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(rtr_type, rtr_types, rtr_type_desc);

/*
 * softiw on kv0 connects in P2P mode to softiw on kv1 in the peer
 * namespace, over the veth pair: each RTR type, then "ping" and "pong"
 * into the first RECV of each side.
 */
static void rtr_veth(struct kunit *test)
{
	const int *type = test->param_value;
	struct net *peer = kiwi_test_peer_net(test);
	struct ib_mr *ma, *mb;
	struct ib_qp *qa, *qb;
	struct cmt *ta, *tb;
	u8 *ba, *bb;

	rtr_set_type(test, *type);
	ta = cmt_setup_in(test, &init_net, "kv0", "softiw_kv0", 24100);
	tb = cmt_setup_in(test, peer, "kv1", "softiw_kv1", 24100);
	ba = cmt_buf(ta, 128);
	bb = cmt_buf(tb, 128);
	memcpy(ba + 64, "ping", 4);
	memcpy(bb + 64, "pong", 4);
	ma = cmt_mr(ta, ba, 128, IB_ACCESS_LOCAL_WRITE);
	mb = cmt_mr(tb, bb, 128, IB_ACCESS_LOCAL_WRITE);
	cmt_qp(ta);
	qa = ta->qps[ta->nqps - 1];
	cmt_qp(tb);
	qb = tb->qps[tb->nqps - 1];
	rtr_post_recv(test, qa, ma, 1, 0);
	rtr_post_recv(test, qb, mb, 2, 0);

	cmt_connect_veth(ta, qa, tb, qb);

	rtr_post_send(test, qa, ma, 3, 64, 4);
	rtr_expect_wc(ta, 3, 0);
	rtr_expect_wc(tb, 2, 4);
	CMT_EXPECT_MEM(test, bb, "ping", 4);
	rtr_post_send(test, qb, mb, 4, 64, 4);
	rtr_expect_wc(tb, 4, 0);
	rtr_expect_wc(ta, 1, 4);
	CMT_EXPECT_MEM(test, ba, "pong", 4);
	cmt_release(ta);
	cmt_teardown(tb);
}

/* ---- a raw initiator against a softiw responder ---- */

/**
 * struct rtr_raw - a raw initiator and the softiw responder it reached
 * @s: the raw socket
 * @child: the accepted id
 * @qp: its QP, one RECV of 64 bytes posted
 * @buf: that RECV's memory
 */
struct rtr_raw {
	struct socket *s;
	struct kiwi_cm_id *child;
	struct ib_qp *qp;
	u8 *buf;
};

/* Connect, offer @type only, get it accepted; the Reply names it. */
static void rtr_raw_connect(struct cmt *t, struct rtr_raw *p, int type)
{
	struct kunit *test = t->test;
	struct kiwi_conn_param cp = { .ird = 4, .ord = 4 };
	const struct cmt_rec *r;
	struct ib_mr *mr;
	u8 rep[24];

	rtr_set_type(test, RTR_WRITE | RTR_READ | RTR_SEND);
	cmt_listen(t);
	p->s = cmt_raw_connect(test, t->port);
	rtr_raw_request(test, p->s, type);
	r = cmt_wait(t, KIWI_CM_EVENT_CONNECT_REQUEST, NULL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	p->child = r->id;
	p->buf = cmt_buf(t, 64);
	mr = cmt_mr(t, p->buf, 64, IB_ACCESS_LOCAL_WRITE);
	cp.qpn = cmt_qp(t);
	p->qp = t->qps[t->nqps - 1];
	rtr_post_recv(test, p->qp, mr, 7, 0);
	KUNIT_ASSERT_EQ(test, kiwi_cm_accept(p->child, &cp), 0);
	KUNIT_ASSERT_EQ(test, rtr_recv_all(p->s, rep, sizeof(rep), 3000), 24);
	CMT_EXPECT_MEM(test, rep, KEY_REP, 16);
	KUNIT_EXPECT_EQ(test, rep[16] & 0xb0, 0x10);	/* E; no M, R */
	KUNIT_EXPECT_EQ(test, rep[20], 0x80 | (type == RTR_SEND ? 0x40 : 0));
	KUNIT_EXPECT_EQ(test, rep[22], type == RTR_WRITE ? 0x80 :
				       type == RTR_READ ? 0x40 : 0);
}

/* What the raw initiator does after the Reply. */
enum rtr_how { RTR_RIGHT, RTR_WRONG, RTR_NONE };

/**
 * struct rtr_resp_case - a softiw responder and its initiator's RTR
 * @type: the RTR type offered and chosen
 * @how: the right RTR, one of another type, or none at all
 */
struct rtr_resp_case {
	int type;
	enum rtr_how how;
};

static const struct rtr_resp_case rtr_resp_cases[] = {
	{ RTR_WRITE, RTR_RIGHT }, { RTR_READ, RTR_RIGHT },
	{ RTR_SEND, RTR_RIGHT }, { RTR_WRITE, RTR_WRONG },
	{ RTR_READ, RTR_WRONG }, { RTR_SEND, RTR_WRONG },
	{ RTR_WRITE, RTR_NONE }, { RTR_READ, RTR_NONE },
	{ RTR_SEND, RTR_NONE },
};

static void rtr_resp_desc(const struct rtr_resp_case *c, char *desc)
{
	static const char * const how[] = { "right", "wrong", "none" };

	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s %s", rtr_name(c->type),
		 how[c->how]);
}

KUNIT_ARRAY_PARAM(rtr_resp, rtr_resp_cases, rtr_resp_desc);

/* An untagged SEND of "abc" with @msn, without CRC. */
static int rtr_put_send(u8 *f, u32 msn)
{
	static const u8 hdr[20] = {
		0x00, 0x15, 0x41, 0x43, 0, 0, 0, 0, 0, 0, 0, 0,
	};

	memcpy(f, hdr, sizeof(hdr));
	put_unaligned_be32(msn, f + 12);
	memcpy(f + 20, "abc", 3);
	memset(f + 23, 0, 5);			/* pad 1, CRC field */
	return 28;
}

static void rtr_resp_right(struct cmt *t, struct rtr_raw *p, int type)
{
	struct kunit *test = t->test;
	const u8 *frame;
	struct ib_wc wc;
	u8 f[28];
	int len;

	frame = rtr_frame(type, &len);
	KUNIT_ASSERT_EQ(test, cmt_raw_send(p->s, frame, len), len);
	if (type == RTR_READ)
		rtr_expect_bytes(test, p->s, rtr_read_resp_frame, 20);
	KUNIT_ASSERT_NOT_NULL(test, cmt_wait(t, KIWI_CM_EVENT_ESTABLISHED,
					     p->child));
	KUNIT_EXPECT_FALSE(test, kiwi_softiw_qp_in_setup(p->qp));
	KUNIT_EXPECT_EQ(test, kiwi_poll_cq(t->cq, 1, &wc), 0);
	/* The RTR SEND took MSN 1; the first ULP SEND is MSN 2. */
	len = rtr_put_send(f, type == RTR_SEND ? 2 : 1);
	KUNIT_ASSERT_EQ(test, cmt_raw_send(p->s, f, len), len);
	rtr_expect_wc(t, 7, 3);
	CMT_EXPECT_MEM(test, p->buf, "abc", 3);
}

/*
 * A softiw responder in P2P mode sends nothing after its Reply before
 * the RTR, consumes the right one (answering a READ) and reports
 * ESTABLISHED; a wrong frame or none in rtr_timeout_ms is answered with
 * TERMINATE (LLP, MPA, no matching RTR) and CLOSE, never ESTABLISHED.
 */
static void rtr_responder(struct kunit *test)
{
	const struct rtr_resp_case *c = test->param_value;
	struct cmt *t = cmt_setup(test, 24010 + (c - rtr_resp_cases));
	int wrong = c->type == RTR_WRITE ? RTR_SEND : RTR_WRITE;
	const struct cmt_rec *r;
	struct rtr_raw p;
	const u8 *frame;
	int len;

	if (c->how == RTR_NONE)
		cmt_param(test, "rtr_timeout_ms", "500");
	rtr_raw_connect(t, &p, c->type);
	rtr_expect_silence(test, p.s, 200);
	KUNIT_EXPECT_EQ(test, cmt_count(t, KIWI_CM_EVENT_ESTABLISHED), 0);
	KUNIT_EXPECT_TRUE(test, kiwi_softiw_qp_in_setup(p.qp));
	if (c->how == RTR_RIGHT) {
		rtr_resp_right(t, &p, c->type);
		cmt_teardown(t);
		return;
	}
	if (c->how == RTR_WRONG) {
		frame = rtr_frame(wrong, &len);
		KUNIT_ASSERT_EQ(test, cmt_raw_send(p.s, frame, len), len);
	}
	rtr_expect_term(test, p.s, rtr_term_rtr);
	r = cmt_wait(t, KIWI_CM_EVENT_CLOSE, p.child);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->status,
			c->how == RTR_WRONG ? -EPROTO : -ETIMEDOUT);
	KUNIT_EXPECT_EQ(test, cmt_count(t, KIWI_CM_EVENT_ESTABLISHED), 0);
	cmt_raw_close(p.s, false);
	cmt_teardown(t);
}

/* A first frame with a bad CRC: TERMINATE (LLP, MPA, CRC error). */
static void rtr_responder_bad_crc(struct kunit *test)
{
	struct cmt *t = cmt_setup(test, 24020);
	const struct cmt_rec *r;
	struct rtr_raw p;
	u8 f[24];
	__le32 sum;

	cmt_param(test, "mpa_crc", "Y");
	rtr_raw_connect(t, &p, RTR_SEND);
	memcpy(f, rtr_send_frame, sizeof(f));
	sum = kiwi_softiw_fpdu_crc(f, 20);
	memcpy(f + 20, &sum, 4);
	f[23] ^= 0x01;
	KUNIT_ASSERT_EQ(test, cmt_raw_send(p.s, f, sizeof(f)), 24);
	/* The TERMINATE carries a CRC now: check all but the CRC field. */
	{
		u8 got[28], want[28];

		memcpy(want, rtr_term_crc, sizeof(want));
		sum = kiwi_softiw_fpdu_crc(want, 24);
		memcpy(want + 24, &sum, 4);
		KUNIT_ASSERT_EQ(test, rtr_recv_all(p.s, got, 28, 3000), 28);
		CMT_EXPECT_MEM(test, got, want, 28);
	}
	r = cmt_wait(t, KIWI_CM_EVENT_CLOSE, p.child);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->status, -EPROTO);
	cmt_teardown(t);
}

/* ---- a softiw initiator against a raw responder ---- */

/*
 * softiw connects (IRD/ORD 4, "p2p") to a raw listener and offers the
 * mpa_rtr types; the raw responder checks the Request byte for byte.
 */
static struct socket *rtr_raw_accepted(struct cmt *t, int offer,
				       struct kiwi_cm_id **a)
{
	struct kunit *test = t->test;
	struct socket *lst = rtr_raw_listen(test, t->port);
	u8 req[27], want[27] = KEY_REQ;
	struct socket *s;

	rtr_set_type(test, offer);
	*a = cmt_connect(t, "p2p", t->port);
	s = rtr_raw_accept(test, lst);
	want[16] = 0x10;
	want[17] = 2;
	want[19] = 7;
	want[20] = 0x80 | (offer & RTR_SEND ? 0x40 : 0);
	want[21] = 4;
	want[22] = (offer & RTR_WRITE ? 0x80 : 0) |
		   (offer & RTR_READ ? 0x40 : 0);
	want[23] = 4;
	memcpy(want + 24, "p2p", 3);
	KUNIT_ASSERT_EQ(test, rtr_recv_all(s, req, sizeof(req), 3000), 27);
	CMT_EXPECT_MEM(test, req, want, sizeof(want));
	return s;
}

/* An enhanced Reply choosing @type (mpa_rtr bits), IRD 4, ORD @ord. */
static void rtr_raw_reply(struct kunit *test, struct socket *s, int type,
			  u8 ord)
{
	u8 rep[24] = KEY_REP;

	rep[16] = 0x10;
	rep[17] = 2;
	rep[19] = 4;
	rep[20] = 0x80 | (type & RTR_SEND ? 0x40 : 0);
	rep[21] = 4;
	rep[22] = (type & RTR_WRITE ? 0x80 : 0) | (type & RTR_READ ? 0x40 : 0);
	rep[23] = ord;
	KUNIT_ASSERT_EQ(test, cmt_raw_send(s, rep, sizeof(rep)), 24);
}

/**
 * struct rtr_init_case - a softiw initiator and its responder's answers
 * @type: the RTR type offered and chosen
 * @how: for READ: the right response, another frame, or none
 */
struct rtr_init_case {
	int type;
	enum rtr_how how;
};

static const struct rtr_init_case rtr_init_cases[] = {
	{ RTR_WRITE, RTR_RIGHT }, { RTR_READ, RTR_RIGHT },
	{ RTR_SEND, RTR_RIGHT }, { RTR_READ, RTR_WRONG },
	{ RTR_READ, RTR_NONE },
};

static void rtr_init_desc(const struct rtr_init_case *c, char *desc)
{
	static const char * const how[] = { "right", "wrong", "none" };

	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s %s", rtr_name(c->type),
		 how[c->how]);
}

KUNIT_ARRAY_PARAM(rtr_init, rtr_init_cases, rtr_init_desc);

/*
 * A softiw initiator sends the RTR right after the Reply, byte for
 * byte, then reports CONNECT_REPLY(0); for a READ RTR only once the
 * zero-length READ response arrived. A wrong answer or none: TERMINATE
 * (LLP, MPA, no matching RTR) and CONNECT_REPLY(-EPROTO/-ETIMEDOUT).
 */
static void rtr_initiator(struct kunit *test)
{
	const struct rtr_init_case *c = test->param_value;
	struct cmt *t = cmt_setup(test, 24030 + (c - rtr_init_cases));
	const struct cmt_rec *r;
	struct kiwi_cm_id *a;
	struct socket *s;
	const u8 *frame;
	int len;

	if (c->how == RTR_NONE)
		cmt_param(test, "rtr_timeout_ms", "500");
	s = rtr_raw_accepted(t, c->type, &a);
	rtr_raw_reply(test, s, c->type, 4);
	frame = rtr_frame(c->type, &len);
	rtr_expect_bytes(test, s, frame, len);
	if (c->type == RTR_READ) {
		msleep(100);
		KUNIT_EXPECT_EQ(test, cmt_count(t, KIWI_CM_EVENT_CONNECT_REPLY),
				0);
	}
	if (c->how == RTR_RIGHT) {
		if (c->type == RTR_READ)
			KUNIT_ASSERT_EQ(test,
					cmt_raw_send(s, rtr_read_resp_frame, 20),
					20);
		r = cmt_wait(t, KIWI_CM_EVENT_CONNECT_REPLY, a);
		KUNIT_ASSERT_NOT_NULL(test, r);
		KUNIT_EXPECT_EQ(test, r->status, 0);
		cmt_teardown(t);
		return;
	}
	if (c->how == RTR_WRONG)
		KUNIT_ASSERT_EQ(test, cmt_raw_send(s, rtr_write_frame, 20), 20);
	rtr_expect_term(test, s, rtr_term_rtr);
	r = cmt_wait(t, KIWI_CM_EVENT_CONNECT_REPLY, a);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->status,
			c->how == RTR_WRONG ? -EPROTO : -ETIMEDOUT);
	cmt_teardown(t);
}

/**
 * struct rtr_refuse_case - a Reply the softiw initiator refuses
 * @offer: mpa_rtr of the initiator
 * @chosen: the RTR type the Reply names
 * @ord: the Reply's ORD (the initiator's IRD is 4)
 * @status: the CONNECT_REPLY status
 * @term: the TERMINATE the responder reads
 * @name: description
 */
struct rtr_refuse_case {
	int offer;
	int chosen;
	u8 ord;
	int status;
	const u8 *term;
	const char *name;
};

static const struct rtr_refuse_case rtr_refuse_cases[] = {
	{ RTR_WRITE, RTR_WRITE, 5, -ENOSPC, rtr_term_ird, "insufficient IRD" },
	{ RTR_WRITE, RTR_READ, 4, -ENOPROTOOPT, rtr_term_rtr, "READ for WRITE" },
	{ RTR_READ | RTR_SEND, RTR_WRITE, 4, -ENOPROTOOPT, rtr_term_rtr,
	  "WRITE for READ|SEND" },
	{ RTR_SEND, 0, 4, -ENOPROTOOPT, rtr_term_rtr, "none for SEND" },
};

static void rtr_refuse_desc(const struct rtr_refuse_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(rtr_refuse, rtr_refuse_cases, rtr_refuse_desc);

/*
 * RFC 6581: the initiator refuses a Reply whose ORD exceeds its IRD or
 * that names no RTR type it offered with a TERMINATE, then a FIN.
 */
static void rtr_reply_refused(struct kunit *test)
{
	const struct rtr_refuse_case *c = test->param_value;
	struct cmt *t = cmt_setup(test, 24040 + (c - rtr_refuse_cases));
	const struct cmt_rec *r;
	struct kiwi_cm_id *a;
	struct socket *s;

	s = rtr_raw_accepted(t, c->offer, &a);
	rtr_raw_reply(test, s, c->chosen, c->ord);
	rtr_expect_term(test, s, c->term);
	r = cmt_wait(t, KIWI_CM_EVENT_CONNECT_REPLY, a);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->status, c->status);
	cmt_teardown(t);
}

/* ---- MPA revision 1: the initiator sends the first FPDU ---- */

/**
 * struct rtr_first_case - who may send first
 * @rev: the Request's revision (softiw answers with the same)
 * @held: softiw's first SEND waits for the initiator's first FPDU
 */
struct rtr_first_case {
	int rev;
	bool held;
};

static const struct rtr_first_case rtr_first_cases[] = {
	{ 1, true }, { 2, false },
};

static void rtr_first_desc(const struct rtr_first_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "rev %d", c->rev);
}

KUNIT_ARRAY_PARAM(rtr_first, rtr_first_cases, rtr_first_desc);

/*
 * RFC 5044: a revision 1 responder sends no FPDU before it
 * has received one. softiw's SEND posted right after ESTABLISHED waits
 * for the raw initiator's SEND in revision 1, not in revision 2.
 */
static void rtr_rev1_first_fpdu(struct kunit *test)
{
	const struct rtr_first_case *c = test->param_value;
	struct cmt *t = cmt_setup(test, 24050 + (c - rtr_first_cases));
	struct kiwi_conn_param cp = { .ird = 1, .ord = 1 };
	u8 req[24] = KEY_REQ, rep[24], f[28], *buf;
	const struct cmt_rec *r;
	struct ib_mr *mr;
	struct ib_qp *qp;
	struct socket *s;
	int n = c->rev == 1 ? 20 : 24;

	cmt_listen(t);
	s = cmt_raw_connect(test, t->port);
	req[17] = c->rev;
	if (c->rev == 2) {
		req[16] = 0x10;
		req[19] = 4;
		req[21] = 1;
		req[23] = 1;
	}
	KUNIT_ASSERT_EQ(test, cmt_raw_send(s, req, n), n);
	r = cmt_wait(t, KIWI_CM_EVENT_CONNECT_REQUEST, NULL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	buf = cmt_buf(t, 128);
	memcpy(buf + 64, "xyz", 3);
	mr = cmt_mr(t, buf, 128, IB_ACCESS_LOCAL_WRITE);
	cp.qpn = cmt_qp(t);
	qp = t->qps[t->nqps - 1];
	rtr_post_recv(test, qp, mr, 7, 0);
	KUNIT_ASSERT_EQ(test, kiwi_cm_accept(r->id, &cp), 0);
	KUNIT_ASSERT_NOT_NULL(test, cmt_wait(t, KIWI_CM_EVENT_ESTABLISHED,
					     r->id));
	KUNIT_ASSERT_EQ(test, rtr_recv_all(s, rep, n, 3000), n);
	rtr_post_send(test, qp, mr, 8, 64, 3);
	if (c->held) {
		rtr_expect_silence(test, s, 300);
		n = rtr_put_send(f, 1);
		KUNIT_ASSERT_EQ(test, cmt_raw_send(s, f, n), n);
		rtr_expect_wc(t, 7, 3);
	}
	/* softiw's SEND "xyz": MSN 1, pad 1, CRC field zero. */
	n = rtr_put_send(f, 1);
	memcpy(f + 20, "xyz", 3);
	rtr_expect_bytes(test, s, f, n);
	cmt_teardown(t);
}

static struct kunit_case rtr_cases[] = {
	KUNIT_CASE(rtr_param_defaults),
	KUNIT_CASE_PARAM(rtr_pair, rtr_pair_gen_params),
	KUNIT_CASE_PARAM(rtr_veth, rtr_type_gen_params),
	KUNIT_CASE_PARAM(rtr_responder, rtr_resp_gen_params),
	KUNIT_CASE(rtr_responder_bad_crc),
	KUNIT_CASE_PARAM(rtr_initiator, rtr_init_gen_params),
	KUNIT_CASE_PARAM(rtr_reply_refused, rtr_refuse_gen_params),
	KUNIT_CASE_PARAM(rtr_rev1_first_fpdu, rtr_first_gen_params),
	{}
};

static struct kunit_suite rtr_suite = {
	.suite_init = cmt_suite_init,
	.suite_exit = cmt_suite_exit,
	.name = "kiwi_softiw_rtr",
	.exit = rtr_exit,
	.test_cases = rtr_cases,
};

kunit_test_suite(rtr_suite);
