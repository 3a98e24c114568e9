// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_softiw_hostile: a plain kernel TCP client writes raw bytes to a
 * softiw listener: a bad key, a request in 1-byte segments, a reset in
 * the middle of a frame, oversize private data, silence, and more
 * connections than a listener keeps waiting. Each is dropped or served
 * cleanly, no CONNECT_REQUEST is made up, and the listener keeps working.
 * Then a client that completes MPA and writes FPDUs by hand: split into
 * 1-byte segments or several per segment (placed correctly), or with a
 * bad CRC, opcode, version or MSN (answered with the right TERMINATE),
 * or cut short by a FIN (a reset, not a graceful close), or a flood of
 * empty segments (which cannot keep the receiver busy forever).
 */
#include <asm/unaligned.h>
#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <net/sock.h>

#include "cm.h"
#include "cm_fixture.h"
#include "fpdu.h"
#include "hostile_peer.h"
#include "softiw.h"

static void hostile_exit(struct kunit *test)
{
	cmt_param(test, "mpa_timeout_ms", "10000");
	cmt_param(test, "max_pending", "32");
}

/* Expect softiw to close @sock, without a reply: end of stream or reset. */
static void hostile_expect_dropped(struct kunit *test, struct socket *sock)
{
	u8 buf[32];
	int ret = cmt_raw_recv(sock, buf, sizeof(buf), 3000);

	KUNIT_EXPECT_TRUE_MSG(test, ret == 0 || ret == -ECONNRESET,
			      "recv returned %d", ret);
	cmt_raw_close(sock, false);
}

/* After the abuse, a well-behaved client still gets through. */
static void hostile_listener_works(struct cmt *t)
{
	struct kiwi_cm_id *a = cmt_connect(t, "fine", t->port);
	const struct cmt_rec *r;

	r = cmt_wait(t, KIWI_CM_EVENT_CONNECT_REQUEST, NULL);
	KUNIT_ASSERT_NOT_NULL(t->test, r);
	CMT_EXPECT_MEM(t->test, r->pd, "fine", 4);
	KUNIT_EXPECT_EQ(t->test, kiwi_cm_reject(r->id, NULL, 0), 0);
	r = cmt_wait(t, KIWI_CM_EVENT_CONNECT_REPLY, a);
	KUNIT_ASSERT_NOT_NULL(t->test, r);
	KUNIT_EXPECT_EQ(t->test, r->status, -ECONNREFUSED);
	KUNIT_EXPECT_EQ(t->test, cmt_count(t, KIWI_CM_EVENT_CONNECT_REQUEST),
			1);
}

static void hostile_bad_key(struct kunit *test)
{
	struct cmt *t = cmt_setup(test, 22001);
	struct socket *s;

	cmt_listen(t);
	s = cmt_raw_connect(test, t->port);
	KUNIT_EXPECT_EQ(test, cmt_raw_send(s, "MPA ID Rep Frame\x00\x01\x00\x00",
					   20), 20);
	hostile_expect_dropped(test, s);
	hostile_listener_works(t);
	cmt_teardown(t);
}

static void hostile_oversize_pdata(struct kunit *test)
{
	struct cmt *t = cmt_setup(test, 22002);
	struct socket *s;

	cmt_listen(t);
	s = cmt_raw_connect(test, t->port);
	/* rev 1, PD_Length 513 */
	KUNIT_EXPECT_EQ(test, cmt_raw_send(s, KEY_REQ "\x00\x01\x02\x01", 20),
			20);
	hostile_expect_dropped(test, s);
	hostile_listener_works(t);
	cmt_teardown(t);
}

static void hostile_reset_mid_frame(struct kunit *test)
{
	struct cmt *t = cmt_setup(test, 22003);
	struct socket *s;

	cmt_listen(t);
	s = cmt_raw_connect(test, t->port);
	KUNIT_EXPECT_EQ(test, cmt_raw_send(s, KEY_REQ "\x00\x01", 18), 18);
	cmt_raw_close(s, true);
	s = cmt_raw_connect(test, t->port);
	KUNIT_EXPECT_EQ(test, cmt_raw_send(s, KEY_REQ "\x00\x01\x00\x04\x61\x62", 22),
			22);
	cmt_raw_close(s, true);
	hostile_listener_works(t);
	cmt_teardown(t);
}

/* A valid rev 1 request one byte per segment; the reject reply comes back. */
static void hostile_one_byte_segments(struct kunit *test)
{
	static const char req[] = KEY_REQ "\x00\x01\x00\x03\x61\x62\x63";
	struct cmt *t = cmt_setup(test, 22004);
	const struct cmt_rec *r;
	struct socket *s;
	u8 rep[24];
	int i, got = 0, ret;

	cmt_listen(t);
	s = cmt_raw_connect(test, t->port);
	for (i = 0; i < sizeof(req) - 1; i++) {
		KUNIT_EXPECT_EQ(test, cmt_raw_send(s, req + i, 1), 1);
		msleep(20);
	}
	r = cmt_wait(t, KIWI_CM_EVENT_CONNECT_REQUEST, NULL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->len, 3);
	CMT_EXPECT_MEM(test, r->pd, "abc", 3);
	KUNIT_EXPECT_EQ(test, kiwi_cm_reject(r->id, "nope", 4), 0);
	while (got < sizeof(rep)) {
		ret = cmt_raw_recv(s, rep + got, sizeof(rep) - got, 3000);
		if (ret <= 0)
			break;
		got += ret;
	}
	KUNIT_EXPECT_EQ(test, got, 24);
	CMT_EXPECT_MEM(test, rep, KEY_REP, 16);
	KUNIT_EXPECT_EQ(test, rep[16] & 0x20, 0x20);	/* Reject */
	CMT_EXPECT_MEM(test, rep + 20, "nope", 4);
	cmt_raw_close(s, false);
	cmt_teardown(t);
}

static void hostile_markers(struct kunit *test)
{
	struct cmt *t = cmt_setup(test, 22005);
	struct socket *s;
	u8 rep[20];
	int ret;

	cmt_listen(t);
	s = cmt_raw_connect(test, t->port);
	KUNIT_EXPECT_EQ(test, cmt_raw_send(s, KEY_REQ "\x80\x01\x00\x00", 20),
			20);
	ret = cmt_raw_recv(s, rep, sizeof(rep), 3000);
	KUNIT_EXPECT_EQ(test, ret, 20);
	if (ret == 20)
		KUNIT_EXPECT_EQ(test, rep[16] & 0xa0, 0x20); /* R, no M */
	hostile_expect_dropped(test, s);
	hostile_listener_works(t);
	cmt_teardown(t);
}

static void hostile_silent(struct kunit *test)
{
	struct cmt *t;
	struct socket *s;

	cmt_param(test, "mpa_timeout_ms", "300");
	t = cmt_setup(test, 22006);
	cmt_listen(t);
	s = cmt_raw_connect(test, t->port);
	hostile_expect_dropped(test, s);
	hostile_listener_works(t);
	cmt_teardown(t);
}

/* At most max_pending connections wait: the others are dropped. */
static void hostile_pending_bound(struct kunit *test)
{
	struct socket *s[4];
	struct cmt *t;
	u8 byte;
	int i, dropped = 0;

	cmt_param(test, "max_pending", "2");
	t = cmt_setup(test, 22007);
	cmt_listen(t);
	/*
	 * A client over the bound may be dropped after TCP accepted it, or
	 * refused while the listener's queue is full: both count as dropped.
	 */
	for (i = 0; i < ARRAY_SIZE(s); i++)
		s[i] = cmt_raw_try_connect(test, t->port);
	for (i = 0; i < ARRAY_SIZE(s); i++) {
		int ret = s[i] ? cmt_raw_recv(s[i], &byte, 1, 500) : 0;

		dropped += ret == 0 || ret == -ECONNRESET;
	}
	KUNIT_EXPECT_EQ(test, dropped, 2);
	for (i = 0; i < ARRAY_SIZE(s); i++)
		if (s[i])
			cmt_raw_close(s[i], false);
	msleep(100);
	hostile_listener_works(t);
	cmt_teardown(t);
}

/*
 * Silent peers fill the listener: a client that sends its request still
 * gets in, in place of the oldest silent peer, which is dropped; the
 * newer one waits on.
 */
static void hostile_pending_evicts_oldest(struct kunit *test)
{
	struct socket *s[2];
	struct cmt *t;
	u8 byte;
	int i, ret;

	cmt_param(test, "max_pending", "2");
	t = cmt_setup(test, 22009);
	cmt_listen(t);
	/* each connect returns once TCP accepted it: s[0] is the older */
	for (i = 0; i < ARRAY_SIZE(s); i++)
		s[i] = cmt_raw_connect(test, t->port);
	hostile_listener_works(t);
	ret = cmt_raw_recv(s[0], &byte, 1, 1000);
	KUNIT_EXPECT_TRUE_MSG(test, ret == 0 || ret == -ECONNRESET,
			      "the oldest silent peer: recv returned %d", ret);
	KUNIT_EXPECT_EQ(test, cmt_raw_recv(s[1], &byte, 1, 200), -EAGAIN);
	for (i = 0; i < ARRAY_SIZE(s); i++)
		cmt_raw_close(s[i], false);
	cmt_teardown(t);
}

