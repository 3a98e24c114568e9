// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_rdmacm_veth: address resolution over the VM's veth pair (kv0 in
 * the initial namespace, kv1 in the peer one): neighbour resolution with
 * the caller's timeout, unreachable neighbours, destroy while waiting,
 * TOS between the two resolution calls, and namespace isolation.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/etherdevice.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <net/arp.h>
#include <net/ipv6.h>
#include <net/ndisc.h>
#include <net/neighbour.h>
#include <net/net_namespace.h>

#include "kiwi_test.h"
#include "rdmacm_test.h"

/* The fixture's veth end @name in @net, or a failed test. */
static struct net_device *rt_nd(struct kunit *test, struct net *net,
				const char *name)
{
	struct net_device *nd = dev_get_by_name(net, name);

	KUNIT_ASSERT_NOT_NULL_MSG(test, nd, "no %s", name);
	dev_put(nd);	/* the fixture keeps it registered */
	return nd;
}

static struct kiwi_mock *rt_kv0(struct kiwi_rt *rt)
{
	return *kiwi_rt_mock(rt, rt_nd(rt->test, &init_net, "kv0"),
			     NULL);
}

static bool rt_wait_long(struct kiwi_rt *rt, int n, unsigned int secs)
{
	return wait_event_timeout(rt->wq, kiwi_rt_count(rt) >= n,
				  secs * HZ) > 0;
}

static int rt_resolve(struct kiwi_rt *rt, struct rdma_cm_id *id, int family,
		      const char *ip, unsigned long ms)
{
	struct sockaddr_storage dst;

	kiwi_rt_addr(&dst, family, ip, 7200);
	return rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst, ms);
}

static u8 rt_nud(int family, const char *ip, struct net_device *nd)
{
	struct sockaddr_storage ss;
	struct neighbour *n;
	u8 nud;

	kiwi_rt_addr(&ss, family, ip, 0);
	if (family == AF_INET)
		n = neigh_lookup(&arp_tbl,
				 &((struct sockaddr_in *)&ss)->sin_addr, nd);
	else
		n = neigh_lookup(&nd_tbl,
				 &((struct sockaddr_in6 *)&ss)->sin6_addr, nd);
	if (!n)
		return NUD_NONE;
	nud = READ_ONCE(n->nud_state);
	neigh_release(n);
	return nud;
}

struct neigh_case {
	const char *name;
	int family;
	const char *dst;
	const char *src;
};

static const struct neigh_case reach_cases[] = {
	{ "IPv4", AF_INET, "198.18.0.2", "198.18.0.1" },
	{ "IPv6", AF_INET6, "fd00:198:18::2", "fd00:198:18::1" },
};

