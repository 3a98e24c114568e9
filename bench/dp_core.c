// SPDX-License-Identifier: GPL-2.0
/*
 * The data-path driver of kiwi_bench_core: its commands, written to the
 * cmd parameter as the connection benchmark's are (core.c):
 *
 *   dpserve STACK PORT              serve transfers on PORT (peer netns)
 *   dpunserve STACK                 close the listener
 *   send|write|read STACK PORT SIZE DEPTH
 *                                   one transfer of dp_ms milliseconds:
 *                                   messages of SIZE bytes, DEPTH in flight
 *                                   on each of dp_conns connections
 *   ping STACK PORT                 64-byte ping-pong for dp_ms ms
 *
 * A transfer opens its own connection from the initial namespace and
 * closes it after (one that fails before any byte moved is tried again,
 * three tries in all); the result is a JSON object with the bytes and
 * time, for a ping the median and 99th percentile round trip, and the
 * tries.
 */
#include <linux/completion.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/sort.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/vmalloc.h>
#include <net/net_namespace.h>

#include "bench.h"
#include "dp.h"

#define DP_MAX_LAT	200000
#define DP_TRIES	3
#define DP_MAX_CONNS	16

static unsigned int dp_ms = 3000;
module_param(dp_ms, uint, 0644);
MODULE_PARM_DESC(dp_ms, "milliseconds a data-path transfer issues requests");

static unsigned int dp_conns = 1;
module_param(dp_conns, uint, 0644);
MODULE_PARM_DESC(dp_conns, "connections a SEND, WRITE or READ transfer runs at once");

static LIST_HEAD(dp_stacks);
static DEFINE_MUTEX(dp_lock);	/* protects dp_stacks */

static const char *const dp_op_names[KIWI_BENCH_DP_NR] = {
	[KIWI_BENCH_DP_SEND] = "send",
	[KIWI_BENCH_DP_WRITE] = "write",
	[KIWI_BENCH_DP_READ] = "read",
	[KIWI_BENCH_DP_PING] = "ping",
};

/**
 * kiwi_bench_dp_register() - make a stack's data path available
 * @dp: the data path, valid until kiwi_bench_dp_unregister()
 *
 * Context: process context; sleeps.
 * Return: 0, or -EEXIST if one of that name is registered.
 */
int kiwi_bench_dp_register(struct kiwi_bench_dp *dp)
{
	struct kiwi_bench_dp *d;
	int ret = 0;

	mutex_lock(&dp_lock);
	list_for_each_entry(d, &dp_stacks, node)
		if (!strcmp(d->name, dp->name))
			ret = -EEXIST;
	if (!ret)
		list_add_tail(&dp->node, &dp_stacks);
	mutex_unlock(&dp_lock);
	return ret;
}
EXPORT_SYMBOL_GPL(kiwi_bench_dp_register);

/**
 * kiwi_bench_dp_unregister() - withdraw a data path
 * @dp: a registered data path
 *
 * Context: process context; sleeps.
 */
void kiwi_bench_dp_unregister(struct kiwi_bench_dp *dp)
{
	mutex_lock(&dp_lock);
	list_del(&dp->node);
	mutex_unlock(&dp_lock);
}
EXPORT_SYMBOL_GPL(kiwi_bench_dp_unregister);

static struct kiwi_bench_dp *dp_get(const char *name)
{
	struct kiwi_bench_dp *d, *found = NULL;

	mutex_lock(&dp_lock);
	list_for_each_entry(d, &dp_stacks, node)
		if (!strcmp(d->name, name) && try_module_get(d->owner)) {
			found = d;
			break;
		}
	mutex_unlock(&dp_lock);
	return found;
}

static int dp_op_of(const char *cmd)
{
	int i;

	for (i = 0; i < KIWI_BENCH_DP_NR; i++)
		if (!strcmp(cmd, dp_op_names[i]))
			return i;
	return -EINVAL;
}

static int dp_serve(struct kiwi_bench_dp *dp, u16 port)
{
	struct sockaddr_storage ss;
	struct net *net;
	int ret;

	ret = kiwi_bench_addr(port, &ss);
	if (ret)
		return ret;
	net = kiwi_bench_peer_net();
	if (IS_ERR(net))
		return PTR_ERR(net);
	ret = dp->serve(net, &ss);
	put_net(net);
	return ret;
}

static int dp_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* The median and 99th percentile of @r's round trips, in ns. */
static void dp_pcts(struct kiwi_bench_dp_result *r, u64 *p50, u64 *p99)
{
	*p50 = 0;
	*p99 = 0;
	if (!r->nlat)
		return;
	sort(r->lat, r->nlat, sizeof(u64), dp_cmp_u64, NULL);
	*p50 = r->lat[r->nlat / 2];
	*p99 = r->lat[min_t(u32, r->nlat - 1, (u64)r->nlat * 99 / 100)];
}

/**
 * struct dp_conn_run - one connection of a transfer, in a thread of its own
 * @dp: the stack
 * @dst: the server
 * @p: the transfer
 * @r: what it measured
 * @ret: how it ended
 * @tries: connections opened for it
 * @done: completed when the thread is done with it
 */
struct dp_conn_run {
	struct kiwi_bench_dp *dp;
	struct sockaddr_storage dst;
	struct kiwi_bench_dp_params p;
	struct kiwi_bench_dp_result r;
	int ret;
	u32 tries;
	struct completion done;
};

/*
 * Run one connection's transfer. A connection that fails before any byte
 * moved is opened again: what is measured is the data path (Linux's
 * stack fails some connects to a port it served just before).
 */