/* Connections still waiting for a request when the listener goes away. */
static void hostile_destroy_with_pending(struct kunit *test)
{
	struct cmt *t = cmt_setup(test, 22008);
	struct socket *s[2];
	int i;

	cmt_listen(t);
	for (i = 0; i < ARRAY_SIZE(s); i++)
		s[i] = cmt_raw_connect(test, t->port);
	KUNIT_EXPECT_EQ(test, cmt_raw_send(s[1], KEY_REQ, 16), 16);
	msleep(100);
	cmt_teardown(t);
	for (i = 0; i < ARRAY_SIZE(s); i++)
		hostile_expect_dropped(test, s[i]);
}

/*
 * The client reads a TERMINATE with this cause, then the FIN; the QP is
 * in ERROR.
 */
static void hostile_expect_term(struct cmt *t, struct hostile_peer *p,
				u8 layer_etype, u8 ecode)
{
	struct kunit *test = t->test;
	const struct cmt_rec *r;
	struct ib_wc wc;
	u8 f[24], rest[64];
	int n;

	KUNIT_ASSERT_EQ(test, hostile_recv_all(p->s, f, sizeof(f)), 24);
	/* The rest of the TERMINATE, then a FIN, not a reset. */
	n = 2 + get_unaligned_be16(f);
	n = round_up(n, 4) + 4 - sizeof(f);
	KUNIT_ASSERT_LE(test, n, (int)sizeof(rest));
	KUNIT_EXPECT_EQ(test, hostile_recv_all(p->s, rest, n), n);
	KUNIT_EXPECT_EQ(test, cmt_raw_recv(p->s, rest, sizeof(rest), 3000), 0);
	/* No reset after the FIN either (it would set EPIPE here). */
	msleep(100);
	KUNIT_EXPECT_EQ(test, READ_ONCE(p->s->sk->sk_err), 0);
	KUNIT_EXPECT_EQ(test, f[2], 0x41);		/* L, DDP v1 */
	KUNIT_EXPECT_EQ(test, f[3], 0x47);		/* RDMAP v1, TERMINATE */
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(f + 8), 2U);	/* queue */
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(f + 12), 1U);	/* MSN */
	KUNIT_EXPECT_EQ(test, f[20], layer_etype);
	KUNIT_EXPECT_EQ(test, f[21], ecode);
	r = cmt_wait(t, KIWI_CM_EVENT_CLOSE, p->child);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->status, -EPROTO);
	KUNIT_EXPECT_EQ(test, kiwi_softiw_qp_state(p->qp), IB_QPS_ERR);
	/* The RECV is flushed, not completed with the bad data. */
	KUNIT_ASSERT_EQ(test, kiwi_poll_cq(t->cq, 1, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_WR_FLUSH_ERR);
	cmt_raw_close(p->s, false);
}

static void hostile_fpdu_bad(struct kunit *test, u16 port, bool crc,
			     const struct hostile_fpdu *f, bool break_crc,
			     u8 layer_etype, u8 ecode)
{
	struct cmt *t = cmt_setup(test, port);
	struct hostile_peer p;
	u8 buf[64];
	int n;

	hostile_peer_connect(t, &p, crc, 1);
	n = hostile_fpdu_put(buf, f, crc);
	if (break_crc)
		buf[n - 1] ^= 0x01;
	KUNIT_EXPECT_EQ(test, cmt_raw_send(p.s, buf, n), n);
	hostile_expect_term(t, &p, layer_etype, ecode);
	cmt_teardown(t);
}

static void hostile_fpdu_bad_crc(struct kunit *test)
{
	const struct hostile_fpdu f = { HOSTILE_SEND_LAST, 1, 0, "hello", 5 };

	/* LLP, MPA; CRC error */
	hostile_fpdu_bad(test, 22011, true, &f, true, 0x20, 0x02);
}

static void hostile_fpdu_bad_opcode(struct kunit *test)
{
	const struct hostile_fpdu f = { 0x4149, 1, 0, "hello", 5 };

	/* RDMAP, remote operation; unexpected opcode */
	hostile_fpdu_bad(test, 22012, false, &f, false, 0x02, 0x06);
}

static void hostile_fpdu_bad_version(struct kunit *test)
{
	const struct hostile_fpdu f = { 0x4243, 1, 0, "hello", 5 };

	/* DDP, untagged buffer; invalid DDP version */
	hostile_fpdu_bad(test, 22013, true, &f, false, 0x12, 0x06);
}

static void hostile_fpdu_bad_msn(struct kunit *test)
{
	const struct hostile_fpdu f = { HOSTILE_SEND_LAST, 2, 0, "hello", 5 };

	/* DDP, untagged buffer; MSN out of range */
	hostile_fpdu_bad(test, 22014, false, &f, false, 0x12, 0x03);
}

static void hostile_fpdu_bad_mo(struct kunit *test)
{
	const struct hostile_fpdu f = { HOSTILE_SEND_LAST, 1, 3, "hello", 5 };

	/* DDP, untagged buffer; invalid MO */
	hostile_fpdu_bad(test, 22015, true, &f, false, 0x12, 0x04);
}

/*
 * A message in two segments sent one byte per TCP segment, then two
 * whole messages in one: each lands in its RECV, whole and in order.
 */
static void hostile_fpdu_split(struct kunit *test)
{
	const struct hostile_fpdu f[] = {
		{ 0x0143, 1, 0, "split ", 6 },
		{ HOSTILE_SEND_LAST, 1, 6, "message", 7 },
		{ HOSTILE_SEND_LAST, 2, 0, "two", 3 },
		{ HOSTILE_SEND_LAST, 3, 0, "in one", 6 },
	};
	static const char *const want[] = { "split message", "two", "in one" };
	struct cmt *t = cmt_setup(test, 22016);
	struct hostile_peer p;
	struct ib_wc wc;
	u8 buf[160];
	int i, n = 0, m;

	hostile_peer_connect(t, &p, true, 3);
	n = hostile_fpdu_put(buf, &f[0], true);
	n += hostile_fpdu_put(buf + n, &f[1], true);
	for (i = 0; i < n; i++) {
		KUNIT_ASSERT_EQ(test, cmt_raw_send(p.s, buf + i, 1), 1);
		usleep_range(500, 1000);
	}
	m = hostile_fpdu_put(buf, &f[2], true);
	m += hostile_fpdu_put(buf + m, &f[3], true);
	KUNIT_ASSERT_EQ(test, cmt_raw_send(p.s, buf, m), m);
	for (i = 0; i < 3; i++) {
		n = 0;
		for (m = 0; m < 500 && !n; m++) {
			n = kiwi_poll_cq(t->cq, 1, &wc);
			if (!n)
				usleep_range(10000, 20000);
		}
		KUNIT_ASSERT_EQ(test, n, 1);
		KUNIT_EXPECT_EQ(test, wc.wr_id, (u64)i);
		KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
		KUNIT_EXPECT_EQ(test, wc.byte_len, strlen(want[i]));
		CMT_EXPECT_MEM(test, p.buf + i * 256, want[i], strlen(want[i]));
	}
	KUNIT_EXPECT_EQ(test, kiwi_softiw_qp_state(p.qp), IB_QPS_RTS);
	cmt_raw_close(p.s, false);
	cmt_teardown(t);
}

/*
 * A TERMINATE with MSN @msn: the peer ends the connection, but only one
 * with MSN 1 (queue 2 carries nothing else) is taken as a TERMINATE.
 */
static void hostile_terminate_msn(struct kunit *test, u16 port, u32 msn)
{
	const struct hostile_fpdu f = { 0x4147, msn, 0, "\x01\x02\x00\x00", 4,
					2 };
	struct cmt *t = cmt_setup(test, port);
	const struct cmt_rec *r;
	struct hostile_peer p;
	u32 ctrl = 0;
	u8 buf[64];
	int n;

	hostile_peer_connect(t, &p, false, 1);
	n = hostile_fpdu_put(buf, &f, false);
	KUNIT_EXPECT_EQ(test, cmt_raw_send(p.s, buf, n), n);
	r = cmt_wait(t, KIWI_CM_EVENT_CLOSE, p.child);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->status, -ECONNRESET);
	KUNIT_EXPECT_EQ(test, kiwi_softiw_qp_terminate(p.qp, &ctrl), msn == 1);
	if (msn == 1) {
		KUNIT_EXPECT_EQ(test, ctrl, 0x01020000U);
		/* the QP's owner hears the peer's TERMINATE as a fatal error */
		KUNIT_EXPECT_PTR_EQ(test,
				    cmt_wait_qp_event(t, IB_EVENT_QP_FATAL),
				    p.qp);
	}
	cmt_raw_close(p.s, false);
	cmt_teardown(t);
}

static void hostile_terminate(struct kunit *test)
{
	hostile_terminate_msn(test, 22093, 1);
}

static void hostile_terminate_bad_msn(struct kunit *test)
{
	hostile_terminate_msn(test, 22094, 2);
}

/*
 * A segment refused, and the TERMINATE it earns: @rdmap bytes of its
 * payload, the RDMAP header of a Read Request, are copied with R.
 */