static void neigh_desc(const struct neigh_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(reach, reach_cases, neigh_desc);

/*
 * The peer on kv1: ADDR_RESOLVED only once its link-layer address is
 * known, on kv0's kiwi device, with kv0's address as the source.
 */
static void rdmacm_neigh_reachable(struct kunit *test)
{
	const struct neigh_case *c = test->param_value;
	struct kiwi_rt *rt = kiwi_rt_setup(test, true);
	struct kiwi_mock *m = rt_kv0(rt);
	struct rdma_cm_id *id = kiwi_rt_id(rt);
	struct sockaddr_in6 *src6 = (void *)rdma_get_local_addr(id);
	struct sockaddr_in *src4 = (void *)rdma_get_local_addr(id);
	struct sockaddr_in6 *want6;
	struct sockaddr_storage want;
	struct kiwi_rt_rec r;

	KUNIT_ASSERT_EQ(test, rt_resolve(rt, id, c->family, c->dst, 3000), 0);
	KUNIT_ASSERT_TRUE(test, kiwi_rt_wait(rt, 1));
	r = kiwi_rt_rec(rt, 0);
	KUNIT_ASSERT_EQ(test, r.event, RDMA_CM_EVENT_ADDR_RESOLVED);
	KUNIT_EXPECT_NE(test, rt_nud(c->family, c->dst, m->dev.netdev) &
			NUD_VALID, 0);
	KUNIT_EXPECT_PTR_EQ(test, id->device, &m->dev);
	KUNIT_EXPECT_EQ(test, id->route.ifindex, m->dev.netdev->ifindex);
	kiwi_rt_addr(&want, c->family, c->src, 0);
	want6 = (struct sockaddr_in6 *)&want;
	if (c->family == AF_INET)
		KUNIT_EXPECT_EQ(test, ntohl(src4->sin_addr.s_addr),
				ntohl(((struct sockaddr_in *)&want)->sin_addr.s_addr));
	else
		KUNIT_EXPECT_TRUE(test, ipv6_addr_equal(&src6->sin6_addr,
							&want6->sin6_addr));
}

struct timeout_case {
	const char *name;
	int family;
	const char *dst;
	unsigned long ms;
	int status;
};

/* Each case its own address: a neighbour's state outlives the case. */
static const struct timeout_case timeout_cases[] = {
	{ "IPv4 timeout", AF_INET, "198.18.0.99", 300, -ETIMEDOUT },
	{ "IPv6 timeout", AF_INET6, "fd00:198:18::99", 300, -ETIMEDOUT },
	{ "IPv4 failed", AF_INET, "198.18.0.98", 20000, -EHOSTUNREACH },
	{ "IPv6 failed", AF_INET6, "fd00:198:18::98", 20000, -EHOSTUNREACH },
};

static void timeout_desc(const struct timeout_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(timeout, timeout_cases, timeout_desc);

/*
 * Nobody answers for an on-link address: ADDR_ERROR -ETIMEDOUT once the
 * caller's timeout passed, or -EHOSTUNREACH when the kernel gives up on
 * the neighbour first; never ADDR_RESOLVED, never a hang.
 */
static void rdmacm_neigh_unreachable(struct kunit *test)
{
	const struct timeout_case *c = test->param_value;
	struct kiwi_rt *rt = kiwi_rt_setup(test, true);
	struct rdma_cm_id *id;
	unsigned long t0;
	struct kiwi_rt_rec r;

	rt_kv0(rt);
	id = kiwi_rt_id(rt);
	t0 = jiffies;
	KUNIT_ASSERT_EQ(test, rt_resolve(rt, id, c->family, c->dst, c->ms), 0);
	KUNIT_ASSERT_TRUE(test, rt_wait_long(rt, 1, 15));
	r = kiwi_rt_rec(rt, 0);
	KUNIT_EXPECT_EQ(test, r.event, RDMA_CM_EVENT_ADDR_ERROR);
	KUNIT_EXPECT_EQ(test, r.status, c->status);
	if (c->status == -ETIMEDOUT)
		KUNIT_EXPECT_GE(test, jiffies_to_msecs(jiffies - t0), c->ms);
	KUNIT_EXPECT_EQ(test, kiwi_rt_state(id), KIWI_RDMA_ADDR_BOUND);
	KUNIT_EXPECT_NULL(test, id->device);
}

/* Destroy while the neighbour is being resolved: no event, on 2 CPUs. */
static void rdmacm_neigh_destroy(struct kunit *test)
{
	struct kiwi_rt *rt = kiwi_rt_setup(test, true);
	int i;

	rt_kv0(rt);
	for (i = 0; i < 20; i++) {
		struct rdma_cm_id *id = kiwi_rt_id(rt);
		unsigned long t0;

		KUNIT_ASSERT_EQ(test, rt_resolve(rt, id, i & 1 ? AF_INET6 :
						 AF_INET, i & 1 ?
						 "fd00:198:18::97" :
						 "198.18.0.97", 10000), 0);
		msleep(i * 5);
		t0 = jiffies;
		kiwi_rt_destroy(rt, id);
		KUNIT_EXPECT_LT(test, jiffies_to_msecs(jiffies - t0), 1000U);
	}
	msleep(100);
	KUNIT_EXPECT_EQ(test, kiwi_rt_count(rt), 0);
	KUNIT_EXPECT_EQ(test, kiwi_rdma_live_ids(), 0);
}

struct rt_routes {
	struct net *net;
	int kv0, lo;
};

static void rt_routes_free(struct kunit_resource *res)
{
	struct rt_routes *r = res->data;

	kiwi_rt_route4(r->net, false, "198.18.7.0", 24, 0x10, NULL, r->lo);
	kiwi_rt_route4(r->net, false, "198.18.7.0", 24, 0, "198.18.0.2",
		       r->kv0);
}

/*
 * 198.18.7.0/24 goes via the peer on kv0, but with TOS 0x10 through lo:
 * the TOS set between rdma_resolve_addr() and rdma_resolve_route() picks
 * the route; without it the same calls give kv0.
 */
static void rdmacm_tos_route(struct kunit *test)
{
	struct kiwi_rt *rt = kiwi_rt_setup(test, true);
	struct kiwi_mock *m = rt_kv0(rt);
	struct rt_routes *routes = kunit_kzalloc(test, sizeof(*routes),
						  GFP_KERNEL);
	struct rdma_cm_id *tos, *plain;

	KUNIT_ASSERT_NOT_NULL(test, routes);
	routes->net = &init_net;
	routes->kv0 = m->dev.netdev->ifindex;
	routes->lo = init_net.loopback_dev->ifindex;
	KUNIT_ASSERT_EQ(test, kiwi_rt_route4(&init_net, true, "198.18.7.0", 24,
					     0, "198.18.0.2", routes->kv0), 0);
	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test, NULL,
							 rt_routes_free,
							 GFP_KERNEL, routes));
	KUNIT_ASSERT_EQ(test, kiwi_rt_route4(&init_net, true, "198.18.7.0", 24,
					     0x10, NULL, routes->lo), 0);
	tos = kiwi_rt_id(rt);
	plain = kiwi_rt_id(rt);
	KUNIT_ASSERT_EQ(test, rt_resolve(rt, tos, AF_INET, "198.18.7.7", 3000),
			0);
	KUNIT_ASSERT_EQ(test, rt_resolve(rt, plain, AF_INET, "198.18.7.7",
					 3000), 0);
	KUNIT_ASSERT_TRUE(test, kiwi_rt_wait(rt, 2));
	KUNIT_ASSERT_EQ(test, kiwi_rt_rec(rt, 0).event,
			RDMA_CM_EVENT_ADDR_RESOLVED);
	KUNIT_ASSERT_EQ(test, kiwi_rt_rec(rt, 1).event,
			RDMA_CM_EVENT_ADDR_RESOLVED);
	KUNIT_EXPECT_EQ(test, tos->route.ifindex, routes->kv0);
	rdma_set_service_type(tos, 0x10);
	KUNIT_ASSERT_EQ(test, rdma_resolve_route(tos, 1000), 0);
	KUNIT_ASSERT_EQ(test, rdma_resolve_route(plain, 1000), 0);
	KUNIT_ASSERT_TRUE(test, kiwi_rt_wait(rt, 4));
	KUNIT_EXPECT_EQ(test, kiwi_rt_rec(rt, 2).event,
			RDMA_CM_EVENT_ROUTE_RESOLVED);
	KUNIT_EXPECT_EQ(test, kiwi_rt_rec(rt, 3).event,
			RDMA_CM_EVENT_ROUTE_RESOLVED);
	KUNIT_EXPECT_EQ(test, tos->route.ifindex, routes->lo);
	KUNIT_EXPECT_EQ(test, tos->route.tos, 0x10);
	KUNIT_EXPECT_EQ(test, plain->route.ifindex, routes->kv0);
}

