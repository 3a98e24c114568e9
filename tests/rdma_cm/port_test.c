// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_rdmacm_port: the active side's TCP source port is the one its id
 * reports. softiw on kv0 connects to a listener on softiw on kv1 in the
 * peer namespace: a port the client bound is the connection's; a port
 * rdma_cm picked is left to TCP, which skips four-tuples in TIME_WAIT,
 * and the id reports (and holds) the port TCP chose. Either way the
 * client's source is the server child's destination and the other way
 * round.
 */
#include <kunit/test.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <net/inet_hashtables.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <net/tcp_states.h>

#include "verbs_util.h"
#include "kiwi_test.h"
#include "rdmacm_test.h"
#include "softiw.h"

#define PT_ROUNDS 100
#define PT_RANGE_LOW 40000	/* rdmacm_port_time_wait's ephemeral range */
#define PT_RANGE 250
#define PT_SHARED_PORT 29999	/* below the ephemeral range: no TIME_WAIT */

/**
 * struct pt - the fixture: softiw on both veth ends, one listener in the
 *	peer namespace and the client connection of the moment
 * @test: the test
 * @peer: the peer namespace
 * @dev: the softiw devices of kv0 (0, the client's) and kv1 (1)
 * @cq: a CQ on each
 * @pd: a PD on each
 * @attached: which of the two this case attached (and detaches)
 * @s: each side's last event; its lock protects @child too
 * @listener: the server's listener
 * @client: the client's id
 * @child: the server's id of the connection, set by CONNECT_REQUEST
 * @other: one more client-side id the case holds (its events count as
 *	the client's)
 */
struct pt {
	struct kunit *test;
	struct net *peer;
	struct ib_device *dev[2];
	struct ib_cq *cq[2];
	struct ib_pd *pd[2];
	bool attached[2];
	struct kiwi_rt_sides s;
	struct rdma_cm_id *listener;
	struct rdma_cm_id *client;
	struct rdma_cm_id *child;
	struct rdma_cm_id *other;
};

static int pt_qp(struct pt *t, struct rdma_cm_id *id)
{
	struct ib_qp_init_attr init = { KT_QP_RC, .cap = { 4, 4, 1, 1 } };
	int side = id->device == t->dev[1];

	init.send_cq = t->cq[side];
	init.recv_cq = t->cq[side];
	return rdma_create_qp(id, t->pd[side], &init);
}

/*
 * Accept one connection at a time: a request while the case holds a
 * child (one it did not expect) is refused, so that no id is forgotten.
 */
static int pt_request(struct pt *t, struct rdma_cm_id *id)
{
	struct rdma_conn_param p = { .responder_resources = 1,
				     .initiator_depth = 1 };
	unsigned long flags;
	bool busy;

	spin_lock_irqsave(&t->s.lock, flags);
	busy = t->child;
	if (!busy)
		t->child = id;
	spin_unlock_irqrestore(&t->s.lock, flags);
	if (busy)
		return 1;	/* rdma_cm destroys it */
	if (!pt_qp(t, id) && !rdma_accept(id, &p))
		return 0;
	spin_lock_irqsave(&t->s.lock, flags);
	t->child = NULL;
	spin_unlock_irqrestore(&t->s.lock, flags);
	return 1;
}

static int pt_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct pt *t = id->context;
	int side = id != t->client && id != t->other;
	int ret = 0;

	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		ret = pt_request(t, id);
	kiwi_rt_sides_note(&t->s, side, ev);
	return ret;
}

static int pt_wait(struct pt *t, int side, int event)
{
	return kiwi_rt_sides_wait(&t->s, side, event);
}

static void pt_destroy(struct pt *t, struct rdma_cm_id **idp)
{
	struct rdma_cm_id *id;
	unsigned long flags;

	spin_lock_irqsave(&t->s.lock, flags);
	id = *idp;
	*idp = NULL;
	spin_unlock_irqrestore(&t->s.lock, flags);
	if (id)
		kiwi_rt_destroy_with_qp(id);
}

static const char *const pt_ifname[] = { "kv0", "kv1" };
static const char *const pt_devname[] = { "softiw_kv0", "softiw_kv1" };

static struct net *pt_net(struct pt *t, int side)
{
	return side ? t->peer : &init_net;
}

