// SPDX-License-Identifier: GPL-2.0
/*
 * The raw in-kernel TCP baseline of the data-path benchmark. The client
 * sends a struct dp_tcp_hello; then, for SEND and WRITE, it sends messages
 * of the transfer's size for its time and the server reads them, for READ
 * the server sends and the client reads, and for PING the server echoes
 * each 64-byte message. Both ends set TCP_NODELAY, as iWARP stacks do.
 *
 * The server accepts in one thread and serves each connection from a
 * thread of its own, which releases its socket when the client closes; at
 * unserve every served socket is shut down, which ends its thread.
 */
#include <linux/kthread.h>
#include <linux/mutex.h>
#include <linux/net.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>
#include <net/sock.h>
#include <linux/tcp.h>

#include "dp.h"

/**
 * struct dp_tcp_hello - what the client asks for
 * @op: enum kiwi_bench_dp_op
 * @size: bytes a message
 */
struct dp_tcp_hello {
	__be32 op;
	__be32 size;
};

/**
 * struct dp_tcp_served - a connection the server serves
 * @sock: its socket
 * @node: entry in dp_tcp_served_list while @sock is open
 */
struct dp_tcp_served {
	struct socket *sock;
	struct list_head node;
};

static struct socket *dp_tcp_listener;
static struct task_struct *dp_tcp_acceptor;
static LIST_HEAD(dp_tcp_served_list);
static DEFINE_MUTEX(dp_tcp_lock);	/* protects dp_tcp_served_list */
static atomic_t dp_tcp_nserved = ATOMIC_INIT(0);
static DECLARE_WAIT_QUEUE_HEAD(dp_tcp_wq);

/* Send or receive exactly @len bytes. Return: 0, or a negative errno. */
static int dp_tcp_io(struct socket *sock, void *buf, size_t len, bool send)
{
	struct kvec vec = { .iov_base = buf, .iov_len = len };
	struct msghdr msg = {};
	int ret;

	if (send)
		ret = kernel_sendmsg(sock, &msg, &vec, 1, len);
	else
		ret = kernel_recvmsg(sock, &msg, &vec, 1, len, MSG_WAITALL);
	if (ret == len)
		return 0;
	return ret < 0 ? ret : -EPIPE;
}

/* Serve one connection until the client closes it. */
static void dp_tcp_serve_one(struct socket *sock, void *buf)
{
	struct kvec vec = { .iov_base = buf, .iov_len = KIWI_BENCH_DP_MAX_SIZE };
	struct dp_tcp_hello hello;
	struct msghdr msg = {};
	u32 size;
	int ret;

	if (dp_tcp_io(sock, &hello, sizeof(hello), false))
		return;
	size = min_t(u32, be32_to_cpu(hello.size), KIWI_BENCH_DP_MAX_SIZE);
	switch (be32_to_cpu(hello.op)) {
	case KIWI_BENCH_DP_SEND:
	case KIWI_BENCH_DP_WRITE:
		do {
			ret = kernel_recvmsg(sock, &msg, &vec, 1,
					     KIWI_BENCH_DP_MAX_SIZE, 0);
		} while (ret > 0);
		break;
	case KIWI_BENCH_DP_READ:
		while (size && !dp_tcp_io(sock, buf, size, true))
			;
		break;
	case KIWI_BENCH_DP_PING:
		while (!dp_tcp_io(sock, buf, KIWI_BENCH_DP_PING_SIZE, false) &&
		       !dp_tcp_io(sock, buf, KIWI_BENCH_DP_PING_SIZE, true))
			;
		break;
	}
}

static int dp_tcp_server(void *arg)
{
	struct dp_tcp_served *s = arg;
	void *buf = vzalloc(KIWI_BENCH_DP_MAX_SIZE);

	if (buf)
		dp_tcp_serve_one(s->sock, buf);
	vfree(buf);
	mutex_lock(&dp_tcp_lock);
	list_del(&s->node);
	mutex_unlock(&dp_tcp_lock);
	sock_release(s->sock);
	kfree(s);
	if (atomic_dec_and_test(&dp_tcp_nserved))
		wake_up(&dp_tcp_wq);
	return 0;
}

/* Serve @sock from a thread of its own; on failure, release it. */
static void dp_tcp_spawn(struct socket *sock)
{
	struct dp_tcp_served *s = kzalloc(sizeof(*s), GFP_KERNEL);
	struct task_struct *t;

	if (!s) {
		sock_release(sock);
		return;
	}
	s->sock = sock;
	tcp_sock_set_nodelay(sock->sk);
	atomic_inc(&dp_tcp_nserved);
	mutex_lock(&dp_tcp_lock);
	list_add_tail(&s->node, &dp_tcp_served_list);
	mutex_unlock(&dp_tcp_lock);
	t = kthread_run(dp_tcp_server, s, "kiwi_dp_tcp");
	if (IS_ERR(t)) {
		mutex_lock(&dp_tcp_lock);
		list_del(&s->node);
		mutex_unlock(&dp_tcp_lock);
		atomic_dec(&dp_tcp_nserved);
		sock_release(sock);
		kfree(s);
	}
}

static int dp_tcp_accept_thread(void *arg)
{
	struct socket *sock;

	while (!kthread_should_stop()) {
		/* a failure: the listener is shut down (unserve stops us) */
		if (kernel_accept(dp_tcp_listener, &sock, 0))
			schedule_timeout_interruptible(HZ / 50);
		else
			dp_tcp_spawn(sock);
	}
	return 0;
}

