// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_softiw_accept: a raw client's MPA Request is delivered, then the
 * client resets the stream, and only then does the ULP accept
 * (Documentation/softiw.rst, "When accept() cannot send the MPA Reply").
 * If softiw's endpoint has not looked at the reset yet, the Reply's send
 * fails on its socket: accept() returns 0 and CLOSE(-ECONNRESET) is the
 * one event that follows. If the endpoint took the reset first, accept()
 * fails with -ECONNRESET and nothing follows. Either way: no ESTABLISHED,
 * the id IDLE, its QP unpinned, no violation, the endpoint freed.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/module.h>
#include <net/sock.h>
#include <net/tcp_states.h>

#include "cm.h"
#include "cm_fixture.h"
#include "mpa_key.h"
#include "softiw.h"

/* An MPA revision 1 Request without private data. */
#define ACC_REQ		KEY_REQ "\x00\x01\x00\x00"
#define ACC_REQ_LEN	20
#define ACC_WAIT_MS	5000

/**
 * struct acc - one case's request
 * @t: the fixture, listening
 * @s: the raw client that sent the Request
 * @child: the request's child id, not answered yet
 * @cep: its endpoint (provider_data; the unanswered request pins it)
 * @qp: the QP to accept with, RECV 1 posted on the fixture's CQ
 * @ceps: kiwi_softiw_live_ceps() before the client connected
 * @violations: the device's protocol violations before the request
 */
struct acc {
	struct cmt *t;
	struct socket *s;
	struct kiwi_cm_id *child;
	struct softiw_cep *cep;
	struct ib_qp *qp;
	unsigned int ceps;
	unsigned long violations;
};