static void pt_free(struct kunit_resource *res)
{
	struct pt *t = res->data;
	int i;

	pt_destroy(t, &t->client);
	pt_destroy(t, &t->child);
	pt_destroy(t, &t->other);
	pt_destroy(t, &t->listener);
	for (i = 0; i < 2; i++) {
		if (!IS_ERR_OR_NULL(t->cq[i]))
			kiwi_destroy_cq(t->cq[i]);
		if (!IS_ERR_OR_NULL(t->pd[i]))
			kiwi_dealloc_pd(t->pd[i]);
		if (t->dev[i])
			kiwi_device_put(t->dev[i]);
		if (t->attached[i])
			kiwi_softiw_detach_in(pt_net(t, i), pt_ifname[i]);
	}
}

static struct pt *pt_setup(struct kunit *test)
{
	struct pt *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	int i, ret;

	KUNIT_ASSERT_NOT_NULL(test, t);
	t->test = test;
	t->peer = kiwi_test_peer_net(test);
	kiwi_rt_sides_init(&t->s);
	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test, NULL, pt_free,
							 GFP_KERNEL, t));
	for (i = 0; i < 2; i++) {
		ret = kiwi_softiw_attach_in(pt_net(t, i), pt_ifname[i]);
		KUNIT_ASSERT_TRUE(test, !ret || ret == -EEXIST);
		t->attached[i] = !ret;
		t->dev[i] = kiwi_device_get_by_name(pt_devname[i]);
		KUNIT_ASSERT_NOT_NULL(test, t->dev[i]);
		t->cq[i] = kt_cq(t->dev[i], 32, NULL, NULL);
		KUNIT_ASSERT_FALSE(test, IS_ERR(t->cq[i]));
		t->pd[i] = kiwi_alloc_pd(t->dev[i], 0);
		KUNIT_ASSERT_FALSE(test, IS_ERR(t->pd[i]));
	}
	return t;
}

static const char *pt_ip(int family, int side)
{
	if (family == AF_INET)
		return side ? "198.18.0.2" : "198.18.0.1";
	return side ? "fd00:198:18::2" : "fd00:198:18::1";
}

static struct rdma_cm_id *pt_id(struct pt *t, struct net *net)
{
	struct rdma_cm_id *id;

	id = rdma_create_id(net, pt_handler, t, RDMA_PS_TCP, IB_QPT_RC);
	KUNIT_ASSERT_FALSE(t->test, IS_ERR(id));
	return id;
}

/* The listener: the peer's address of @family, @port. */
static void pt_listen(struct pt *t, int family, u16 port)
{
	struct kunit *test = t->test;
	struct sockaddr_storage ss;

	t->listener = pt_id(t, t->peer);
	kiwi_rt_addr(&ss, family, pt_ip(family, 1), port);
	KUNIT_ASSERT_EQ(test, rdma_bind_addr(t->listener,
					     (struct sockaddr *)&ss), 0);
	KUNIT_ASSERT_EQ(test, rdma_listen(t->listener, 0), 0);
}

/*
 * The client-side @id, bound to kv0's address and @port if @port, its
 * route to the listener's @family address and port @to resolved, a QP.
 */
static void pt_resolve_id(struct pt *t, struct rdma_cm_id *id, int family,
			  u16 port, u16 to)
{
	struct kunit *test = t->test;
	struct sockaddr_storage src, dst;

	kiwi_rt_sides_forget(&t->s);
	if (port) {
		kiwi_rt_addr(&src, family, pt_ip(family, 0), port);
		KUNIT_ASSERT_EQ(test, rdma_bind_addr(id,
						     (struct sockaddr *)&src),
				0);
	}
	kiwi_rt_addr(&dst, family, pt_ip(family, 1), to);
	KUNIT_ASSERT_EQ(test, rdma_resolve_addr(id, NULL,
						(struct sockaddr *)&dst, 3000),
			0);
	KUNIT_ASSERT_EQ(test, pt_wait(t, 0, RDMA_CM_EVENT_ADDR_RESOLVED), 0);
	KUNIT_ASSERT_EQ(test, rdma_resolve_route(id, 2000), 0);
	KUNIT_ASSERT_EQ(test, pt_wait(t, 0, RDMA_CM_EVENT_ROUTE_RESOLVED), 0);
	KUNIT_ASSERT_EQ(test, pt_qp(t, id), 0);
}