/*
 * An id in the peer namespace resolves with the peer's tables and devices
 * only: 127.0.0.1 is the peer's lo (no kiwi device there, though the
 * initial lo has one), 198.18.0.1 is reached through kv1's device, and
 * the initial namespace's addresses cannot be bound.
 */
static void rdmacm_netns_resolve(struct kunit *test)
{
	struct kiwi_rt *rt = kiwi_rt_setup(test, true);
	struct net *peer = kiwi_test_peer_net(test);
	struct kiwi_mock *m1;
	struct rdma_cm_id *lo, *far, *b;
	struct sockaddr_storage ss;

	rt_kv0(rt);
	m1 = *kiwi_rt_mock(rt, rt_nd(test, peer, "kv1"), NULL);
	lo = kiwi_rt_id_in(rt, peer);
	KUNIT_ASSERT_EQ(test, rt_resolve(rt, lo, AF_INET, "127.0.0.1", 1000),
			0);
	KUNIT_ASSERT_TRUE(test, kiwi_rt_wait(rt, 1));
	KUNIT_EXPECT_EQ(test, kiwi_rt_rec(rt, 0).event,
			RDMA_CM_EVENT_ADDR_ERROR);
	KUNIT_EXPECT_EQ(test, kiwi_rt_rec(rt, 0).status, -ENODEV);
	far = kiwi_rt_id_in(rt, peer);
	KUNIT_ASSERT_EQ(test, rt_resolve(rt, far, AF_INET, "198.18.0.1", 3000),
			0);
	KUNIT_ASSERT_TRUE(test, kiwi_rt_wait(rt, 2));
	KUNIT_EXPECT_EQ(test, kiwi_rt_rec(rt, 1).event,
			RDMA_CM_EVENT_ADDR_RESOLVED);
	KUNIT_EXPECT_PTR_EQ(test, far->device, &m1->dev);
	b = kiwi_rt_id_in(rt, peer);
	kiwi_rt_addr(&ss, AF_INET, "198.18.0.1", 0);
	KUNIT_EXPECT_EQ(test, rdma_bind_addr(b, (struct sockaddr *)&ss),
			-EADDRNOTAVAIL);
	kiwi_rt_addr(&ss, AF_INET, "127.0.0.1", 0);
	KUNIT_EXPECT_EQ(test, rdma_bind_addr(b, (struct sockaddr *)&ss),
			-ENODEV);
}