/* Listen on @port, send the Request, wait for its CONNECT_REQUEST. */
static void acc_request(struct kunit *test, struct acc *a, u16 port)
{
	const struct cmt_rec *r;
	struct ib_recv_wr wr = { .wr_id = 1, .num_sge = 1 };
	const struct ib_recv_wr *bad;
	struct ib_sge sge;
	struct ib_mr *mr;

	a->t = cmt_setup(test, port);
	cmt_listen(a->t);
	a->violations = kiwi_device_counter(a->t->dev,
					    KIWI_DEV_CNT_VIOLATIONS);
	a->ceps = kiwi_softiw_live_ceps();
	a->s = cmt_raw_connect(test, port);
	KUNIT_ASSERT_EQ(test, cmt_raw_send(a->s, ACC_REQ, ACC_REQ_LEN),
			ACC_REQ_LEN);
	r = cmt_wait(a->t, KIWI_CM_EVENT_CONNECT_REQUEST, NULL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	a->child = r->id;
	a->cep = a->child->provider_data;
	KUNIT_ASSERT_NOT_NULL(test, a->cep);
	KUNIT_EXPECT_EQ(test, kiwi_softiw_live_ceps(), a->ceps + 1);
	cmt_qp(a->t);
	a->qp = a->t->qps[a->t->nqps - 1];
	mr = cmt_mr(a->t, cmt_buf(a->t, 64), 64, IB_ACCESS_LOCAL_WRITE);
	sge = (struct ib_sge){ .addr = mr->iova, .length = 64,
			       .lkey = mr->lkey };
	wr.sg_list = &sge;
	KUNIT_ASSERT_EQ(test, kiwi_post_recv(a->qp, &wr, &bad), 0);
}

/*
 * Stand in for a task stepping the endpoint: from now on its socket's
 * callbacks note what happens (SOFTIW_CEP_MISSED) for that task instead
 * of queueing the endpoint's work. Set under the endpoint's mutex, so
 * that no step is in progress (one would clear the bit as it ends); the
 * work queued before runs to its end here.
 */
static void acc_hold_steps(struct softiw_cep *cep)
{
	mutex_lock(&cep->lock);
	set_bit(SOFTIW_CEP_STEPPING, &cep->flags);
	mutex_unlock(&cep->lock);
	flush_work(&cep->work);
}

/* ... and stop: what was noted is the test's to act on (it accepts). */
static void acc_release_steps(struct softiw_cep *cep)
{
	clear_bit(SOFTIW_CEP_MISSED, &cep->flags);
	clear_bit(SOFTIW_CEP_STEPPING, &cep->flags);
}

/*
 * Wait until @sk took the peer's reset, callbacks included: TCP handles
 * the reset under the socket's lock, so once the state shows it, taking
 * the lock waits for the rest. Return: it did, with ECONNRESET.
 */
static bool acc_wait_reset(struct sock *sk)
{
	int ms;

	for (ms = 0; ms < ACC_WAIT_MS; ms += 20) {
		if (READ_ONCE(sk->sk_state) == TCP_CLOSE) {
			lock_sock(sk);
			release_sock(sk);
			return READ_ONCE(sk->sk_err) == ECONNRESET;
		}
		msleep(20);
	}
	return false;
}

/* Wait until the endpoint's own work closed it. Return: it did. */
static bool acc_wait_closed(const struct softiw_cep *cep)
{
	int ms;

	for (ms = 0; ms < ACC_WAIT_MS; ms += 20) {
		if (READ_ONCE(cep->state) == SOFTIW_CEP_CLOSED)
			return true;
		msleep(20);
	}
	return false;
}

/* Events the fixture recorded, of every id. */
static int acc_events(struct cmt *t)
{
	unsigned long flags;
	int n;

	spin_lock_irqsave(&t->lock, flags);
	n = t->n;
	spin_unlock_irqrestore(&t->lock, flags);
	return n;
}

/*
 * The request is over: the child id is IDLE, and heard its
 * CONNECT_REQUEST and @close CLOSEs, nothing else; its QP is unpinned
 * (the creator's reference only); no violation; the endpoint is freed.
 */
static void acc_expect_over(struct kunit *test, struct acc *a, int close)
{
	int i;

	kiwi_cm_id_flush(a->child);
	KUNIT_EXPECT_EQ(test, kiwi_cm_id_state(a->child), KIWI_CM_STATE_IDLE);
	KUNIT_EXPECT_EQ(test, cmt_count(a->t, KIWI_CM_EVENT_CLOSE), close);
	KUNIT_EXPECT_EQ(test, acc_events(a->t), 1 + close);
	KUNIT_EXPECT_EQ(test, cmt_count(a->t, KIWI_CM_EVENT_ESTABLISHED), 0);
	KUNIT_EXPECT_EQ(test, refcount_read(&softiw_qp(a->qp)->ref), 1U);
	KUNIT_EXPECT_EQ(test, kiwi_device_counter(a->t->dev,
						  KIWI_DEV_CNT_VIOLATIONS),
			a->violations);
	for (i = 0; i < 100 && kiwi_softiw_live_ceps() > a->ceps; i++)
		msleep(20);
	KUNIT_EXPECT_EQ(test, kiwi_softiw_live_ceps(), a->ceps);
}

/*
 * The reset reaches the endpoint's socket while its events are held (as
 * for a step in progress), so accept() finds the request unanswered on a
 * reset socket: the Reply's send fails. accept() returns 0; the one
 * event is CLOSE(-ECONNRESET), and the RECV was flushed before it
 * reached the ULP, the QP left in ERROR.
 */
static void acc_reply_send_fails(struct kunit *test)
{
	struct kiwi_conn_param cp = { .ird = 1, .ord = 1 };
	const struct cmt_rec *r;
	unsigned long flags;
	struct acc a;

	acc_request(test, &a, 21120);
	acc_hold_steps(a.cep);
	cmt_raw_close(a.s, true);
	KUNIT_ASSERT_TRUE(test, acc_wait_reset(a.cep->sock->sk));
	/* The reset was noted for the stand-in, not acted on. */
	KUNIT_EXPECT_TRUE(test, test_bit(SOFTIW_CEP_MISSED, &a.cep->flags));
	KUNIT_EXPECT_EQ(test, READ_ONCE(a.cep->state),
			SOFTIW_CEP_AWAIT_ACCEPT);
	acc_release_steps(a.cep);
	spin_lock_irqsave(&a.t->lock, flags);
	a.t->close_cq = a.t->cq;
	a.t->close_id = a.child;
	spin_unlock_irqrestore(&a.t->lock, flags);
	cp.qpn = a.qp->qp_num;
	KUNIT_ASSERT_EQ(test, kiwi_cm_accept(a.child, &cp), 0);
	r = cmt_wait(a.t, KIWI_CM_EVENT_CLOSE, a.child);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->status, -ECONNRESET);
	KUNIT_ASSERT_EQ(test, a.t->close_nwc, 1);
	KUNIT_EXPECT_EQ(test, a.t->close_wc[0].wr_id, 1ULL);
	KUNIT_EXPECT_EQ(test, a.t->close_wc[0].status, IB_WC_WR_FLUSH_ERR);
	KUNIT_EXPECT_EQ(test, kiwi_softiw_qp_state(a.qp), IB_QPS_ERR);
	acc_expect_over(test, &a, 1);
	cmt_teardown(a.t);
}

/*
 * The endpoint takes the reset first (its work closes it): accept()
 * fails with -ECONNRESET, no event follows, and the QP is not touched:
 * still in INIT, its RECV still posted.
 */
static void acc_peer_gone(struct kunit *test)
{
	struct kiwi_conn_param cp = { .ird = 1, .ord = 1 };
	struct ib_wc wc;
	struct acc a;

	acc_request(test, &a, 21121);
	cmt_raw_close(a.s, true);
	KUNIT_ASSERT_TRUE(test, acc_wait_closed(a.cep));
	cp.qpn = a.qp->qp_num;
	KUNIT_EXPECT_EQ(test, kiwi_cm_accept(a.child, &cp), -ECONNRESET);
	acc_expect_over(test, &a, 0);
	KUNIT_EXPECT_EQ(test, kiwi_poll_cq(a.t->cq, 1, &wc), 0);
	KUNIT_EXPECT_EQ(test, kiwi_softiw_qp_state(a.qp), IB_QPS_INIT);
	cmt_teardown(a.t);
}

static struct kunit_case acc_cases[] = {
	KUNIT_CASE(acc_reply_send_fails),
	KUNIT_CASE(acc_peer_gone),
	{}
};

static struct kunit_suite acc_suite = {
	.suite_init = cmt_suite_init,
	.suite_exit = cmt_suite_exit,
	.name = "kiwi_softiw_accept",
	.test_cases = acc_cases,
};

kunit_test_suite(acc_suite);