/* pt_resolve_id() for a new client id, in t->client. */
static void pt_resolve(struct pt *t, int family, u16 port, u16 to)
{
	t->client = pt_id(t, &init_net);
	pt_resolve_id(t, t->client, family, port, to);
}

static int pt_start_id(struct rdma_cm_id *id)
{
	struct rdma_conn_param p = { .responder_resources = 1,
				     .initiator_depth = 1 };

	return rdma_connect(id, &p);
}

static int pt_start(struct pt *t)
{
	return pt_start_id(t->client);
}

/* pt_resolve(), then connected and ESTABLISHED on both sides. */
static void pt_connect(struct pt *t, int family, u16 port, u16 to)
{
	struct kunit *test = t->test;

	pt_resolve(t, family, port, to);
	KUNIT_ASSERT_EQ(test, pt_start(t), 0);
	KUNIT_ASSERT_EQ(test, pt_wait(t, 0, RDMA_CM_EVENT_ESTABLISHED), 0);
	KUNIT_ASSERT_EQ(test, pt_wait(t, 1, RDMA_CM_EVENT_ESTABLISHED), 0);
	KUNIT_ASSERT_NOT_NULL(test, READ_ONCE(t->child));
}

/* The client closes first (its stream ends in TIME_WAIT); both go. */
static void pt_close(struct pt *t)
{
	struct kunit *test = t->test;

	KUNIT_ASSERT_EQ(test, rdma_disconnect(t->client), 0);
	KUNIT_ASSERT_EQ(test, pt_wait(t, 0, RDMA_CM_EVENT_DISCONNECTED), 0);
	KUNIT_ASSERT_EQ(test, pt_wait(t, 1, RDMA_CM_EVENT_DISCONNECTED), 0);
	KUNIT_ASSERT_EQ(test, rdma_disconnect(t->child), 0);
	pt_destroy(t, &t->child);
	pt_destroy(t, &t->client);
}

static u16 pt_port(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)ss)->sin_port);
	return ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
}

static bool pt_same(const struct sockaddr_storage *a,
		    const struct sockaddr_storage *b)
{
	const struct sockaddr_in6 *a6 = (const void *)a, *b6 = (const void *)b;
	const struct sockaddr_in *a4 = (const void *)a, *b4 = (const void *)b;

	if (a->ss_family != b->ss_family || pt_port(a) != pt_port(b))
		return false;
	if (a->ss_family == AF_INET)
		return a4->sin_addr.s_addr == b4->sin_addr.s_addr;
	return ipv6_addr_equal(&a6->sin6_addr, &b6->sin6_addr);
}

/* Each end's source is the other's destination. */
static void pt_expect_mirror(struct pt *t)
{
	struct rdma_cm_id *c = t->client, *s = t->child;

	KUNIT_EXPECT_TRUE_MSG(t->test, pt_same(&c->route.addr.src_addr,
					       &s->route.addr.dst_addr),
			      "client %pISpc, server sees %pISpc",
			      &c->route.addr.src_addr, &s->route.addr.dst_addr);
	KUNIT_EXPECT_TRUE_MSG(t->test, pt_same(&c->route.addr.dst_addr,
					       &s->route.addr.src_addr),
			      "client to %pISpc, server is %pISpc",
			      &c->route.addr.dst_addr, &s->route.addr.src_addr);
}

/* Bind a new id of init_net to @ip and @port: the result. */
static int pt_try_bind(struct pt *t, int family, const char *ip, u16 port)
{
	struct rdma_cm_id *id = pt_id(t, &init_net);
	struct sockaddr_storage ss;
	int ret;

	kiwi_rt_addr(&ss, family, ip, port);
	ret = rdma_bind_addr(id, (struct sockaddr *)&ss);
	rdma_destroy_id(id);
	return ret;
}

/*
 * The client bound 198.18.0.1:24301: its connection comes from exactly
 * there, as its id reports and the server's child sees.
 */
static void rdmacm_port_explicit(struct kunit *test)
{
	struct pt *t = pt_setup(test);

	pt_listen(t, AF_INET, 7601);
	pt_connect(t, AF_INET, 24301, 7601);
	KUNIT_EXPECT_EQ(test, ntohs(rdma_get_src_port(t->client)), 24301);
	KUNIT_EXPECT_EQ(test, pt_port(&t->child->route.addr.dst_addr), 24301);
	pt_expect_mirror(t);
}