static const struct hostile_term_case {
	struct hostile_fpdu f;
	u8 layer_etype;
	u8 ecode;
	u8 rdmap;
	const char *desc;
} hostile_term_cases[] = {
	{ { HOSTILE_SEND_LAST, 1, 0, "hello", 5, 1 }, 0x12, 0x01, 0,
	  "SEND on queue 1" },
	{ { 0x4141, 1, 0, "0123456789abcdef0123456789ab", 28, 1 }, 0x01, 0x00,
	  28, "Read Request, unknown STag" },
	{ { 0x4141, 2, 0, "0123456789abcdef0123456789ab", 28, 1 }, 0x12, 0x03,
	  0, "Read Request, MSN 2" },
};

static void hostile_term_case_desc(const struct hostile_term_case *c,
				   char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(hostile_term_case, hostile_term_cases,
		  hostile_term_case_desc);

/*
 * The TERMINATE we expect for a refused untagged segment @seg (no CRC):
 * queue 2, MSN 1, the cause, M and D, the segment's DDP length and header,
 * then, with R, @rdmap bytes of its RDMAP header (RFC 5040 section 4.8).
 * Return: its length.
 */
static int hostile_term_expected(u8 *buf, const u8 *seg, u8 layer_etype,
				 u8 ecode, u8 rdmap)
{
	u8 body[4 + 2 + 18 + 28] = { layer_etype, ecode, rdmap ? 0xe0 : 0xc0 };
	const struct hostile_fpdu term = { 0x4147, 1, 0, body,
					   4 + 2 + 18 + rdmap, 2 };

	put_unaligned_be16(get_unaligned_be16(seg) - 18, body + 4);
	memcpy(body + 6, seg + 2, 18 + rdmap);
	return hostile_fpdu_put(buf, &term, false);
}

/*
 * The TERMINATE copies the refused segment's DDP length and header (M, D)
 * even when the header failed its own checks; for a Read Request refused
 * for its source the Read Request header too, with R (as siw does);
 * checked byte for byte.
 */
static void hostile_term_copies_hdr(struct kunit *test)
{
	const struct hostile_term_case *c = test->param_value;
	struct cmt *t = cmt_setup(test, 22095);
	const struct cmt_rec *r;
	struct hostile_peer p;
	u8 buf[64], f[80], want[80];
	int n, len;

	hostile_peer_connect(t, &p, false, 1);
	n = hostile_fpdu_put(buf, &c->f, false);
	len = hostile_term_expected(want, buf, c->layer_etype, c->ecode,
				    c->rdmap);
	KUNIT_EXPECT_EQ(test, cmt_raw_send(p.s, buf, n), n);
	KUNIT_ASSERT_EQ(test, hostile_recv_fpdu(p.s, f, sizeof(f)), len);
	CMT_EXPECT_MEM(test, f, want, len);
	KUNIT_EXPECT_EQ(test, f[22], want[22]);			/* M D R */
	r = cmt_wait(t, KIWI_CM_EVENT_CLOSE, p.child);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->status, -EPROTO);
	cmt_raw_close(p.s, false);
	cmt_teardown(t);
}

#define HOSTILE_EMPTY_SEGS 4000

/*
 * Thousands of empty non-last segments of one SEND, in one write: they
 * cost the receiver its budget, so it yields now and then instead of
 * holding the endpoint for as long as the peer keeps sending; the message
 * still completes whole.
 */
static void hostile_empty_segments(struct kunit *test)
{
	const struct hostile_fpdu empty = { 0x0143, 1, 0, "", 0 };
	const struct hostile_fpdu last = { HOSTILE_SEND_LAST, 1, 0, "end", 3 };
	struct cmt *t = cmt_setup(test, 22092);
	struct hostile_peer p;
	struct ib_wc wc;
	int i, n = 0, len;
	u8 *buf;

	/* 24 bytes per empty segment, 28 for the last. */
	buf = kunit_kmalloc(test, HOSTILE_EMPTY_SEGS * 24 + 28, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (i = 0; i < HOSTILE_EMPTY_SEGS; i++)
		n += hostile_fpdu_put(buf + n, &empty, false);
	n += hostile_fpdu_put(buf + n, &last, false);
	KUNIT_ASSERT_EQ(test, n, HOSTILE_EMPTY_SEGS * 24 + 28);
	hostile_peer_connect(t, &p, false, 1);
	for (len = 0; len < n; len += i) {
		i = cmt_raw_send(p.s, buf + len, n - len);
		KUNIT_ASSERT_GT(test, i, 0);
	}
	for (i = 0, n = 0; i < 500 && !n; i++) {
		n = kiwi_poll_cq(t->cq, 1, &wc);
		if (!n)
			usleep_range(10000, 20000);
	}
	KUNIT_ASSERT_EQ(test, n, 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.byte_len, 3U);
	CMT_EXPECT_MEM(test, p.buf, "end", 3);
	KUNIT_EXPECT_GT(test, kiwi_softiw_qp_rx_busy(p.qp), 0ULL);
	KUNIT_EXPECT_EQ(test, kiwi_softiw_qp_state(p.qp), IB_QPS_RTS);
	cmt_raw_close(p.s, false);
	cmt_teardown(t);
}

/* Where the peer's FIN cuts a 32-byte FPDU (5 payload bytes, CRC). */
static const struct hostile_cut {
	int at;
	const char *desc;
} hostile_cuts[] = {
	{ 0, "before the FPDU: graceful" },
	{ 10, "in the header" },
	{ 22, "in the payload" },
	{ 26, "in the pad" },
	{ 30, "in the CRC" },
};

static void hostile_cut_desc(const struct hostile_cut *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(hostile_cut, hostile_cuts, hostile_cut_desc);

/*
 * A FIN between FPDUs is a graceful DISCONNECT; one inside an FPDU cuts
 * a message short: CLOSE(-ECONNRESET) at once and the RECV flushed.
 */
static void hostile_fin_mid_fpdu(struct kunit *test)
{
	const struct hostile_cut *c = test->param_value;
	const struct hostile_fpdu f = { HOSTILE_SEND_LAST, 1, 0, "hello", 5 };
	struct cmt *t = cmt_setup(test, 22091);
	const struct cmt_rec *r;
	struct hostile_peer p;
	struct ib_wc wc;
	u8 buf[64];

	hostile_peer_connect(t, &p, true, 1);
	KUNIT_ASSERT_EQ(test, hostile_fpdu_put(buf, &f, true), 32);
	if (c->at)
		KUNIT_ASSERT_EQ(test, cmt_raw_send(p.s, buf, c->at), c->at);
	KUNIT_ASSERT_EQ(test, kernel_sock_shutdown(p.s, SHUT_WR), 0);
	if (!c->at) {
		r = cmt_wait(t, KIWI_CM_EVENT_DISCONNECT, p.child);
		KUNIT_EXPECT_NOT_NULL(test, r);
		KUNIT_EXPECT_EQ(test, kiwi_softiw_qp_state(p.qp), IB_QPS_RTS);
		goto close;
	}
	r = cmt_wait(t, KIWI_CM_EVENT_CLOSE, p.child);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->status, -ECONNRESET);
	KUNIT_EXPECT_EQ(test, cmt_count(t, KIWI_CM_EVENT_DISCONNECT), 0);
	KUNIT_ASSERT_EQ(test, kiwi_poll_cq(t->cq, 1, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_WR_FLUSH_ERR);
close:
	cmt_raw_close(p.s, false);
	cmt_teardown(t);
}

/* ---- tagged traffic: RDMA WRITE and READ against a raw peer ---- */

#define HOSTILE_REGION		256	/* bytes registered, at offset 256 */
#define HOSTILE_GUARD		0x5a

/*
 * softiw's RDMA WRITE and Read Request on the wire, byte by byte (RFC
 * 5041, RFC 5040); ORD 1 holds the second READ back until the first one's
 * response is in; the response, in two segments, lands in the READ's
 * buffer only; a SEND after the second READ is transmitted, and then a
 * flush completes the READ in flight and the SEND once each, in order.
 */
static void hostile_rdma_wire(struct kunit *test)
{
	struct cmt *t = cmt_setup(test, 22101);
	struct hostile_peer p;
	struct ib_wc wc;
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	u8 f[160], data[100];
	int i, n;

	hostile_peer_connect(t, &p, false, 2);
	hostile_prime(t, &p);
	memset(p.buf + 512, HOSTILE_GUARD, 1024);
	for (i = 0; i < 100; i++)
		p.buf[2048 + i] = i * 3;
	KUNIT_ASSERT_EQ(test, hostile_post(p.qp, 1, IB_WR_RDMA_WRITE, p.mr,
					   2048, 100, 0x5000, 0xabcdef01), 0);
	n = hostile_recv_fpdu(p.s, f, sizeof(f));
	KUNIT_ASSERT_EQ(test, n, 2 + 14 + 100 + 4);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(f), 114U);
	KUNIT_EXPECT_EQ(test, f[2], 0xc1);			/* T, L, DDP v1 */
	KUNIT_EXPECT_EQ(test, f[3], 0x40);			/* RDMAP v1, WRITE */
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(f + 4), 0xabcdef01U);
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(f + 8), 0x5000ULL);
	CMT_EXPECT_MEM(test, f + 16, p.buf + 2048, 100);
	KUNIT_ASSERT_EQ(test, hostile_poll(t, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RDMA_WRITE);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);

	KUNIT_ASSERT_EQ(test, hostile_post(p.qp, 2, IB_WR_RDMA_READ, p.mr,
					   520, 100, 0x7000, 0x11223344), 0);
	KUNIT_ASSERT_EQ(test, hostile_post(p.qp, 3, IB_WR_RDMA_READ, p.mr,
					   1024, 8, 0x8000, 0x55667788), 0);
	n = hostile_recv_fpdu(p.s, f, sizeof(f));
	KUNIT_ASSERT_EQ(test, n, 2 + 18 + 28 + 4);
	KUNIT_EXPECT_EQ(test, f[2], 0x41);			/* L, DDP v1 */
	KUNIT_EXPECT_EQ(test, f[3], 0x41);			/* Read Request */
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(f + 8), 1U);	/* queue */
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(f + 12), 1U);	/* MSN */
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(f + 16), 0U);	/* MO */
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(f + 20), p.mr->lkey);
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(f + 24), p.mr->iova + 520);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(f + 32), 100U);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(f + 36), 0x11223344U);
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(f + 40), 0x7000ULL);
	/* ORD 1: the second READ waits for the first one's response. */
	KUNIT_EXPECT_EQ(test, cmt_raw_recv(p.s, f, sizeof(f), 300), -EAGAIN);

	for (i = 0; i < 100; i++)
		data[i] = 0xc0 ^ i;
	n = hostile_tagged_put(f, 0x8142, p.mr->lkey, p.mr->iova + 520,
			       data, 60);
	n += hostile_tagged_put(f + n, HOSTILE_RRESP_LAST, p.mr->lkey,
				p.mr->iova + 580, data + 60, 40);
	KUNIT_ASSERT_EQ(test, cmt_raw_send(p.s, f, n), n);
	KUNIT_ASSERT_EQ(test, hostile_poll(t, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 2ULL);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RDMA_READ);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.byte_len, 100U);
	CMT_EXPECT_MEM(test, p.buf + 520, data, 100);
	KUNIT_EXPECT_EQ(test, p.buf[519], HOSTILE_GUARD);
	KUNIT_EXPECT_EQ(test, p.buf[620], HOSTILE_GUARD);

	n = hostile_recv_fpdu(p.s, f, sizeof(f));
	KUNIT_ASSERT_EQ(test, n, 52);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(f + 12), 2U);	/* MSN */
	/* A SEND goes out behind the READ in flight... */
	KUNIT_ASSERT_EQ(test, hostile_post(p.qp, 4, IB_WR_SEND, p.mr, 0, 4,
					   0, 0), 0);
	n = hostile_recv_fpdu(p.s, f, sizeof(f));
	KUNIT_ASSERT_EQ(test, n, 2 + 18 + 4 + 4);
	KUNIT_EXPECT_EQ(test, f[3], 0x43);			/* SEND */
	/* ... but completes after it: both are flushed, once each. */
	KUNIT_EXPECT_EQ(test, kiwi_poll_cq(t->cq, 1, &wc), 0);
	KUNIT_ASSERT_EQ(test, kiwi_modify_qp(p.qp, &attr, IB_QP_STATE),
			0);
	KUNIT_ASSERT_EQ(test, kiwi_poll_cq(t->cq, 1, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 3ULL);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RDMA_READ);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_WR_FLUSH_ERR);
	KUNIT_ASSERT_EQ(test, kiwi_poll_cq(t->cq, 1, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 4ULL);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_SEND);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_WR_FLUSH_ERR);
	KUNIT_ASSERT_EQ(test, kiwi_poll_cq(t->cq, 1, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RECV);
	KUNIT_EXPECT_EQ(test, kiwi_poll_cq(t->cq, 1, &wc), 0);
	KUNIT_EXPECT_EQ(test, p.buf[1024], HOSTILE_GUARD);
	cmt_raw_close(p.s, false);
	cmt_teardown(t);
}

