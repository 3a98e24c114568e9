// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_softiw_leak: every endpoint a connection attempt makes is freed,
 * whatever the peer and the ULP do. Each case starts with no endpoint
 * alive and ends the same way: a request whose peer left before the
 * ULP's accept, an accept given an unusable QP, and many peers that send
 * a request and reset at once while the ULP accepts each one.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/module.h>

#include "verbs_util.h"
#include "cm_fixture.h"
#include "cm.h"
#include "softiw.h"
#include "mpa_key.h"

/* A revision 1 request with 2 bytes of private data. */
#define LEAK_REQ KEY_REQ "\x00\x01\x00\x02hi"

/* Wait up to 5 s for the endpoints alive to drop to @want. */
static unsigned int leak_wait_ceps(unsigned int want)
{
	unsigned int live = kiwi_softiw_live_ceps();
	int i;

	for (i = 0; i < 250 && live != want; i++) {
		msleep(20);
		live = kiwi_softiw_live_ceps();
	}
	return live;
}

/* Endpoints of earlier suites finish closing before a case begins. */
static int leak_init(struct kunit *test)
{
	KUNIT_ASSERT_EQ_MSG(test, leak_wait_ceps(0), 0U,
			    "endpoints alive before the case");
	return 0;
}

static enum softiw_cep_state leak_cep_state(struct softiw_cep *cep)
{
	enum softiw_cep_state state;

	mutex_lock(&cep->lock);
	state = cep->state;
	mutex_unlock(&cep->lock);
	return state;
}

/* A raw peer's request, delivered; returns the child id. */
static struct kiwi_cm_id *leak_request(struct cmt *t, struct socket **s)
{
	const struct cmt_rec *r;

	*s = cmt_raw_connect(t->test, t->port);
	KUNIT_ASSERT_EQ(t->test, cmt_raw_send(*s, LEAK_REQ, 22), 22);
	r = cmt_wait(t, KIWI_CM_EVENT_CONNECT_REQUEST, NULL);
	KUNIT_ASSERT_NOT_NULL(t->test, r);
	return r->id;
}

/* The peer resets between the request and the ULP's accept. */
static void leak_accept_after_peer_left(struct kunit *test)
{
	struct cmt *t = cmt_setup(test, 25001);
	struct kiwi_conn_param p = { .ird = 1, .ord = 1 };
	struct kiwi_cm_id *child;
	struct socket *s;
	int i;

	cmt_listen(t);
	child = leak_request(t, &s);
	KUNIT_EXPECT_EQ(test, kiwi_softiw_live_ceps(), 1U);
	cmt_raw_close(s, true);
	/* the child's request reference keeps the endpoint to look at */
	for (i = 0; i < 150; i++) {
		if (leak_cep_state(child->provider_data) == SOFTIW_CEP_CLOSED)
			break;
		msleep(20);
	}
	KUNIT_ASSERT_EQ(test, leak_cep_state(child->provider_data),
			SOFTIW_CEP_CLOSED);
	p.qpn = cmt_qp(t);
	KUNIT_EXPECT_EQ(test, kiwi_cm_accept(child, &p), -ECONNRESET);
	KUNIT_EXPECT_EQ(test, cmt_count(t, KIWI_CM_EVENT_ESTABLISHED), 0);
	cmt_teardown(t);
	KUNIT_EXPECT_EQ(test, leak_wait_ceps(0), 0U);
}

