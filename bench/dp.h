/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kiwi's data-path benchmark: how fast a stack moves bytes over one
 * connection. The driver (dp_core.c, in kiwi_bench_core) runs a transfer
 * of one kind over a stack's fresh connection; a stack registers a
 * struct kiwi_bench_dp. The raw TCP baseline is built in (dp_tcp.c); the
 * rdma_cm stacks are one source (dp_rdma.c) compiled against kiwi and
 * against Linux.
 */
#ifndef _KIWI_BENCH_DP_H
#define _KIWI_BENCH_DP_H

#include <linux/list.h>
#include <linux/sizes.h>
#include <linux/socket.h>
#include <linux/types.h>

struct module;
struct net;

/* The largest message, and so the buffer each side of a connection has. */
#define KIWI_BENCH_DP_MAX_SIZE	SZ_1M
/* The most requests a client keeps in flight. */
#define KIWI_BENCH_DP_MAX_DEPTH	64
/* The size of a ping. */
#define KIWI_BENCH_DP_PING_SIZE	64

/**
 * enum kiwi_bench_dp_op - what a transfer does
 * @KIWI_BENCH_DP_SEND: the client SENDs, the server RECVs
 * @KIWI_BENCH_DP_WRITE: the client RDMA WRITEs into the server's buffer
 * @KIWI_BENCH_DP_READ: the client RDMA READs from the server's buffer
 * @KIWI_BENCH_DP_PING: a 64-byte SEND, answered by one, one at a time
 * @KIWI_BENCH_DP_NR: number of kinds
 *
 * Over TCP, SEND and WRITE are a stream from client to server, READ one
 * from server to client, PING a 64-byte message echoed back.
 */
enum kiwi_bench_dp_op {
	KIWI_BENCH_DP_SEND,
	KIWI_BENCH_DP_WRITE,
	KIWI_BENCH_DP_READ,
	KIWI_BENCH_DP_PING,
	KIWI_BENCH_DP_NR
};

/**
 * struct kiwi_bench_dp_params - one transfer
 * @op: its kind
 * @size: bytes a message (a request, or a TCP send call)
 * @depth: requests kept in flight (1 for PING; unused over TCP)
 * @ms: how long the client keeps issuing requests
 */
struct kiwi_bench_dp_params {
	enum kiwi_bench_dp_op op;
	u32 size;
	u32 depth;
	u32 ms;
};

/**
 * struct kiwi_bench_dp_result - what a transfer measured
 * @bytes: payload bytes that completed
 * @ops: messages that completed (PING: round trips)
 * @ns: from the first request to the last completion
 * @lat: PING only: round trip of each ping, ns, in order
 * @nlat: entries in @lat
 * @max_lat: room in @lat
 */
struct kiwi_bench_dp_result {
	u64 bytes;
	u64 ops;
	u64 ns;
	u64 *lat;
	u32 nlat;
	u32 max_lat;
};

/**
 * struct kiwi_bench_dp - a stack's data path
 * @name: its name in commands and results
 * @owner: the module that implements it
 * @serve: listen on @addr in @net and serve every transfer that comes.
 *	Return: 0 or a negative errno.
 * @unserve: close the listeners and wait until their connections are gone
 * @run: open a connection from @net to @dst, run @p over it, fill @r and
 *	close it. Return: 0 or a negative errno.
 * @node: the driver's list
 */
struct kiwi_bench_dp {
	const char *name;
	struct module *owner;
	int (*serve)(struct net *net, const struct sockaddr_storage *addr);
	void (*unserve)(void);
	int (*run)(struct net *net, const struct sockaddr_storage *dst,
		   const struct kiwi_bench_dp_params *p,
		   struct kiwi_bench_dp_result *r);
	struct list_head node;
};

int kiwi_bench_dp_register(struct kiwi_bench_dp *dp);
void kiwi_bench_dp_unregister(struct kiwi_bench_dp *dp);

/* dp_core.c and dp_tcp.c, for core.c. */
int kiwi_bench_dp_command(const char *cmd, const char *name, u32 a, u32 b,
			  u32 c, int args, char *result, size_t len);
int kiwi_bench_dp_init(void);
void kiwi_bench_dp_exit(void);
extern struct kiwi_bench_dp kiwi_bench_dp_tcp;
void kiwi_bench_dp_tcp_unserve(void);

/* One ping's round trip into @r, if there is room. */
static inline void kiwi_bench_dp_lat(struct kiwi_bench_dp_result *r, u64 ns)
{
	if (r->nlat < r->max_lat)
		r->lat[r->nlat++] = ns;
}

#endif /* _KIWI_BENCH_DP_H */
