// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_softiw_cm: connections between two softiw endpoints over loopback
 * through the iw_cm API, and across the veth pair: connect, accept (over
 * IPv4 and IPv6, with the addresses both ends report), reject, graceful
 * and abortive teardown, MPA revisions 1 and 2 with and without CRC, a
 * refused TCP connect and the MPA reply timeout; a Request already there
 * when the listener accepts is read by the listener's work, one arriving
 * later by the endpoint's, and one arriving on another CPU than the
 * listener's work by the endpoint's work on that CPU.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <net/inet_connection_sock.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "cm.h"
#include "cm_fixture.h"
#include "mpa_key.h"
#include "softiw.h"

/* An MPA revision 1 Request with the 3 bytes "abc" of private data. */
#define CM_REQ_ABC	KEY_REQ "\x00\x01\x00\x03\x61\x62\x63"
#define CM_REQ_ABC_LEN	23

/* Put the parameters back as the module loaded them, whatever a case did. */
static void cm_test_exit(struct kunit *test)
{
	cmt_param(test, "mpa_rev", "2");
	cmt_param(test, "mpa_crc", "N");
	cmt_param(test, "mpa_timeout_ms", "10000");
	cmt_param(test, "max_pending", "32");
}

/* Connect, accept, check both ends' events and private data. */
static struct kiwi_cm_id *cm_establish(struct cmt *t, struct kiwi_cm_id **child)
{
	struct kunit *test = t->test;
	struct kiwi_conn_param p = {
		.private_data = "ok", .private_data_len = 2, .ird = 4, .ord = 4,
	};
	struct ib_qp *qa, *qb;
	const struct cmt_rec *r;
	struct kiwi_cm_id *a;
	unsigned long idle;

	cmt_listen(t);
	idle = kiwi_softiw_idle_connect_steps();
	a = cmt_connect(t, "hello", t->port);
	qa = t->qps[t->nqps - 1];
	r = cmt_wait(t, KIWI_CM_EVENT_CONNECT_REQUEST, NULL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->len, 5);
	CMT_EXPECT_MEM(test, r->pd, "hello", 5);
	/* The initiator awaits the Reply: its setup state is there. */
	KUNIT_EXPECT_TRUE(test, kiwi_softiw_qp_in_setup(qa));
	/*
	 * Over lo the handshake ends within connect, which sent the Request
	 * itself: no worker was woken for the initiator only to find it done.
	 */
	KUNIT_EXPECT_EQ(test, kiwi_softiw_idle_connect_steps() - idle, 0UL);
	*child = r->id;
	p.qpn = cmt_qp(t);
	qb = t->qps[t->nqps - 1];
	KUNIT_ASSERT_EQ(test, kiwi_cm_accept(*child, &p), 0);
	KUNIT_ASSERT_NOT_NULL(test, cmt_wait(t, KIWI_CM_EVENT_ESTABLISHED,
					     *child));
	r = cmt_wait(t, KIWI_CM_EVENT_CONNECT_REPLY, a);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->status, 0);
	KUNIT_EXPECT_EQ(test, r->len, 2);
	CMT_EXPECT_MEM(test, r->pd, "ok", 2);
	KUNIT_EXPECT_EQ(test, kiwi_cm_id_state(a), KIWI_CM_STATE_ESTABLISHED);
	cmt_expect_ends(t, a, KIWI_TEST_LO, *child, KIWI_TEST_LO);
	/* Both are up: what only setup needed is freed. */
	KUNIT_EXPECT_FALSE(test, kiwi_softiw_qp_in_setup(qa));
	KUNIT_EXPECT_FALSE(test, kiwi_softiw_qp_in_setup(qb));
	return a;
}

/* Graceful: the initiator sees CLOSE only, the peer DISCONNECT then CLOSE. */
static void cm_graceful(struct cmt *t, struct kiwi_cm_id *a,
			struct kiwi_cm_id *b)
{
	struct kunit *test = t->test;
	const struct cmt_rec *r;

