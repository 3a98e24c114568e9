// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_rdmacm_softiw: rdma_cm end to end over a real softiw device on lo.
 * A server that disconnects and destroys its id at once closes the
 * stream gracefully: the client's DISCONNECTED has status 0, not
 * -ECONNRESET, and the server's iw_cm id lingers only until the client's
 * half of the close comes. A client that disconnects first gets its
 * DISCONNECTED before the server's FIN, and no reset is sent. The type
 * of service set with rdma_set_service_type() is the one the TCP
 * connection carries.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/in.h>
#include <linux/inet.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <net/inet_ecn.h>
#include <net/ip.h>
#include <net/net_namespace.h>
#include <net/tcp.h>

#include "kiwi_test.h"
#include "verbs_util.h"
#include "rdmacm_test.h"
#include "softiw.h"

#define SC_ROUNDS 20
#define SC_PORT 7520
/* For sc_setup_as() and sc_connect_as(): no rdma_set_service_type(). */
#define SC_NO_TOS (-1)
/* DSCP AF11 and AF21, ECN bits clear */
#define SC_CLIENT_TOS 0x28
#define SC_LISTEN_TOS 0x48

/**
 * struct sc - the fixture: one client and one server connection
 * @test: the test
 * @dev: softiw_lo, referenced
 * @cq: the CQ of both QPs
 * @pd: the PD of both QPs
 * @s: each side's last event; its lock protects @child too
 * @listener: the server's listener
 * @client: the client's id
 * @child: the server's id of the connection, set by CONNECT_REQUEST
 */
struct sc {
	struct kunit *test;
	struct ib_device *dev;
	struct ib_cq *cq;
	struct ib_pd *pd;
	struct kiwi_rt_sides s;
	struct rdma_cm_id *listener;
	struct rdma_cm_id *client;
	struct rdma_cm_id *child;
};

static int sc_qp(struct sc *t, struct rdma_cm_id *id)
{
	struct ib_qp_init_attr init = { KT_QP_RC, .cap = { 4, 4, 1, 1 } };

	init.send_cq = t->cq;
	init.recv_cq = t->cq;
	return rdma_create_qp(id, t->pd, &init);
}

static int sc_request(struct sc *t, struct rdma_cm_id *id)
{
	struct rdma_conn_param p = { .responder_resources = 1,
				     .initiator_depth = 1 };
	unsigned long flags;

	spin_lock_irqsave(&t->s.lock, flags);
	t->child = id;
	spin_unlock_irqrestore(&t->s.lock, flags);
	if (sc_qp(t, id) || rdma_accept(id, &p)) {
		spin_lock_irqsave(&t->s.lock, flags);
		t->child = NULL;
		spin_unlock_irqrestore(&t->s.lock, flags);
		return 1;	/* rdma_cm destroys it */
	}
	return 0;
}

static int sc_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct sc *t = id->context;
	int side = id != t->client;
	int ret = 0;

	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		ret = sc_request(t, id);
	kiwi_rt_sides_note(&t->s, side, ev);
	return ret;
}

static int sc_wait(struct sc *t, int side, int event)
{
	return kiwi_rt_sides_wait(&t->s, side, event);
}

static struct rdma_cm_id *sc_take(struct sc *t, struct rdma_cm_id **idp)
{
	struct rdma_cm_id *id;
	unsigned long flags;

	spin_lock_irqsave(&t->s.lock, flags);
	id = *idp;
	*idp = NULL;
	spin_unlock_irqrestore(&t->s.lock, flags);
	return id;
}

static void sc_destroy(struct sc *t, struct rdma_cm_id **idp)
{
	struct rdma_cm_id *id = sc_take(t, idp);

	if (id)
		kiwi_rt_destroy_with_qp(id);
}

static void sc_free(struct kunit_resource *res)
{
	struct sc *t = res->data;

	sc_destroy(t, &t->client);
	sc_destroy(t, &t->child);
	sc_destroy(t, &t->listener);
	if (!IS_ERR_OR_NULL(t->cq))
		kiwi_destroy_cq(t->cq);
	if (!IS_ERR_OR_NULL(t->pd))
		kiwi_dealloc_pd(t->pd);
	if (t->dev)
		kiwi_device_put(t->dev);
}

/*
 * The fixture, its listener on lo's address of @family, with @tos set on
 * it unless SC_NO_TOS.
 */
static struct sc *sc_setup_as(struct kunit *test, int family, int tos)
{
	struct sc *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	struct sockaddr_storage src;

