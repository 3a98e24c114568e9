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
 *
 * Tagged traffic from the same raw peer is kiwi_softiw_remote_access
 * (remote_access_test.c) and kiwi_softiw_access (access_test.c).
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/string.h>

#include "cm_fixture.h"
#include "hostile_peer.h"
#include "softiw.h"

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
	KUNIT_EXPECT_EQ(test, cmt_raw_send(s, KEY_REP "\x00\x01\x00\x00",
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

static struct kunit_suite hostile_suite = {
	.suite_init = cmt_suite_init,
	.suite_exit = cmt_suite_exit,
	.name = "kiwi_softiw_hostile",
	.init = hostile_init,
	.exit = hostile_exit,
	.test_cases = hostile_cases,
};

kunit_test_suites(&hostile_suite);