/*
 * A WRITE in two segments sent one byte per TCP segment, then a Read
 * Request: placed where the STag and TO say, the rest of the buffer
 * untouched, and the Read Response carries the MR's bytes.
 */
static void hostile_rdma_remote(struct kunit *test)
{
	struct cmt *t = cmt_setup(test, 22102);
	u8 *mem = cmt_buf(t, 1024);
	struct hostile_peer p;
	struct ib_mr *mr;
	u8 f[128];
	int i, n;

	memset(mem, HOSTILE_GUARD, 1024);
	mr = cmt_mr(t, mem + 256, HOSTILE_REGION, KIWI_ACCESS_ALL);
	hostile_peer_connect(t, &p, false, 1);
	n = hostile_tagged_put(f, 0x8140, mr->rkey, mr->iova + 10, "split ", 6);
	n += hostile_tagged_put(f + n, HOSTILE_WRITE_LAST, mr->rkey,
				mr->iova + 16, "write", 5);
	for (i = 0; i < n; i++) {
		KUNIT_ASSERT_EQ(test, cmt_raw_send(p.s, f + i, 1), 1);
		usleep_range(200, 500);
	}
	n = hostile_rreq_put(f, 1, 0x99, 0x1234, 11, mr->rkey, mr->iova + 10);
	KUNIT_ASSERT_EQ(test, cmt_raw_send(p.s, f, n), n);
	n = hostile_recv_fpdu(p.s, f, sizeof(f));
	KUNIT_ASSERT_EQ(test, n, 2 + 14 + 11 + 1 + 4);
	KUNIT_EXPECT_EQ(test, f[2], 0xc1);			/* T, L, DDP v1 */
	KUNIT_EXPECT_EQ(test, f[3], 0x42);			/* Read Response */
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(f + 4), 0x99U);
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(f + 8), 0x1234ULL);
	CMT_EXPECT_MEM(test, f + 16, "split write", 11);
	CMT_EXPECT_MEM(test, mem + 266, "split write", 11);
	for (i = 0; i < 1024; i++)
		if (i < 266 || i >= 277)
			KUNIT_EXPECT_EQ(test, mem[i], HOSTILE_GUARD);
	KUNIT_EXPECT_EQ(test, kiwi_softiw_qp_state(p.qp), IB_QPS_RTS);
	cmt_raw_close(p.s, false);
	cmt_teardown(t);
}

/*
 * IRD 1: three Read Requests in one TCP segment; the second one is beyond
 * IRD: TERMINATE (RDMAP, remote operation, catastrophic stream, as siw).
 */
static void hostile_rdma_ird(struct kunit *test)
{
	struct cmt *t = cmt_setup(test, 22103);
	struct hostile_peer p;
	struct ib_mr *mr;
	u8 f[192];
	int i, n = 0;

	hostile_peer_connect(t, &p, false, 1);
	mr = cmt_mr(t, p.buf + 2048, 1024, KIWI_ACCESS_ALL);
	for (i = 1; i <= 3; i++)
		n += hostile_rreq_put(f + n, i, 0x99, 0, 4, mr->rkey,
				      mr->iova);
	KUNIT_ASSERT_EQ(test, cmt_raw_send(p.s, f, n), n);
	hostile_expect_term(t, &p, 0x02, 0x07);
	cmt_teardown(t);
}

#define HOSTILE_SHARE_READS	8
#define HOSTILE_SHARE_LEN	SZ_1M

/*
 * Read FPDUs until the local SEND's; return how many Read Responses
 * ended before it, or -1 if the stream ended first.
 */
static int hostile_rresps_before_send(struct socket *s, u8 *f, int size,
				      int *ended)
{
	int n;

	for (;;) {
		n = hostile_recv_fpdu(s, f, size);
		if (n <= 0)
			return -1;
		if ((f[3] & 0x0f) == 0x03)		/* SEND */
			return *ended;
		if ((f[3] & 0x0f) == 0x02 && (f[2] & 0x40))	/* last */
			++*ended;
	}
}

/* Wait up to 3 s for data at @s, and leave it there. Return: 1 if some. */
static int hostile_peek(struct socket *s)
{
	struct msghdr msg = {};
	u8 byte;
	struct kvec vec = { .iov_base = &byte, .iov_len = 1 };

	s->sk->sk_rcvtimeo = msecs_to_jiffies(3000);
	return kernel_recvmsg(s, &msg, &vec, 1, 1, MSG_PEEK);
}

/*
 * The peer keeps the IRD full of 1 MiB READs and reads nothing until a
 * SEND is posted. Between messages the transmitter takes turns
 * (softiw_tx_frame()): the SEND goes out once the response being sent
 * ends, so of the responses not all on the socket when the SEND is
 * posted at most one goes before it. How many were all on the socket by
 * then depends on TCP's send buffer (megabytes over lo): the transmitter
 * is held still (the endpoint's mutex) while they are counted, from the
 * FPDUs the QP sent, and the SEND is posted. Then the rest come, whole.
 */