static const int pt_families[] = { AF_INET, AF_INET6 };

static void pt_family_desc(const int *family, char *desc)
{
	strscpy(desc, *family == AF_INET ? "IPv4" : "IPv6",
		KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(pt_family, pt_families, pt_family_desc);

/*
 * The client bound nothing: once ESTABLISHED its id reports the port the
 * server's child sees, holds it (a bind to it is refused) and gave back
 * the one rdma_cm had picked.
 */
static void rdmacm_port_auto(struct kunit *test)
{
	const int *family = test->param_value;
	struct pt *t = pt_setup(test);
	u16 picked, port;

	pt_listen(t, *family, 7602);
	pt_resolve(t, *family, 0, 7602);
	picked = ntohs(rdma_get_src_port(t->client));
	KUNIT_ASSERT_NE(test, picked, 0);
	KUNIT_ASSERT_EQ(test, pt_start(t), 0);
	KUNIT_ASSERT_EQ(test, pt_wait(t, 0, RDMA_CM_EVENT_ESTABLISHED), 0);
	KUNIT_ASSERT_EQ(test, pt_wait(t, 1, RDMA_CM_EVENT_ESTABLISHED), 0);
	KUNIT_ASSERT_NOT_NULL(test, READ_ONCE(t->child));
	pt_expect_mirror(t);
	port = ntohs(rdma_get_src_port(t->client));
	KUNIT_EXPECT_EQ(test, pt_try_bind(t, *family, pt_ip(*family, 0), port),
			-EADDRINUSE);
	if (port != picked)
		KUNIT_EXPECT_EQ(test, pt_try_bind(t, *family,
						  pt_ip(*family, 0), picked),
				0);
}

/* Is the client's stream from @local to @remote in TIME_WAIT? */
static bool pt_in_time_wait(const struct sockaddr_storage *local,
			    const struct sockaddr_storage *remote)
{
	const struct sockaddr_in *l = (const void *)local;
	const struct sockaddr_in *r = (const void *)remote;
	struct sock *sk;
	bool tw;

	rcu_read_lock();
	sk = inet_lookup_established(&init_net,
				     init_net.ipv4.tcp_death_row.hashinfo,
				     r->sin_addr.s_addr, r->sin_port,
				     l->sin_addr.s_addr, l->sin_port, 0);
	rcu_read_unlock();
	if (!sk)
		return false;
	tw = sk->sk_state == TCP_TIME_WAIT;
	sock_gen_put(sk);
	return tw;
}

/* Wait (2 s) for that stream to reach TIME_WAIT (the server's FIN). */
static bool pt_wait_time_wait(const struct sockaddr_storage *local,
			      const struct sockaddr_storage *remote)
{
	int i;

	for (i = 0; i < 100 && !pt_in_time_wait(local, remote); i++)
		msleep(20);
	return pt_in_time_wait(local, remote);
}

/**
 * struct pt_sysctl - init_net settings a case changes, put back after it
 * @low: the first port of the ephemeral range
 * @high: its last
 * @timestamps: net.ipv4.tcp_timestamps
 */
struct pt_sysctl {
	int low, high;
	u8 timestamps;
};

static void pt_set_range(int low, int high)
{
	struct local_ports *lp = &init_net.ipv4.ip_local_ports;

	write_seqlock_bh(&lp->lock);
	lp->range[0] = low;
	lp->range[1] = high;
	write_sequnlock_bh(&lp->lock);
}

static void pt_sysctl_restore(struct kunit_resource *res)
{
	struct pt_sysctl *sc = res->data;

	pt_set_range(sc->low, sc->high);
	WRITE_ONCE(init_net.ipv4.sysctl_tcp_timestamps, sc->timestamps);
}

/* Save init_net's settings, to be put back when the case ends. */
static struct pt_sysctl *pt_sysctl_save(struct kunit *test)
{
	struct pt_sysctl *sc = kunit_kzalloc(test, sizeof(*sc), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, sc);
	inet_get_local_port_range(&init_net, &sc->low, &sc->high);
	sc->timestamps = READ_ONCE(init_net.ipv4.sysctl_tcp_timestamps);
	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test, NULL,
							 pt_sysctl_restore,
							 GFP_KERNEL, sc));
	return sc;
}