	KUNIT_ASSERT_EQ(test, kiwi_cm_disconnect(a, KIWI_CM_DISCONNECT_GRACEFUL),
			0);
	KUNIT_ASSERT_NOT_NULL(test, cmt_wait(t, KIWI_CM_EVENT_DISCONNECT, b));
	KUNIT_ASSERT_EQ(test, kiwi_cm_disconnect(b, KIWI_CM_DISCONNECT_GRACEFUL),
			0);
	r = cmt_wait(t, KIWI_CM_EVENT_CLOSE, a);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->status, 0);
	r = cmt_wait(t, KIWI_CM_EVENT_CLOSE, b);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->status, 0);
	KUNIT_EXPECT_EQ(test, cmt_count(t, KIWI_CM_EVENT_DISCONNECT), 1);
}

static void cm_roundtrip(struct kunit *test, const char *rev, const char *crc,
			 u16 port, int family)
{
	struct kiwi_cm_id *a, *b;
	struct cmt *t;

	cmt_param(test, "mpa_rev", rev);
	cmt_param(test, "mpa_crc", crc);
	t = cmt_setup(test, port);
	t->family = family;
	a = cm_establish(t, &b);
	cm_graceful(t, a, b);
	cmt_teardown(t);
}

/* Over 127.0.0.1, then over ::1. */
static void cm_v2_nocrc(struct kunit *test)
{
	cm_roundtrip(test, "2", "N", 21001, kiwi_test_family(test));
}

static void cm_v2_crc(struct kunit *test)
{
	cm_roundtrip(test, "2", "Y", 21002, AF_INET);
}

static void cm_v1_nocrc(struct kunit *test)
{
	cm_roundtrip(test, "1", "N", 21003, AF_INET);
}

static void cm_v1_crc(struct kunit *test)
{
	cm_roundtrip(test, "1", "Y", 21004, AF_INET);
}

static void cm_abortive(struct kunit *test)
{
	struct cmt *t = cmt_setup(test, 21005);
	struct kiwi_cm_id *a, *b;
	const struct cmt_rec *r;

	a = cm_establish(t, &b);
	KUNIT_ASSERT_EQ(test, kiwi_cm_disconnect(a, KIWI_CM_DISCONNECT_ABORTIVE),
			0);
	r = cmt_wait(t, KIWI_CM_EVENT_CLOSE, a);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_LT(test, r->status, 0);
	r = cmt_wait(t, KIWI_CM_EVENT_CLOSE, b);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->status, -ECONNRESET);
	KUNIT_EXPECT_EQ(test, cmt_count(t, KIWI_CM_EVENT_DISCONNECT), 0);
	cmt_teardown(t);
}

/*
 * Over 127.0.0.1, then over ::1: the request's id has the listener's
 * address and the initiator's, its private data goes back to the
 * initiator with the refusal.
 */
static void cm_reject(struct kunit *test)
{
	struct cmt *t = cmt_setup(test, 21006);
	const struct cmt_rec *r;
	struct kiwi_cm_id *a;

	t->family = kiwi_test_family(test);
	cmt_listen(t);
	a = cmt_connect(t, "hi", t->port);
	r = cmt_wait(t, KIWI_CM_EVENT_CONNECT_REQUEST, NULL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->len, 2);
	CMT_EXPECT_MEM(test, r->pd, "hi", 2);
	kiwi_test_expect_addr(test, &r->id->local_addr, t->family,
			      KIWI_TEST_LO, t->port);
	kiwi_test_expect_addr(test, &r->id->remote_addr, t->family,
			      KIWI_TEST_LO, 0);
	KUNIT_ASSERT_EQ(test, kiwi_cm_reject(r->id, "no", 2), 0);
	r = cmt_wait(t, KIWI_CM_EVENT_CONNECT_REPLY, a);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->status, -ECONNREFUSED);
	KUNIT_EXPECT_EQ(test, r->len, 2);
	CMT_EXPECT_MEM(test, r->pd, "no", 2);
	cmt_teardown(t);
}

/* The owner destroys a request it never answered: the core rejects it. */
static void cm_unanswered_request(struct kunit *test)
{
	struct cmt *t = cmt_setup(test, 21007);
	const struct cmt_rec *r;
	struct kiwi_cm_id *a;

	cmt_listen(t);
	a = cmt_connect(t, NULL, t->port);
	r = cmt_wait(t, KIWI_CM_EVENT_CONNECT_REQUEST, NULL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	cmt_destroy(t, r->id);
	r = cmt_wait(t, KIWI_CM_EVENT_CONNECT_REPLY, a);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->status, -ECONNREFUSED);
	cmt_teardown(t);
}

