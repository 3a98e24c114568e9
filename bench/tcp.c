// SPDX-License-Identifier: GPL-2.0
/*
 * The raw in-kernel TCP baseline: a connection is connect, accept, a
 * 512-byte request and a 512-byte reply, and close. It is established
 * for the benchmark when the client has the reply, which is where an
 * iWARP connection stands after its MPA request and reply.
 *
 * The server accepts in one thread per listener and answers each
 * request from a work item; a served socket is released once its peer
 * has closed (sk_state_change), or at unserve.
 */
#include <linux/kthread.h>
#include <linux/net.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/workqueue.h>
#include <net/sock.h>
#include <net/tcp_states.h>

#include "bench.h"

#define TCP_BENCH_MSG		512
#define TCP_BENCH_BACKLOG	1024

/**
 * struct tcp_bench_listener - a listening socket and its accept thread
 * @sock: the socket
 * @thread: the thread that accepts
 * @node: entry in tcp_bench_listeners
 */
struct tcp_bench_listener {
	struct socket *sock;
	struct task_struct *thread;
	struct list_head node;
};

/**
 * struct tcp_bench_served - a socket the server accepted
 * @sock: the socket
 * @work: answers the request, and later releases the socket
 * @replied: the reply was sent; the next run of @work releases
 * @state_change: the socket's own callback, called from ours
 * @node: entry in tcp_bench_served_list
 */
struct tcp_bench_served {
	struct socket *sock;
	struct work_struct work;
	bool replied;
	void (*state_change)(struct sock *sk);
	struct list_head node;
};

static LIST_HEAD(tcp_bench_listeners);
static LIST_HEAD(tcp_bench_served_list);
static DEFINE_SPINLOCK(tcp_bench_served_lock);	/* the served list */
static struct workqueue_struct *tcp_bench_wq;

static int tcp_bench_xfer(struct socket *sock, bool send)
{
	char buf[TCP_BENCH_MSG] = {};
	struct kvec vec = { .iov_base = buf, .iov_len = TCP_BENCH_MSG };
	struct msghdr msg = { .msg_flags = send ? 0 : MSG_WAITALL };
	int ret;

	if (send)
		ret = kernel_sendmsg(sock, &msg, &vec, 1, TCP_BENCH_MSG);
	else
		ret = kernel_recvmsg(sock, &msg, &vec, 1, TCP_BENCH_MSG,
				     MSG_WAITALL);
	if (ret == TCP_BENCH_MSG)
		return 0;
	return ret < 0 ? ret : -EPIPE;
}

/* Whoever takes @s off the served list frees it. */
static bool tcp_bench_unlist(struct tcp_bench_served *s)
{
	bool listed;

	spin_lock_bh(&tcp_bench_served_lock);
	listed = !list_empty(&s->node);
	list_del_init(&s->node);
	spin_unlock_bh(&tcp_bench_served_lock);
	return listed;
}

/* Stop the socket's callback from looking at @s. */
static void tcp_bench_unhook(struct tcp_bench_served *s)
{
	struct sock *sk = s->sock->sk;

	write_lock_bh(&sk->sk_callback_lock);
	sk->sk_user_data = NULL;
	sk->sk_state_change = s->state_change;
	write_unlock_bh(&sk->sk_callback_lock);
}

static void tcp_bench_served_free(struct tcp_bench_served *s)
{
	tcp_bench_unhook(s);
	sock_release(s->sock);
	kfree(s);
}

/* The peer closed: let the work release the socket. */
static void tcp_bench_state_change(struct sock *sk)
{
	void (*state_change)(struct sock *sk) = NULL;
	struct tcp_bench_served *s;

	read_lock_bh(&sk->sk_callback_lock);
	s = sk->sk_user_data;
	if (s) {
		state_change = s->state_change;
		if (READ_ONCE(s->replied) && sk->sk_state != TCP_ESTABLISHED)
			queue_work(tcp_bench_wq, &s->work);
	}
	read_unlock_bh(&sk->sk_callback_lock);
	if (state_change)
		state_change(sk);
}

static void tcp_bench_serve_work(struct work_struct *work)
{
	struct tcp_bench_served *s =
		container_of(work, struct tcp_bench_served, work);
	struct sock *sk = s->sock->sk;

	if (s->replied ||
	    tcp_bench_xfer(s->sock, false) || tcp_bench_xfer(s->sock, true)) {
		if (tcp_bench_unlist(s))
			tcp_bench_served_free(s);
		return;
	}
	WRITE_ONCE(s->replied, true);
	/* The peer may have closed before it was replied to. */
	if (READ_ONCE(sk->sk_state) != TCP_ESTABLISHED)
		queue_work(tcp_bench_wq, &s->work);
}

static void tcp_bench_take(struct socket *sock)
{
	struct tcp_bench_served *s = kzalloc(sizeof(*s), GFP_KERNEL);
	struct sock *sk = sock->sk;

	if (!s) {
		sock_release(sock);
		return;
	}
	s->sock = sock;
	INIT_WORK(&s->work, tcp_bench_serve_work);
	spin_lock_bh(&tcp_bench_served_lock);
	list_add_tail(&s->node, &tcp_bench_served_list);
	spin_unlock_bh(&tcp_bench_served_lock);
	write_lock_bh(&sk->sk_callback_lock);
	s->state_change = sk->sk_state_change;
	sk->sk_user_data = s;
	sk->sk_state_change = tcp_bench_state_change;
	write_unlock_bh(&sk->sk_callback_lock);
	queue_work(tcp_bench_wq, &s->work);
}