/*
 * 100 connections one after the other to one listener, each closed by
 * the client first, so that their streams pile up in TIME_WAIT, with the
 * ephemeral range narrowed to 250 ports and TCP timestamps off (without
 * them TCP never takes over a TIME_WAIT four-tuple, not even for a bound
 * port): every connect succeeds, since TCP skips the ports whose
 * four-tuple is in TIME_WAIT, where binding a port picked at random
 * would hit one about 20 times; and every time the client reports the
 * port the server sees.
 */
static void rdmacm_port_time_wait(struct kunit *test)
{
	struct pt *t = pt_setup(test);
	struct sockaddr_storage first_src, first_dst;
	unsigned long t0 = jiffies;
	int i, mismatched = 0;

	pt_sysctl_save(test);
	pt_set_range(PT_RANGE_LOW, PT_RANGE_LOW + PT_RANGE - 1);
	WRITE_ONCE(init_net.ipv4.sysctl_tcp_timestamps, 0);
	pt_listen(t, AF_INET, 7603);
	for (i = 0; i < PT_ROUNDS; i++) {
		pt_connect(t, AF_INET, 0, 7603);
		mismatched += !pt_same(&t->client->route.addr.src_addr,
				       &t->child->route.addr.dst_addr);
		if (!i) {
			first_src = t->client->route.addr.src_addr;
			first_dst = t->client->route.addr.dst_addr;
		}
		pt_close(t);
	}
	KUNIT_EXPECT_EQ(test, mismatched, 0);
	KUNIT_EXPECT_TRUE(test, pt_in_time_wait(&first_src, &first_dst));
	kunit_info(test, "%d connections in %u ms", PT_ROUNDS,
		   jiffies_to_msecs(jiffies - t0));
}

/* A port another id holds on an overlapping address cannot be bound. */
static void rdmacm_port_explicit_busy(struct kunit *test)
{
	struct pt *t = pt_setup(test);
	struct rdma_cm_id *a = pt_id(t, &init_net);
	struct sockaddr_storage ss;

	t->client = a;
	kiwi_rt_addr(&ss, AF_INET, "198.18.0.1", 24303);
	KUNIT_ASSERT_EQ(test, rdma_bind_addr(a, (struct sockaddr *)&ss), 0);
	KUNIT_EXPECT_EQ(test, pt_try_bind(t, AF_INET, "198.18.0.1", 24303),
			-EADDRINUSE);
	KUNIT_EXPECT_EQ(test, pt_try_bind(t, AF_INET, "0.0.0.0", 24303),
			-EADDRINUSE);
	KUNIT_EXPECT_EQ(test, pt_try_bind(t, AF_INET, "198.18.0.1", 24304), 0);
}

/**
 * struct pt_tw_case - an explicit port reconnecting within TIME_WAIT
 * @name: description
 * @timestamps: net.ipv4.tcp_timestamps for both connections
 * @ret: what rdma_connect() returns for the second one
 */
struct pt_tw_case {
	const char *name;
	u8 timestamps;
	int ret;
};

static const struct pt_tw_case pt_tw_cases[] = {
	{ "timestamps", 1, 0 },
	{ "no timestamps", 0, -EADDRNOTAVAIL },
};