static void cm_no_listener(struct kunit *test)
{
	struct cmt *t = cmt_setup(test, 21008);
	const struct cmt_rec *r;
	struct kiwi_cm_id *a;

	a = cmt_connect(t, NULL, t->port);
	r = cmt_wait(t, KIWI_CM_EVENT_CONNECT_REPLY, a);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->status, -ECONNREFUSED);
	cmt_teardown(t);
}

/* A peer that completes TCP but never answers the MPA request. */
static void cm_reply_timeout(struct kunit *test)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET, .sin_port = htons(21009),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	const struct cmt_rec *r;
	struct socket *mute;
	struct kiwi_cm_id *a;
	struct cmt *t;

	cmt_param(test, "mpa_timeout_ms", "300");
	t = cmt_setup(test, 21009);
	KUNIT_ASSERT_EQ(test, sock_create_kern(&init_net, AF_INET, SOCK_STREAM,
					       IPPROTO_TCP, &mute), 0);
	KUNIT_ASSERT_EQ(test, kernel_bind(mute, (struct sockaddr *)&sin,
					  sizeof(sin)), 0);
	KUNIT_ASSERT_EQ(test, kernel_listen(mute, 4), 0);
	a = cmt_connect(t, "x", t->port);
	r = cmt_wait(t, KIWI_CM_EVENT_CONNECT_REPLY, a);
	sock_release(mute);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->status, -ETIMEDOUT);
	cmt_teardown(t);
}

/*
 * The ULP moves its QP to ERROR while the MPA Reply is awaited (as the
 * core does when the id is destroyed then): the connect fails with
 * -ECONNABORTED at once instead of running on to a QP in ERROR.
 */
static void cm_error_while_connecting(struct kunit *test)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET, .sin_port = htons(21091),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	const struct cmt_rec *r;
	struct socket *mute;
	struct kiwi_cm_id *a;
	struct cmt *t;
	int ret;

	t = cmt_setup(test, 21091);
	KUNIT_ASSERT_EQ(test, sock_create_kern(&init_net, AF_INET, SOCK_STREAM,
					       IPPROTO_TCP, &mute), 0);
	ret = kernel_bind(mute, (struct sockaddr *)&sin, sizeof(sin));
	if (!ret)
		ret = kernel_listen(mute, 4);
	if (ret)
		sock_release(mute);
	KUNIT_ASSERT_EQ(test, ret, 0);
	a = cmt_connect_qp(t, "x", t->port, cmt_qp(t));
	msleep(200);	/* TCP up, Request sent: now awaiting the Reply */
	ret = kiwi_modify_qp(t->qps[t->nqps - 1], &attr, IB_QP_STATE);
	r = cmt_wait(t, KIWI_CM_EVENT_CONNECT_REPLY, a);
	sock_release(mute);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->status, -ECONNABORTED);
	KUNIT_EXPECT_EQ(test, cmt_count(t, KIWI_CM_EVENT_CONNECT_REPLY), 1);
	cmt_teardown(t);
}

static void cm_detach(struct kunit_resource *res)
{
	kiwi_softiw_detach(res->data);
}

static void cm_put_dev(struct kunit_resource *res)
{
	kiwi_device_put(res->data);
}

/*
 * Wildcard listeners of two devices of one namespace (lo and kv0) on one
 * port: both listen, and a connection to 127.0.0.1 reaches lo's.
 */
