// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_conformance_cm: connection management through the provider's CM
 * ops and upcalls: requests, accept, reject, private data, IRD/ORD, the
 * event order of graceful and abortive close, the 2006 questions, the
 * listener and its backlog, and destruction in either order.
 */
#include <linux/delay.h>
#include <linux/module.h>

#include <kiwi/provider.h>

#include "kc.h"

static void kc_fill(u8 *p, u16 len, u8 seed)
{
	u16 i;

	for (i = 0; i < len; i++)
		p[i] = seed + i * 7;
}

static bool kc_same_addr(const struct sockaddr_in *x,
			 const struct sockaddr_in *y)
{
	return x->sin_family == AF_INET &&
	       x->sin_addr.s_addr == y->sin_addr.s_addr;
}

/* The request carries the initiator's data, depths and addresses; accept
 * answers the initiator with a CONNECT_REPLY(0) carrying the answer's
 * private data, and the passive side with ESTABLISHED.
 */
static void kc_connect_accept(struct kunit *test)
{
	static const char hello[] = "kiwi-hello", reply[] = "kiwi-reply!";
	struct kc *t = kc_of(test);
	struct kiwi_conn_param p = {
		.private_data = reply, .private_data_len = sizeof(reply),
		.ird = kc_depth(&t->b), .ord = kc_depth(&t->b),
	};
	struct ib_qp *qa = kc_qp(t, &t->a, NULL), *qb = kc_qp(t, &t->b, NULL);
	struct kiwi_cm_id *l = kc_listen(t, 8), *a;
	const struct kc_ev *r;
	char got[8];

	a = kc_connect(t, qa, t->port, hello, sizeof(hello));
	r = kc_wait(t, l, KIWI_CM_EVENT_CONNECT_REQUEST);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->status, 0);
	KUNIT_EXPECT_EQ(test, r->len, sizeof(hello));
	KUNIT_EXPECT_EQ(test, memcmp(r->pdata, hello, sizeof(hello)), 0);
	KUNIT_EXPECT_EQ(test, r->ird, kc_depth(&t->a));
	KUNIT_EXPECT_EQ(test, r->ord, kc_depth(&t->a));
	KUNIT_EXPECT_TRUE(test, kc_same_addr(&r->remote, &t->a.addr));
	KUNIT_EXPECT_TRUE(test, kc_same_addr(&r->local, &t->b.addr));
	KUNIT_EXPECT_EQ(test, ntohs(r->local.sin_port), t->port);
	KUNIT_EXPECT_NE(test, ntohs(r->remote.sin_port), 0);
	p.qpn = qb->qp_num;
	KUNIT_ASSERT_EQ(test, kiwi_cm_accept(r->id, &p), 0);
	KUNIT_ASSERT_NOT_NULL(test, kc_wait(t, r->id,
					    KIWI_CM_EVENT_ESTABLISHED));
	r = kc_wait(t, a, KIWI_CM_EVENT_CONNECT_REPLY);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->status, 0);
	KUNIT_EXPECT_EQ(test, r->len, sizeof(reply));
	KUNIT_EXPECT_EQ(test, memcmp(r->pdata, reply, sizeof(reply)), 0);
	KUNIT_EXPECT_TRUE(test, kc_same_addr(&r->local, &t->a.addr));
	KUNIT_EXPECT_NE(test, ntohs(r->local.sin_port), 0);
	kc_settle(t);
	kc_events(t, a, got, sizeof(got));
	KUNIT_EXPECT_STREQ(test, got, "R");
}

static const u16 kc_pdata_cases[] = { 0, 1, 2, 3 };