	KUNIT_ASSERT_NOT_NULL(test, t);
	t->test = test;
	kiwi_rt_sides_init(&t->s);
	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test, NULL, sc_free,
							 GFP_KERNEL, t));
	t->dev = kiwi_device_get_by_name("softiw_lo");
	KUNIT_ASSERT_NOT_NULL(test, t->dev);
	t->cq = kt_cq(t->dev, 32, NULL, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(t->cq));
	t->pd = kiwi_alloc_pd(t->dev, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(t->pd));
	t->listener = rdma_create_id(&init_net, sc_handler, t, RDMA_PS_TCP,
				     IB_QPT_RC);
	KUNIT_ASSERT_FALSE(test, IS_ERR(t->listener));
	kiwi_test_addr(test, &src, family, KIWI_TEST_LO, SC_PORT);
	KUNIT_ASSERT_EQ(test, rdma_bind_addr(t->listener,
					     (struct sockaddr *)&src), 0);
	if (tos != SC_NO_TOS)
		rdma_set_service_type(t->listener, tos);
	KUNIT_ASSERT_EQ(test, rdma_listen(t->listener, 0), 0);
	return t;
}

static struct sc *sc_setup(struct kunit *test)
{
	return sc_setup_as(test, AF_INET, SC_NO_TOS);
}

/*
 * A client connection of @family to the listener, established on both
 * sides; the client sets @tos before rdma_connect() unless SC_NO_TOS.
 */
static void sc_connect_as(struct sc *t, int family, int tos)
{
	struct rdma_conn_param p = { .responder_resources = 1,
				     .initiator_depth = 1 };
	struct kunit *test = t->test;
	struct sockaddr_storage dst;
	struct rdma_cm_id *id;

	kiwi_rt_sides_forget(&t->s);
	id = rdma_create_id(&init_net, sc_handler, t, RDMA_PS_TCP, IB_QPT_RC);
	KUNIT_ASSERT_FALSE(test, IS_ERR(id));
	t->client = id;
	kiwi_test_addr(test, &dst, family, KIWI_TEST_LO, SC_PORT);
	KUNIT_ASSERT_EQ(test, rdma_resolve_addr(id, NULL,
						(struct sockaddr *)&dst, 2000),
			0);
	KUNIT_ASSERT_EQ(test, sc_wait(t, 0, RDMA_CM_EVENT_ADDR_RESOLVED), 0);
	KUNIT_ASSERT_EQ(test, rdma_resolve_route(id, 2000), 0);
	KUNIT_ASSERT_EQ(test, sc_wait(t, 0, RDMA_CM_EVENT_ROUTE_RESOLVED), 0);
	KUNIT_ASSERT_EQ(test, sc_qp(t, id), 0);
	if (tos != SC_NO_TOS)
		rdma_set_service_type(id, tos);
	KUNIT_ASSERT_EQ(test, rdma_connect(id, &p), 0);
	KUNIT_ASSERT_EQ(test, sc_wait(t, 0, RDMA_CM_EVENT_ESTABLISHED), 0);
	KUNIT_ASSERT_EQ(test, sc_wait(t, 1, RDMA_CM_EVENT_ESTABLISHED), 0);
}

static void sc_connect(struct sc *t)
{
	sc_connect_as(t, AF_INET, SC_NO_TOS);
}

/* Wait (5 s) until @n iw_cm ids are alive. */
static bool sc_wait_live(int n)
{
	int i;

	for (i = 0; i < 250 && kiwi_cm_live_ids() != n; i++)
		msleep(20);
	return kiwi_cm_live_ids() == n;
}

/*
 * The server disconnects and destroys its id at once, 20 times: every
 * time the client's DISCONNECTED has status 0 (the FIN came, no reset),
 * and once the client closed its half the server's lingering iw_cm id is
 * gone well before the linger timeout (the CLOSE ended it, not the
 * abort). Before LINGER, some of these came with -ECONNRESET.
 */
static void rdmacm_softiw_destroy_after_disconnect(struct kunit *test)
{
	struct sc *t = sc_setup(test);
	int live = kiwi_cm_live_ids();
	int i, resets = 0;

	for (i = 0; i < SC_ROUNDS; i++) {
		struct rdma_cm_id *child;
		int status;

		sc_connect(t);
		child = sc_take(t, &t->child);
		KUNIT_ASSERT_NOT_NULL(test, child);
		KUNIT_ASSERT_EQ(test, rdma_disconnect(child), 0);
		kiwi_rt_destroy_with_qp(child);

		status = sc_wait(t, 0, RDMA_CM_EVENT_DISCONNECTED);
		KUNIT_EXPECT_EQ_MSG(test, status, 0, "round %d", i);
		resets += status != 0;
		KUNIT_EXPECT_EQ(test, rdma_disconnect(t->client), 0);
		sc_destroy(t, &t->client);
		KUNIT_ASSERT_TRUE_MSG(test, sc_wait_live(live), "round %d", i);
	}
	kunit_info(test, "%d of %d DISCONNECTED with an error", resets,
		   SC_ROUNDS);
}