static void cm_wildcard_two_devices(struct kunit *test)
{
	struct kiwi_cm_id *on_lo, *on_kv0, *a;
	struct ib_device *kv0;
	const struct cmt_rec *r;
	struct cmt *t;

	/* Released last: after the fixture has destroyed its ids. */
	KUNIT_ASSERT_EQ(test, kiwi_softiw_attach("kv0"), 0);
	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test, NULL, cm_detach,
							 GFP_KERNEL, "kv0"));
	t = cmt_setup(test, 21092);
	kv0 = kiwi_device_get_by_name("softiw_kv0");
	KUNIT_ASSERT_NOT_NULL(test, kv0);
	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test, NULL,
							 cm_put_dev,
							 GFP_KERNEL, kv0));
	on_lo = cmt_id_on(t, t->dev);
	on_kv0 = cmt_id_on(t, kv0);
	cmt_any_addr(&on_lo->local_addr, t->port);
	cmt_any_addr(&on_kv0->local_addr, t->port);
	KUNIT_ASSERT_EQ(test, kiwi_cm_listen(on_lo, 8), 0);
	KUNIT_ASSERT_EQ(test, kiwi_cm_listen(on_kv0, 8), 0);

	a = cmt_connect(t, "any", t->port);
	r = cmt_wait(t, KIWI_CM_EVENT_CONNECT_REQUEST, NULL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_PTR_EQ(test, r->id->device, t->dev);
	KUNIT_EXPECT_EQ(test, kiwi_cm_reject(r->id, NULL, 0), 0);
	r = cmt_wait(t, KIWI_CM_EVENT_CONNECT_REPLY, a);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->status, -ECONNREFUSED);
	cmt_teardown(t);
}

/*
 * softiw on kv0 connects to softiw on kv1 in the peer namespace, which
 * listens on the wildcard address: over 198.18.0.x, then over
 * fd00:198:18::x. Both ends report the veth addresses of the family, and
 * a graceful close ends both.
 */
static void cm_veth(struct kunit *test)
{
	const enum kiwi_cm_disconnect_mode how = KIWI_CM_DISCONNECT_GRACEFUL;
	struct net *peer = kiwi_test_peer_net(test);
	const struct cmt_rec *r;
	struct kiwi_cm_id *a, *b;
	struct ib_qp *qa, *qb;
	struct cmt *ta, *tb;

	ta = cmt_setup_in(test, &init_net, "kv0", "softiw_kv0", 21096);
	tb = cmt_setup_in(test, peer, "kv1", "softiw_kv1", 21096);
	ta->family = kiwi_test_family(test);
	tb->family = ta->family;
	cmt_qp(ta);
	qa = ta->qps[ta->nqps - 1];
	cmt_qp(tb);
	qb = tb->qps[tb->nqps - 1];
	a = cmt_connect_veth(ta, qa, tb, qb);
	r = cmt_wait(tb, KIWI_CM_EVENT_CONNECT_REQUEST, NULL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	b = r->id;
	cmt_expect_ends(tb, a, KIWI_TEST_KV0, b, KIWI_TEST_KV1);

	KUNIT_ASSERT_EQ(test, kiwi_cm_disconnect(a, how), 0);
	KUNIT_ASSERT_NOT_NULL(test, cmt_wait(tb, KIWI_CM_EVENT_DISCONNECT, b));
	KUNIT_ASSERT_EQ(test, kiwi_cm_disconnect(b, how), 0);
	r = cmt_wait(ta, KIWI_CM_EVENT_CLOSE, a);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->status, 0);
	r = cmt_wait(tb, KIWI_CM_EVENT_CLOSE, b);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->status, 0);
	cmt_release(ta);
	cmt_teardown(tb);
}

/* A raw client's Request became a CONNECT_REQUEST with its data. */
static void cm_expect_abc(struct cmt *t, struct socket *s)
{
	const struct cmt_rec *r;

	r = cmt_wait(t, KIWI_CM_EVENT_CONNECT_REQUEST, NULL);
	KUNIT_ASSERT_NOT_NULL(t->test, r);
	KUNIT_EXPECT_EQ(t->test, r->len, 3);
	CMT_EXPECT_MEM(t->test, r->pd, "abc", 3);
	KUNIT_EXPECT_EQ(t->test, kiwi_cm_reject(r->id, NULL, 0), 0);
	cmt_raw_close(s, false);
}

/*
 * Move the test's thread to @cpu: over lo, what it sends is received on
 * the CPU it sends from, so this chooses where the client's packets
 * arrive. The case's thread ends with the case, and its affinity with it.
 */
