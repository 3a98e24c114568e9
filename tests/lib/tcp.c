// SPDX-License-Identifier: GPL-2.0
/*
 * TCP sockets a case leaves behind. A provider that releases a socket
 * leaves the kernel an orphan to finish the connection; the orphan must
 * end on its own (in TIME_WAIT, which holds no socket, or closed). One
 * that never does holds its memory and its port for as long as the
 * kernel runs, and no slab check sees it as a leak: TCP's hash still
 * points at it. These helpers count the kernel's TCP sockets (every
 * namespace, both families) and name the ones still in its hash.
 */
#include <kunit/resource.h>
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/percpu_counter.h>
#include <linux/printk.h>
#include <linux/slab.h>
#include <linux/tcp.h>
#include <net/inet_hashtables.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "kiwi_test.h"

/* Orphans that only wait for an ACK on a loopback or veth path: seconds. */
#define TCP_SETTLE_MS	20000
#define TCP_LIST_MAX	8	/* sockets a failure names */

static const char *const tcp_state_names[TCP_MAX_STATES] = {
	[TCP_ESTABLISHED] = "ESTABLISHED",
	[TCP_SYN_SENT] = "SYN_SENT",
	[TCP_SYN_RECV] = "SYN_RECV",
	[TCP_FIN_WAIT1] = "FIN_WAIT1",
	[TCP_FIN_WAIT2] = "FIN_WAIT2",
	[TCP_TIME_WAIT] = "TIME_WAIT",
	[TCP_CLOSE] = "CLOSE",
	[TCP_CLOSE_WAIT] = "CLOSE_WAIT",
	[TCP_LAST_ACK] = "LAST_ACK",
	[TCP_LISTEN] = "LISTEN",
	[TCP_CLOSING] = "CLOSING",
	[TCP_NEW_SYN_RECV] = "NEW_SYN_RECV",
};

/**
 * kiwi_test_tcp_sockets() - the kernel's TCP sockets, now
 *
 * Context: any context.
 * Return: how many TCP sockets of either family the kernel holds, in
 * every namespace, listeners included; connections in TIME_WAIT hold
 * none.
 */
unsigned int kiwi_test_tcp_sockets(void)
{
	return percpu_counter_sum_positive(&tcp_sockets_allocated);
}
EXPORT_SYMBOL_GPL(kiwi_test_tcp_sockets);

static void tcp_name_one(struct kunit *test, struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	const char *state = tcp_state_names[sk->sk_state];
	u32 queued = READ_ONCE(tp->write_seq) - READ_ONCE(tp->snd_una);
	bool orphan = sock_flag(sk, SOCK_DEAD);

	if (sk->sk_family == AF_INET6)
		kunit_info(test, "left: [%pI6c]:%u -> [%pI6c]:%u %s, %u bytes unacknowledged%s\n",
			   &sk->sk_v6_rcv_saddr, sk->sk_num,
			   &sk->sk_v6_daddr, ntohs(sk->sk_dport), state,
			   queued, orphan ? ", orphaned" : "");
	else
		kunit_info(test, "left: %pI4:%u -> %pI4:%u %s, %u bytes unacknowledged%s\n",
			   &sk->sk_rcv_saddr, sk->sk_num, &sk->sk_daddr,
			   ntohs(sk->sk_dport), state, queued,
			   orphan ? ", orphaned" : "");
}

/* Name the sockets of TCP's connection hash that are not in TIME_WAIT. */
static void tcp_name_left(struct kunit *test)
{
	struct inet_hashinfo *h = &tcp_hashinfo;
	struct hlist_nulls_node *node;
	unsigned int b, named = 0;
	struct sock *sk;

	for (b = 0; b <= h->ehash_mask && named < TCP_LIST_MAX; b++) {
		if (hlist_nulls_empty(&h->ehash[b].chain))
			continue;
		spin_lock_bh(inet_ehash_lockp(h, b));
		sk_nulls_for_each(sk, node, &h->ehash[b].chain) {
			if (sk->sk_state == TCP_TIME_WAIT ||
			    sk->sk_state == TCP_NEW_SYN_RECV)
				continue;
			if (named++ < TCP_LIST_MAX)
				tcp_name_one(test, sk);
		}
		spin_unlock_bh(inet_ehash_lockp(h, b));
		cond_resched();
	}
}

/**
 * kiwi_test_tcp_settled() - check that no TCP socket outlives a case
 * @test: the case
 * @base: kiwi_test_tcp_sockets() before the case opened any
 *
 * Waits for the kernel's TCP sockets to come back to @base: an orphan
 * whose peer is alive, or gone with its stack answering, ends within
 * milliseconds on a local path, so 20 s is a generous bound. If they do
 * not, the case fails and the log names the connected sockets still in
 * TCP's hash, with their state and the bytes they still hold.
 *
 * Context: process context; sleeps.
 */
void kiwi_test_tcp_settled(struct kunit *test, unsigned int base)
{
	unsigned int now = kiwi_test_tcp_sockets();
	int waited;

	for (waited = 0; waited < TCP_SETTLE_MS && now > base; waited += 20) {
		msleep(20);
		now = kiwi_test_tcp_sockets();
	}
	if (now <= base)
		return;
	tcp_name_left(test);
	KUNIT_FAIL(test, "%u TCP sockets left after %d s, %u before the case",
		   now - base, TCP_SETTLE_MS / 1000, base);
}
EXPORT_SYMBOL_GPL(kiwi_test_tcp_settled);

/**
 * struct tcp_watch - the check kiwi_test_tcp_watch() leaves for a case's end
 * @test: the case
 * @base: the kernel's TCP sockets when the watch began
 */
struct tcp_watch {
	struct kunit *test;
	unsigned int base;
};

static void tcp_watch_end(struct kunit_resource *res)
{
	struct tcp_watch *w = res->data;

	kiwi_test_tcp_settled(w->test, w->base);
	kfree(w);
}

/**
 * kiwi_test_tcp_watch() - check at a case's end that its TCP sockets went
 * @test: the case
 *
 * Takes kiwi_test_tcp_sockets() now, and runs kiwi_test_tcp_settled()
 * against it when @test ends, after the resources allocated after this
 * call (sockets, listeners, ids) are freed. Call it first, from a suite's
 * init or before the case opens its first socket.
 *
 * Context: process context; the check sleeps.
 */
void kiwi_test_tcp_watch(struct kunit *test)
{
	struct tcp_watch *w = kmalloc(sizeof(*w), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, w);
	w->test = test;
	w->base = kiwi_test_tcp_sockets();
	if (!kunit_alloc_resource(test, NULL, tcp_watch_end, GFP_KERNEL, w)) {
		kfree(w);
		KUNIT_ASSERT_FAILURE(test, "no memory for a resource");
	}
}
EXPORT_SYMBOL_GPL(kiwi_test_tcp_watch);
