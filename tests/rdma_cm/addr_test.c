// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_rdmacm_addr: binding and ports, address and route resolution over
 * the routing table (IPv4 and IPv6, loopback), errors, destroy while
 * a resolution is in flight, and resolutions of different ids running
 * in parallel.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/netdevice.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>

#include "kiwi_test.h"
#include "rdmacm_test.h"

static const int families[] = { AF_INET, AF_INET6 };

static void family_desc(const int *f, char *desc)
{
	strscpy(desc, *f == AF_INET ? "IPv4" : "IPv6", KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(family, families, family_desc);

static u16 port_of(struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return ntohs(((struct sockaddr_in *)sa)->sin_port);
	return ntohs(((struct sockaddr_in6 *)sa)->sin6_port);
}

/* Loopback resolves to lo's kiwi device, with a source address and port. */
static void rdmacm_resolve_loopback(struct kunit *test)
{
	int family = *(const int *)test->param_value;
	struct kiwi_rt *rt = kiwi_rt_setup(test, true);
	struct rdma_cm_id *id = kiwi_rt_resolved(rt, family);
	struct sockaddr_in *src4 = (void *)rdma_get_local_addr(id);
	struct sockaddr_in6 *src6 = (void *)rdma_get_local_addr(id);

	KUNIT_EXPECT_PTR_EQ(test, id->device, &rt->m->dev);
	KUNIT_EXPECT_EQ(test, id->route.ifindex, init_net.loopback_dev->ifindex);
	KUNIT_EXPECT_EQ(test, rdma_get_local_addr(id)->sa_family, family);
	if (family == AF_INET)
		KUNIT_EXPECT_EQ(test, ntohl(src4->sin_addr.s_addr),
				INADDR_LOOPBACK);
	else
		KUNIT_EXPECT_TRUE(test, ipv6_addr_loopback(&src6->sin6_addr));
	KUNIT_EXPECT_NE(test, port_of(rdma_get_local_addr(id)), 0);
	KUNIT_EXPECT_EQ(test, port_of(rdma_get_peer_addr(id)), 7471);
	KUNIT_EXPECT_EQ(test, kiwi_rt_state(id), KIWI_RDMA_ROUTE_RESOLVED);
	KUNIT_EXPECT_EQ(test, kiwi_rt_count(rt), 2);
}

/* TOS set between the two calls is what the route was resolved with. */
static void rdmacm_tos_between(struct kunit *test)
{
	struct kiwi_rt *rt = kiwi_rt_setup(test, true);
	struct rdma_cm_id *id = kiwi_rt_id(rt);
	struct sockaddr_storage dst;

	kiwi_rt_addr(&dst, AF_INET, "127.0.0.1", 1);
	KUNIT_ASSERT_EQ(test, rdma_resolve_addr(id, NULL,
						(struct sockaddr *)&dst, 100), 0);
	KUNIT_ASSERT_TRUE(test, kiwi_rt_wait(rt, 1));
	rdma_set_service_type(id, 0x10);
	KUNIT_ASSERT_EQ(test, rdma_resolve_route(id, 100), 0);
	KUNIT_ASSERT_TRUE(test, kiwi_rt_wait(rt, 2));
	KUNIT_EXPECT_EQ(test, kiwi_rt_rec(rt, 1).event,
			RDMA_CM_EVENT_ROUTE_RESOLVED);
	KUNIT_EXPECT_EQ(test, id->route.tos, 0x10);
	/* the route is resolved once: a second call is refused */
	KUNIT_EXPECT_EQ(test, rdma_resolve_route(id, 100), -EINVAL);
}

struct err_case {
	const char *name;
	int family;
	const char *dst;
	bool on_lo;
	int status;
};

static const struct err_case err_cases[] = {
	{ "IPv4 no route", AF_INET, "192.0.2.1", true, -ENETUNREACH },
	{ "IPv6 no route", AF_INET6, "2001:db8::1", true, -ENETUNREACH },
	{ "IPv4 no kiwi device", AF_INET, "127.0.0.1", false, -ENODEV },
	{ "IPv6 no kiwi device", AF_INET6, "::1", false, -ENODEV },
};

static void err_case_desc(const struct err_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(err, err_cases, err_case_desc);

/* ADDR_ERROR with the errno; the id is bound again and may retry. */
static void rdmacm_resolve_error(struct kunit *test)
{
	const struct err_case *c = test->param_value;
	struct kiwi_rt *rt = kiwi_rt_setup(test, c->on_lo);
	struct rdma_cm_id *id = kiwi_rt_id(rt);
	struct sockaddr_storage dst;
	struct kiwi_rt_rec r;

	kiwi_rt_addr(&dst, c->family, c->dst, 1);
	KUNIT_ASSERT_EQ(test, rdma_resolve_addr(id, NULL,
						(struct sockaddr *)&dst, 100), 0);
	KUNIT_ASSERT_TRUE(test, kiwi_rt_wait(rt, 1));
	r = kiwi_rt_rec(rt, 0);
	KUNIT_EXPECT_EQ(test, r.event, RDMA_CM_EVENT_ADDR_ERROR);
	KUNIT_EXPECT_EQ(test, r.status, c->status);
	KUNIT_EXPECT_EQ(test, kiwi_rt_state(id), KIWI_RDMA_ADDR_BOUND);
	KUNIT_EXPECT_NULL(test, id->device);
	KUNIT_EXPECT_EQ(test, rdma_resolve_route(id, 100), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdma_resolve_addr(id, NULL,
						(struct sockaddr *)&dst, 100), 0);
	KUNIT_EXPECT_TRUE(test, kiwi_rt_wait(rt, 2));
}

/* Destroy right after resolve: no event ever, nothing leaks (2 CPUs). */
static void rdmacm_destroy_resolving(struct kunit *test)
{
	struct kiwi_rt *rt = kiwi_rt_setup(test, true);
	struct sockaddr_storage dst;
	int i;

	kiwi_rt_addr(&dst, AF_INET, "127.0.0.1", 1);
	for (i = 0; i < 200; i++) {
		struct rdma_cm_id *id = kiwi_rt_id(rt);
		int n = kiwi_rt_count(rt);

		KUNIT_ASSERT_EQ(test, rdma_resolve_addr(id, NULL,
							(struct sockaddr *)&dst,
							100), 0);
		if (i & 1)
			udelay(i);
		kiwi_rt_destroy(rt, id);
		/* an event, if any, came before destroy returned */
		KUNIT_ASSERT_LE(test, kiwi_rt_count(rt), n + 1);
		usleep_range(100, 200);
		KUNIT_ASSERT_LE(test, kiwi_rt_count(rt), n + 1);
	}
	KUNIT_EXPECT_EQ(test, kiwi_rdma_live_ids(), 0);
}

static void rdmacm_bind_ports(struct kunit *test)
{
	struct kiwi_rt *rt = kiwi_rt_setup(test, true);
	struct rdma_cm_id *a = kiwi_rt_id(rt), *b = kiwi_rt_id(rt);
	struct rdma_cm_id *c = kiwi_rt_id(rt), *d = kiwi_rt_id(rt);
	struct sockaddr_storage ss;
	int low, high;

	inet_get_local_port_range(&init_net, &low, &high);
	kiwi_rt_addr(&ss, AF_INET, "127.0.0.1", 0);
	KUNIT_ASSERT_EQ(test, rdma_bind_addr(a, (struct sockaddr *)&ss), 0);
	KUNIT_EXPECT_GE(test, port_of(rdma_get_local_addr(a)), low);
	KUNIT_EXPECT_LE(test, port_of(rdma_get_local_addr(a)), high);
	KUNIT_EXPECT_PTR_EQ(test, a->device, &rt->m->dev);
	KUNIT_EXPECT_EQ(test, rdma_bind_addr(a, (struct sockaddr *)&ss),
			-EINVAL);

	kiwi_rt_addr(&ss, AF_INET, "127.0.0.1", 9000);
	KUNIT_ASSERT_EQ(test, rdma_bind_addr(b, (struct sockaddr *)&ss), 0);
	KUNIT_EXPECT_EQ(test, rdma_bind_addr(c, (struct sockaddr *)&ss),
			-EADDRINUSE);
	KUNIT_EXPECT_EQ(test, kiwi_rt_state(c), KIWI_RDMA_IDLE);
	kiwi_rt_addr(&ss, AF_INET, "0.0.0.0", 9000);
	KUNIT_EXPECT_EQ(test, rdma_bind_addr(c, (struct sockaddr *)&ss),
			-EADDRINUSE);
	kiwi_rt_addr(&ss, AF_INET6, "::1", 9000);
	KUNIT_EXPECT_EQ(test, rdma_bind_addr(c, (struct sockaddr *)&ss), 0);
	kiwi_rt_addr(&ss, AF_INET, "127.0.0.1", 9000);
	KUNIT_EXPECT_EQ(test, rdma_bind_addr(d, (struct sockaddr *)&ss),
			-EADDRINUSE);
	kiwi_rt_destroy(rt, b);	/* destroy gives the port back */
	KUNIT_EXPECT_EQ(test, rdma_bind_addr(d, (struct sockaddr *)&ss), 0);
}

/*
 * Ports held by many ids at once: each one conflicts only with itself, in
 * its own namespace, and is free again once its id is destroyed.
 */
static void rdmacm_bind_ports_many(struct kunit *test)
{
	struct kiwi_rt *rt = kiwi_rt_setup(test, true);
	struct net *peer = kiwi_test_peer_net(test);
	struct rdma_cm_id *ids[12], *probe = kiwi_rt_id(rt);
	struct sockaddr_storage ss;
	int i;

	for (i = 0; i < ARRAY_SIZE(ids); i++) {
		ids[i] = kiwi_rt_id(rt);
		kiwi_rt_addr(&ss, AF_INET, "127.0.0.1", 9100 + i * 1024);
		KUNIT_ASSERT_EQ(test, rdma_bind_addr(ids[i],
						     (struct sockaddr *)&ss), 0);
	}
	for (i = 0; i < ARRAY_SIZE(ids); i++) {
		kiwi_rt_addr(&ss, AF_INET, "0.0.0.0", 9100 + i * 1024);
		KUNIT_EXPECT_EQ(test, rdma_bind_addr(probe,
						     (struct sockaddr *)&ss),
				-EADDRINUSE);
	}
	/* 9101 is nobody's, and another namespace has its own ports */
	kiwi_rt_addr(&ss, AF_INET, "0.0.0.0", 9101);
	KUNIT_EXPECT_EQ(test, rdma_bind_addr(probe, (struct sockaddr *)&ss), 0);
	kiwi_rt_addr(&ss, AF_INET, "0.0.0.0", 9100 + 5 * 1024);
	KUNIT_EXPECT_EQ(test, rdma_bind_addr(kiwi_rt_id_in(rt, peer),
					     (struct sockaddr *)&ss), 0);
	kiwi_rt_destroy(rt, ids[5]);
	KUNIT_EXPECT_EQ(test, rdma_bind_addr(kiwi_rt_id(rt),
					     (struct sockaddr *)&ss), 0);
}

/* A handler that stops in the first ADDR_RESOLVED until told to go on. */
static struct {
	struct completion entered;
	struct completion go;
	struct rdma_cm_id *id;
} rdmacm_stall;

static int rdmacm_stall_hook(struct kiwi_rt *rt, struct rdma_cm_id *id,
			     struct rdma_cm_event *ev)
{
	if (id == rdmacm_stall.id && ev->event == RDMA_CM_EVENT_ADDR_RESOLVED) {
		complete(&rdmacm_stall.entered);
		wait_for_completion_timeout(&rdmacm_stall.go, 10 * HZ);
	}
	return 0;
}

/*
 * Each id's resolution runs on its own: while one id's handler sleeps in
 * its ADDR_RESOLVED, another id's address is resolved and delivered.
 */
static void rdmacm_resolve_parallel(struct kunit *test)
{
	struct kiwi_rt *rt = kiwi_rt_setup(test, true);
	struct rdma_cm_id *a = kiwi_rt_id(rt), *b = kiwi_rt_id(rt);
	struct sockaddr_storage dst;
	bool entered, b_first;

	init_completion(&rdmacm_stall.entered);
	init_completion(&rdmacm_stall.go);
	rdmacm_stall.id = a;
	rt->hook = rdmacm_stall_hook;
	kiwi_rt_addr(&dst, AF_INET, "127.0.0.1", 7471);
	KUNIT_ASSERT_EQ(test, rdma_resolve_addr(a, NULL,
						(struct sockaddr *)&dst, 1000),
			0);
	entered = wait_for_completion_timeout(&rdmacm_stall.entered, 5 * HZ);
	KUNIT_EXPECT_EQ(test, rdma_resolve_addr(b, NULL,
						(struct sockaddr *)&dst, 1000),
			0);
	/* the stalled handler records its event only when it returns */
	b_first = entered && kiwi_rt_wait(rt, 1) &&
		  kiwi_rt_rec(rt, 0).id == b;
	complete(&rdmacm_stall.go);
	KUNIT_EXPECT_TRUE(test, entered);
	KUNIT_EXPECT_TRUE(test, b_first);
	KUNIT_ASSERT_TRUE(test, kiwi_rt_wait(rt, 2));
	KUNIT_EXPECT_EQ(test, kiwi_rt_rec(rt, 0).event,
			RDMA_CM_EVENT_ADDR_RESOLVED);
	KUNIT_EXPECT_EQ(test, kiwi_rt_rec(rt, 1).event,
			RDMA_CM_EVENT_ADDR_RESOLVED);
	KUNIT_EXPECT_PTR_EQ(test, kiwi_rt_rec(rt, 1).id, a);
}

static int bind_to(struct rdma_cm_id *id, int family, const char *ip,
		   u16 port)
{
	struct sockaddr_storage ss;

	kiwi_rt_addr(&ss, family, ip, port);
	return rdma_bind_addr(id, (struct sockaddr *)&ss);
}

/*
 * Linux's port sharing: rdma_set_afonly() ids of two families share a
 * wildcard port; rdma_set_reuseaddr() ids share a port until one listens.
 */
static void rdmacm_bind_share(struct kunit *test)
{
	struct kiwi_rt *rt = kiwi_rt_setup(test, true);
	struct rdma_cm_id *v6 = kiwi_rt_id(rt), *v4 = kiwi_rt_id(rt);
	struct rdma_cm_id *both = kiwi_rt_id(rt), *r1 = kiwi_rt_id(rt);
	struct rdma_cm_id *r2 = kiwi_rt_id(rt), *plain = kiwi_rt_id(rt);

	KUNIT_ASSERT_EQ(test, rdma_set_afonly(v6, 1), 0);
	KUNIT_ASSERT_EQ(test, rdma_set_afonly(v4, 1), 0);
	KUNIT_EXPECT_EQ(test, bind_to(v6, AF_INET6, "::", 9100), 0);
	KUNIT_EXPECT_EQ(test, bind_to(v4, AF_INET, "0.0.0.0", 9100), 0);
	/* an id that is not afonly collides with both wildcards */
	KUNIT_EXPECT_EQ(test, bind_to(both, AF_INET, "127.0.0.1", 9100),
			-EADDRINUSE);

	KUNIT_ASSERT_EQ(test, rdma_set_reuseaddr(r1, 1), 0);
	KUNIT_ASSERT_EQ(test, rdma_set_reuseaddr(r2, 1), 0);
	KUNIT_EXPECT_EQ(test, bind_to(r1, AF_INET, "127.0.0.1", 9101), 0);
	KUNIT_EXPECT_EQ(test, bind_to(r2, AF_INET, "127.0.0.1", 9101), 0);
	KUNIT_EXPECT_EQ(test, bind_to(plain, AF_INET, "127.0.0.1", 9101),
			-EADDRINUSE);
	/* sharing ids may not listen on the port they share */
	KUNIT_EXPECT_EQ(test, rdma_listen(r2, 0), -EADDRINUSE);
	KUNIT_EXPECT_EQ(test, kiwi_rt_state(r2), KIWI_RDMA_ADDR_BOUND);
	kiwi_rt_destroy(rt, r1);
	KUNIT_EXPECT_EQ(test, rdma_listen(r2, 0), 0);

	/* when the options may change */
	KUNIT_EXPECT_EQ(test, rdma_set_reuseaddr(v4, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdma_set_reuseaddr(r2, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdma_set_afonly(r2, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdma_set_afonly(v4, 0), 0);
}

/* rdma_listen() on an unbound id binds it to 0.0.0.0 and a free port. */
static void rdmacm_listen_unbound(struct kunit *test)
{
	struct kiwi_rt *rt = kiwi_rt_setup(test, true);
	struct rdma_cm_id *id = kiwi_rt_id(rt);
	struct sockaddr_in *src = (void *)rdma_get_local_addr(id);
	int low, high;

	inet_get_local_port_range(&init_net, &low, &high);
	KUNIT_ASSERT_EQ(test, rdma_listen(id, 0), 0);
	KUNIT_EXPECT_EQ(test, kiwi_rt_state(id), KIWI_RDMA_LISTEN);
	KUNIT_EXPECT_EQ(test, src->sin_family, AF_INET);
	KUNIT_EXPECT_EQ(test, ntohl(src->sin_addr.s_addr), INADDR_ANY);
	KUNIT_EXPECT_GE(test, ntohs(src->sin_port), low);
	KUNIT_EXPECT_LE(test, ntohs(src->sin_port), high);
}

/* Resolve @id to @ip:7471 and return the device it was given. */
static struct ib_device *resolve_dev(struct kiwi_rt *rt, struct rdma_cm_id *id,
				     const char *ip, int n)
{
	struct sockaddr_storage dst;

	kiwi_rt_addr(&dst, AF_INET, ip, 7471);
	KUNIT_ASSERT_EQ(rt->test, rdma_resolve_addr(id, NULL,
						    (struct sockaddr *)&dst,
						    2000), 0);
	KUNIT_ASSERT_TRUE(rt->test, kiwi_rt_wait(rt, n));
	KUNIT_EXPECT_EQ(rt->test, kiwi_rt_rec(rt, n - 1).event,
			RDMA_CM_EVENT_ADDR_RESOLVED);
	return id->device;
}

/*
 * An address of this host is reached through loopback, but, as in
 * Linux, on the RNIC of the interface holding it when that one has one
 * (NVMe-oF's host and target in one namespace); else on loopback's.
 */
static void rdmacm_resolve_local_owner(struct kunit *test)
{
	struct kiwi_rt *rt = kiwi_rt_setup(test, true);
	struct net_device *kv0 = dev_get_by_name(&init_net, "kv0");
	struct kiwi_mock *m;

	KUNIT_ASSERT_NOT_NULL(test, kv0);
	KUNIT_EXPECT_PTR_EQ(test, resolve_dev(rt, kiwi_rt_id(rt),
					      "198.18.0.1", 1), &rt->m->dev);
	m = *kiwi_rt_mock(rt, kv0, NULL);
	KUNIT_EXPECT_PTR_EQ(test, resolve_dev(rt, kiwi_rt_id(rt),
					      "198.18.0.1", 2), &m->dev);
	KUNIT_EXPECT_EQ(test, kiwi_rt_rec(rt, 1).id->route.ifindex,
			kv0->ifindex);
	KUNIT_EXPECT_PTR_EQ(test, resolve_dev(rt, kiwi_rt_id(rt),
					      "127.0.0.1", 3), &rt->m->dev);
	dev_put(kv0);
}

/* No event reaches a handler while the ULP holds rdma_lock_handler(). */
static void rdmacm_lock_handler(struct kunit *test)
{
	struct kiwi_rt *rt = kiwi_rt_setup(test, true);
	struct rdma_cm_id *id = kiwi_rt_id(rt);
	struct sockaddr_storage dst;

	kiwi_rt_addr(&dst, AF_INET, "127.0.0.1", 7471);
	rdma_lock_handler(id);
	KUNIT_EXPECT_EQ(test, rdma_resolve_addr(id, NULL,
						(struct sockaddr *)&dst, 2000),
			0);
	msleep(200);
	KUNIT_EXPECT_EQ(test, kiwi_rt_count(rt), 0);
	rdma_unlock_handler(id);
	KUNIT_ASSERT_TRUE(test, kiwi_rt_wait(rt, 1));
	KUNIT_EXPECT_EQ(test, kiwi_rt_rec(rt, 0).event,
			RDMA_CM_EVENT_ADDR_RESOLVED);
}

static void rdmacm_bind_errors(struct kunit *test)
{
	struct kiwi_rt *rt = kiwi_rt_setup(test, true);
	struct rdma_cm_id *a = kiwi_rt_id(rt);
	struct sockaddr_storage ss = { .ss_family = AF_UNIX };

	KUNIT_EXPECT_EQ(test, rdma_bind_addr(a, (struct sockaddr *)&ss),
			-EAFNOSUPPORT);
	kiwi_rt_addr(&ss, AF_INET, "192.0.2.1", 1);
	KUNIT_EXPECT_EQ(test, rdma_bind_addr(a, (struct sockaddr *)&ss),
			-EADDRNOTAVAIL);
	kiwi_rt_addr(&ss, AF_INET6, "2001:db8::1", 1);
	KUNIT_EXPECT_EQ(test, rdma_bind_addr(a, (struct sockaddr *)&ss),
			-EADDRNOTAVAIL);
	KUNIT_EXPECT_EQ(test, kiwi_rt_state(a), KIWI_RDMA_IDLE);
	KUNIT_EXPECT_TRUE(test, IS_ERR(rdma_create_id(&init_net, NULL, NULL,
						      RDMA_PS_TCP, IB_QPT_RC)));
}

static void rdmacm_bind_no_device(struct kunit *test)
{
	struct kiwi_rt *rt = kiwi_rt_setup(test, false);
	struct rdma_cm_id *a = kiwi_rt_id(rt);
	struct sockaddr_storage ss;

	kiwi_rt_addr(&ss, AF_INET, "127.0.0.1", 1);
	KUNIT_EXPECT_EQ(test, rdma_bind_addr(a, (struct sockaddr *)&ss),
			-ENODEV);
}

static struct kunit_case rdmacm_addr_cases[] = {
	KUNIT_CASE_PARAM(rdmacm_resolve_loopback, family_gen_params),
	KUNIT_CASE(rdmacm_tos_between),
	KUNIT_CASE_PARAM(rdmacm_resolve_error, err_gen_params),
	KUNIT_CASE(rdmacm_destroy_resolving),
	KUNIT_CASE(rdmacm_bind_ports),
	KUNIT_CASE(rdmacm_bind_ports_many),
	KUNIT_CASE(rdmacm_resolve_parallel),
	KUNIT_CASE(rdmacm_resolve_local_owner),
	KUNIT_CASE(rdmacm_bind_share),
	KUNIT_CASE(rdmacm_listen_unbound),
	KUNIT_CASE(rdmacm_lock_handler),
	KUNIT_CASE(rdmacm_bind_errors),
	KUNIT_CASE(rdmacm_bind_no_device),
	{}
};

static struct kunit_suite rdmacm_addr_suite = {
	.name = "kiwi_rdmacm_addr",
	.test_cases = rdmacm_addr_cases,
};

kunit_test_suite(rdmacm_addr_suite);