/* An accept the provider refuses ends the request: the peer is let go. */
static void leak_accept_unusable_qp(struct kunit *test)
{
	struct ib_qp_attr err = { .qp_state = IB_QPS_ERR };
	struct cmt *t = cmt_setup(test, 25002);
	struct ib_qp_init_attr init = {
		KT_QP_RC,
		.send_cq = t->cq, .recv_cq = t->cq,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct kiwi_conn_param p = { .ird = 1, .ord = 1 };
	struct kiwi_cm_id *child;
	struct ib_qp *qp;
	struct socket *s;
	u8 buf[32];
	int ret;

	cmt_listen(t);
	child = leak_request(t, &s);
	qp = cmt_qp_init(t, &init);
	p.qpn = qp->qp_num;
	KUNIT_ASSERT_EQ(test, kiwi_modify_qp(qp, &err, IB_QP_STATE), 0);
	KUNIT_EXPECT_EQ(test, kiwi_cm_accept(child, &p), -EBUSY);
	/* no Reply: the stream is reset */
	ret = cmt_raw_recv(s, buf, sizeof(buf), 3000);
	KUNIT_EXPECT_TRUE_MSG(test, ret == 0 || ret == -ECONNRESET,
			      "recv returned %d", ret);
	cmt_raw_close(s, false);
	cmt_teardown(t);
	KUNIT_EXPECT_EQ(test, leak_wait_ceps(0), 0U);
}

#define LEAK_PEERS 64

/**
 * struct leak_ulp - a ULP that accepts every request at once, as the
 *	sample server does
 * @t: the fixture, for its device and CQ
 * @qpn: a QP per request, made beforehand
 * @next: the next unused entry of @qpn
 * @accepted: requests whose accept returned 0
 * @failed: requests whose accept failed (the child is then destroyed by
 *	the handler's non-zero return)
 * @closed: CLOSE events of accepted children
 * @children: the accepted children, destroyed at the end
 * @nchildren: their number
 * @lock: protects everything above but @t
 */
struct leak_ulp {
	struct cmt *t;
	u32 qpn[LEAK_PEERS];
	int next;
	int accepted;
	int failed;
	int closed;
	struct kiwi_cm_id *children[LEAK_PEERS];
	int nchildren;
	spinlock_t lock;	/* protects the counts and lists */
};

static int leak_ulp_handler(struct kiwi_cm_id *id,
			    const struct kiwi_cm_event *ev)
{
	struct leak_ulp *u = id->context;
	struct kiwi_conn_param p = { .ird = 1, .ord = 1 };
	int ret;

	if (ev->event == KIWI_CM_EVENT_CLOSE) {
		spin_lock(&u->lock);
		u->closed++;
		spin_unlock(&u->lock);
		return 0;
	}
	if (ev->event != KIWI_CM_EVENT_CONNECT_REQUEST)
		return 0;
	spin_lock(&u->lock);
	if (u->next == LEAK_PEERS) {
		spin_unlock(&u->lock);
		return -ENOSPC;
	}
	p.qpn = u->qpn[u->next++];
	spin_unlock(&u->lock);
	/* a slow ULP: the peer's reset is in before the accept */
	msleep(20);
	ret = kiwi_cm_accept(id, &p);
	spin_lock(&u->lock);
	if (ret) {
		u->failed++;
	} else {
		u->accepted++;
		u->children[u->nchildren++] = id;
	}
	spin_unlock(&u->lock);
	return ret;
}

/* Peers send a request and reset while the ULP accepts: nothing stays. */
static void leak_peers_reset_while_accepted(struct kunit *test)
{
	struct ib_qp_init_attr init = {
		KT_QP_RC,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct sockaddr_storage any;
	struct kiwi_cm_id *lid;
	struct leak_ulp *u;
	struct cmt *t;
	struct ib_qp *qps[LEAK_PEERS];
	int i, done;

	t = cmt_setup(test, 25003);
	u = kunit_kzalloc(test, sizeof(*u), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, u);
	u->t = t;
	spin_lock_init(&u->lock);
	init.send_cq = t->cq;
	init.recv_cq = t->cq;
	for (i = 0; i < LEAK_PEERS; i++) {
		qps[i] = kiwi_create_qp(t->pd, &init);
		KUNIT_ASSERT_FALSE(test, IS_ERR(qps[i]));
		u->qpn[i] = qps[i]->qp_num;
	}
	lid = kiwi_cm_create_id(t->dev, leak_ulp_handler, u);
	KUNIT_ASSERT_FALSE(test, IS_ERR(lid));
	cmt_any_addr(&any, t->port);
	lid->local_addr = any;
	KUNIT_ASSERT_EQ(test, kiwi_cm_listen(lid, LEAK_PEERS), 0);
	for (i = 0; i < LEAK_PEERS; i++) {
		struct socket *s = cmt_raw_connect(test, t->port);

		KUNIT_EXPECT_EQ(test, cmt_raw_send(s, LEAK_REQ, 22), 22);
		cmt_raw_close(s, true);
	}
	/*
	 * A reset may also beat the request to the listener (no request
	 * then): wait until every endpoint is gone and every accepted
	 * connection closed, twice in a row.
	 */
	for (i = 0, done = 0; i < 500 && done < 2; i++) {
		msleep(20);
		spin_lock(&u->lock);
		if (u->closed == u->accepted && !kiwi_softiw_live_ceps())
			done++;
		else
			done = 0;
		spin_unlock(&u->lock);
	}
	kunit_info(test, "%d accepted, %d refused by softiw, %d closed",
		   u->accepted, u->failed, u->closed);
	KUNIT_EXPECT_EQ(test, done, 2);
	KUNIT_EXPECT_LE(test, u->accepted + u->failed, LEAK_PEERS);
	/* the peer had gone: each of these endpoints used to leak */
	KUNIT_EXPECT_GT(test, u->failed, 0);
	KUNIT_EXPECT_EQ(test, u->closed, u->accepted);
	kiwi_cm_destroy_id(lid);
	for (i = 0; i < u->nchildren; i++)
		kiwi_cm_destroy_id(u->children[i]);
	for (i = 0; i < LEAK_PEERS; i++)
		kiwi_destroy_qp(qps[i]);
	cmt_teardown(t);
	KUNIT_EXPECT_EQ(test, leak_wait_ceps(0), 0U);
}

static struct kunit_case leak_cases[] = {
	KUNIT_CASE(leak_accept_after_peer_left),
	KUNIT_CASE(leak_accept_unusable_qp),
	KUNIT_CASE(leak_peers_reset_while_accepted),
	{}
};

static struct kunit_suite leak_suite = {
	.name = "kiwi_softiw_leak",
	.init = leak_init,
	.suite_init = cmt_suite_init,
	.suite_exit = cmt_suite_exit,
	.test_cases = leak_cases,
};

kunit_test_suite(leak_suite);