/* TCP resets sent in init_net (lo carries both ends). */
static unsigned long sc_resets(void)
{
	return snmp_fold_field(init_net.mib.tcp_statistics, TCP_MIB_OUTRSTS);
}

static int sc_count(struct sc *t, int side)
{
	return kiwi_rt_sides_count(&t->s, side);
}

/* Wait (5 s) until the client's iw_cm id is in @state. */
static bool sc_wait_cm(struct sc *t, enum kiwi_cm_state state)
{
	struct kiwi_cm_id *cm = kiwi_rdma_priv(t->client)->cm;
	int i;

	for (i = 0; i < 250 && kiwi_cm_id_state(cm) != state; i++)
		msleep(20);
	return kiwi_cm_id_state(cm) == state;
}

/* The server closes its half and goes; the client goes before or after. */
static void sc_close_both(struct sc *t, bool client_first)
{
	struct kunit *test = t->test;
	struct rdma_cm_id *child;

	if (client_first)
		sc_destroy(t, &t->client);
	child = sc_take(t, &t->child);
	KUNIT_ASSERT_NOT_NULL(test, child);
	KUNIT_EXPECT_EQ(test, rdma_disconnect(child), 0);
	kiwi_rt_destroy_with_qp(child);
	if (client_first)
		return;
	/* the server's FIN ends the client's close: CLOSE, not shown */
	KUNIT_EXPECT_TRUE(test, sc_wait_cm(t, KIWI_CM_STATE_IDLE));
	sc_destroy(t, &t->client);
}

/*
 * The client disconnects while the server does nothing: the client's
 * DISCONNECTED (status 0) comes while its iw_cm id still waits for the
 * server's FIN (CLOSING); the server's DISCONNECTED is 0 too. Then the
 * server closes its half and both go, the client before the server's FIN
 * (it lingers) in odd rounds: one event per side, no TCP reset sent.
 * Before the prompt DISCONNECTED, the client's came only with the
 * server's FIN, here never.
 */
static void rdmacm_softiw_prompt_disconnected(struct kunit *test)
{
	struct sc *t = sc_setup(test);
	int live = kiwi_cm_live_ids();
	unsigned long resets = sc_resets();
	int i;

	for (i = 0; i < SC_ROUNDS; i++) {
		int c0, c1;

		sc_connect(t);
		c0 = sc_count(t, 0);
		c1 = sc_count(t, 1);
		KUNIT_ASSERT_EQ(test, rdma_disconnect(t->client), 0);
		KUNIT_EXPECT_EQ_MSG(test,
				    sc_wait(t, 0, RDMA_CM_EVENT_DISCONNECTED),
				    0, "round %d", i);
		KUNIT_EXPECT_TRUE_MSG(test, sc_wait_cm(t, KIWI_CM_STATE_CLOSING),
				      "round %d", i);
		KUNIT_EXPECT_EQ_MSG(test,
				    sc_wait(t, 1, RDMA_CM_EVENT_DISCONNECTED),
				    0, "round %d", i);
		sc_close_both(t, i & 1);
		KUNIT_ASSERT_TRUE_MSG(test, sc_wait_live(live), "round %d", i);
		KUNIT_EXPECT_EQ(test, sc_count(t, 0), c0 + 1);
		KUNIT_EXPECT_EQ(test, sc_count(t, 1), c1 + 1);
	}
	KUNIT_EXPECT_EQ(test, sc_resets(), resets);
}

/* The server's id of the connection, still in place. */
static struct rdma_cm_id *sc_child(struct sc *t)
{
	struct rdma_cm_id *id;
	unsigned long flags;

	spin_lock_irqsave(&t->s.lock, flags);
	id = t->child;
	spin_unlock_irqrestore(&t->s.lock, flags);
	KUNIT_ASSERT_NOT_NULL(t->test, id);
	return id;
}

/*
 * The TOS of both sockets of the connection, ECN bits cleared: what each
 * sends with, and what the server's accepted socket received with the
 * client's handshake (the IPv4 header's TOS, or the IPv6 traffic class).
 */