static void pt_tw_desc(const struct pt_tw_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(pt_tw, pt_tw_cases, pt_tw_desc);

/*
 * An explicit port whose stream to the listener is in TIME_WAIT is bound
 * again (SO_REUSEADDR). Connecting to the same listener takes the
 * TIME_WAIT over if the old stream had timestamps (PAWS keeps its
 * segments out); without them rdma_connect() fails at once with
 * -EADDRNOTAVAIL. A connection from the port to another listener is made.
 */
static void rdmacm_port_explicit_time_wait(struct kunit *test)
{
	const struct pt_tw_case *c = test->param_value;
	struct pt *t = pt_setup(test);
	struct sockaddr_storage src, dst;
	u16 port = 24305 + c->timestamps;
	int ret;

	pt_sysctl_save(test);
	WRITE_ONCE(init_net.ipv4.sysctl_tcp_timestamps, c->timestamps);
	pt_listen(t, AF_INET, 7604);
	pt_connect(t, AF_INET, port, 7604);
	src = t->client->route.addr.src_addr;
	dst = t->client->route.addr.dst_addr;
	pt_close(t);
	KUNIT_ASSERT_TRUE(test, pt_wait_time_wait(&src, &dst));
	pt_resolve(t, AF_INET, port, 7604);
	ret = pt_start(t);
	KUNIT_EXPECT_EQ(test, ret, c->ret);
	if (!ret) {
		KUNIT_EXPECT_EQ(test, pt_wait(t, 0, RDMA_CM_EVENT_ESTABLISHED),
				0);
		KUNIT_EXPECT_EQ(test, pt_wait(t, 1, RDMA_CM_EVENT_ESTABLISHED),
				0);
	}
	pt_destroy(t, &t->client);
	pt_destroy(t, &t->child);

	t->other = t->listener;
	t->listener = NULL;
	pt_listen(t, AF_INET, 7605);
	pt_destroy(t, &t->other);
	pt_connect(t, AF_INET, port, 7605);
	KUNIT_EXPECT_EQ(test, ntohs(rdma_get_src_port(t->client)), port);
	pt_expect_mirror(t);
}

static const char *const pt_shared_cases[] = { "listen", "connect" };

static void pt_shared_desc(const char *const *c, char *desc)
{
	strscpy(desc, *c, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(pt_shared, pt_shared_cases, pt_shared_desc);

/*
 * TCP gives an auto-port connection a port another id holds without a
 * socket (bound, not listening): the ephemeral range is narrowed to that
 * one port between resolution and connect. The connection is made and
 * its id reports the port; the other id keeps it too; a third id cannot
 * bind it. The other id can listen on it (SO_REUSEADDR on both sockets,
 * the connection's not a listener), but not connect from it to the same
 * listener: that four-tuple is in use (-EADDRNOTAVAIL).
 */
static void rdmacm_port_shared(struct kunit *test)
{
	const char *const *c = test->param_value;
	struct pt *t = pt_setup(test);
	struct pt_sysctl *sc = pt_sysctl_save(test);
	struct rdma_cm_id *holder;
	struct sockaddr_storage ss;

	pt_listen(t, AF_INET, 7606);
	pt_resolve(t, AF_INET, 0, 7606);
	holder = pt_id(t, &init_net);
	t->other = holder;
	kiwi_rt_addr(&ss, AF_INET, "198.18.0.1", PT_SHARED_PORT);
	KUNIT_ASSERT_EQ(test, rdma_bind_addr(holder, (struct sockaddr *)&ss),
			0);
	pt_set_range(PT_SHARED_PORT, PT_SHARED_PORT);
	KUNIT_ASSERT_EQ(test, pt_start(t), 0);
	KUNIT_EXPECT_EQ(test, pt_wait(t, 0, RDMA_CM_EVENT_ESTABLISHED), 0);
	pt_set_range(sc->low, sc->high);
	KUNIT_ASSERT_EQ(test, pt_wait(t, 1, RDMA_CM_EVENT_ESTABLISHED), 0);
	KUNIT_EXPECT_EQ(test, ntohs(rdma_get_src_port(t->client)),
			PT_SHARED_PORT);
	KUNIT_EXPECT_EQ(test, ntohs(rdma_get_src_port(holder)),
			PT_SHARED_PORT);
	pt_expect_mirror(t);
	KUNIT_EXPECT_EQ(test, pt_try_bind(t, AF_INET, "198.18.0.1",
					  PT_SHARED_PORT), -EADDRINUSE);
	if (!strcmp(*c, "listen")) {
		KUNIT_EXPECT_EQ(test, rdma_listen(holder, 0), 0);
		return;
	}
	pt_resolve_id(t, holder, AF_INET, 0, 7606);
	KUNIT_EXPECT_EQ(test, pt_start_id(holder), -EADDRNOTAVAIL);
}

static struct kunit_case rdmacm_port_cases[] = {
	KUNIT_CASE(rdmacm_port_explicit),
	KUNIT_CASE_PARAM(rdmacm_port_auto, pt_family_gen_params),
	KUNIT_CASE(rdmacm_port_time_wait),
	KUNIT_CASE(rdmacm_port_explicit_busy),
	KUNIT_CASE_PARAM(rdmacm_port_explicit_time_wait, pt_tw_gen_params),
	KUNIT_CASE_PARAM(rdmacm_port_shared, pt_shared_gen_params),
	{}
};

static struct kunit_suite rdmacm_port_suite = {
	.name = "kiwi_rdmacm_port",
	.test_cases = rdmacm_port_cases,
};

kunit_test_suite(rdmacm_port_suite);
