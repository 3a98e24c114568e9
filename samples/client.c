// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_sample_client: a sample ULP that opens connections to a server,
 * sends each one's messages, checks their echoes and disconnects, all
 * while it loads. With rdma=1 the server fetches each message by RDMA READ
 * and returns it by RDMA WRITE instead of receiving and sending it.
 *
 *   insmod kiwi_sample_client.ko address=127.0.0.1 connections=4 count=100
 *
 * The outcome is the result of insmod: the module loads (and may be
 * removed at once) if every connection completed; otherwise loading fails
 * with the first failed connection's error (ECONNREFUSED, ETIMEDOUT...).
 * Each connection's events and the summary line are in the kernel log
 * either way. Connections are made from the network namespace of the
 * process that loads the module.
 */
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/nsproxy.h>
#include <linux/slab.h>

#include "sample.h"

#define CLIENT_NAME		"kiwi_sample_client"
#define CLIENT_MAX_CONNS	1024

static char *address;
module_param(address, charp, 0444);
MODULE_PARM_DESC(address, "server's IPv4 or IPv6 address (required)");

static ushort port = 7174;
module_param(port, ushort, 0444);
MODULE_PARM_DESC(port, "server's TCP port (default 7174)");

static uint connections = 1;
module_param(connections, uint, 0444);
MODULE_PARM_DESC(connections, "connections, opened at once (default 1, at most 1024)");

static uint size = 4096;
module_param(size, uint, 0444);
MODULE_PARM_DESC(size, "bytes per message (default 4096, 8 to 65536)");

static uint count = 10;
module_param(count, uint, 0444);
MODULE_PARM_DESC(count, "messages per connection, each echoed by the server (default 10; 0: connect and disconnect)");

static bool rdma;
module_param(rdma, bool, 0444);
MODULE_PARM_DESC(rdma, "the server reads each message by RDMA READ and writes it back by RDMA WRITE (default 0: both ways by SEND)");

static uint timeout_ms = 60000;
module_param(timeout_ms, uint, 0444);
MODULE_PARM_DESC(timeout_ms, "time for all connections to finish (default 60000)");

static struct kiwi_sample_stats client_stats;

static int client_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	kiwi_sample_conn_event(id->context, ev);
	return 0;
}

/* Start connection @nr: its id and address resolution. */
static struct kiwi_sample_conn *client_start(struct net *net, unsigned int nr,
					     const struct sockaddr_storage *dst)
{
	struct kiwi_sample_conn *conn;
	struct rdma_cm_id *id;
	int ret;

	conn = kiwi_sample_conn_alloc(CLIENT_NAME, nr, &client_stats, size,
				      count, false, rdma);
	if (!conn)
		return NULL;
	id = rdma_create_id(net, client_handler, conn, RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(id)) {
		kiwi_sample_conn_abort(conn, "create_id", PTR_ERR(id));
		return conn;
	}
	conn->id = id;
	ret = rdma_resolve_addr(id, NULL, (const struct sockaddr *)dst, 2000);
	if (ret)
		kiwi_sample_conn_abort(conn, "resolve_addr", ret);
	return conn;
}

/* Wait for every connection until the deadline; fail those still open. */
static void client_wait(struct kiwi_sample_conn **conns, unsigned int n)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(timeout_ms);
	unsigned int i;
	long left;

	for (i = 0; i < n; i++) {
		if (!conns[i])
			continue;
		left = max_t(long, (long)(deadline - jiffies), 1);
		if (!wait_for_completion_timeout(&conns[i]->done, left))
			kiwi_sample_conn_abort(conns[i], "timeout", -ETIMEDOUT);
	}
}

static int client_check_params(void)
{
	if (!address || !connections || connections > CLIENT_MAX_CONNS ||
	    size < KIWI_SAMPLE_MIN_SIZE || size > KIWI_SAMPLE_MAX_SIZE) {
		pr_err(CLIENT_NAME ": need address=, 1 <= connections <= %d, %d <= size <= %d\n",
		       CLIENT_MAX_CONNS, KIWI_SAMPLE_MIN_SIZE,
		       KIWI_SAMPLE_MAX_SIZE);
		return -EINVAL;
	}
	return 0;
}

static int __init client_init(void)
{
	struct net *net = current->nsproxy->net_ns;
	struct kiwi_sample_conn **conns;
	struct sockaddr_storage dst;
	ktime_t start = ktime_get();
	unsigned int i;
	int ret;

	ret = client_check_params();
	if (ret)
		return ret;
	ret = kiwi_sample_parse_addr(net, address, port, &dst);
	if (ret) {
		pr_err(CLIENT_NAME ": '%s' is not an address\n", address);
		return ret;
	}
	conns = kcalloc(connections, sizeof(*conns), GFP_KERNEL);
	if (!conns)
		return -ENOMEM;
	pr_info(CLIENT_NAME ": %u connection(s) to %pISpc, %u message(s) of %u bytes each, by %s\n",
		connections, &dst, count, size,
		rdma ? "RDMA READ/WRITE" : "SEND");
	for (i = 0; i < connections; i++) {
		conns[i] = client_start(net, i + 1, &dst);
		if (!conns[i])
			atomic_inc(&client_stats.failed);
	}
	client_wait(conns, connections);
	for (i = 0; i < connections; i++)
		if (conns[i])
			kiwi_sample_conn_destroy(conns[i]);
	kfree(conns);
	kiwi_sample_summary(CLIENT_NAME, &client_stats, start);
	if (!atomic_read(&client_stats.failed))
		return 0;
	ret = atomic_read(&client_stats.first_error);
	return ret < 0 ? ret : -ENOMEM;
}

static void __exit client_exit(void)
{
}

module_init(client_init);
module_exit(client_exit);
MODULE_DESCRIPTION("kiwi sample ULP: a client over rdma_cm, SEND/RECV and RDMA READ/WRITE");
MODULE_AUTHOR("kiwi");
MODULE_LICENSE("GPL");
