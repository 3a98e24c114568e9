// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_testnet: the test VM's network fixture is what the suites rely on.
 * The peer namespace is not the initial one, kv0 and kv1 sit in their
 * namespaces, and a TCP connection from the initial namespace reaches a
 * listener in the peer namespace over the veth pair, in IPv4 and IPv6.
 */
#include <kunit/test.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/inet.h>
#include <linux/module.h>
#include <linux/net.h>
#include <linux/netdevice.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#include "kiwi_test.h"

struct testnet_case {
	const char *desc;
	int family;
	const char *peer_addr;
};

static const struct testnet_case testnet_cases[] = {
	{ "ipv4", AF_INET, "198.18.0.2" },
	{ "ipv6", AF_INET6, "fd00:198:18::2" },
};

static void testnet_case_desc(const struct testnet_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(testnet, testnet_cases, testnet_case_desc);

static void testnet_release_sock(struct kunit_resource *res)
{
	sock_release(res->data);
}

/* A kernel socket in @net, released when @test ends. */
static struct socket *testnet_socket(struct kunit *test, struct net *net,
				     int family)
{
	struct socket *sock;
	void *held;

	KUNIT_ASSERT_EQ(test, sock_create_kern(net, family, SOCK_STREAM,
					       IPPROTO_TCP, &sock), 0);
	held = kunit_alloc_resource(test, NULL, testnet_release_sock,
				    GFP_KERNEL, sock);
	if (!held)
		sock_release(sock);
	KUNIT_ASSERT_NOT_NULL(test, held);
	return sock;
}

static void testnet_addr(struct kunit *test, const struct testnet_case *c,
			 const char *addr, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	KUNIT_ASSERT_EQ(test, inet_pton_with_scope(&init_net, c->family, addr,
						   "21900", ss), 0);
}

static void testnet_peer_is_other(struct kunit *test)
{
	struct net *peer = kiwi_test_peer_net(test);

	KUNIT_EXPECT_FALSE(test, net_eq(peer, &init_net));
}

static void testnet_expect_dev(struct kunit *test, struct net *net,
			       const char *name, bool present)
{
	struct net_device *dev = dev_get_by_name(net, name);

	KUNIT_EXPECT_EQ_MSG(test, !!dev, present, "%s", name);
	if (!dev)
		return;
	KUNIT_EXPECT_TRUE_MSG(test, netif_running(dev), "%s is down", name);
	dev_put(dev);
}

static void testnet_devices(struct kunit *test)
{
	struct net *peer = kiwi_test_peer_net(test);

	testnet_expect_dev(test, &init_net, "kv0", true);
	testnet_expect_dev(test, &init_net, "kv1", false);
	testnet_expect_dev(test, peer, "kv1", true);
	testnet_expect_dev(test, peer, "kv0", false);
}

/* Connect from the initial namespace to a listener in the peer one. */
static void testnet_connect_across(struct kunit *test)
{
	const struct testnet_case *c = test->param_value;
	struct net *peer = kiwi_test_peer_net(test);
	struct socket *lsock, *csock, *asock;
	struct sockaddr_storage ss;
	char byte = 'k';
	struct kvec vec = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = {};

	lsock = testnet_socket(test, peer, c->family);
	testnet_addr(test, c, c->peer_addr, &ss);
	KUNIT_ASSERT_EQ(test, kernel_bind(lsock, (struct sockaddr *)&ss,
					  sizeof(ss)), 0);
	KUNIT_ASSERT_EQ(test, kernel_listen(lsock, 1), 0);

	csock = testnet_socket(test, &init_net, c->family);
	KUNIT_ASSERT_EQ(test, kernel_connect(csock, (struct sockaddr *)&ss,
					     sizeof(ss), 0), 0);
	KUNIT_ASSERT_EQ(test, kernel_accept(lsock, &asock, 0), 0);
	KUNIT_EXPECT_EQ(test, kernel_sendmsg(csock, &msg, &vec, 1, 1), 1);
	byte = 0;
	KUNIT_EXPECT_EQ(test, kernel_recvmsg(asock, &msg, &vec, 1, 1, 0), 1);
	KUNIT_EXPECT_EQ(test, byte, 'k');
	sock_release(asock);
}

/* The peer's address is not local to the initial namespace. */
static void testnet_no_listener_here(struct kunit *test)
{
	const struct testnet_case *c = test->param_value;
	struct sockaddr_storage ss;
	struct socket *sock;

	sock = testnet_socket(test, &init_net, c->family);
	testnet_addr(test, c, c->peer_addr, &ss);
	KUNIT_EXPECT_EQ(test, kernel_bind(sock, (struct sockaddr *)&ss,
					  sizeof(ss)), -EADDRNOTAVAIL);
}

static struct kunit_case testnet_test_cases[] = {
	KUNIT_CASE(testnet_peer_is_other),
	KUNIT_CASE(testnet_devices),
	KUNIT_CASE_PARAM(testnet_connect_across, testnet_gen_params),
	KUNIT_CASE_PARAM(testnet_no_listener_here, testnet_gen_params),
	{}
};

static struct kunit_suite testnet_test_suite = {
	.name = "kiwi_testnet",
	.test_cases = testnet_test_cases,
};

kunit_test_suite(testnet_test_suite);

MODULE_DESCRIPTION("KUnit tests of kiwi's test VM network fixture");
MODULE_LICENSE("GPL");
