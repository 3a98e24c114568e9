// SPDX-License-Identifier: GPL-2.0
/*
 * The test VM's second network namespace. /init creates it, with a veth
 * pair between it and the initial namespace, and loads kiwi_testlib with
 * the pid of the process that holds it open:
 *
 *   initial namespace: kv0  198.18.0.1/24  fd00:198:18::1/64
 *   peer namespace:    kv1  198.18.0.2/24  fd00:198:18::2/64
 *
 * Its addresses in either family, checks of the addresses a connection
 * reports, and the {IPv4, IPv6} rows of the cases that run in both.
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/inet.h>
#include <linux/module.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>

#include "kiwi_test.h"

static int peer_netns_pid;
module_param(peer_netns_pid, int, 0444);
MODULE_PARM_DESC(peer_netns_pid,
		 "pid of a process in the test VM's peer network namespace");

static void kiwi_test_put_net(struct kunit_resource *res)
{
	put_net(res->data);
}

/**
 * kiwi_test_peer_net() - the test VM's peer network namespace
 * @test: the running test; the namespace reference is dropped when it ends
 *
 * Fails (and aborts) @test when kiwi_testlib was loaded without
 * peer_netns_pid or the namespace is gone.
 *
 * Context: process context; sleeps.
 * Return: the namespace, referenced until @test ends.
 */
struct net *kiwi_test_peer_net(struct kunit *test)
{
	struct net *net;
	void *held;

	KUNIT_ASSERT_GT_MSG(test, peer_netns_pid, 0,
			    "kiwi_testlib loaded without peer_netns_pid");
	net = get_net_ns_by_pid(peer_netns_pid);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(net), "peer namespace: %ld",
			       PTR_ERR_OR_ZERO(net));
	held = kunit_alloc_resource(test, NULL, kiwi_test_put_net, GFP_KERNEL,
				    net);
	if (!held)
		put_net(net);
	KUNIT_ASSERT_NOT_NULL(test, held);
	return net;
}
EXPORT_SYMBOL_GPL(kiwi_test_peer_net);

/* By enum kiwi_test_host: the IPv4 address, then the IPv6 one. */
static const char *const kiwi_test_hosts[][2] = {
	[KIWI_TEST_ANY] = { "0.0.0.0", "::" },
	[KIWI_TEST_LO] = { "127.0.0.1", "::1" },
	[KIWI_TEST_KV0] = { "198.18.0.1", "fd00:198:18::1" },
	[KIWI_TEST_KV1] = { "198.18.0.2", "fd00:198:18::2" },
};

/**
 * kiwi_test_host_text() - an address of the test network as text
 * @family: AF_INET or AF_INET6
 * @host: which address
 *
 * Context: any context.
 * Return: the address, such as "fd00:198:18::2"; "" for an unknown
 * @family or @host.
 */
const char *kiwi_test_host_text(int family, enum kiwi_test_host host)
{
	if ((family != AF_INET && family != AF_INET6) ||
	    host >= ARRAY_SIZE(kiwi_test_hosts))
		return "";
	return kiwi_test_hosts[host][family == AF_INET6];
}
EXPORT_SYMBOL_GPL(kiwi_test_host_text);

/**
 * kiwi_test_addr() - an address of the test network with a port
 * @test: the running test, aborted if @family or @host is unknown
 * @ss: set to the address; the rest of it is zeroed
 * @family: AF_INET or AF_INET6
 * @host: which address
 * @port: the port, host order
 *
 * Context: the test case's thread: a failed assertion ends it.
 */
void kiwi_test_addr(struct kunit *test, struct sockaddr_storage *ss,
		    int family, enum kiwi_test_host host, u16 port)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	const char *text = kiwi_test_host_text(family, host);
	bool ok;

	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET6) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
		ok = in6_pton(text, -1, sin6->sin6_addr.s6_addr, -1, NULL);
	} else {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		ok = in4_pton(text, -1, (u8 *)&sin->sin_addr.s_addr, -1,
			      NULL);
	}
	KUNIT_ASSERT_TRUE_MSG(test, ok, "no address %d of family %d", host,
			      family);
}
EXPORT_SYMBOL_GPL(kiwi_test_addr);

static bool kiwi_test_same_host(const struct sockaddr_storage *a,
				const struct sockaddr_storage *b)
{
	const struct sockaddr_in6 *a6 = (const struct sockaddr_in6 *)a;
	const struct sockaddr_in6 *b6 = (const struct sockaddr_in6 *)b;
	const struct sockaddr_in *a4 = (const struct sockaddr_in *)a;
	const struct sockaddr_in *b4 = (const struct sockaddr_in *)b;

	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET)
		return a4->sin_addr.s_addr == b4->sin_addr.s_addr;
	return a->ss_family == AF_INET6 &&
	       ipv6_addr_equal(&a6->sin6_addr, &b6->sin6_addr);
}

static u16 kiwi_test_port(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)ss)->sin_port);
	if (ss->ss_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
	return 0;
}

/**
 * kiwi_test_expect_addr() - expect an address to be one of the test network
 * @test: the running test; fails if the address differs
 * @got: the address, as a cm_id or a socket reports it
 * @family: the family it must have
 * @host: the address it must be
 * @port: the port it must have, or 0 for any port but 0
 *
 * Context: the test case's thread.
 * Return: @got's port, host order; 0 if @got is of neither family.
 */
u16 kiwi_test_expect_addr(struct kunit *test,
			  const struct sockaddr_storage *got, int family,
			  enum kiwi_test_host host, u16 port)
{
	struct sockaddr_storage want;
	u16 got_port = kiwi_test_port(got);

	kiwi_test_addr(test, &want, family, host, port);
	KUNIT_EXPECT_EQ_MSG(test, got->ss_family, want.ss_family,
			    "%pISpc is not of family %d", got, family);
	KUNIT_EXPECT_TRUE_MSG(test, kiwi_test_same_host(got, &want),
			      "%pISpc is not at %pISc", got, &want);
	if (port)
		KUNIT_EXPECT_EQ_MSG(test, got_port, port,
				    "%pISpc does not have port %u", got, port);
	else
		KUNIT_EXPECT_NE_MSG(test, got_port, 0, "%pISpc has no port",
				    got);
	return got_port;
}
EXPORT_SYMBOL_GPL(kiwi_test_expect_addr);

static const int kiwi_test_families[] = { AF_INET, AF_INET6 };

static void kiwi_test_family_desc(const int *family, char *desc)
{
	strscpy(desc, *family == AF_INET6 ? "ipv6" : "ipv4",
		KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kiwi_test_family, kiwi_test_families,
		  kiwi_test_family_desc);

/**
 * kiwi_test_family_params() - the rows of a case run once per family
 * @prev: the row before, or NULL for the first
 * @desc: set to the row's name, "ipv4" or "ipv6"
 *
 * For KUNIT_CASE_PARAM(): the case runs once over IPv4, then once over
 * IPv6, and reads its row with kiwi_test_family().
 *
 * Context: any context.
 * Return: the next row, or NULL after the last.
 */
const void *kiwi_test_family_params(const void *prev, char *desc)
{
	return kiwi_test_family_gen_params(prev, desc);
}
EXPORT_SYMBOL_GPL(kiwi_test_family_params);

/**
 * kiwi_test_family() - the address family of a case's row
 * @test: a case of KUNIT_CASE_PARAM() with kiwi_test_family_params()
 *
 * Context: any context.
 * Return: AF_INET or AF_INET6.
 */
int kiwi_test_family(struct kunit *test)
{
	return *(const int *)test->param_value;
}
EXPORT_SYMBOL_GPL(kiwi_test_family);