static int tcp_bench_accept_thread(void *arg)
{
	struct tcp_bench_listener *l = arg;
	struct socket *sock;

	while (!kthread_should_stop()) {
		if (kernel_accept(l->sock, &sock, 0))
			break;
		tcp_bench_take(sock);
	}
	while (!kthread_should_stop())
		schedule_timeout_interruptible(HZ / 10);
	return 0;
}

static int tcp_bench_serve(struct net *net, const struct sockaddr_storage *ss)
{
	struct tcp_bench_listener *l;
	int ret;

	l = kzalloc(sizeof(*l), GFP_KERNEL);
	if (!l)
		return -ENOMEM;
	ret = sock_create_kern(net, ss->ss_family, SOCK_STREAM, IPPROTO_TCP,
			       &l->sock);
	if (ret)
		goto err_free_l;
	sock_set_reuseaddr(l->sock->sk);
	ret = kernel_bind(l->sock, (struct sockaddr *)ss, sizeof(*ss));
	if (!ret)
		ret = kernel_listen(l->sock, TCP_BENCH_BACKLOG);
	if (ret)
		goto err_release_sock;
	l->thread = kthread_run(tcp_bench_accept_thread, l, "kiwi_bench_tcp");
	if (IS_ERR(l->thread)) {
		ret = PTR_ERR(l->thread);
		goto err_release_sock;
	}
	list_add_tail(&l->node, &tcp_bench_listeners);
	return 0;

err_release_sock:
	sock_release(l->sock);
err_free_l:
	kfree(l);
	return ret;
}

/* Release every served socket; the listeners are gone. */
static void tcp_bench_drop_served(void)
{
	struct tcp_bench_served *s;

	for (;;) {
		spin_lock_bh(&tcp_bench_served_lock);
		s = list_first_entry_or_null(&tcp_bench_served_list,
					     struct tcp_bench_served, node);
		if (s)
			list_del_init(&s->node);
		spin_unlock_bh(&tcp_bench_served_lock);
		if (!s)
			break;
		/* Ours now: stop the callback, wait for the work, free. */
		tcp_bench_unhook(s);
		cancel_work_sync(&s->work);
		tcp_bench_served_free(s);
	}
}

static void tcp_bench_unserve(void)
{
	struct tcp_bench_listener *l, *tmp;

	list_for_each_entry_safe(l, tmp, &tcp_bench_listeners, node) {
		kernel_sock_shutdown(l->sock, SHUT_RDWR);
		kthread_stop(l->thread);
		sock_release(l->sock);
		list_del(&l->node);
		kfree(l);
	}
	if (tcp_bench_wq)
		tcp_bench_drop_served();
}

static int tcp_bench_open(struct kiwi_bench_conn *c, struct net *net,
			  const struct sockaddr_storage *dst)
{
	struct socket *sock;
	int ret;

	ret = sock_create_kern(net, dst->ss_family, SOCK_STREAM, IPPROTO_TCP,
			       &sock);
	if (ret)
		return ret;
	/*
	 * This end's port stays in TIME_WAIT after the close. Marked
	 * reusable, it does not refuse the bind of a port Linux's stack picked
	 * (siw binds with SO_REUSEADDR) while the stacks' rate runs alternate.
	 */
	sock_set_reuseaddr(sock->sk);
	c->t[KIWI_BENCH_T_CONNECT] = ktime_get_ns();
	ret = kernel_connect(sock, (struct sockaddr *)dst, sizeof(*dst), 0);
	if (!ret)
		ret = tcp_bench_xfer(sock, true);
	if (!ret)
		ret = tcp_bench_xfer(sock, false);
	if (ret) {
		sock_release(sock);
		return ret;
	}
	c->t[KIWI_BENCH_T_ESTABLISHED] = ktime_get_ns();
	c->priv = sock;
	return 0;
}

static void tcp_bench_close(struct kiwi_bench_conn *c)
{
	sock_release(c->priv);
	c->priv = NULL;
}

struct kiwi_bench_stack kiwi_bench_tcp = {
	.name = "tcp",
	.owner = THIS_MODULE,
	.serve = tcp_bench_serve,
	.unserve = tcp_bench_unserve,
	.open = tcp_bench_open,
	.close = tcp_bench_close,
};
EXPORT_SYMBOL_GPL(kiwi_bench_tcp);

/**
 * kiwi_bench_tcp_init() - create the TCP baseline's workqueue
 *
 * Return: 0 or -ENOMEM.
 */
int kiwi_bench_tcp_init(void)
{
	tcp_bench_wq = alloc_workqueue("kiwi_bench_tcp", WQ_UNBOUND, 0);
	return tcp_bench_wq ? 0 : -ENOMEM;
}

/**
 * kiwi_bench_tcp_exit() - undo kiwi_bench_tcp_init()
 */
void kiwi_bench_tcp_exit(void)
{
	tcp_bench_unserve();
	destroy_workqueue(tcp_bench_wq);
}
