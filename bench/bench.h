/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kiwi's connection benchmark: the driver (kiwi_bench_core.ko) runs the
 * same scenarios over every registered stack. A stack opens and closes
 * one connection at a time, synchronously; the driver keeps as many of
 * them in flight as the scenario asks, from as many threads.
 */
#ifndef _KIWI_BENCH_H
#define _KIWI_BENCH_H

#include <linux/list.h>
#include <linux/socket.h>
#include <linux/types.h>

struct module;
struct net;

/**
 * struct kiwi_bench_conn - one connection, as the driver sees it
 * @priv: the stack's state of the connection
 * @t_connect: ns timestamp (ktime_get_ns()) at the connect call
 * @t_established: ns timestamp when the connection was established
 */
struct kiwi_bench_conn {
	void *priv;
	u64 t_connect;
	u64 t_established;
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
	struct list_head node;
};

int kiwi_bench_register(struct kiwi_bench_stack *stack);
void kiwi_bench_unregister(struct kiwi_bench_stack *stack);

/* tcp.c: the raw in-kernel TCP baseline, part of kiwi_bench_core */
extern struct kiwi_bench_stack kiwi_bench_tcp;
int kiwi_bench_tcp_init(void);
void kiwi_bench_tcp_exit(void);

#endif /* _KIWI_BENCH_H */
