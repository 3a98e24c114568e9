// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_iwcm_cm: the cm_id API against the mock RNIC: connection set-up
 * and teardown on both sides, conn_param limits, the 2006 design questions,
 * reference rules (QP and cm_id destroyed in either order), destroy
 * semantics and the backlog.
 */
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/delay.h>
#include <linux/slab.h>

#include <kiwi/iw_cm.h>
#include <kiwi/provider.h>

#include "verbs_util.h"
#include "iwcm_test.h"

/**
 * kiwi_t_passive() - a connected passive id
 * @u: the fixture
 *
 * Listener, request, accept, ESTABLISHED.
 *
 * Return: the child id.
 */
struct kiwi_cm_id *kiwi_t_passive(struct kiwi_ulp *u)
{
	struct kiwi_cm_id *l = kiwi_ulp_listen(u, 0);
	struct kiwi_cm_id *child = kiwi_ulp_request(u, l);
	struct kiwi_conn_param p = { .qpn = kiwi_ulp_qp(u) };
	int n;

	KUNIT_ASSERT_EQ(u->test, kiwi_cm_accept(child, &p), 0);
	n = kiwi_ulp_count(u);
	KUNIT_ASSERT_EQ(u->test,
			kiwi_ulp_ev(u, child, KIWI_CM_EVENT_ESTABLISHED, 0), 0);
	KUNIT_ASSERT_TRUE(u->test, kiwi_ulp_wait(u, n + 1));
	return child;
}

/**
 * kiwi_t_events() - the events an id got, as a string like "DC"
 * @u: the fixture
 * @id: the id
 * @from: first record to look at
 * @buf: the string, one letter per event (QREDCX, in enum order)
 * @len: size of @buf
 */
void kiwi_t_events(struct kiwi_ulp *u, struct kiwi_cm_id *id, int from,
		   char *buf, size_t len)
{
	static const char letters[] = "QREDCX";
	size_t k = 0;
	int i;

	for (i = from; i < kiwi_ulp_count(u) && k + 1 < len; i++) {
		struct kiwi_ulp_rec r = kiwi_ulp_rec(u, i);

		if (r.id == id)
			buf[k++] = letters[r.event];
	}
	buf[k] = '\0';
}

/**
 * kiwi_t_wait_calls() - wait until a mock op was called @n times
 * @m: the mock
 * @op: the op
 * @n: number of calls
 *
 * Return: true if it was, within 5 s.
 */
bool kiwi_t_wait_calls(struct kiwi_mock *m, enum kiwi_mock_op op, int n)
{
	int i;

	for (i = 0; i < 250 && kiwi_mock_calls(m, op) < n; i++)
		msleep(20);
	return kiwi_mock_calls(m, op) >= n;
}

static void cm_active_established(struct kunit *test)
{
	struct kiwi_ulp *u = kiwi_ulp_setup(test);
	struct kiwi_cm_event ev = { .event = KIWI_CM_EVENT_CONNECT_REPLY };
	struct kiwi_conn_param p = { .ird = KIWI_CM_MAX_IRD_ORD,
				     .ord = KIWI_CM_MAX_IRD_ORD - 1,
				     .private_data_len = 512 };
	struct kiwi_cm_id *id = kiwi_ulp_id(u);
	u8 *pdata = kunit_kzalloc(test, 512, GFP_KERNEL);
	struct kiwi_ulp_rec r;

	KUNIT_ASSERT_NOT_NULL(test, pdata);
	pdata[0] = 0xab;
	p.private_data = pdata;
	p.qpn = kiwi_ulp_qp(u);
	KUNIT_ASSERT_EQ(test, kiwi_cm_connect(id, &p), 0);
	KUNIT_EXPECT_EQ(test, kiwi_cm_id_state(id), KIWI_CM_STATE_CONN_SENT);
	/* 14-bit IRD/ORD and 512 bytes reach the provider untruncated */
	KUNIT_EXPECT_EQ(test, u->m->last_ird, KIWI_CM_MAX_IRD_ORD);
	KUNIT_EXPECT_EQ(test, u->m->last_ord, KIWI_CM_MAX_IRD_ORD - 1);
	KUNIT_EXPECT_EQ(test, u->m->last_pdata_len, 512);
	KUNIT_EXPECT_EQ(test, u->m->last_pdata[0], 0xab);
	KUNIT_EXPECT_EQ(test, kiwi_mock_calls(u->m, KIWI_MOCK_ADD_REF), 1);

	ev.private_data = "xyz";
	ev.private_data_len = 3;
	ev.ird = 7;
	ev.ord = 9;
	KUNIT_ASSERT_EQ(test,
			kiwi_mock_inject(u->m, id, &ev, KIWI_MOCK_PROCESS), 0);
	KUNIT_ASSERT_TRUE(test, kiwi_ulp_wait(u, 1));
	r = kiwi_ulp_rec(u, 0);
	KUNIT_EXPECT_PTR_EQ(test, r.id, id);
	KUNIT_EXPECT_EQ(test, r.event, KIWI_CM_EVENT_CONNECT_REPLY);
	KUNIT_EXPECT_EQ(test, r.status, 0);
	KUNIT_EXPECT_EQ(test, r.len, 3);
	KUNIT_EXPECT_EQ(test, r.pdata0, 'x');
	KUNIT_EXPECT_EQ(test, r.ird, 7);
	KUNIT_EXPECT_EQ(test, r.ord, 9);
	KUNIT_EXPECT_EQ(test, kiwi_cm_id_state(id), KIWI_CM_STATE_ESTABLISHED);
}