static void cm_pin(struct kunit *test, unsigned int cpu)
{
	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current, cpumask_of(cpu)),
			0);
}

/* Wait up to 1 s for the listener's socket to hold a connection. */
static void cm_wait_accept_queue(struct kunit *test,
				 struct softiw_listener *lst)
{
	int ms;

	for (ms = 0; ms < 1000; ms += 20) {
		if (READ_ONCE(lst->sock->sk->sk_ack_backlog))
			return;
		msleep(20);
	}
	KUNIT_FAIL(test, "no connection in the listener's accept queue");
}

/* Bytes the first connection in @lst's accept queue has received. */
static u32 cm_accept_queue_bytes(struct softiw_listener *lst)
{
	struct request_sock_queue *q =
		&inet_csk(lst->sock->sk)->icsk_accept_queue;
	struct request_sock *req;
	u32 bytes = 0;

	spin_lock_bh(&q->rskq_lock);
	req = q->rskq_accept_head;
	if (req && req->sk)
		bytes = READ_ONCE(tcp_sk(req->sk)->rcv_nxt) -
			READ_ONCE(tcp_sk(req->sk)->copied_seq);
	spin_unlock_bh(&q->rskq_lock);
	return bytes;
}

/*
 * Wait up to 1 s for the queued connection to hold @len bytes: under
 * load, softirqs run late (ksoftirqd), and a send over lo may return
 * before its bytes reached the receiving socket.
 */
static void cm_wait_accept_queue_bytes(struct kunit *test,
				       struct softiw_listener *lst, u32 len)
{
	int ms;

	for (ms = 0; ms < 1000; ms += 20) {
		if (cm_accept_queue_bytes(lst) >= len)
			return;
		msleep(20);
	}
	KUNIT_FAIL(test, "the Request did not reach the accept queue");
}

/*
 * Connect and send a whole Request while the test holds the listener's
 * mutex, from @connect_cpu and then @send_cpu: the listener's work, queued
 * where the handshake was received, accepts the connection once the
 * mutex is free, with the Request in the socket.
 */
static void cm_request_held(struct cmt *t, struct softiw_listener *lst,
			    struct socket *s, unsigned int connect_cpu,
			    unsigned int send_cpu)
{
	int conn, sent = 0;

	cm_pin(t->test, connect_cpu);
	mutex_lock(&lst->lock);
	conn = cmt_raw_connect_to(s, t->port);
	if (!conn) {
		cm_wait_accept_queue(t->test, lst);
		cm_pin(t->test, send_cpu);
		sent = cmt_raw_send(s, CM_REQ_ABC, CM_REQ_ABC_LEN);
		if (sent == CM_REQ_ABC_LEN)
			cm_wait_accept_queue_bytes(t->test, lst, sent);
	}
	mutex_unlock(&lst->lock);
	KUNIT_ASSERT_EQ(t->test, conn, 0);
	KUNIT_ASSERT_EQ(t->test, sent, CM_REQ_ABC_LEN);
}

/* Who read the Requests so far: the listener, an endpoint's work. */
struct cm_steps {
	unsigned long listener;
	unsigned long work;
	unsigned long handoffs;
};

static void cm_steps_now(struct cm_steps *steps)
{
	steps->listener = kiwi_softiw_request_steps(true);
	steps->work = kiwi_softiw_request_steps(false);
	steps->handoffs = kiwi_softiw_request_handoffs();
}

/* Expect @want more of each than @before. */
static void cm_expect_steps(struct kunit *test, const struct cm_steps *before,
			    const struct cm_steps *want)
{
	struct cm_steps now;

	cm_steps_now(&now);
	KUNIT_EXPECT_EQ(test, now.listener - before->listener, want->listener);
	KUNIT_EXPECT_EQ(test, now.work - before->work, want->work);
	KUNIT_EXPECT_EQ(test, now.handoffs - before->handoffs, want->handoffs);
}

/*
 * The Request is in the socket when the listener accepts it, and came
 * on the listener's CPU: the listener's work reads and delivers it, the
 * endpoint's work never runs for it.
 */