static void kc_pdata_desc(const u16 *v, char *desc)
{
	static const char *const names[] = {
		"none", "one byte", "the device's maximum", "one byte over",
	};

	strscpy(desc, names[*v], KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kc_pdata, kc_pdata_cases, kc_pdata_desc);

static u16 kc_pdata_len(struct kc *t, u16 which)
{
	u16 max = min(t->a.dev->iw_max_private_data,
		      t->b.dev->iw_max_private_data);

	switch (which) {
	case 0:
		return 0;
	case 1:
		return 1;
	case 2:
		return max;
	default:	/* over what the initiator's device carries */
		return t->a.dev->iw_max_private_data + 1;
	}
}

/* A connection whose request and answer carry @len bytes, accepted or
 * rejected: the bytes arrive intact at the other end. @c gets its ids
 * and QPs (c->b is the rejected child after a reject).
 */
static void kc_pdata_round(struct kc *t, u16 len, bool accept,
			   struct kc_conn *c)
{
	struct kunit *test = t->test;
	u8 *req = kunit_kzalloc(test, KC_MAX_PDATA, GFP_KERNEL);
	u8 *ans = kunit_kzalloc(test, KC_MAX_PDATA, GFP_KERNEL);
	int n = kc_nevents(t, NULL, KIWI_CM_EVENT_CONNECT_REQUEST);
	struct kiwi_conn_param p = {
		.ird = kc_depth(&t->b), .ord = kc_depth(&t->b),
	};
	const struct kc_ev *r;

	KUNIT_ASSERT_NOT_NULL(test, req);
	KUNIT_ASSERT_NOT_NULL(test, ans);
	kc_fill(req, len, 0x11);
	kc_fill(ans, len, accept ? 0x5a : 0xa5);
	c->qa = kc_qp(t, &t->a, NULL);
	c->qb = kc_qp(t, &t->b, NULL);
	c->a = kc_connect(t, c->qa, t->port, req, len);
	r = kc_wait_nth(t, NULL, KIWI_CM_EVENT_CONNECT_REQUEST, n);
	KUNIT_ASSERT_NOT_NULL(test, r);
	c->b = r->id;
	KUNIT_EXPECT_EQ(test, r->len, len);
	KUNIT_EXPECT_EQ(test, memcmp(r->pdata, req, len), 0);
	if (accept) {
		p.private_data = ans;
		p.private_data_len = len;
		p.qpn = c->qb->qp_num;
		KUNIT_ASSERT_EQ(test, kiwi_cm_accept(c->b, &p), 0);
	} else {
		KUNIT_ASSERT_EQ(test, kiwi_cm_reject(c->b, ans, len), 0);
	}
	r = kc_wait(t, c->a, KIWI_CM_EVENT_CONNECT_REPLY);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->status, accept ? 0 : -ECONNREFUSED);
	KUNIT_EXPECT_EQ(test, r->len, len);
	KUNIT_EXPECT_EQ(test, memcmp(r->pdata, ans, len), 0);
	if (accept)
		KUNIT_EXPECT_NOT_NULL(test, kc_wait(t, c->b,
						    KIWI_CM_EVENT_ESTABLISHED));
}

/* Private data of no byte, one byte and the device's maximum travels in
 * the request, the accept and the reject; one byte more is refused before
 * anything starts, and the device keeps working.
 */
static void kc_private_data(struct kunit *test)
{
	const u16 *which = test->param_value;
	struct kc *t = kc_of(test);
	u16 len = kc_pdata_len(t, *which);
	struct kiwi_cm_id *a;
	struct kc_conn c = {};
	u8 *big;

	KUNIT_ASSERT_LE(test, kc_pdata_len(t, 2), KC_MAX_PDATA);
	kc_listen(t, 8);
	if (*which < 3) {
		kc_pdata_round(t, len, true, &c);
		kc_pdata_round(t, len, false, &c);
		return;
	}
	big = kunit_kzalloc(test, len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, big);
	a = kc_id(t, &t->a);
	KUNIT_EXPECT_EQ(test, kc_try_connect(t, a, kc_qp(t, &t->a, NULL),
					     t->port, big, len), -EINVAL);
	kc_settle(t);
	KUNIT_EXPECT_EQ(test, kc_nevents(t, a, KIWI_CM_EVENT_CONNECT_REPLY), 0);
	kc_pdata_round(t, kc_pdata_len(t, 2), true, &c);
}

/* The request carries the initiator's IRD and ORD; CONNECT_REPLY and
 * ESTABLISHED carry the peer's (Documentation/iw_cm.rst, "IRD and ORD in
 * events").
 */