/*
 * Wildcard listeners on one port in both namespaces: each listens on its
 * own namespace's devices only, and neither port conflicts with the other.
 */
static void rdmacm_netns_listen(struct kunit *test)
{
	struct kiwi_rt *rt = kiwi_rt_setup(test, true);
	struct net *peer = kiwi_test_peer_net(test);
	struct kiwi_mock *m0 = rt_kv0(rt), *m1;
	struct rdma_cm_id *li = kiwi_rt_id(rt), *lp;
	struct sockaddr_storage ss;

	m1 = *kiwi_rt_mock(rt, rt_nd(test, peer, "kv1"), NULL);
	lp = kiwi_rt_id_in(rt, peer);
	kiwi_rt_addr(&ss, AF_INET, "0.0.0.0", 7201);
	KUNIT_ASSERT_EQ(test, rdma_bind_addr(li, (struct sockaddr *)&ss), 0);
	KUNIT_ASSERT_EQ(test, rdma_bind_addr(lp, (struct sockaddr *)&ss), 0);
	KUNIT_ASSERT_EQ(test, rdma_listen(li, 0), 0);
	KUNIT_ASSERT_EQ(test, rdma_listen(lp, 0), 0);
	KUNIT_EXPECT_EQ(test, kiwi_rdma_fan_count(kiwi_rdma_priv(li)), 2);
	KUNIT_EXPECT_EQ(test, kiwi_rdma_fan_count(kiwi_rdma_priv(lp)), 1);
	KUNIT_EXPECT_NOT_NULL(test, kiwi_rdma_fan_cm(kiwi_rdma_priv(li),
						     &m0->dev));
	KUNIT_EXPECT_NULL(test, kiwi_rdma_fan_cm(kiwi_rdma_priv(li),
						 &m1->dev));
	KUNIT_EXPECT_NOT_NULL(test, kiwi_rdma_fan_cm(kiwi_rdma_priv(lp),
						     &m1->dev));
	KUNIT_EXPECT_EQ(test, kiwi_mock_calls(m1, KIWI_MOCK_CREATE_LISTEN), 1);
}

struct rt_mac {
	struct net_device *nd;
	struct sockaddr sa;
};

static int rt_set_mac(struct net_device *nd, const struct sockaddr *sa)
{
	struct sockaddr copy = *sa;
	int ret;

	rtnl_lock();
	ret = dev_set_mac_address(nd, &copy, NULL);
	rtnl_unlock();
	return ret;
}