static void hostile_rresp_shares_link(struct kunit *test)
{
	struct cmt *t = cmt_setup(test, 22111);
	u8 *mem = cmt_buf(t, HOSTILE_SHARE_LEN);
	int rcvbuf = 64 * 1024, i, n, ret, ended = 0, done, before;
	struct hostile_peer p = {};
	struct softiw_cep *cep;
	struct ib_mr *mr;
	struct ib_wc wc;
	u32 per;
	u8 *f;

	f = kunit_kmalloc(test, 70 * 1024, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f);
	p.s = cmt_raw_socket(test);
	KUNIT_ASSERT_EQ(test, sock_setsockopt(p.s, SOL_SOCKET, SO_RCVBUF,
					      KERNEL_SOCKPTR(&rcvbuf),
					      sizeof(rcvbuf)), 0);
	hostile_peer_connect_ird(t, &p, false, 1, HOSTILE_SHARE_READS);
	mr = cmt_mr(t, mem, HOSTILE_SHARE_LEN, KIWI_ACCESS_ALL);
	/* FPDUs of one response: its MULPDU less the tagged DDP header */
	per = DIV_ROUND_UP(HOSTILE_SHARE_LEN, kiwi_softiw_qp_mulpdu(p.qp) -
			   (SOFTIW_TAGGED_HLEN - SOFTIW_MPA_LEN_SIZE));
	for (n = 0, i = 1; i <= HOSTILE_SHARE_READS; i++)
		n += hostile_rreq_put(f + n, i, 0x99, 0, HOSTILE_SHARE_LEN,
				      mr->rkey, mr->iova);
	KUNIT_ASSERT_EQ(test, cmt_raw_send(p.s, f, n), n);
	/* the first response is under way: its first bytes are here */
	KUNIT_ASSERT_EQ(test, hostile_peek(p.s), 1);
	cep = p.child->provider_data;
	mutex_lock(&cep->lock);
	done = div_u64(kiwi_softiw_qp_tx_fpdus(p.qp), per);
	ret = hostile_post(p.qp, 7, IB_WR_SEND, p.mr, 0, 4, 0, 0);
	mutex_unlock(&cep->lock);
	KUNIT_ASSERT_EQ(test, ret, 0);
	/* responses are left for the SEND to overtake */
	KUNIT_ASSERT_LT(test, done + 1, HOSTILE_SHARE_READS);
	before = hostile_rresps_before_send(p.s, f, 70 * 1024, &ended);
	kunit_info(test, "%d of %d Read Responses sent by the post, %d before the SEND\n",
		   done, HOSTILE_SHARE_READS, before);
	KUNIT_EXPECT_GE(test, before, done);
	KUNIT_EXPECT_LE(test, before, done + 1);
	KUNIT_ASSERT_EQ(test, hostile_poll(t, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 7ULL);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	/* every response still comes, whole */
	while (ended < HOSTILE_SHARE_READS &&
	       hostile_rresps_before_send(p.s, f, 70 * 1024, &ended) >= 0)
		;
	KUNIT_EXPECT_EQ(test, ended, HOSTILE_SHARE_READS);
	KUNIT_EXPECT_EQ(test, kiwi_softiw_qp_state(p.qp), IB_QPS_RTS);
	cmt_raw_close(p.s, false);
	cmt_teardown(t);
}

/*
 * The peer's FIN where the Read Response should come (@after: a READ
 * posted after the FIN): no response can follow it, so the connection
 * ends at once, CLOSE(-ECONNRESET), every work request flushed, the
 * READ queued beyond ORD 1 and the SEND behind it included.
 */
static void hostile_rdma_fin(struct kunit *test, u16 port, bool after)
{
	struct cmt *t = cmt_setup(test, port);
	const struct cmt_rec *r;
	struct hostile_peer p;
	struct ib_wc wc;
	int n, bad = 0;
	u8 f[64];

	hostile_peer_connect(t, &p, false, 2);
	hostile_prime(t, &p);
	if (after) {
		KUNIT_ASSERT_EQ(test, kernel_sock_shutdown(p.s, SHUT_WR), 0);
		KUNIT_ASSERT_NOT_NULL(test, cmt_wait(t,
						     KIWI_CM_EVENT_DISCONNECT,
						     p.child));
	}
	KUNIT_ASSERT_EQ(test, hostile_post(p.qp, 1, IB_WR_RDMA_READ, p.mr,
					   520, 100, 0x7000, 0x11223344), 0);
	KUNIT_ASSERT_EQ(test, hostile_post(p.qp, 2, IB_WR_RDMA_READ, p.mr,
					   1024, 8, 0x8000, 0x55667788), 0);
	KUNIT_ASSERT_EQ(test, hostile_post(p.qp, 3, IB_WR_SEND, p.mr, 0, 4,
					   0, 0), 0);
	if (!after) {
		n = hostile_recv_fpdu(p.s, f, sizeof(f));
		KUNIT_ASSERT_EQ(test, n, 2 + 18 + 28 + 4);
		KUNIT_EXPECT_EQ(test, f[3], 0x41);	/* Read Request */
		KUNIT_ASSERT_EQ(test, kernel_sock_shutdown(p.s, SHUT_WR), 0);
	}
	r = cmt_wait(t, KIWI_CM_EVENT_CLOSE, p.child);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->status, -ECONNRESET);
	KUNIT_EXPECT_EQ(test, kiwi_softiw_qp_state(p.qp), IB_QPS_ERR);
	for (n = 0; n < 8 && kiwi_poll_cq(t->cq, 1, &wc) == 1; n++)
		bad += wc.status != IB_WC_WR_FLUSH_ERR;
	KUNIT_EXPECT_EQ(test, n, 4);	/* 2 READs, the SEND, the RECV */
	KUNIT_EXPECT_EQ(test, bad, 0);
	cmt_raw_close(p.s, false);
	cmt_teardown(t);
}

static void hostile_rdma_fin_for_read(struct kunit *test)
{
	hostile_rdma_fin(test, 22106, false);
}

static void hostile_rdma_read_after_fin(struct kunit *test)
{
	hostile_rdma_fin(test, 22107, true);
}

/**
 * struct hostile_rresp_seg - one Read Response segment a case sends
 * @ctrl: its control bytes: HOSTILE_RRESP_LAST, or 0x8142 without L
 * @stag_xor: flips bits of the READ's sink STag
 * @off: its TO, from the READ's sink TO
 * @len: payload bytes
 */
struct hostile_rresp_seg {
	u16 ctrl;
	u32 stag_xor;
	u32 off;
	u16 len;
};

/**
 * struct hostile_rresp_case - a Read Response that breaks a rule
 * @idle: no READ is posted
 * @seg: the segments sent, in order; @seg[1].ctrl 0 if only one
 * @layer_etype: the TERMINATE's first byte
 * @ecode: its error code
 * @desc: what is wrong
 */
struct hostile_rresp_case {
	bool idle;
	struct hostile_rresp_seg seg[2];
	u8 layer_etype;
	u8 ecode;
	const char *desc;
};

#define HOSTILE_RRESP_MORE	0x8142	/* T, no L, Read Response */
#define HOSTILE_READ_LEN	100

static const struct hostile_rresp_case hostile_rresp_cases[] = {
	{ false, { { HOSTILE_RRESP_LAST, 0, 0, 108 } }, 0x11, 0x01,
	  "longer than the READ" },
	{ false, { { HOSTILE_RRESP_LAST, 0x80, 0, 100 } }, 0x11, 0x00,
	  "another sink STag" },
	{ false, { { HOSTILE_RRESP_LAST, 0, 4, 96 } }, 0x11, 0x01,
	  "another TO" },
	{ false, { { HOSTILE_RRESP_LAST, 0, 0, 60 } }, 0x11, 0x01,
	  "L early" },
	{ false, { { HOSTILE_RRESP_MORE, 0, 0, 100 },
		   { HOSTILE_RRESP_LAST, 0, 100, 8 } }, 0x11, 0x01,
	  "L late, bytes beyond" },
	{ false, { { HOSTILE_RRESP_MORE, 0, 0, 60 },
		   { HOSTILE_RRESP_LAST, 0, 64, 36 } }, 0x11, 0x01,
	  "second segment, TO gap" },
	{ true, { { HOSTILE_RRESP_LAST, 0, 0, 8 } }, 0x10, 0x00,
	  "idle QP" },
};