static int dp_tcp_serve(struct net *net, const struct sockaddr_storage *addr)
{
	struct socket *sock;
	int ret;

	if (dp_tcp_listener)
		return -EBUSY;
	ret = sock_create_kern(net, addr->ss_family, SOCK_STREAM, IPPROTO_TCP,
			       &sock);
	if (ret)
		return ret;
	sock_set_reuseaddr(sock->sk);
	ret = kernel_bind(sock, (struct sockaddr *)addr, sizeof(*addr));
	if (!ret)
		ret = kernel_listen(sock, 16);
	if (ret)
		goto err_release;
	dp_tcp_listener = sock;
	dp_tcp_acceptor = kthread_run(dp_tcp_accept_thread, NULL,
				      "kiwi_dp_accept");
	if (IS_ERR(dp_tcp_acceptor)) {
		ret = PTR_ERR(dp_tcp_acceptor);
		dp_tcp_listener = NULL;
		goto err_release;
	}
	return 0;

err_release:
	sock_release(sock);
	return ret;
}

/**
 * kiwi_bench_dp_tcp_unserve() - close the listener and what it served
 *
 * Context: process context; sleeps until every served thread has ended.
 */
void kiwi_bench_dp_tcp_unserve(void)
{
	struct dp_tcp_served *s;

	if (dp_tcp_listener) {
		kernel_sock_shutdown(dp_tcp_listener, SHUT_RDWR);
		kthread_stop(dp_tcp_acceptor);
		sock_release(dp_tcp_listener);
		dp_tcp_listener = NULL;
	}
	mutex_lock(&dp_tcp_lock);
	list_for_each_entry(s, &dp_tcp_served_list, node)
		kernel_sock_shutdown(s->sock, SHUT_RDWR);
	mutex_unlock(&dp_tcp_lock);
	wait_event(dp_tcp_wq, !atomic_read(&dp_tcp_nserved));
}

/* The client's side of a stream: it sends (SEND, WRITE) or reads (READ). */
static int dp_tcp_stream(struct socket *sock, void *buf,
			 const struct kiwi_bench_dp_params *p,
			 struct kiwi_bench_dp_result *r)
{
	bool send = p->op != KIWI_BENCH_DP_READ;
	u64 t0 = ktime_get_ns(), end = t0 + (u64)p->ms * NSEC_PER_MSEC;
	u64 now = t0;
	int ret = 0;

	while (now < end && !ret) {
		ret = dp_tcp_io(sock, buf, p->size, send);
		now = ktime_get_ns();
		if (!ret) {
			r->bytes += p->size;
			r->ops++;
		}
	}
	r->ns = now - t0;
	return ret;
}

static int dp_tcp_ping(struct socket *sock, void *buf,
		       const struct kiwi_bench_dp_params *p,
		       struct kiwi_bench_dp_result *r)
{
	u64 t0 = ktime_get_ns(), end = t0 + (u64)p->ms * NSEC_PER_MSEC;
	u64 now = t0, sent;
	int ret = 0;

	while (now < end && !ret) {
		sent = now;
		ret = dp_tcp_io(sock, buf, KIWI_BENCH_DP_PING_SIZE, true);
		if (!ret)
			ret = dp_tcp_io(sock, buf, KIWI_BENCH_DP_PING_SIZE,
					false);
		now = ktime_get_ns();
		if (!ret) {
			r->bytes += KIWI_BENCH_DP_PING_SIZE;
			r->ops++;
			kiwi_bench_dp_lat(r, now - sent);
		}
	}
	r->ns = now - t0;
	return ret;
}

static int dp_tcp_run(struct net *net, const struct sockaddr_storage *dst,
		      const struct kiwi_bench_dp_params *p,
		      struct kiwi_bench_dp_result *r)
{
	struct dp_tcp_hello hello = {
		.op = cpu_to_be32(p->op),
		.size = cpu_to_be32(p->size),
	};
	struct socket *sock;
	void *buf;
	int ret;

	buf = vzalloc(KIWI_BENCH_DP_MAX_SIZE);
	if (!buf)
		return -ENOMEM;
	ret = sock_create_kern(net, dst->ss_family, SOCK_STREAM, IPPROTO_TCP,
			       &sock);
	if (ret)
		goto out_free_buf;
	tcp_sock_set_nodelay(sock->sk);
	ret = kernel_connect(sock, (struct sockaddr *)dst, sizeof(*dst), 0);
	if (!ret)
		ret = dp_tcp_io(sock, &hello, sizeof(hello), true);
	if (!ret && p->op == KIWI_BENCH_DP_PING)
		ret = dp_tcp_ping(sock, buf, p, r);
	else if (!ret)
		ret = dp_tcp_stream(sock, buf, p, r);
	kernel_sock_shutdown(sock, SHUT_RDWR);
	sock_release(sock);
out_free_buf:
	vfree(buf);
	return ret;
}

struct kiwi_bench_dp kiwi_bench_dp_tcp = {
	.name = "tcp",
	.owner = THIS_MODULE,
	.serve = dp_tcp_serve,
	.unserve = kiwi_bench_dp_tcp_unserve,
	.run = dp_tcp_run,
};