struct param_case {
	const char *name;
	u16 len;
	u16 ird;
	u16 ord;
};

static const struct param_case param_cases[] = {
	{ "pdata 513", KIWI_CM_MAX_PRIVATE_DATA + 1, 1, 1 },
	{ "ird 2^14", 0, KIWI_CM_MAX_IRD_ORD + 1, 1 },
	{ "ord 2^14", 0, 1, KIWI_CM_MAX_IRD_ORD + 1 },
	{ "ird 0xffff", 0, 0xffff, 1 },
};

static void param_case_desc(const struct param_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(param, param_cases, param_case_desc);

/* Values MPA cannot carry are refused, never truncated; the id stays usable. */
static void cm_conn_param_limits(struct kunit *test)
{
	const struct param_case *c = test->param_value;
	struct kiwi_ulp *u = kiwi_ulp_setup(test);
	struct kiwi_cm_id *id = kiwi_ulp_id(u);
	struct kiwi_conn_param p = { .ird = c->ird,
				     .ord = c->ord,
				     .private_data_len = c->len };
	u8 *pdata = kunit_kzalloc(test, 1024, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, pdata);
	p.private_data = pdata;
	p.qpn = kiwi_ulp_qp(u);
	KUNIT_EXPECT_EQ(test, kiwi_cm_connect(id, &p), -EINVAL);
	KUNIT_EXPECT_EQ(test, kiwi_mock_calls(u->m, KIWI_MOCK_CONNECT), 0);
	KUNIT_EXPECT_EQ(test, kiwi_cm_id_state(id), KIWI_CM_STATE_IDLE);
	p = (struct kiwi_conn_param){ .qpn = p.qpn };
	KUNIT_EXPECT_EQ(test, kiwi_cm_connect(id, &p), 0);
}

static void cm_passive_accept(struct kunit *test)
{
	struct kiwi_ulp *u = kiwi_ulp_setup(test);
	struct kiwi_cm_id *l = kiwi_ulp_listen(u, 0);
	struct kiwi_cm_id *child;
	struct kiwi_conn_param p = {};
	char got[8];

	KUNIT_EXPECT_EQ(test, u->m->last_backlog, KIWI_CM_DEFAULT_BACKLOG);
	child = kiwi_ulp_request(u, l);
	KUNIT_EXPECT_PTR_NE(test, child, l);
	KUNIT_EXPECT_PTR_EQ(test, child->context, (void *)u);
	KUNIT_EXPECT_EQ(test, kiwi_cm_id_state(child), KIWI_CM_STATE_CONN_RECV);
	p.qpn = kiwi_ulp_qp(u);
	KUNIT_ASSERT_EQ(test, kiwi_cm_accept(child, &p), 0);
	KUNIT_EXPECT_EQ(test, kiwi_cm_accept(child, &p), -EINVAL);
	KUNIT_ASSERT_EQ(test,
			kiwi_ulp_ev(u, child, KIWI_CM_EVENT_ESTABLISHED, 0), 0);
	KUNIT_ASSERT_TRUE(test, kiwi_ulp_wait(u, 2));
	kiwi_t_events(u, child, 0, got, sizeof(got));
	KUNIT_EXPECT_STREQ(test, got, "QE");
	KUNIT_EXPECT_EQ(test, kiwi_cm_id_state(child),
			KIWI_CM_STATE_ESTABLISHED);
	KUNIT_EXPECT_EQ(test, kiwi_cm_id_state(l), KIWI_CM_STATE_LISTEN);
	KUNIT_EXPECT_EQ(test, kiwi_ulp_cnt(u, KIWI_DEV_CNT_REQUESTS), 1);
	KUNIT_EXPECT_EQ(test, kiwi_ulp_cnt(u, KIWI_DEV_CNT_ACCEPTS), 1);
}

static void cm_passive_reject(struct kunit *test)
{
	struct kiwi_ulp *u = kiwi_ulp_setup(test);
	struct kiwi_cm_id *child = kiwi_ulp_request(u, kiwi_ulp_listen(u, 0));

	KUNIT_EXPECT_EQ(test, kiwi_cm_reject(child, "no", 2), 0);
	KUNIT_EXPECT_EQ(test, u->m->last_pdata_len, 2);
	KUNIT_EXPECT_EQ(test, kiwi_mock_calls(u->m, KIWI_MOCK_REJECT), 1);
	KUNIT_EXPECT_EQ(test, kiwi_cm_id_state(child), KIWI_CM_STATE_IDLE);
	KUNIT_EXPECT_EQ(test, kiwi_cm_reject(child, NULL, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, kiwi_ulp_cnt(u, KIWI_DEV_CNT_REJECTS), 1);
	kiwi_ulp_destroy(u, child);
	/* an answered request is not rejected a second time by destroy */
	KUNIT_EXPECT_EQ(test, kiwi_mock_calls(u->m, KIWI_MOCK_REJECT), 1);
}

/*
 * iw_reject fails: the request stays unanswered (CONN_RECV), so destroy
 * still tells the provider to reject it.
 */
static void cm_reject_fails(struct kunit *test)
{
	struct kiwi_ulp *u = kiwi_ulp_setup(test);
	struct kiwi_cm_id *child = kiwi_ulp_request(u, kiwi_ulp_listen(u, 0));

	kiwi_mock_fail(u->m, KIWI_MOCK_REJECT, -EIO);
	KUNIT_EXPECT_EQ(test, kiwi_cm_reject(child, NULL, 0), -EIO);
	KUNIT_EXPECT_EQ(test, kiwi_cm_id_state(child), KIWI_CM_STATE_CONN_RECV);
	KUNIT_EXPECT_EQ(test, kiwi_ulp_cnt(u, KIWI_DEV_CNT_REJECTS), 0);
	kiwi_ulp_destroy(u, child);
	KUNIT_EXPECT_EQ(test, kiwi_mock_calls(u->m, KIWI_MOCK_REJECT), 2);
}

/* 2006 question 1: reject on the active side is -EINVAL, a no-op. */
static void cm_q1_reject_active_side(struct kunit *test)
{
	struct kiwi_ulp *u = kiwi_ulp_setup(test);
	struct kiwi_cm_id *id = kiwi_ulp_connect(u);

	KUNIT_EXPECT_EQ(test, kiwi_cm_reject(id, NULL, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, kiwi_cm_id_state(id), KIWI_CM_STATE_CONN_SENT);
	KUNIT_EXPECT_EQ(test, kiwi_mock_calls(u->m, KIWI_MOCK_REJECT), 0);
	kiwi_ulp_destroy(u, kiwi_ulp_established(u));
	id = kiwi_ulp_established(u);
	KUNIT_EXPECT_EQ(test, kiwi_cm_reject(id, NULL, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, kiwi_cm_id_state(id), KIWI_CM_STATE_ESTABLISHED);
}

/*
 * 2006 question 2: accept() returned 0, then MPA failed. The provider
 * reports CLOSE with a negative status; the owner sees exactly that one
 * event, no ESTABLISHED and no DISCONNECT, and the QP is unpinned.
 */
static void cm_q2_accept_then_mpa_fails(struct kunit *test)
{
	struct kiwi_ulp *u = kiwi_ulp_setup(test);
	struct kiwi_cm_id *child = kiwi_ulp_request(u, kiwi_ulp_listen(u, 0));
	struct kiwi_conn_param p = { .qpn = kiwi_ulp_qp(u) };
	struct kiwi_ulp_rec r;
	char got[8];

	KUNIT_ASSERT_EQ(test, kiwi_cm_accept(child, &p), 0);
	KUNIT_ASSERT_EQ(test,
			kiwi_ulp_ev(u, child, KIWI_CM_EVENT_CLOSE, -ECONNRESET),
			0);
	kiwi_cm_id_flush(child);
	kiwi_t_events(u, child, 1, got, sizeof(got));
	KUNIT_EXPECT_STREQ(test, got, "C");
	r = kiwi_ulp_rec(u, 1);
	KUNIT_EXPECT_EQ(test, r.status, -ECONNRESET);
	KUNIT_EXPECT_EQ(test, kiwi_cm_id_state(child), KIWI_CM_STATE_IDLE);
	KUNIT_EXPECT_EQ(test, kiwi_mock_calls(u->m, KIWI_MOCK_REM_REF),
			kiwi_mock_calls(u->m, KIWI_MOCK_ADD_REF));
}

/*
 * 2006 question 3, graceful: the side that disconnects first sees only
 * CLOSE(0) (a DISCONNECT the provider reports to it is absorbed); the peer
 * sees DISCONNECT, then CLOSE(0).
 */
static void cm_q3_graceful_teardown(struct kunit *test)
{
	struct kiwi_ulp *u = kiwi_ulp_setup(test);
	struct kiwi_cm_id *a = kiwi_ulp_established(u);
	struct kiwi_cm_id *b = kiwi_t_passive(u);
	int from = kiwi_ulp_count(u);
	char got[8];

	KUNIT_ASSERT_EQ(test,
			kiwi_cm_disconnect(a, KIWI_CM_DISCONNECT_GRACEFUL), 0);
	KUNIT_EXPECT_EQ(test, u->m->last_qp_state, IB_QPS_SQD);
	KUNIT_EXPECT_EQ(test, kiwi_cm_id_state(a), KIWI_CM_STATE_CLOSING);
	KUNIT_EXPECT_EQ(test, kiwi_ulp_ev(u, b, KIWI_CM_EVENT_DISCONNECT, 0),
			0);
	KUNIT_EXPECT_EQ(test, kiwi_ulp_ev(u, a, KIWI_CM_EVENT_DISCONNECT, 0),
			0);
	KUNIT_EXPECT_EQ(test,
			kiwi_cm_disconnect(b, KIWI_CM_DISCONNECT_GRACEFUL), 0);
	KUNIT_EXPECT_EQ(test, kiwi_ulp_ev(u, a, KIWI_CM_EVENT_CLOSE, 0), 0);
	KUNIT_EXPECT_EQ(test, kiwi_ulp_ev(u, b, KIWI_CM_EVENT_CLOSE, 0), 0);
	kiwi_cm_id_flush(a);
	kiwi_cm_id_flush(b);
	kiwi_t_events(u, a, from, got, sizeof(got));
	KUNIT_EXPECT_STREQ(test, got, "C");
	kiwi_t_events(u, b, from, got, sizeof(got));
	KUNIT_EXPECT_STREQ(test, got, "DC");
	KUNIT_EXPECT_EQ(test, kiwi_cm_id_state(a), KIWI_CM_STATE_IDLE);
	KUNIT_EXPECT_EQ(test, kiwi_cm_id_state(b), KIWI_CM_STATE_IDLE);
	KUNIT_EXPECT_EQ(test, kiwi_ulp_cnt(u, KIWI_DEV_CNT_VIOLATIONS), 0);
}

/*
 * 2006 question 3, abortive: nobody sees DISCONNECT. The aborting side
 * sees CLOSE with the status its provider reports, the peer sees CLOSE
 * with -ECONNRESET.
 */
static void cm_q3_abortive_teardown(struct kunit *test)
{
	struct kiwi_ulp *u = kiwi_ulp_setup(test);
	struct kiwi_cm_id *a = kiwi_ulp_established(u);
	struct kiwi_cm_id *b = kiwi_t_passive(u);
	int from = kiwi_ulp_count(u);
	char got[8];
	int ret;

	KUNIT_ASSERT_EQ(test,
			kiwi_cm_disconnect(a, KIWI_CM_DISCONNECT_ABORTIVE), 0);
	KUNIT_EXPECT_EQ(test, u->m->last_qp_state, IB_QPS_ERR);
	ret = kiwi_ulp_ev(u, a, KIWI_CM_EVENT_CLOSE, -ECONNABORTED);
	KUNIT_EXPECT_EQ(test, ret, 0);
	kiwi_cm_id_flush(a);
	KUNIT_EXPECT_EQ(test,
			kiwi_ulp_ev(u, b, KIWI_CM_EVENT_CLOSE, -ECONNRESET), 0);
	kiwi_cm_id_flush(b);
	kiwi_t_events(u, a, from, got, sizeof(got));
	KUNIT_EXPECT_STREQ(test, got, "C");
	kiwi_t_events(u, b, from, got, sizeof(got));
	KUNIT_EXPECT_STREQ(test, got, "C");
	KUNIT_EXPECT_EQ(test, kiwi_ulp_rec(u, from + 1).status, -ECONNRESET);
}

/* Both sides call disconnect at once: each sees exactly one CLOSE. */
static void cm_both_disconnect(struct kunit *test)
{
	struct kiwi_ulp *u = kiwi_ulp_setup(test);
	struct kiwi_cm_id *a = kiwi_ulp_established(u);
	struct kiwi_cm_id *b = kiwi_t_passive(u);
	int from = kiwi_ulp_count(u);
	char got[8];

	KUNIT_EXPECT_EQ(test,
			kiwi_cm_disconnect(a, KIWI_CM_DISCONNECT_GRACEFUL), 0);
	KUNIT_EXPECT_EQ(test,
			kiwi_cm_disconnect(b, KIWI_CM_DISCONNECT_GRACEFUL), 0);
	KUNIT_EXPECT_EQ(test, kiwi_ulp_ev(u, a, KIWI_CM_EVENT_DISCONNECT, 0),
			0);
	KUNIT_EXPECT_EQ(test, kiwi_ulp_ev(u, b, KIWI_CM_EVENT_DISCONNECT, 0),
			0);
	/* a second abortive call escalates, still legal */
	KUNIT_EXPECT_EQ(test,
			kiwi_cm_disconnect(a, KIWI_CM_DISCONNECT_ABORTIVE), 0);
	KUNIT_EXPECT_EQ(test, kiwi_ulp_ev(u, b, KIWI_CM_EVENT_CLOSE, 0), 0);
	KUNIT_EXPECT_EQ(test, kiwi_ulp_ev(u, a, KIWI_CM_EVENT_CLOSE, 0), 0);
	kiwi_cm_id_flush(a);
	kiwi_cm_id_flush(b);
	kiwi_t_events(u, a, from, got, sizeof(got));
	KUNIT_EXPECT_STREQ(test, got, "C");
	kiwi_t_events(u, b, from, got, sizeof(got));
	KUNIT_EXPECT_STREQ(test, got, "C");
	KUNIT_EXPECT_EQ(test,
			kiwi_cm_disconnect(a, KIWI_CM_DISCONNECT_GRACEFUL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, kiwi_ulp_cnt(u, KIWI_DEV_CNT_VIOLATIONS), 0);
}

/* An established connection whose QP the test owns directly. */
static struct kiwi_cm_id *own_qp_connection(struct kiwi_ulp *u,
					    struct ib_qp **qpp)
{
	struct ib_qp_init_attr init = { KT_QP_RC, .send_cq = u->cq,
					.recv_cq = u->cq };
	struct kiwi_cm_id *id = kiwi_ulp_id(u);
	struct kiwi_conn_param p = {};
	struct ib_qp *qp;

	qp = kiwi_create_qp(u->pd, &init);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(u->test, qp);
	*qpp = qp;
	p.qpn = qp->qp_num;
	KUNIT_ASSERT_EQ(u->test, kiwi_cm_connect(id, &p), 0);
	KUNIT_ASSERT_EQ(u->test,
			kiwi_ulp_ev(u, id, KIWI_CM_EVENT_CONNECT_REPLY, 0), 0);
	kiwi_cm_id_flush(id);
	return id;
}

static void cm_destroy_qp_then_id(struct kunit *test)
{
	struct kiwi_ulp *u = kiwi_ulp_setup(test);
	struct ib_qp *qp;
	struct kiwi_cm_id *id = own_qp_connection(u, &qp);

	kiwi_destroy_qp(qp);
	/* the connection still pins it */
	KUNIT_EXPECT_EQ(test, atomic_read(&u->m->qps_alive), 1);
	kiwi_ulp_destroy(u, id);
	KUNIT_EXPECT_EQ(test, u->m->last_qp_state, IB_QPS_ERR);
	KUNIT_EXPECT_EQ(test, atomic_read(&u->m->qps_alive), 0);
}

static void cm_destroy_id_then_qp(struct kunit *test)
{
	struct kiwi_ulp *u = kiwi_ulp_setup(test);
	struct ib_qp *qp;
	struct kiwi_cm_id *id = own_qp_connection(u, &qp);

	kiwi_ulp_destroy(u, id);
	KUNIT_EXPECT_EQ(test, kiwi_mock_calls(u->m, KIWI_MOCK_REM_REF), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&u->m->qps_alive), 1);
	kiwi_destroy_qp(qp);
	KUNIT_EXPECT_EQ(test, atomic_read(&u->m->qps_alive), 0);
}

/* The CLOSE unpins the QP before the owner hears of it. */
static void cm_close_unpins_qp(struct kunit *test)
{
	struct kiwi_ulp *u = kiwi_ulp_setup(test);
	struct ib_qp *qp;
	int ret;
	struct kiwi_cm_id *id = own_qp_connection(u, &qp);

	kiwi_destroy_qp(qp);
	ret = kiwi_ulp_ev(u, id, KIWI_CM_EVENT_CLOSE, -ECONNRESET);
	KUNIT_ASSERT_EQ(test, ret, 0);
	kiwi_cm_id_flush(id);
	KUNIT_EXPECT_EQ(test, atomic_read(&u->m->qps_alive), 0);
	KUNIT_EXPECT_EQ(test, kiwi_cm_id_state(id), KIWI_CM_STATE_IDLE);
}

static int destroy_hook(struct kiwi_ulp *u, struct kiwi_cm_id *id,
			const struct kiwi_cm_event *ev)
{
	if (ev->event == KIWI_CM_EVENT_CONNECT_REPLY)
		kiwi_ulp_destroy(u, id);
	return 0;
}

/* Destroy inside the handler: no deadlock, nothing delivered afterwards. */
static void cm_destroy_in_handler(struct kunit *test)
{
	struct kiwi_ulp *u = kiwi_ulp_setup(test);
	struct kiwi_cm_id *id = kiwi_ulp_connect(u);

	u->hook = destroy_hook;
	KUNIT_ASSERT_EQ(test,
			kiwi_ulp_ev(u, id, KIWI_CM_EVENT_CONNECT_REPLY, 0), 0);
	KUNIT_ASSERT_TRUE(test, kiwi_ulp_wait(u, 1));
	kiwi_cm_id_flush(id); /* the mock's endpoint still pins it */
	KUNIT_EXPECT_EQ(test, kiwi_cm_id_state(id), KIWI_CM_STATE_DESTROYING);
	KUNIT_EXPECT_EQ(test, kiwi_ulp_ev(u, id, KIWI_CM_EVENT_CLOSE, 0), 0);
	kiwi_cm_id_flush(id);
	KUNIT_EXPECT_EQ(test, kiwi_ulp_count(u), 1);
	KUNIT_EXPECT_EQ(test, u->m->last_qp_state, IB_QPS_ERR);
	KUNIT_EXPECT_TRUE(test, kiwi_mock_release(u->m, id));
}

/* A handler returning non-zero has its id destroyed. */
static void cm_handler_nonzero(struct kunit *test)
{
	struct kiwi_ulp *u = kiwi_ulp_setup(test);
	struct kiwi_cm_id *id = kiwi_ulp_connect(u);

	u->ret_on[KIWI_CM_EVENT_CONNECT_REPLY] = -EIO;
	KUNIT_ASSERT_EQ(test,
			kiwi_ulp_ev(u, id, KIWI_CM_EVENT_CONNECT_REPLY, 0), 0);
	kiwi_cm_id_flush(id);
	KUNIT_EXPECT_EQ(test, kiwi_cm_id_state(id), KIWI_CM_STATE_DESTROYING);
	KUNIT_EXPECT_EQ(test, kiwi_mock_calls(u->m, KIWI_MOCK_REM_REF), 1);
	KUNIT_EXPECT_TRUE(test, kiwi_mock_release(u->m, id));
}

/* A CONNECT_REQUEST handler returning non-zero: the core rejects. */
static void cm_request_handler_nonzero(struct kunit *test)
{
	struct kiwi_ulp *u = kiwi_ulp_setup(test);
	struct kiwi_cm_id *l = kiwi_ulp_listen(u, 0);

	u->ret_on[KIWI_CM_EVENT_CONNECT_REQUEST] = 1;
	KUNIT_ASSERT_EQ(test,
			kiwi_ulp_ev(u, l, KIWI_CM_EVENT_CONNECT_REQUEST, 0), 0);
	KUNIT_ASSERT_TRUE(test, kiwi_ulp_wait(u, 1));
	KUNIT_EXPECT_TRUE(test, kiwi_t_wait_calls(u->m, KIWI_MOCK_REJECT, 1));
	KUNIT_EXPECT_EQ(test, kiwi_cm_id_state(l), KIWI_CM_STATE_LISTEN);
}

static int accept_hook(struct kiwi_ulp *u, struct kiwi_cm_id *id,
		       const struct kiwi_cm_event *ev)
{
	struct kiwi_conn_param *p = u->hook_data;

	if (ev->event != KIWI_CM_EVENT_CONNECT_REQUEST)
		return 0;
	return kiwi_cm_accept(id, p) ? 1 : 0;
}

/* accept() from inside the CONNECT_REQUEST handler. */
static void cm_accept_in_handler(struct kunit *test)
{
	struct kiwi_ulp *u = kiwi_ulp_setup(test);
	struct kiwi_cm_id *l = kiwi_ulp_listen(u, 0);
	struct kiwi_conn_param p = { .ird = 3, .ord = 5 };
	struct kiwi_cm_id *child;
	char got[8];

	p.qpn = kiwi_ulp_qp(u);
	u->hook_data = &p;
	u->hook = accept_hook;
	child = kiwi_ulp_request(u, l);
	kiwi_cm_id_flush(child);	/* the hook has returned */
	KUNIT_EXPECT_EQ(test, kiwi_mock_calls(u->m, KIWI_MOCK_ACCEPT), 1);
	KUNIT_EXPECT_EQ(test, u->m->last_ord, 5);
	KUNIT_ASSERT_EQ(test, kiwi_ulp_ev(u, child, KIWI_CM_EVENT_ESTABLISHED,
					  0), 0);
	kiwi_cm_id_flush(child);
	kiwi_t_events(u, child, 0, got, sizeof(got));
	KUNIT_EXPECT_STREQ(test, got, "QE");
}

/* An id carries one connection: listen/connect need a fresh id. */
static void cm_id_single_use(struct kunit *test)
{
	struct kiwi_ulp *u = kiwi_ulp_setup(test);
	struct kiwi_cm_id *id = kiwi_ulp_connect(u);
	struct kiwi_conn_param p = { .qpn = kiwi_ulp_qp(u) };

	KUNIT_ASSERT_EQ(test,
			kiwi_ulp_ev(u, id, KIWI_CM_EVENT_CONNECT_REPLY,
				    -ECONNREFUSED),
			0);
	kiwi_cm_id_flush(id);
	KUNIT_EXPECT_EQ(test, kiwi_ulp_rec(u, 0).status, -ECONNREFUSED);
	KUNIT_EXPECT_EQ(test, kiwi_cm_id_state(id), KIWI_CM_STATE_IDLE);
	KUNIT_EXPECT_EQ(test, kiwi_cm_connect(id, &p), -EINVAL);
	KUNIT_EXPECT_EQ(test, kiwi_cm_listen(id, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test,
			kiwi_cm_disconnect(id, KIWI_CM_DISCONNECT_GRACEFUL),
			-EINVAL);
}

/* Provider op failures leave the id IDLE and the QP unpinned. */
static void cm_provider_op_failures(struct kunit *test)
{
	struct kiwi_ulp *u = kiwi_ulp_setup(test);
	struct kiwi_conn_param p = { .qpn = kiwi_ulp_qp(u) };
	struct kiwi_cm_id *id = kiwi_ulp_id(u);
	struct kiwi_cm_id *child;

	kiwi_mock_fail(u->m, KIWI_MOCK_CONNECT, -EHOSTUNREACH);
	KUNIT_EXPECT_EQ(test, kiwi_cm_connect(id, &p), -EHOSTUNREACH);
	KUNIT_EXPECT_EQ(test, kiwi_cm_id_state(id), KIWI_CM_STATE_IDLE);
	KUNIT_EXPECT_EQ(test, kiwi_mock_calls(u->m, KIWI_MOCK_REM_REF),
			kiwi_mock_calls(u->m, KIWI_MOCK_ADD_REF));
	id = kiwi_ulp_id(u);
	kiwi_mock_fail(u->m, KIWI_MOCK_CREATE_LISTEN, -EADDRINUSE);
	KUNIT_EXPECT_EQ(test, kiwi_cm_listen(id, 4), -EADDRINUSE);
	KUNIT_EXPECT_EQ(test, kiwi_cm_id_state(id), KIWI_CM_STATE_IDLE);

	child = kiwi_ulp_request(u, kiwi_ulp_listen(u, 0));
	kiwi_mock_fail(u->m, KIWI_MOCK_ACCEPT, -ENOMEM);
	KUNIT_EXPECT_EQ(test, kiwi_cm_accept(child, &p), -ENOMEM);
	KUNIT_EXPECT_EQ(test, kiwi_cm_id_state(child), KIWI_CM_STATE_IDLE);
	KUNIT_EXPECT_EQ(test, kiwi_mock_calls(u->m, KIWI_MOCK_REM_REF),
			kiwi_mock_calls(u->m, KIWI_MOCK_ADD_REF));
	KUNIT_EXPECT_EQ(test, kiwi_ulp_cnt(u, KIWI_DEV_CNT_ACCEPTS), 0);
}

/**
 * kiwi_t_block_hook() - a ULP hook that blocks on one event type
 * @u: the fixture; @u->hook_data is a struct kiwi_t_block
 * @id: the id
 * @ev: the event
 *
 * Return: @b->ret for the blocking event type, 0 for others.
 */
int kiwi_t_block_hook(struct kiwi_ulp *u, struct kiwi_cm_id *id,
		      const struct kiwi_cm_event *ev)
{
	struct kiwi_t_block *b = u->hook_data;

	if (ev->event != b->event)
		return 0;
	complete(&b->entered);
	wait_for_completion_timeout(&b->release, 10 * HZ);
	return b->ret;
}

/**
 * kiwi_t_block_init() - arm a blocking hook
 * @u: the fixture
 * @b: the block
 * @event: the event type to block on
 */
void kiwi_t_block_init(struct kiwi_ulp *u, struct kiwi_t_block *b, u8 event)
{
	init_completion(&b->entered);
	init_completion(&b->release);
	b->event = event;
	b->ret = 0;
	u->hook_data = b;
	u->hook = kiwi_t_block_hook;
}

/* A bounded backlog: overflow is refused and counted, the listener lives. */
static void cm_backlog_overflow(struct kunit *test)
{
	struct kiwi_ulp *u = kiwi_ulp_setup(test);
	struct kiwi_cm_id *l = kiwi_ulp_listen(u, 2);
	struct kiwi_t_block b;
	int i;

	kiwi_t_block_init(u, &b, KIWI_CM_EVENT_CONNECT_REQUEST);
	KUNIT_EXPECT_EQ(test, u->m->last_backlog, 2);
	for (i = 0; i < 2; i++)
		KUNIT_EXPECT_EQ(test, kiwi_ulp_ev(u, l, T_REQUEST, 0), 0);
	KUNIT_EXPECT_EQ(test,
			kiwi_ulp_ev(u, l, KIWI_CM_EVENT_CONNECT_REQUEST, 0),
			-ECONNREFUSED);
	KUNIT_EXPECT_EQ(test, kiwi_ulp_cnt(u, KIWI_DEV_CNT_BACKLOG_DROPS), 1);
	complete_all(&b.release);
	KUNIT_ASSERT_TRUE(test, kiwi_ulp_wait(u, 2));
	u->hook = NULL;
	kiwi_cm_id_flush(kiwi_ulp_rec(u, 0).id);
	kiwi_cm_id_flush(kiwi_ulp_rec(u, 1).id);
	KUNIT_EXPECT_EQ(test,
			kiwi_ulp_ev(u, l, KIWI_CM_EVENT_CONNECT_REQUEST, 0), 0);
	KUNIT_EXPECT_TRUE(test, kiwi_ulp_wait(u, 3));
	KUNIT_EXPECT_EQ(test, kiwi_ulp_cnt(u, KIWI_DEV_CNT_REQUESTS), 3);
	KUNIT_EXPECT_EQ(test, kiwi_cm_id_state(l), KIWI_CM_STATE_LISTEN);
}

static struct kunit_case cm_cases[] = {
	KUNIT_CASE(cm_active_established),
	KUNIT_CASE_PARAM(cm_conn_param_limits, param_gen_params),
	KUNIT_CASE(cm_passive_accept),
	KUNIT_CASE(cm_passive_reject),
	KUNIT_CASE(cm_q1_reject_active_side),
	KUNIT_CASE(cm_reject_fails),
	KUNIT_CASE(cm_q2_accept_then_mpa_fails),
	KUNIT_CASE(cm_q3_graceful_teardown),
	KUNIT_CASE(cm_q3_abortive_teardown),
	KUNIT_CASE(cm_both_disconnect),
	KUNIT_CASE(cm_destroy_qp_then_id),
	KUNIT_CASE(cm_destroy_id_then_qp),
	KUNIT_CASE(cm_close_unpins_qp),
	KUNIT_CASE(cm_destroy_in_handler),
	KUNIT_CASE(cm_handler_nonzero),
	KUNIT_CASE(cm_request_handler_nonzero),
	KUNIT_CASE(cm_accept_in_handler),
	KUNIT_CASE(cm_id_single_use),
	KUNIT_CASE(cm_provider_op_failures),
	KUNIT_CASE(cm_backlog_overflow),
	{}
};

static struct kunit_suite cm_suite = {
	.name = "kiwi_iwcm_cm",
	.test_cases = cm_cases,
};

kunit_test_suite(cm_suite);