static void sc_tos(struct sc *t, struct softiw_tos *client,
		   struct softiw_tos *server)
{
	struct kunit *test = t->test;

	KUNIT_ASSERT_TRUE(test, kiwi_softiw_qp_tos(t->client->qp, client));
	KUNIT_ASSERT_TRUE(test, kiwi_softiw_qp_tos(sc_child(t)->qp, server));
	client->sent &= ~INET_ECN_MASK;
	client->received &= ~INET_ECN_MASK;
	server->sent &= ~INET_ECN_MASK;
	server->received &= ~INET_ECN_MASK;
}

/*
 * rdma_set_service_type() reaches the wire. A client that sets TOS 0x28
 * before rdma_connect() connects to a listener that set 0x48 before
 * rdma_listen(): the server's accepted socket received the client's
 * handshake with 0x28, it sends with the listener's 0x48 (as the
 * listening socket does) and the client's with 0x28; the server's id,
 * and its iw_cm id, have the listener's TOS. A second client that sets
 * none keeps the kernel's default: its handshake came with 0, while the
 * server's side of it still sends with the listener's. Before the TOS
 * was handed to softiw, every one of these was 0.
 */
static void rdmacm_softiw_tos(struct kunit *test)
{
	int family = kiwi_test_family(test);
	struct sc *t = sc_setup_as(test, family, SC_LISTEN_TOS);
	struct softiw_tos client, server, lst;
	struct kiwi_cm_id *cm;
	struct rdma_cm_id *child;

	cm = kiwi_rdma_priv(t->listener)->cm;
	KUNIT_ASSERT_NOT_NULL(test, cm);
	kiwi_softiw_listener_tos(cm, &lst);
	KUNIT_EXPECT_EQ(test, lst.sent & ~INET_ECN_MASK, SC_LISTEN_TOS);
	sc_connect_as(t, family, SC_CLIENT_TOS);
	sc_tos(t, &client, &server);
	KUNIT_EXPECT_EQ(test, server.received, SC_CLIENT_TOS);
	KUNIT_EXPECT_EQ(test, client.sent, SC_CLIENT_TOS);
	KUNIT_EXPECT_EQ(test, server.sent, SC_LISTEN_TOS);
	child = sc_child(t);
	KUNIT_EXPECT_TRUE(test, child->route.tos_set);
	KUNIT_EXPECT_EQ(test, child->route.tos, SC_LISTEN_TOS);
	cm = kiwi_rdma_priv(child)->cm;
	KUNIT_ASSERT_NOT_NULL(test, cm);
	KUNIT_EXPECT_TRUE(test, cm->tos_set);
	KUNIT_EXPECT_EQ(test, cm->tos, SC_LISTEN_TOS);
	KUNIT_ASSERT_EQ(test, rdma_disconnect(t->client), 0);
	KUNIT_EXPECT_EQ(test, sc_wait(t, 0, RDMA_CM_EVENT_DISCONNECTED), 0);
	KUNIT_EXPECT_EQ(test, sc_wait(t, 1, RDMA_CM_EVENT_DISCONNECTED), 0);
	sc_close_both(t, false);

	sc_connect_as(t, family, SC_NO_TOS);
	sc_tos(t, &client, &server);
	KUNIT_EXPECT_EQ(test, server.received, 0);
	KUNIT_EXPECT_EQ(test, client.sent, 0);
	KUNIT_EXPECT_EQ(test, server.sent, SC_LISTEN_TOS);
	KUNIT_EXPECT_FALSE(test, t->client->route.tos_set);
}

static int sc_suite_init(struct kunit_suite *suite)
{
	int ret = kiwi_softiw_attach("lo");

	return ret == -EEXIST ? 0 : ret;
}

static void sc_suite_exit(struct kunit_suite *suite)
{
	kiwi_softiw_detach("lo");
	kiwi_softiw_flush_detach();
}

static struct kunit_case rdmacm_softiw_cases[] = {
	KUNIT_CASE(rdmacm_softiw_destroy_after_disconnect),
	KUNIT_CASE(rdmacm_softiw_prompt_disconnected),
	KUNIT_CASE_PARAM(rdmacm_softiw_tos, kiwi_test_family_params),
	{}
};

static struct kunit_suite rdmacm_softiw_suite = {
	.name = "kiwi_rdmacm_softiw",
	.suite_init = sc_suite_init,
	.suite_exit = sc_suite_exit,
	.test_cases = rdmacm_softiw_cases,
};

kunit_test_suite(rdmacm_softiw_suite);