static void cm_request_with_accept(struct kunit *test)
{
	static const struct cm_steps want = { .listener = 1 };
	struct cmt *t = cmt_setup(test, 21093);
	unsigned int cpu = raw_smp_processor_id();
	struct softiw_listener *lst;
	struct cm_steps before;
	struct socket *s;

	lst = cmt_listen(t)->provider_data;
	s = cmt_raw_socket(test);
	cm_steps_now(&before);
	cm_request_held(t, lst, s, cpu, cpu);
	cm_expect_abc(t, s);
	cm_expect_steps(test, &before, &want);
	cmt_teardown(t);
}

/*
 * The handshake came on one CPU, the Request on another: the listener's
 * work, on the first, hands the endpoint's first step to the second,
 * where the endpoint's work reads and delivers the Request once.
 */
static void cm_request_handoff(struct kunit *test)
{
	static const struct cm_steps want = { .work = 1, .handoffs = 1 };
	struct softiw_listener *lst;
	struct cm_steps before;
	unsigned int a, b;
	struct socket *s;
	struct cmt *t;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two online CPUs");
	a = cpumask_first(cpu_online_mask);
	b = cpumask_next(a, cpu_online_mask);
	t = cmt_setup(test, 21095);
	lst = cmt_listen(t)->provider_data;
	s = cmt_raw_socket(test);
	cm_steps_now(&before);
	cm_request_held(t, lst, s, a, b);
	cm_expect_abc(t, s);
	cm_expect_steps(test, &before, &want);
	cmt_teardown(t);
}

/*
 * The Request comes in two pieces after the listener's step found
 * nothing: the endpoint's work, queued by the data, reads it.
 */
static void cm_request_after_accept(struct kunit *test)
{
	struct cmt *t = cmt_setup(test, 21094);
	unsigned long by_lst, by_work;
	struct socket *s;
	int ms;

	cm_pin(test, raw_smp_processor_id());
	cmt_listen(t);
	by_lst = kiwi_softiw_request_steps(true);
	by_work = kiwi_softiw_request_steps(false);
	s = cmt_raw_connect(test, t->port);
	for (ms = 0; ms < 5000; ms += 20) {
		if (kiwi_softiw_request_steps(true) != by_lst)
			break;
		msleep(20);
	}
	KUNIT_ASSERT_EQ(test, kiwi_softiw_request_steps(true) - by_lst, 1UL);
	KUNIT_EXPECT_EQ(test, cmt_raw_send(s, CM_REQ_ABC, 10), 10);
	msleep(50);
	KUNIT_EXPECT_EQ(test, cmt_raw_send(s, CM_REQ_ABC + 10,
					   CM_REQ_ABC_LEN - 10),
			CM_REQ_ABC_LEN - 10);
	cm_expect_abc(t, s);
	KUNIT_EXPECT_EQ(test, kiwi_softiw_request_steps(true) - by_lst, 1UL);
	KUNIT_EXPECT_GE(test, kiwi_softiw_request_steps(false) - by_work, 1UL);
	cmt_teardown(t);
}

/* MPA revision 2 carries 508 bytes of the ULP's after its IRD/ORD word. */
#define CM_PD_MAX_V2	508

/*
 * The device's limit is what a ULP may send over every revision: one
 * byte more is refused by the call, before anything goes out, and the
 * request stays answerable; the limit itself goes through both ways.
 */