static void kc_ird_ord(struct kunit *test)
{
	struct kc *t = kc_of(test);
	struct ib_qp *qa = kc_qp(t, &t->a, NULL), *qb = kc_qp(t, &t->b, NULL);
	struct kiwi_conn_param pa = { .ird = 2, .ord = 3, .qpn = qa->qp_num };
	struct kiwi_conn_param pb = { .ird = 3, .ord = 2, .qpn = qb->qp_num };
	struct kiwi_cm_id *a = kc_id(t, &t->a);
	struct sockaddr_in *sin = (struct sockaddr_in *)&a->remote_addr;
	const struct kc_ev *r;

	if (kc_depth(&t->a) < 3 || kc_depth(&t->b) < 3)
		kunit_skip(test, "IRD and ORD of 3 are more than offered");
	kc_listen(t, 8);
	*sin = t->b.addr;
	sin->sin_port = htons(t->port);
	KUNIT_ASSERT_EQ(test, kiwi_cm_connect(a, &pa), 0);
	r = kc_wait(t, NULL, KIWI_CM_EVENT_CONNECT_REQUEST);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->ird, 2);
	KUNIT_EXPECT_EQ(test, r->ord, 3);
	KUNIT_ASSERT_EQ(test, kiwi_cm_accept(r->id, &pb), 0);
	r = kc_wait(t, r->id, KIWI_CM_EVENT_ESTABLISHED);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->ird, 2);
	KUNIT_EXPECT_EQ(test, r->ord, 3);
	r = kc_wait(t, a, KIWI_CM_EVENT_CONNECT_REPLY);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->status, 0);
	KUNIT_EXPECT_EQ(test, r->ird, 3);
	KUNIT_EXPECT_EQ(test, r->ord, 2);
}

/* A reject reaches the initiator as CONNECT_REPLY(-ECONNREFUSED) with its
 * private data, the rejected id hears nothing more, and the listener
 * still accepts the next request.
 */
static void kc_reject(struct kunit *test)
{
	static const char no[] = "no";
	struct kc *t = kc_of(test);
	struct kiwi_cm_id *l = kc_listen(t, 8), *a;
	const struct kc_ev *r, *q;
	struct kc_conn c = {};
	char got[8];

	a = kc_connect(t, kc_qp(t, &t->a, NULL), t->port, NULL, 0);
	q = kc_wait(t, l, KIWI_CM_EVENT_CONNECT_REQUEST);
	KUNIT_ASSERT_NOT_NULL(test, q);
	KUNIT_ASSERT_EQ(test, kiwi_cm_reject(q->id, no, sizeof(no)), 0);
	r = kc_wait(t, a, KIWI_CM_EVENT_CONNECT_REPLY);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->status, -ECONNREFUSED);
	KUNIT_EXPECT_EQ(test, r->len, sizeof(no));
	KUNIT_EXPECT_EQ(test, memcmp(r->pdata, no, sizeof(no)), 0);
	kc_pdata_round(t, 0, true, &c);
	kc_events(t, q->id, got, sizeof(got));
	KUNIT_EXPECT_STREQ(test, got, "Q");
	kc_events(t, a, got, sizeof(got));
	KUNIT_EXPECT_STREQ(test, got, "R");
}

/* Nobody listens: the initiator gets one CONNECT_REPLY with an error. */
static void kc_no_listener(struct kunit *test)
{
	struct kc *t = kc_of(test);
	struct kiwi_cm_id *a = kc_connect(t, kc_qp(t, &t->a, NULL), t->port,
					  NULL, 0);
	const struct kc_ev *r = kc_wait(t, a, KIWI_CM_EVENT_CONNECT_REPLY);
	char got[8];

	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_LT(test, r->status, 0);
	kc_settle(t);
	kc_events(t, a, got, sizeof(got));
	KUNIT_EXPECT_STREQ(test, got, "R");
}

static const bool kc_sides_cases[] = { false, true };