static void hostile_rresp_case_desc(const struct hostile_rresp_case *c,
				    char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(hostile_rresp_case, hostile_rresp_cases,
		  hostile_rresp_case_desc);

/*
 * A Read Response that does not match the READ waiting for it (or comes
 * with none waiting) ends the connection with the TERMINATE of
 * Documentation/softiw.rst; the READ is flushed and no byte outside its
 * buffer is written.
 */
static void hostile_rresp_bad(struct kunit *test)
{
	const struct hostile_rresp_case *c = test->param_value;
	struct cmt *t = cmt_setup(test, 22108);
	const struct hostile_rresp_seg *g;
	struct hostile_peer p;
	u8 f[320], data[128];
	int i, n = 0;

	hostile_peer_connect(t, &p, false, 2);
	hostile_prime(t, &p);
	memset(p.buf + 512, HOSTILE_GUARD, 1024);
	if (!c->idle) {
		KUNIT_ASSERT_EQ(test, hostile_post(p.qp, 1, IB_WR_RDMA_READ,
						   p.mr, 520, HOSTILE_READ_LEN,
						   0x7000, 0x11223344), 0);
		KUNIT_ASSERT_EQ(test, hostile_recv_fpdu(p.s, f, sizeof(f)), 52);
		KUNIT_EXPECT_EQ(test, f[3], 0x41);	/* Read Request */
	}
	for (i = 0; i < sizeof(data); i++)
		data[i] = 0xa0 ^ i;
	for (g = c->seg; g < c->seg + ARRAY_SIZE(c->seg) && g->ctrl; g++)
		n += hostile_tagged_put(f + n, g->ctrl, p.mr->lkey ^ g->stag_xor,
					p.mr->iova + 520 + g->off, data,
					g->len);
	KUNIT_ASSERT_EQ(test, cmt_raw_send(p.s, f, n), n);
	hostile_expect_term(t, &p, c->layer_etype, c->ecode);
	for (i = 512; i < 1536; i++)
		if ((i < 520 || i >= 520 + HOSTILE_READ_LEN) &&
		    p.buf[i] != HOSTILE_GUARD)
			break;
	KUNIT_EXPECT_EQ(test, i, 1536);
	cmt_teardown(t);
}

/**
 * struct hostile_big - a large vmalloc()ed MR, released before the QPs
 * @mem: the memory, NULL once freed
 * @mr: its MR, NULL once deregistered
 */
struct hostile_big {
	void *mem;
	struct ib_mr *mr;
};

static void hostile_big_release(struct kunit_resource *res)
{
	struct hostile_big *b = res->data;

	if (b->mr)
		kiwi_dereg_mr(b->mr);
	vfree(b->mem);
	kfree(b);
}

/* More than TCP buffers on both ends hold while the peer does not read. */
#define HOSTILE_BIG	(8 << 20)

/* Read and drop @n bytes. Return: 0, or the error. */
static int hostile_skip(struct socket *s, u8 *scratch, int size, int n)
{
	int ret;

	while (n > 0) {
		ret = cmt_raw_recv(s, scratch, min(n, size), 3000);
		if (ret <= 0)
			return ret ? ret : -ENOTCONN;
		n -= ret;
	}
	return 0;
}

/*
 * The source MR is deregistered while its Read Response is half sent
 * (the peer stopped reading): the rest is not read from the freed memory
 * (KASAN would see it) but refused with a TERMINATE (RDMAP, remote
 * protection, invalid STag) naming the Read Request, header and body,
 * with M, D and R, as siw does; CLOSE(-EPROTO), QP in ERROR.
 */
static void hostile_rdma_dereg_mid_response(struct kunit *test)
{
	struct cmt *t = cmt_setup(test, 22109);
	struct hostile_big *b = kzalloc(sizeof(*b), GFP_KERNEL);
	u8 rreq[64], want[96], f[96], *scratch;
	const struct cmt_rec *r;
	struct hostile_peer p;
	int n, len, segs = 0;

	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test, NULL,
							 hostile_big_release,
							 GFP_KERNEL, b));
	scratch = kunit_kmalloc(test, 4096, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, scratch);
	b->mem = vzalloc(HOSTILE_BIG);
	KUNIT_ASSERT_NOT_NULL(test, b->mem);
	b->mr = kiwi_reg_kernel_mr(t->pd, b->mem, HOSTILE_BIG,
				   KIWI_ACCESS_ALL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(b->mr));
	hostile_peer_connect(t, &p, false, 1);
	n = hostile_rreq_put(rreq, 1, 0x99, 0x4000, HOSTILE_BIG, b->mr->rkey,
			     b->mr->iova);
	KUNIT_ASSERT_EQ(test, cmt_raw_send(p.s, rreq, n), n);
	msleep(300);
	kiwi_dereg_mr(b->mr);
	b->mr = NULL;
	vfree(b->mem);
	b->mem = NULL;
	/* Read Response segments, then the TERMINATE. */
	for (;;) {
		KUNIT_ASSERT_EQ(test, hostile_recv_all(p.s, f, 4), 4);
		if (f[3] != 0x42)
			break;
		KUNIT_ASSERT_EQ(test, f[2] & 0x80, 0x80);	/* tagged */
		KUNIT_ASSERT_EQ(test, f[2] & 0x40, 0);		/* never L */
		n = round_up(2 + get_unaligned_be16(f), 4) + 4 - 4;
		KUNIT_ASSERT_EQ(test, hostile_skip(p.s, scratch, 4096, n), 0);
		segs++;
	}
	KUNIT_EXPECT_GT(test, segs, 0);
	len = hostile_term_expected(want, rreq, 0x01, 0x00, 28);
	KUNIT_ASSERT_EQ(test, hostile_recv_all(p.s, f + 4, len - 4), len - 4);
	CMT_EXPECT_MEM(test, f, want, len);
	r = cmt_wait(t, KIWI_CM_EVENT_CLOSE, p.child);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->status, -EPROTO);
	KUNIT_EXPECT_EQ(test, kiwi_softiw_qp_state(p.qp), IB_QPS_ERR);
	cmt_raw_close(p.s, false);
	cmt_teardown(t);
}

/*
 * The requester's side: a TERMINATE where the Read Response should be
 * (the responder refused the request) completes the READ with an error,
 * and everything posted after it; CLOSE(-ECONNRESET).
 */
static void hostile_rdma_read_refused(struct kunit *test)
{
	struct cmt *t = cmt_setup(test, 22110);
	const struct cmt_rec *r;
	struct hostile_peer p;
	struct ib_wc wc;
	u8 f[96], want[96];
	int n, bad = 0;

	hostile_peer_connect(t, &p, false, 2);
	hostile_prime(t, &p);
	KUNIT_ASSERT_EQ(test, hostile_post(p.qp, 1, IB_WR_RDMA_READ, p.mr,
					   520, 100, 0x7000, 0x11223344), 0);
	KUNIT_ASSERT_EQ(test, hostile_post(p.qp, 2, IB_WR_SEND, p.mr, 0, 4,
					   0, 0), 0);
	KUNIT_ASSERT_EQ(test, hostile_recv_fpdu(p.s, f, sizeof(f)), 52);
	KUNIT_EXPECT_EQ(test, f[3], 0x41);		/* Read Request */
	n = hostile_term_expected(want, f, 0x01, 0x00, 28);
	KUNIT_ASSERT_EQ(test, cmt_raw_send(p.s, want, n), n);
	r = cmt_wait(t, KIWI_CM_EVENT_CLOSE, p.child);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->status, -ECONNRESET);
	KUNIT_ASSERT_EQ(test, kiwi_poll_cq(t->cq, 1, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 1ULL);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RDMA_READ);
	KUNIT_EXPECT_NE(test, wc.status, IB_WC_SUCCESS);
	for (n = 0; n < 8 && kiwi_poll_cq(t->cq, 1, &wc) == 1; n++)
		bad += wc.status == IB_WC_SUCCESS;
	KUNIT_EXPECT_EQ(test, n, 2);	/* the SEND, the RECV */
	KUNIT_EXPECT_EQ(test, bad, 0);
	cmt_raw_close(p.s, false);
	cmt_teardown(t);
}

/**
 * struct hostile_access_case - a remote access that must be refused
 * @rreq: a Read Request (else an RDMA WRITE)
 * @access: rights of the MR named
 * @stag: how the STag is named, see HOSTILE_STAG_*
 * @to: tagged offset from the MR's iova
 * @abs: @to is absolute
 * @len: bytes accessed
 * @layer_etype: the TERMINATE's first byte
 * @ecode: its error code
 * @desc: what is wrong
 * @qp_access: rights of the QP: 0 for those of rdma_create_qp(),
 *	CMT_QP_AS_CREATED for those of kiwi_create_qp(), else these
 * @key_xor: HOSTILE_STAG_NEXT and _PREV: XORed into the MR's key
 */
struct hostile_access_case {
	bool rreq;
	u32 access;
	int stag;
	s64 to;
	bool abs;
	u16 len;
	u8 layer_etype;
	u8 ecode;
	const char *desc;
	u32 qp_access;
	u8 key_xor;
};

enum {
	HOSTILE_STAG_OK,
	HOSTILE_STAG_UNKNOWN,
	HOSTILE_STAG_STALE,
	HOSTILE_STAG_DEREG,
	HOSTILE_STAG_OTHER_DEV,
	HOSTILE_STAG_OTHER_PD,
	HOSTILE_STAG_LOCAL_DMA,
	HOSTILE_STAG_RRESP,	/* a Read Response nobody asked for */
	HOSTILE_STAG_INVALIDATED,	/* by a LOCAL_INV of the QP */
	HOSTILE_STAG_NEXT,	/* the index after the MR's, a guessed key */
	HOSTILE_STAG_PREV,	/* the index before the MR's, a guessed key */
};

#define HOSTILE_RW	KIWI_ACCESS_ALL

