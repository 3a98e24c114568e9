/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kiwi's connection benchmark: the driver (kiwi_bench_core.ko) runs the
 * same scenarios over every registered stack. A stack opens and closes
 * one connection at a time, synchronously; the driver keeps as many of
 * them in flight as the scenario asks, from as many threads.
 */
#ifndef _KIWI_BENCH_H
#define _KIWI_BENCH_H

#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/socket.h>
#include <linux/types.h>

struct module;
struct net;

/**
 * enum kiwi_bench_mark - where a client connection is, for the breakdown
 * @KIWI_BENCH_T_OPEN: open() was called
 * @KIWI_BENCH_T_ADDR: the address was resolved
 * @KIWI_BENCH_T_ROUTE: the route was resolved
 * @KIWI_BENCH_T_CONNECT: the connect call (the QP exists)
 * @KIWI_BENCH_T_ESTABLISHED: the connection was established
 * @KIWI_BENCH_T_CLOSE: close() was called
 * @KIWI_BENCH_T_DISC_RET: the disconnect call returned
 * @KIWI_BENCH_T_DISCONNECTED: the connection was reported down
 * @KIWI_BENCH_T_QP_GONE: the QP and CQ were destroyed
 * @KIWI_BENCH_T_GONE: everything was destroyed
 * @KIWI_BENCH_T_NR: number of marks
 *
 * A stack sets the marks it has; a stage whose two ends are not both set
 * is left out of the breakdown.
 */
enum kiwi_bench_mark {
	KIWI_BENCH_T_OPEN,
	KIWI_BENCH_T_ADDR,
	KIWI_BENCH_T_ROUTE,
	KIWI_BENCH_T_CONNECT,
	KIWI_BENCH_T_ESTABLISHED,
	KIWI_BENCH_T_CLOSE,
	KIWI_BENCH_T_DISC_RET,
	KIWI_BENCH_T_DISCONNECTED,
	KIWI_BENCH_T_QP_GONE,
	KIWI_BENCH_T_GONE,
	KIWI_BENCH_T_NR
};

/**
 * struct kiwi_bench_conn - one connection, as the driver sees it
 * @priv: the stack's state of the connection
 * @t: ns timestamps (ktime_get_ns()) at each mark, 0 if not reached
 */
struct kiwi_bench_conn {
	void *priv;
	u64 t[KIWI_BENCH_T_NR];
};

/**
 * struct kiwi_bench_srv - what a stack's server measured in a rate run
 * @req_ns: sum over requests of the client's connect call to the
 *	server's request handler (both ends are in one VM: one clock)
 * @accept_ns: sum of the time the server's accept call took
 * @n: requests counted
 */
struct kiwi_bench_srv {
	atomic64_t req_ns;
	atomic64_t accept_ns;
	atomic_t n;
};

/**
 * struct kiwi_bench_stack - a connection stack under test
 * @name: its name in commands and results
 * @owner: the module that implements it
 * @serve: listen on @addr in @net and serve every connection that comes
 *	(accept; tear down when the peer closes); may be called for several
 *	ports. Return: 0 or a negative errno.
 * @unserve: close every listener and wait until the connections they
 *	served are gone
 * @open: connect from @net to @dst and return once established, setting
 *	@c's timestamps. Return: 0 or a negative errno (nothing left open).
 * @close: disconnect @c and free it, returning once it is gone
 * @srv: the server's measurements, reset by the driver before each run
 * @node: the driver's list of stacks
 */
struct kiwi_bench_stack {
	const char *name;
	struct module *owner;
	int (*serve)(struct net *net, const struct sockaddr_storage *addr);
	void (*unserve)(void);
	int (*open)(struct kiwi_bench_conn *c, struct net *net,
		    const struct sockaddr_storage *dst);
	void (*close)(struct kiwi_bench_conn *c);
	struct kiwi_bench_srv srv;
	struct list_head node;
};

int kiwi_bench_register(struct kiwi_bench_stack *stack);
void kiwi_bench_unregister(struct kiwi_bench_stack *stack);

/* core.c: where the servers are, for the data-path driver (dp_core.c). */
int kiwi_bench_addr(u16 port, struct sockaddr_storage *ss);
struct net *kiwi_bench_peer_net(void);

/*
 * tcp.c: the raw in-kernel TCP baseline, part of kiwi_bench_core; exported
 * for the rdma_cm stacks' floors (rdma.c), which open its connections.
 */
extern struct kiwi_bench_stack kiwi_bench_tcp;
int kiwi_bench_tcp_init(void);
void kiwi_bench_tcp_exit(void);

#endif /* _KIWI_BENCH_H */