static void kc_sides_desc(const bool *v, char *desc)
{
	strscpy(desc, *v ? "passive side first" : "active side first",
		KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kc_first, kc_sides_cases, kc_sides_desc);

/*
 * A connection with two receives outstanding on each QP, watched at
 * CLOSE, and @mode's disconnect from the side the parameter names:
 * *@first is that side's id, *@other the other's.
 */
static void kc_close_start(struct kunit *test, struct kc_conn *c,
			   enum kiwi_cm_disconnect_mode mode,
			   struct kiwi_cm_id **first, struct kiwi_cm_id **other)
{
	const bool *passive = test->param_value;
	struct kc *t = kc_of(test);
	struct kc_buf *ba = kc_buf(t, &t->a, 64), *bb = kc_buf(t, &t->b, 64);
	int i;

	kc_connected(t, c, NULL);
	for (i = 0; i < 2; i++) {
		kc_post_recv(t, c->qa, i, ba, 64);
		kc_post_recv(t, c->qb, i, bb, 64);
	}
	kc_watch_close(t, c->a, c->qa);
	kc_watch_close(t, c->b, c->qb);
	*first = *passive ? c->b : c->a;
	*other = *passive ? c->a : c->b;
	KUNIT_ASSERT_EQ(test, kiwi_cm_disconnect(*first, mode), 0);
}

static void kc_expect_flushed(struct kunit *test, const struct kc_ev *r)
{
	KUNIT_EXPECT_EQ_MSG(test, r->flushed, 2,
			    "completions on the CQ when CLOSE was delivered");
	KUNIT_EXPECT_EQ_MSG(test, r->flush_ok, 2,
			    "of them IB_WC_WR_FLUSH_ERR");
}

/* Graceful: the side that disconnects first sees CLOSE(0) only, the other
 * DISCONNECT, then (once it disconnected too) CLOSE(0); both QPs flushed
 * their receives before CLOSE was delivered.
 */
static void kc_graceful_close(struct kunit *test)
{
	const bool *passive = test->param_value;
	struct kc *t = kc_of(test);
	struct kiwi_cm_id *first, *other;
	const struct kc_ev *r;
	struct kc_conn c = {};
	char got[8];

	kc_close_start(test, &c, KIWI_CM_DISCONNECT_GRACEFUL, &first, &other);
	KUNIT_ASSERT_NOT_NULL(test, kc_wait(t, other,
					    KIWI_CM_EVENT_DISCONNECT));
	KUNIT_EXPECT_EQ(test, kiwi_cm_disconnect(other,
						 KIWI_CM_DISCONNECT_GRACEFUL),
			0);
	r = kc_wait(t, first, KIWI_CM_EVENT_CLOSE);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->status, 0);
	kc_expect_flushed(test, r);
	r = kc_wait(t, other, KIWI_CM_EVENT_CLOSE);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->status, 0);
	kc_expect_flushed(test, r);
	kc_settle(t);
	kc_events(t, c.a, got, sizeof(got));
	KUNIT_EXPECT_STREQ(test, got, *passive ? "RDC" : "RC");
	kc_events(t, c.b, got, sizeof(got));
	KUNIT_EXPECT_STREQ(test, got, *passive ? "QEC" : "QEDC");
}

/* Abortive: nobody sees DISCONNECT; the peer's CLOSE has a negative
 * status; both QPs flushed before CLOSE was delivered.
 */
static void kc_abortive_close(struct kunit *test)
{
	struct kc *t = kc_of(test);
	struct kiwi_cm_id *first, *other;
	const struct kc_ev *r;
	struct kc_conn c = {};
	char got[8];

	kc_close_start(test, &c, KIWI_CM_DISCONNECT_ABORTIVE, &first, &other);
	r = kc_wait(t, first, KIWI_CM_EVENT_CLOSE);
	KUNIT_ASSERT_NOT_NULL(test, r);
	kc_expect_flushed(test, r);
	r = kc_wait(t, other, KIWI_CM_EVENT_CLOSE);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_LT(test, r->status, 0);
	kc_expect_flushed(test, r);
	kc_settle(t);
	kc_events(t, c.a, got, sizeof(got));
	KUNIT_EXPECT_STREQ(test, got, "RC");
	kc_events(t, c.b, got, sizeof(got));
	KUNIT_EXPECT_STREQ(test, got, "QEC");
}

/* 2006 question 1: reject is no answer an initiator can give; the
 * provider is not asked, and the connection goes on.
 */