static const struct hostile_access_case hostile_access_cases[] = {
	{ false, HOSTILE_RW, HOSTILE_STAG_UNKNOWN, 0, false, 8, 0x11, 0x00,
	  "WRITE, unknown STag" },
	{ false, HOSTILE_RW, HOSTILE_STAG_STALE, 0, false, 8, 0x11, 0x00,
	  "WRITE, stale key" },
	{ false, HOSTILE_RW, HOSTILE_STAG_OK, -4, false, 8, 0x11, 0x01,
	  "WRITE, below the MR" },
	{ false, HOSTILE_RW, HOSTILE_STAG_OK, 252, false, 8, 0x11, 0x01,
	  "WRITE, beyond the MR" },
	{ false, HOSTILE_RW, HOSTILE_STAG_OK, -4, true, 8, 0x11, 0x03,
	  "WRITE, TO wraps around" },
	{ false, IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ,
	  HOSTILE_STAG_OK, 0, false, 8, 0x11, 0x00, "WRITE, no remote write" },
	{ false, HOSTILE_RW, HOSTILE_STAG_DEREG, 0, false, 8, 0x11, 0x00,
	  "WRITE, deregistered MR" },
	{ false, HOSTILE_RW, HOSTILE_STAG_OTHER_DEV, 0, false, 8, 0x11, 0x00,
	  "WRITE, other device's MR" },
	{ false, HOSTILE_RW, HOSTILE_STAG_OTHER_PD, 0, false, 8, 0x11, 0x02,
	  "WRITE, other PD's MR" },
	{ false, HOSTILE_RW, HOSTILE_STAG_LOCAL_DMA, 0, false, 8, 0x11, 0x00,
	  "WRITE, the local_dma_lkey" },
	{ false, HOSTILE_RW, HOSTILE_STAG_RRESP, 0, false, 8, 0x10, 0x00,
	  "Read Response, no READ" },
	{ false, HOSTILE_RW, HOSTILE_STAG_INVALIDATED, 0, false, 8, 0x11, 0x00,
	  "WRITE, invalidated MR" },
	{ true, HOSTILE_RW, HOSTILE_STAG_INVALIDATED, 0, false, 8, 0x01, 0x00,
	  "READ, invalidated MR" },
	{ true, HOSTILE_RW, HOSTILE_STAG_UNKNOWN, 0, false, 8, 0x01, 0x00,
	  "READ, unknown STag" },
	{ true, HOSTILE_RW, HOSTILE_STAG_STALE, 0, false, 8, 0x01, 0x00,
	  "READ, stale key" },
	{ true, HOSTILE_RW, HOSTILE_STAG_OK, -1, false, 8, 0x01, 0x01,
	  "READ, below the MR" },
	{ true, HOSTILE_RW, HOSTILE_STAG_OK, 200, false, 57, 0x01, 0x01,
	  "READ, beyond the MR" },
	{ true, HOSTILE_RW, HOSTILE_STAG_OK, -4, true, 8, 0x01, 0x04,
	  "READ, TO wraps around" },
	{ true, IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE,
	  HOSTILE_STAG_OK, 0, false, 8, 0x01, 0x02, "READ, no remote read" },
	{ true, HOSTILE_RW, HOSTILE_STAG_DEREG, 0, false, 8, 0x01, 0x00,
	  "READ, deregistered MR" },
	{ true, HOSTILE_RW, HOSTILE_STAG_OTHER_DEV, 0, false, 8, 0x01, 0x00,
	  "READ, other device's MR" },
	{ true, HOSTILE_RW, HOSTILE_STAG_OTHER_PD, 0, false, 8, 0x01, 0x03,
	  "READ, other PD's MR" },
	/* The QP's rights, checked before the STag: RDMAP access rights. */
	{ false, HOSTILE_RW, HOSTILE_STAG_OK, 0, false, 8, 0x01, 0x02,
	  "WRITE, QP without remote write", IB_ACCESS_REMOTE_READ },
	{ true, HOSTILE_RW, HOSTILE_STAG_OK, 0, false, 8, 0x01, 0x02,
	  "READ, QP without remote read", IB_ACCESS_REMOTE_WRITE },
	{ false, HOSTILE_RW, HOSTILE_STAG_OK, 0, false, 8, 0x01, 0x02,
	  "WRITE, verbs QP (no rights)", CMT_QP_AS_CREATED },
	{ true, HOSTILE_RW, HOSTILE_STAG_OK, 0, false, 8, 0x01, 0x02,
	  "READ, verbs QP (no rights)", CMT_QP_AS_CREATED },
	{ false, HOSTILE_RW, HOSTILE_STAG_UNKNOWN, 0, false, 8, 0x01, 0x02,
	  "WRITE, QP without rights, bad STag", IB_ACCESS_LOCAL_WRITE },
	/*
	 * Neighbouring STags a peer guesses: the index after or before the
	 * MR's, each an MR of the QP's PD granting remote access, with the
	 * MR's key or another one, never the neighbour's own.
	 */
	{ false, HOSTILE_RW, HOSTILE_STAG_NEXT, 0, false, 8, 0x11, 0x00,
	  "WRITE, next index, same key", 0, 0x00 },
	{ false, HOSTILE_RW, HOSTILE_STAG_PREV, 0, false, 8, 0x11, 0x00,
	  "WRITE, previous index, same key", 0, 0x00 },
	{ false, HOSTILE_RW, HOSTILE_STAG_NEXT, 0, false, 8, 0x11, 0x00,
	  "WRITE, next index, key ^ 0x01", 0, 0x01 },
	{ false, HOSTILE_RW, HOSTILE_STAG_PREV, 0, false, 8, 0x11, 0x00,
	  "WRITE, previous index, key ^ 0x01", 0, 0x01 },
	{ false, HOSTILE_RW, HOSTILE_STAG_NEXT, 0, false, 8, 0x11, 0x00,
	  "WRITE, next index, key ^ 0x80", 0, 0x80 },
	{ false, HOSTILE_RW, HOSTILE_STAG_PREV, 0, false, 8, 0x11, 0x00,
	  "WRITE, previous index, key ^ 0xff", 0, 0xff },
	{ true, HOSTILE_RW, HOSTILE_STAG_NEXT, 0, false, 8, 0x01, 0x00,
	  "READ, next index, same key", 0, 0x00 },
	{ true, HOSTILE_RW, HOSTILE_STAG_PREV, 0, false, 8, 0x01, 0x00,
	  "READ, previous index, same key", 0, 0x00 },
};

static void hostile_access_case_desc(const struct hostile_access_case *c,
				     char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(hostile_access_case, hostile_access_cases,
		  hostile_access_case_desc);

static void hostile_detach(struct kunit_resource *res)
{
	kiwi_softiw_detach(res->data);
}

static void hostile_dereg(struct kunit_resource *res)
{
	kiwi_dereg_mr(res->data);
}

static void hostile_put_dev(struct kunit_resource *res)
{
	kiwi_device_put(res->data);
}

static void hostile_dealloc_pd(struct kunit_resource *res)
{
	kiwi_dealloc_pd(res->data);
}

/* An MR of a PD of its own on @dev, both released after the QPs. */
static struct ib_mr *hostile_own_pd_mr(struct kunit *test,
				       struct ib_device *dev, void *buf,
				       u32 access)
{
	struct ib_pd *pd = kiwi_alloc_pd(dev, 0);
	struct ib_mr *mr;

	KUNIT_ASSERT_FALSE(test, IS_ERR(pd));
	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test, NULL,
							 hostile_dealloc_pd,
							 GFP_KERNEL, pd));
	mr = kiwi_reg_kernel_mr(pd, buf, HOSTILE_REGION, access);
	KUNIT_ASSERT_FALSE(test, IS_ERR(mr));
	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test, NULL,
							 hostile_dereg,
							 GFP_KERNEL, mr));
	return mr;
}

/* An MR of softiw_kv0, attached for the test, released after the QPs. */
static struct ib_mr *hostile_other_mr(struct kunit *test, void *buf,
				      u32 access)
{
	struct ib_device *kv0;

	KUNIT_ASSERT_EQ(test, kiwi_softiw_attach("kv0"), 0);
	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test, NULL,
							 hostile_detach,
							 GFP_KERNEL, "kv0"));
	kv0 = kiwi_device_get_by_name("softiw_kv0");
	KUNIT_ASSERT_NOT_NULL(test, kv0);
	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test, NULL,
							 hostile_put_dev,
							 GFP_KERNEL, kv0));
	return hostile_own_pd_mr(test, kv0, buf, access);
}

static bool hostile_dereg_match(struct kunit *test,
				struct kunit_resource *res, void *mr)
{
	return res->free == hostile_dereg && res->data == mr;
}

/* An MR of the fixture's PD over @buf, deregistered after the case. */
static struct ib_mr *hostile_neighbour_mr(struct kunit *test, struct cmt *t,
					  void *buf, u32 access)
{
	struct ib_mr *mr = kiwi_reg_kernel_mr(t->pd, buf, HOSTILE_REGION,
					      access);

	KUNIT_ASSERT_FALSE(test, IS_ERR(mr));
	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test, NULL,
							 hostile_dereg,
							 GFP_KERNEL, mr));
	return mr;
}

/*
 * A guess must name no MR: if @stag is @mr's, register @mr again, at
 * the same index under another key (an index never gets its last key).
 */
static void hostile_neighbour_not(struct kunit *test, struct cmt *t,
				  struct ib_mr *mr, void *buf, u32 access,
				  u32 stag)
{
	if (mr->rkey == stag) {
		kunit_destroy_resource(test, hostile_dereg_match, mr);
		mr = hostile_neighbour_mr(test, t, buf, access);
	}
	KUNIT_EXPECT_NE(test, mr->rkey, stag);
}

/*
 * The STag of the index after or before that of an MR over @buf, with
 * a guessed key: the neighbours, MRs over the bytes before and after
 * @buf registered just before and after it, take those indices.
 */