static void cm_pdata_limit(struct kunit *test)
{
	struct cmt *t = cmt_setup(test, 21009);
	struct kiwi_conn_param p = { .ird = 4, .ord = 4 };
	struct ib_device_attr attr;
	const struct cmt_rec *r;
	struct kiwi_cm_id *a;
	u8 *pd = cmt_buf(t, CM_PD_MAX_V2 + 1);

	KUNIT_ASSERT_EQ(test, kiwi_query_device(t->dev, &attr), 0);
	KUNIT_EXPECT_EQ(test, t->dev->iw_max_private_data, CM_PD_MAX_V2);
	memset(pd, 'p', CM_PD_MAX_V2 + 1);
	cmt_listen(t);
	p.private_data = pd;
	p.private_data_len = CM_PD_MAX_V2 + 1;
	p.qpn = cmt_qp(t);
	a = cmt_id_on(t, t->dev);
	cmt_any_addr(&a->remote_addr, t->port);
	((struct sockaddr_in *)&a->remote_addr)->sin_addr.s_addr =
		htonl(INADDR_LOOPBACK);
	KUNIT_EXPECT_EQ(test, kiwi_cm_connect(a, &p), -EINVAL);
	p.private_data_len = CM_PD_MAX_V2;
	KUNIT_ASSERT_EQ(test, kiwi_cm_connect(a, &p), 0);
	r = cmt_wait(t, KIWI_CM_EVENT_CONNECT_REQUEST, NULL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->len, CM_PD_MAX_V2);
	p.qpn = cmt_qp(t);
	p.private_data_len = CM_PD_MAX_V2 + 1;
	KUNIT_EXPECT_EQ(test, kiwi_cm_accept(r->id, &p), -EINVAL);
	KUNIT_EXPECT_EQ(test, kiwi_cm_id_state(r->id), KIWI_CM_STATE_CONN_RECV);
	p.private_data_len = CM_PD_MAX_V2;
	KUNIT_ASSERT_EQ(test, kiwi_cm_accept(r->id, &p), 0);
	r = cmt_wait(t, KIWI_CM_EVENT_CONNECT_REPLY, a);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->status, 0);
	KUNIT_EXPECT_EQ(test, r->len, CM_PD_MAX_V2);
	cmt_teardown(t);
}

/* A revision 1 peer may send all 512 bytes MPA allows: they arrive. */
static void cm_pdata_v1_peer_512(struct kunit *test)
{
	static const char hdr[] = KEY_REQ "\x00\x01\x02\x00";
	struct cmt *t = cmt_setup(test, 21010);
	u8 *frame = cmt_buf(t, 20 + KIWI_CM_MAX_PRIVATE_DATA);
	const struct cmt_rec *r;
	struct socket *s;

	memcpy(frame, hdr, 20);
	memset(frame + 20, 'v', KIWI_CM_MAX_PRIVATE_DATA);
	cmt_listen(t);
	s = cmt_raw_connect(test, t->port);
	KUNIT_EXPECT_EQ(test, cmt_raw_send(s, frame,
					   20 + KIWI_CM_MAX_PRIVATE_DATA),
			20 + KIWI_CM_MAX_PRIVATE_DATA);
	r = cmt_wait(t, KIWI_CM_EVENT_CONNECT_REQUEST, NULL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->len, KIWI_CM_MAX_PRIVATE_DATA);
	CMT_EXPECT_MEM(test, r->pd, "vvvvvvvv", 8);
	KUNIT_EXPECT_EQ(test, kiwi_cm_reject(r->id, NULL, 0), 0);
	cmt_raw_close(s, false);
	cmt_teardown(t);
}

static struct kunit_case cm_cases[] = {
	KUNIT_CASE_PARAM(cm_v2_nocrc, kiwi_test_family_params),
	KUNIT_CASE(cm_v2_crc),
	KUNIT_CASE(cm_v1_nocrc),
	KUNIT_CASE(cm_v1_crc),
	KUNIT_CASE(cm_abortive),
	KUNIT_CASE_PARAM(cm_reject, kiwi_test_family_params),
	KUNIT_CASE(cm_unanswered_request),
	KUNIT_CASE(cm_no_listener),
	KUNIT_CASE(cm_pdata_limit),
	KUNIT_CASE(cm_pdata_v1_peer_512),
	KUNIT_CASE(cm_reply_timeout),
	KUNIT_CASE(cm_error_while_connecting),
	KUNIT_CASE(cm_wildcard_two_devices),
	KUNIT_CASE_PARAM(cm_veth, kiwi_test_family_params),
	KUNIT_CASE(cm_request_with_accept),
	KUNIT_CASE(cm_request_after_accept),
	KUNIT_CASE(cm_request_handoff),
	{}
};

static struct kunit_suite cm_suite = {
	.suite_init = cmt_suite_init,
	.suite_exit = cmt_suite_exit,
	.name = "kiwi_softiw_cm",
	.exit = cm_test_exit,
	.test_cases = cm_cases,
};

kunit_test_suite(cm_suite);
