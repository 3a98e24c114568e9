// SPDX-License-Identifier: GPL-2.0
/*
 * The test VM's second network namespace. /init creates it, with a veth
 * pair between it and the initial namespace, and loads kiwi_testlib with
 * the pid of the process that holds it open:
 *
 *   initial namespace: kv0  198.18.0.1/24  fd00:198:18::1/64
 *   peer namespace:    kv1  198.18.0.2/24  fd00:198:18::2/64
 */
#include <linux/module.h>
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