static u32 hostile_neighbour_stag(struct kunit *test, struct cmt *t,
				  const struct hostile_access_case *c, u8 *buf,
				  u64 *iova)
{
	struct ib_mr *prev, *mr, *next;
	u32 index, stag;

	prev = hostile_neighbour_mr(test, t, buf - HOSTILE_REGION, c->access);
	mr = cmt_mr(t, buf, HOSTILE_REGION, c->access);
	next = hostile_neighbour_mr(test, t, buf + HOSTILE_REGION, c->access);
	*iova = mr->iova;
	index = mr->rkey >> SOFTIW_STAG_INDEX_SHIFT;
	index = c->stag == HOSTILE_STAG_NEXT ? index + 1 : index - 1;
	stag = index << SOFTIW_STAG_INDEX_SHIFT |
	       ((mr->rkey ^ c->key_xor) & SOFTIW_STAG_KEY);
	hostile_neighbour_not(test, t, prev, buf - HOSTILE_REGION, c->access,
			      stag);
	hostile_neighbour_not(test, t, next, buf + HOSTILE_REGION, c->access,
			      stag);
	return stag;
}

/* The STag a case names, for an MR of this device over @buf. */
static u32 hostile_case_stag(struct kunit *test, struct cmt *t,
			     const struct hostile_access_case *c, u8 *buf,
			     u64 *iova)
{
	struct ib_mr *mr;
	u32 stag;

	if (c->stag == HOSTILE_STAG_OTHER_DEV) {
		mr = hostile_other_mr(test, buf, c->access);
		*iova = mr->iova;
		return mr->rkey;
	}
	if (c->stag == HOSTILE_STAG_LOCAL_DMA) {
		mr = cmt_mr(t, buf, HOSTILE_REGION, c->access);
		*iova = mr->iova;
		return t->pd->local_dma_lkey;
	}
	if (c->stag == HOSTILE_STAG_OTHER_PD) {
		mr = hostile_own_pd_mr(test, t->dev, buf, c->access);
		*iova = mr->iova;
		return mr->rkey;
	}
	if (c->stag == HOSTILE_STAG_DEREG) {
		mr = kiwi_reg_kernel_mr(t->pd, buf, HOSTILE_REGION, c->access);
		KUNIT_ASSERT_FALSE(test, IS_ERR(mr));
		*iova = mr->iova;
		stag = mr->rkey;
		kiwi_dereg_mr(mr);
		return stag;
	}
	if (c->stag == HOSTILE_STAG_NEXT || c->stag == HOSTILE_STAG_PREV)
		return hostile_neighbour_stag(test, t, c, buf, iova);
	mr = cmt_mr(t, buf, HOSTILE_REGION, c->access);
	*iova = mr->iova;
	if (c->stag == HOSTILE_STAG_UNKNOWN)
		return 0xfffff000 | (mr->rkey & 0xff);
	if (c->stag == HOSTILE_STAG_STALE)
		return mr->rkey ^ 0x80;
	return mr->rkey;
}

/* Invalidate @stag with a LOCAL_INV on the peer's QP (primed first). */
static void hostile_local_inv(struct cmt *t, struct hostile_peer *p, u32 stag)
{
	struct ib_send_wr wr = {
		.wr_id = 77, .opcode = IB_WR_LOCAL_INV,
		.send_flags = IB_SEND_SIGNALED, .ex.invalidate_rkey = stag,
	};
	const struct ib_send_wr *bad;
	struct ib_wc wc;

	hostile_post_recv(t, p, 78, 512, 256);
	hostile_prime(t, p);
	KUNIT_ASSERT_EQ(t->test, kiwi_post_send(p->qp, &wr, &bad), 0);
	KUNIT_ASSERT_EQ(t->test, hostile_poll(t, &wc), 1);
	KUNIT_EXPECT_EQ(t->test, wc.wr_id, 77ULL);
	KUNIT_EXPECT_EQ(t->test, wc.opcode, IB_WC_LOCAL_INV);
	KUNIT_EXPECT_EQ(t->test, wc.status, IB_WC_SUCCESS);
}

/*
 * Each remote access that breaks a rule ends the connection with the
 * TERMINATE of Documentation/softiw.rst; the QP is in ERROR, and no byte
 * of the memory around and inside the region was written.
 */
static void hostile_access(struct kunit *test)
{
	const struct hostile_access_case *c = test->param_value;
	struct cmt *t = cmt_setup(test, 22104);
	u8 *mem = cmt_buf(t, 1024);
	struct hostile_peer p;
	u8 f[96];
	u64 iova, to;
	u32 stag;
	int i, n;

	memset(mem, HOSTILE_GUARD, 1024);
	stag = hostile_case_stag(test, t, c, mem + 256, &iova);
	to = c->abs ? (u64)c->to : iova + c->to;
	if (c->qp_access)
		t->qp_access = c->qp_access;
	hostile_peer_connect(t, &p, false, 1);
	if (c->stag == HOSTILE_STAG_INVALIDATED)
		hostile_local_inv(t, &p, stag);
	if (c->rreq)
		n = hostile_rreq_put(f, 1, 0x99, 0, c->len, stag, to);
	else
		n = hostile_tagged_put(f, c->stag == HOSTILE_STAG_RRESP ?
				       HOSTILE_RRESP_LAST : HOSTILE_WRITE_LAST,
				       stag, to, "12345678", c->len);
	KUNIT_ASSERT_EQ(test, cmt_raw_send(p.s, f, n), n);
	hostile_expect_term(t, &p, c->layer_etype, c->ecode);
	/*
	 * Its owner hears the QP end: an access error for a protection
	 * rule (tagged DDP, RDMAP protection), a request error otherwise.
	 */
	KUNIT_EXPECT_PTR_EQ(test,
			    cmt_wait_qp_event(t, (c->layer_etype == 0x11 ||
						  c->layer_etype == 0x01) ?
					      IB_EVENT_QP_ACCESS_ERR :
					      IB_EVENT_QP_REQ_ERR),
			    p.qp);
	for (i = 0; i < 1024; i++)
		if (mem[i] != HOSTILE_GUARD)
			break;
	KUNIT_EXPECT_EQ(test, i, 1024);
	/* Nor into the other MR of the device, the peer's QP's memory. */
	if (c->stag == HOSTILE_STAG_NEXT || c->stag == HOSTILE_STAG_PREV)
		KUNIT_EXPECT_PTR_EQ(test, memchr_inv(p.buf, 0, 4096), NULL);
	cmt_teardown(t);
}

static struct kunit_case hostile_cases[] = {
	KUNIT_CASE(hostile_bad_key),
	KUNIT_CASE(hostile_oversize_pdata),
	KUNIT_CASE(hostile_reset_mid_frame),
	KUNIT_CASE(hostile_one_byte_segments),
	KUNIT_CASE(hostile_markers),
	KUNIT_CASE(hostile_silent),
	KUNIT_CASE(hostile_pending_bound),
	KUNIT_CASE(hostile_pending_evicts_oldest),
	KUNIT_CASE(hostile_destroy_with_pending),
	KUNIT_CASE(hostile_fpdu_bad_crc),
	KUNIT_CASE(hostile_fpdu_bad_opcode),
	KUNIT_CASE(hostile_fpdu_bad_version),
	KUNIT_CASE(hostile_fpdu_bad_msn),
	KUNIT_CASE(hostile_fpdu_bad_mo),
	KUNIT_CASE(hostile_fpdu_split),
	KUNIT_CASE_PARAM(hostile_fin_mid_fpdu, hostile_cut_gen_params),
	KUNIT_CASE(hostile_empty_segments),
	KUNIT_CASE(hostile_terminate),
	KUNIT_CASE(hostile_terminate_bad_msn),
	KUNIT_CASE_PARAM(hostile_term_copies_hdr, hostile_term_case_gen_params),
	{}
};

static struct kunit_case hostile_rdma_cases[] = {
	KUNIT_CASE(hostile_rdma_wire),
	KUNIT_CASE(hostile_rdma_remote),
	KUNIT_CASE(hostile_rdma_ird),
	KUNIT_CASE(hostile_rresp_shares_link),
	KUNIT_CASE(hostile_rdma_fin_for_read),
	KUNIT_CASE(hostile_rdma_read_after_fin),
	KUNIT_CASE_PARAM(hostile_access, hostile_access_case_gen_params),
	KUNIT_CASE_PARAM(hostile_rresp_bad, hostile_rresp_case_gen_params),
	KUNIT_CASE(hostile_rdma_dereg_mid_response),
	KUNIT_CASE(hostile_rdma_read_refused),
	{}
};

static struct kunit_suite hostile_suite = {
	.suite_init = cmt_suite_init,
	.suite_exit = cmt_suite_exit,
	.name = "kiwi_softiw_hostile",
	.exit = hostile_exit,
	.test_cases = hostile_cases,
};

static struct kunit_suite hostile_rdma_suite = {
	.suite_init = cmt_suite_init,
	.suite_exit = cmt_suite_exit,
	.name = "kiwi_softiw_remote_access",
	.exit = hostile_exit,
	.test_cases = hostile_rdma_cases,
};

kunit_test_suites(&hostile_suite, &hostile_rdma_suite);