static void rt_mac_restore(struct kunit_resource *res)
{
	struct rt_mac *mac = res->data;

	rt_set_mac(mac->nd, &mac->sa);
}

/*
 * kv0 changes its MAC address: ids resolved through it hear ADDR_CHANGE
 * (state unchanged), an id resolved through lo does not.
 */
static void rdmacm_addr_change(struct kunit *test)
{
	struct kiwi_rt *rt = kiwi_rt_setup(test, true);
	struct kiwi_mock *m = rt_kv0(rt);
	struct rt_mac *mac = kunit_kzalloc(test, sizeof(*mac), GFP_KERNEL);
	struct rdma_cm_id *addr, *route, *lo;
	struct sockaddr sa;
	int i, changes = 0;

	KUNIT_ASSERT_NOT_NULL(test, mac);
	addr = kiwi_rt_id(rt);
	KUNIT_ASSERT_EQ(test, rt_resolve(rt, addr, AF_INET, "198.18.0.2", 3000),
			0);
	KUNIT_ASSERT_TRUE(test, kiwi_rt_wait(rt, 1));
	route = kiwi_rt_id(rt);
	KUNIT_ASSERT_EQ(test, rt_resolve(rt, route, AF_INET6, "fd00:198:18::2",
					 3000), 0);
	KUNIT_ASSERT_TRUE(test, kiwi_rt_wait(rt, 2));
	KUNIT_ASSERT_EQ(test, rdma_resolve_route(route, 1000), 0);
	KUNIT_ASSERT_TRUE(test, kiwi_rt_wait(rt, 3));
	lo = kiwi_rt_resolved(rt, AF_INET);
	KUNIT_ASSERT_EQ(test, kiwi_rt_count(rt), 5);

	mac->nd = m->dev.netdev;
	mac->sa.sa_family = mac->nd->type;
	memcpy(mac->sa.sa_data, mac->nd->dev_addr, ETH_ALEN);
	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test, NULL,
							 rt_mac_restore,
							 GFP_KERNEL, mac));
	sa = mac->sa;
	sa.sa_data[5] ^= 0x5a;
	KUNIT_ASSERT_EQ(test, rt_set_mac(mac->nd, &sa), 0);
	KUNIT_ASSERT_TRUE(test, kiwi_rt_wait(rt, 7));
	msleep(50);
	KUNIT_EXPECT_EQ(test, kiwi_rt_count(rt), 7);
	for (i = 5; i < kiwi_rt_count(rt); i++) {
		struct kiwi_rt_rec r = kiwi_rt_rec(rt, i);

		changes += r.event == RDMA_CM_EVENT_ADDR_CHANGE &&
			   (r.id == addr || r.id == route);
	}
	KUNIT_EXPECT_EQ(test, changes, 2);
	KUNIT_EXPECT_EQ(test, kiwi_rt_state(addr), KIWI_RDMA_ADDR_RESOLVED);
	KUNIT_EXPECT_EQ(test, kiwi_rt_state(route), KIWI_RDMA_ROUTE_RESOLVED);
	KUNIT_EXPECT_EQ(test, kiwi_rt_state(lo), KIWI_RDMA_ROUTE_RESOLVED);
}

static struct kunit_case rdmacm_veth_cases[] = {
	KUNIT_CASE_PARAM(rdmacm_neigh_reachable, reach_gen_params),
	KUNIT_CASE_PARAM(rdmacm_neigh_unreachable, timeout_gen_params),
	KUNIT_CASE(rdmacm_neigh_destroy),
	KUNIT_CASE(rdmacm_tos_route),
	KUNIT_CASE(rdmacm_netns_resolve),
	KUNIT_CASE(rdmacm_netns_listen),
	KUNIT_CASE(rdmacm_addr_change),
	{}
};

static struct kunit_suite rdmacm_veth_suite = {
	.name = "kiwi_rdmacm_veth",
	.test_cases = rdmacm_veth_cases,
};

kunit_test_suite(rdmacm_veth_suite);