static void kc_active_reject(struct kunit *test)
{
	struct kc *t = kc_of(test);
	struct ib_qp *qa = kc_qp(t, &t->a, NULL), *qb = kc_qp(t, &t->b, NULL);
	struct kiwi_conn_param p = {
		.ird = kc_depth(&t->b), .ord = kc_depth(&t->b),
		.qpn = qb->qp_num,
	};
	struct kiwi_cm_id *a;
	const struct kc_ev *q, *r;

	kc_listen(t, 8);
	a = kc_connect(t, qa, t->port, NULL, 0);
	KUNIT_EXPECT_EQ(test, kiwi_cm_reject(a, NULL, 0), -EINVAL);
	q = kc_wait(t, NULL, KIWI_CM_EVENT_CONNECT_REQUEST);
	KUNIT_ASSERT_NOT_NULL(test, q);
	KUNIT_ASSERT_EQ(test, kiwi_cm_accept(q->id, &p), 0);
	r = kc_wait(t, a, KIWI_CM_EVENT_CONNECT_REPLY);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->status, 0);
	KUNIT_ASSERT_NOT_NULL(test, kc_wait(t, q->id,
					    KIWI_CM_EVENT_ESTABLISHED));
	KUNIT_EXPECT_EQ(test, kiwi_cm_reject(a, NULL, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, kiwi_cm_reject(q->id, NULL, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, kiwi_cm_id_state(a), KIWI_CM_STATE_ESTABLISHED);
}

/* 2006 question 2: the initiator left before the accept. Either accept
 * fails and no event follows, or it succeeds and the passive id ends in
 * one CLOSE with a negative status; never a CLOSE(0).
 */
static void kc_accept_peer_gone(struct kunit *test)
{
	struct kc *t = kc_of(test);
	struct ib_qp *qa = kc_qp(t, &t->a, NULL), *qb = kc_qp(t, &t->b, NULL);
	struct kiwi_conn_param p = {
		.ird = kc_depth(&t->b), .ord = kc_depth(&t->b),
		.qpn = qb->qp_num,
	};
	const struct kc_ev *q, *r;
	struct kiwi_cm_id *a;
	char got[8];
	int ret;

	kc_listen(t, 8);
	a = kc_connect(t, qa, t->port, NULL, 0);
	q = kc_wait(t, NULL, KIWI_CM_EVENT_CONNECT_REQUEST);
	KUNIT_ASSERT_NOT_NULL(test, q);
	kc_destroy_id(t, a);
	kc_settle(t);
	ret = kiwi_cm_accept(q->id, &p);
	kunit_info(test, "accept after the initiator left: %d\n", ret);
	if (ret) {
		KUNIT_EXPECT_LT(test, ret, 0);
		kc_settle(t);
		kc_events(t, q->id, got, sizeof(got));
		KUNIT_EXPECT_STREQ(test, got, "Q");
		return;
	}
	r = kc_wait(t, q->id, KIWI_CM_EVENT_CLOSE);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_LT(test, r->status, 0);
	kc_settle(t);
	kc_events(t, q->id, got, sizeof(got));
	KUNIT_EXPECT_TRUE_MSG(test, !strcmp(got, "QC") || !strcmp(got, "QEC"),
			      "events %s", got);
}

/* A listener destroyed with two requests unanswered: each request's child
 * can still be accepted or, destroyed, refuses its initiator; the port
 * refuses new connections until someone listens again.
 */
static void kc_listener_destroy(struct kunit *test)
{
	struct kc *t = kc_of(test);
	struct ib_qp *qb = kc_qp(t, &t->b, NULL);
	struct kiwi_conn_param p = {
		.ird = kc_depth(&t->b), .ord = kc_depth(&t->b),
		.qpn = qb->qp_num,
	};
	struct kiwi_cm_id *l = kc_listen(t, 8), *a[3];
	const struct kc_ev *q[2], *r;
	int i, ok = 0, refused = 0;
	struct kc_conn c = {};

	for (i = 0; i < 2; i++) {
		a[i] = kc_connect(t, kc_qp(t, &t->a, NULL), t->port, NULL, 0);
		q[i] = kc_wait_nth(t, NULL, KIWI_CM_EVENT_CONNECT_REQUEST, i);
		KUNIT_ASSERT_NOT_NULL(test, q[i]);
	}
	kc_destroy_id(t, l);
	KUNIT_ASSERT_EQ(test, kiwi_cm_accept(q[0]->id, &p), 0);
	KUNIT_EXPECT_NOT_NULL(test, kc_wait(t, q[0]->id,
					    KIWI_CM_EVENT_ESTABLISHED));
	kc_destroy_id(t, q[1]->id);
	for (i = 0; i < 2; i++) {
		r = kc_wait(t, a[i], KIWI_CM_EVENT_CONNECT_REPLY);
		KUNIT_ASSERT_NOT_NULL(test, r);
		ok += r->status == 0;
		refused += r->status == -ECONNREFUSED;
	}
	KUNIT_EXPECT_EQ(test, ok, 1);
	KUNIT_EXPECT_EQ(test, refused, 1);
	a[2] = kc_connect(t, kc_qp(t, &t->a, NULL), t->port, NULL, 0);
	r = kc_wait(t, a[2], KIWI_CM_EVENT_CONNECT_REPLY);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_LT(test, r->status, 0);
	kc_listen(t, 8);
	kc_pdata_round(t, 0, true, &c);
}

/* Backlog 2, requests held in the handler: of four initiators two are
 * refused at once, the two pending are accepted once released.
 */
static void kc_backlog(struct kunit *test)
{
	struct kc *t = kc_of(test);
	const struct kc_ev *r;
	int i, ok = 0;

	kc_listen(t, 2);
	WRITE_ONCE(t->gate, true);
	for (i = 0; i < 4; i++)
		kc_connect(t, kc_qp(t, &t->a, NULL), t->port, NULL, 0);
	for (i = 0; i < 2; i++) {
		r = kc_wait_nth(t, NULL, KIWI_CM_EVENT_CONNECT_REPLY, i);
		KUNIT_ASSERT_NOT_NULL(test, r);
		KUNIT_EXPECT_LT(test, r->status, 0);
	}
	complete_all(&t->release);
	for (i = 0; i < 2; i++) {
		struct kiwi_conn_param p = {
		.ird = kc_depth(&t->b), .ord = kc_depth(&t->b),
	};

		r = kc_wait_nth(t, NULL, KIWI_CM_EVENT_CONNECT_REQUEST, i);
		KUNIT_ASSERT_NOT_NULL(test, r);
		p.qpn = kc_qp(t, &t->b, NULL)->qp_num;
		KUNIT_EXPECT_EQ(test, kiwi_cm_accept(r->id, &p), 0);
		ok += !!kc_wait(t, r->id, KIWI_CM_EVENT_ESTABLISHED);
	}
	KUNIT_EXPECT_EQ(test, ok, 2);
	kc_settle(t);
	KUNIT_EXPECT_EQ(test,
			kc_nevents(t, NULL, KIWI_CM_EVENT_CONNECT_REQUEST), 2);
	KUNIT_EXPECT_EQ(test, kc_nevents(t, NULL, KIWI_CM_EVENT_CONNECT_REPLY),
			4);
}

static const bool kc_order_cases[] = { false, true };

static void kc_order_desc(const bool *v, char *desc)
{
	strscpy(desc, *v ? "cm_id, then QP" : "QP, then cm_id",
		KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kc_order, kc_order_cases, kc_order_desc);

/* A connected initiator destroys its QP and id in either order: the peer
 * hears one CLOSE with a negative status, and every reference goes.
 */
static void kc_destroy_order(struct kunit *test)
{
	const bool *id_first = test->param_value;
	struct kc *t = kc_of(test);
	const struct kc_ev *r;
	struct kc_conn c = {};
	char got[8];

	kc_connected(t, &c, NULL);
	if (*id_first) {
		kc_destroy_id(t, c.a);
		kc_destroy_qp(t, c.qa);
	} else {
		kc_destroy_qp(t, c.qa);
		kc_destroy_id(t, c.a);
	}
	r = kc_wait(t, c.b, KIWI_CM_EVENT_CLOSE);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_LT(test, r->status, 0);
	kc_settle(t);
	kc_events(t, c.b, got, sizeof(got));
	KUNIT_EXPECT_STREQ(test, got, "QEC");
}

/* Eight connections made, aborted and destroyed in turn: each leaves
 * no id behind.
 */
static void kc_reconnect(struct kunit *test)
{
	struct kc *t = kc_of(test);
	struct kc_conn c = {};
	int live[2], extra, i;

	kc_listen(t, 8);
	kc_live(t, live);
	for (i = 0; i < 8; i++) {
		kc_pdata_round(t, 0, true, &c);
		KUNIT_ASSERT_EQ(test,
				kiwi_cm_disconnect(c.a,
						   KIWI_CM_DISCONNECT_ABORTIVE),
				0);
		KUNIT_ASSERT_NOT_NULL(test, kc_wait(t, c.b,
						    KIWI_CM_EVENT_CLOSE));
		KUNIT_ASSERT_NOT_NULL(test, kc_wait(t, c.a,
						    KIWI_CM_EVENT_CLOSE));
		kc_destroy_id(t, c.b);
		kc_destroy_id(t, c.a);
		kc_destroy_qp(t, c.qa);
		kc_destroy_qp(t, c.qb);
		extra = kc_wait_live(t, live);
		KUNIT_ASSERT_EQ_MSG(test, extra, 0,
				    "round %d: ids still alive once destroyed",
				    i);
	}
}

/* A second listener on a port taken is refused; the first keeps it. */
static void kc_listen_taken(struct kunit *test)
{
	struct kc *t = kc_of(test);
	struct kiwi_cm_id *second;
	struct sockaddr_in *sin;
	struct kc_conn c = {};

	c.listener = kc_listen(t, 8);
	second = kc_id(t, &t->b);
	sin = (struct sockaddr_in *)&second->local_addr;
	*sin = t->b.addr;
	sin->sin_port = htons(t->port);
	KUNIT_EXPECT_LT(test, kiwi_cm_listen(second, 8), 0);
	kc_connected(t, &c, NULL);
	KUNIT_EXPECT_EQ(test, kc_nevents(t, second,
					 KIWI_CM_EVENT_CONNECT_REQUEST), 0);
}

/* An accept naming no QP of the device is refused and leaves the request
 * to be answered again: accepted with a real QP, it connects.
 */
static void kc_accept_bad_qp(struct kunit *test)
{
	struct kc *t = kc_of(test);
	struct ib_qp *qa = kc_qp(t, &t->a, NULL), *qb = kc_qp(t, &t->b, NULL);
	struct kiwi_conn_param p = {
		.ird = kc_depth(&t->b), .ord = kc_depth(&t->b),
		.qpn = 0xfffffe,
	};
	const struct kc_ev *q, *r;
	struct kiwi_cm_id *a;

	kc_listen(t, 8);
	a = kc_connect(t, qa, t->port, NULL, 0);
	q = kc_wait(t, NULL, KIWI_CM_EVENT_CONNECT_REQUEST);
	KUNIT_ASSERT_NOT_NULL(test, q);
	KUNIT_EXPECT_LT(test, kiwi_cm_accept(q->id, &p), 0);
	p.qpn = qb->qp_num;
	KUNIT_ASSERT_EQ(test, kiwi_cm_accept(q->id, &p), 0);
	KUNIT_EXPECT_NOT_NULL(test, kc_wait(t, q->id,
					    KIWI_CM_EVENT_ESTABLISHED));
	r = kc_wait(t, a, KIWI_CM_EVENT_CONNECT_REPLY);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->status, 0);
}

static struct kunit_case kc_cm_cases[] = {
	KUNIT_CASE(kc_connect_accept),
	KUNIT_CASE_PARAM(kc_private_data, kc_pdata_gen_params),
	KUNIT_CASE(kc_ird_ord),
	KUNIT_CASE(kc_reject),
	KUNIT_CASE(kc_no_listener),
	KUNIT_CASE_PARAM(kc_graceful_close, kc_first_gen_params),
	KUNIT_CASE_PARAM(kc_abortive_close, kc_first_gen_params),
	KUNIT_CASE(kc_active_reject),
	KUNIT_CASE(kc_accept_peer_gone),
	KUNIT_CASE(kc_listener_destroy),
	KUNIT_CASE(kc_backlog),
	KUNIT_CASE_PARAM(kc_destroy_order, kc_order_gen_params),
	KUNIT_CASE(kc_reconnect),
	KUNIT_CASE(kc_listen_taken),
	KUNIT_CASE(kc_accept_bad_qp),
	KUNIT_CASE(kc_unregister_live),
	{}
};

struct kunit_suite kc_cm_suite = {
	.name = "kiwi_conformance_cm",
	.init = kc_case_init,
	.exit = kc_case_exit,
	.test_cases = kc_cm_cases,
};