static void dp_conn_transfer(struct dp_conn_run *c)
{
	for (;;) {
		c->tries++;
		c->ret = c->dp->run(&init_net, &c->dst, &c->p, &c->r);
		if (!c->ret || c->r.ops || c->tries == DP_TRIES)
			return;
		memset(&c->r, 0, offsetof(struct kiwi_bench_dp_result, lat));
	}
}

static int dp_conn_thread(void *arg)
{
	struct dp_conn_run *c = arg;

	dp_conn_transfer(c);
	complete(&c->done);
	return 0;
}

/*
 * The connections of a transfer at once, from threads of their own (the
 * first in the caller), their bytes added up; the time is the longest.
 */
static int dp_conns_transfer(struct dp_conn_run *c, u32 n)
{
	u32 i;
	int ret;

	for (i = 1; i < n; i++) {
		c[i] = c[0];
		init_completion(&c[i].done);
		if (IS_ERR(kthread_run(dp_conn_thread, &c[i], "kiwi_dp_conn")))
			complete(&c[i].done);
	}
	dp_conn_transfer(&c[0]);
	ret = c[0].ret;
	for (i = 1; i < n; i++) {
		wait_for_completion(&c[i].done);
		c[0].r.bytes += c[i].r.bytes;
		c[0].r.ops += c[i].r.ops;
		c[0].r.ns = max(c[0].r.ns, c[i].r.ns);
		c[0].tries += c[i].tries;
		if (!ret)
			ret = c[i].tries ? c[i].ret : -ECHILD;
	}
	return ret;
}

static int dp_transfer(struct kiwi_bench_dp *dp, int op, u16 port, u32 size,
		       u32 depth, char *result, size_t len)
{
	u32 n = op == KIWI_BENCH_DP_PING ? 1 : dp_conns;
	struct dp_conn_run *c;
	struct kiwi_bench_dp_params *p;
	struct kiwi_bench_dp_result *r;
	u64 p50, p99;
	int ret = -EINVAL;

	if (!n || n > DP_MAX_CONNS)
		return -EINVAL;
	c = kcalloc(n, sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	p = &c->p;
	r = &c->r;
	*p = (struct kiwi_bench_dp_params) {
		.op = op, .size = size, .depth = depth, .ms = dp_ms,
	};
	c->dp = dp;
	init_completion(&c->done);
	if (op == KIWI_BENCH_DP_PING) {
		p->size = KIWI_BENCH_DP_PING_SIZE;
		p->depth = 1;
		r->max_lat = DP_MAX_LAT;
		r->lat = vmalloc(array_size(r->max_lat, sizeof(u64)));
		if (!r->lat) {
			ret = -ENOMEM;
			goto out_free_c;
		}
	}
	if (!p->size || p->size > KIWI_BENCH_DP_MAX_SIZE || !p->depth ||
	    p->depth > KIWI_BENCH_DP_MAX_DEPTH)
		goto out_free_lat;
	ret = kiwi_bench_addr(port, &c->dst);
	if (!ret)
		ret = dp_conns_transfer(c, n);
	dp_pcts(r, &p50, &p99);
	snprintf(result, len,
		 "{\"cmd\":\"%s\",\"stack\":\"%s\",\"size\":%u,\"depth\":%u,\"conns\":%u,\"err\":%d,\"bytes\":%llu,\"ops\":%llu,\"ns\":%llu,\"p50_ns\":%llu,\"p99_ns\":%llu,\"pings\":%u,\"tries\":%u}",
		 dp_op_names[op], dp->name, p->size, p->depth, n, ret,
		 r->bytes, r->ops, r->ns, p50, p99, r->nlat, c->tries);
out_free_lat:
	vfree(r->lat);
out_free_c:
	kfree(c);
	return ret;
}

/**
 * kiwi_bench_dp_command() - run a data-path command, if @cmd is one
 * @cmd: the command word
 * @name: the stack
 * @a: PORT
 * @b: SIZE
 * @c: DEPTH
 * @args: words the command line had
 * @result: where the JSON result goes
 * @len: room in @result
 *
 * Context: process context; sleeps for the transfer.
 * Return: 0, a negative errno, or -ENOIOCTLCMD if @cmd is no data-path
 * command.
 */
int kiwi_bench_dp_command(const char *cmd, const char *name, u32 a, u32 b,
			  u32 c, int args, char *result, size_t len)
{
	int op = dp_op_of(cmd);
	struct kiwi_bench_dp *dp;
	int ret = -EINVAL;

	if (op < 0 && strcmp(cmd, "dpserve") && strcmp(cmd, "dpunserve"))
		return -ENOIOCTLCMD;
	dp = dp_get(name);
	if (!dp)
		return -ENOENT;
	if (!strcmp(cmd, "dpserve") && args == 3)
		ret = dp_serve(dp, a);
	else if (!strcmp(cmd, "dpunserve") && args == 2)
		ret = (dp->unserve(), 0);
	else if (op == KIWI_BENCH_DP_PING && args == 3)
		ret = dp_transfer(dp, op, a, 0, 1, result, len);
	else if (op >= 0 && op != KIWI_BENCH_DP_PING && args == 5)
		ret = dp_transfer(dp, op, a, b, c, result, len);
	module_put(dp->owner);
	return ret;
}

/**
 * kiwi_bench_dp_init() - register the TCP baseline's data path
 *
 * Context: module init.
 * Return: 0 or a negative errno.
 */
int kiwi_bench_dp_init(void)
{
	return kiwi_bench_dp_register(&kiwi_bench_dp_tcp);
}

/**
 * kiwi_bench_dp_exit() - withdraw the TCP baseline's data path
 *
 * Context: module exit.
 */
void kiwi_bench_dp_exit(void)
{
	kiwi_bench_dp_unregister(&kiwi_bench_dp_tcp);
	kiwi_bench_dp_tcp_unserve();
}
