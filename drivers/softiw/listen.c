// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_softiw listeners: a listening TCP socket per listening cm_id. New
 * TCP connections become endpoints waiting for their MPA request; at most
 * max_pending of them per listener. When that many wait, the oldest is
 * dropped for the new one: peers that connect and stay silent cannot lock
 * out clients, which send their request at once. A connection the
 * kernel could not accept (a socket's memory) stays in the TCP accept
 * queue and is tried again SOFTIW_ACCEPT_RETRY later: no new connection
 * may come to wake the listener.
 */
#include <kunit/visibility.h>
#include <linux/slab.h>
#include <net/sock.h>
#include <net/tcp_states.h>

#include "cm.h"

#define SOFTIW_ACCEPT_RETRY	(HZ / 10)

/**
 * softiw_listener_put() - drop a reference on a listener
 * @lst: the listener
 */
void softiw_listener_put(struct softiw_listener *lst)
{
	if (refcount_dec_and_test(&lst->ref))
		kfree(lst);
}

/*
 * Also called for the sockets TCP clones from the listener, which start
 * with its callbacks until softiw_cep_passive() takes them over. They
 * have no owner (SK_USER_DATA_NOCOPY): one that is still in the accept
 * queue when the listener goes away must not queue the freed listener's
 * work.
 */
static void softiw_listener_sk_event(struct sock *sk)
{
	struct softiw_listener *lst;

	read_lock_bh(&sk->sk_callback_lock);
	lst = __locked_read_sk_user_data_with_flags(sk, SK_USER_DATA_NOCOPY);
	if (lst && sk->sk_state == TCP_LISTEN)
		queue_work(softiw_cm_wq, &lst->work);
	read_unlock_bh(&sk->sk_callback_lock);
}

/*
 * The oldest connection still waiting for its request, off the list, with
 * a reference for the caller, who closes it once it dropped the lock.
 */
static struct softiw_cep *softiw_listener_evict(struct softiw_listener *lst)
{
	struct softiw_cep *cep;

	lockdep_assert_held(&lst->lock);
	cep = list_first_entry_or_null(&lst->pending, struct softiw_cep,
				       pending);
	if (cep) {
		list_del_init(&cep->pending);
		lst->npending--;
		refcount_inc(&cep->ref);
	}
	return cep;
}

/*
 * Return: the new endpoint with a reference for the caller, or NULL. A
 * full listener gives up its oldest waiting connection for it (*@evicted,
 * if it had none there yet), once the new one has its memory, unless
 * max_pending is 0.
 */
static struct softiw_cep *softiw_listener_take(struct softiw_listener *lst,
					       struct socket *sock,
					       struct softiw_cep **evicted)
{
	unsigned int max = READ_ONCE(softiw_max_pending);
	struct softiw_cep *cep = NULL;
	bool full;

	lockdep_assert_held(&lst->lock);
	full = lst->npending >= max;
	if (!full || (max && !*evicted))
		cep = softiw_cep_passive(lst, sock);
	/* the new one is the newest: the oldest is another */
	if (cep && full)
		*evicted = softiw_listener_evict(lst);
	if (!cep)
		kiwi_softiw_sock_release(sock, true);
	return cep;
}

/*
 * The next connection of the accept queue, if the kernel can accept one;
 * if it has no memory for it, the connection stays queued for a retry.
 */
static struct socket *softiw_listener_accept(struct softiw_listener *lst)
{
	struct socket *sock;
	int ret;

	lockdep_assert_held(&lst->lock);
	kiwi_race_at(KIWI_RACE_SOFTIW_ACCEPT, lst->id);
	ret = kernel_accept(lst->sock, &sock, O_NONBLOCK);
	if (!ret)
		return sock;
	if (ret == -ENOMEM)
		queue_delayed_work(softiw_cm_wq, &lst->retry,
				   SOFTIW_ACCEPT_RETRY);
	return NULL;
}

/*
 * Accept the next connection that becomes an endpoint, if any. Those
 * refused (no memory; too many pending once one was evicted this turn)
 * are closed on the way.
 */
static struct softiw_cep *softiw_listener_next(struct softiw_listener *lst,
					       struct softiw_cep **evicted)
{
	struct softiw_cep *cep = NULL;
	struct socket *sock;

	mutex_lock(&lst->lock);
	while (!cep && !lst->dead && (sock = softiw_listener_accept(lst)))
		cep = softiw_listener_take(lst, sock, evicted);
	mutex_unlock(&lst->lock);
	return cep;
}

/*
 * Each new endpoint's first step runs here, outside the listener's
 * lock: a Request that came with the handshake is read and delivered
 * without a wake-up of the endpoint's own work, unless the connection's
 * packets arrive on another CPU, where the first step then goes
 * (softiw_cep_first_step()).
 */
static void softiw_listener_work(struct work_struct *work)
{
	struct softiw_listener *lst = container_of(work, struct softiw_listener,
						   work);
	struct softiw_cep *cep, *evicted = NULL;

	while ((cep = softiw_listener_next(lst, &evicted))) {
		if (evicted) {
			softiw_cep_close_pending(evicted);
			softiw_cep_put(evicted);
			evicted = NULL;
		}
		softiw_cep_first_step(cep);
		softiw_cep_put(cep);
	}
	if (evicted) {
		softiw_cep_close_pending(evicted);
		softiw_cep_put(evicted);
	}
}

static void softiw_listener_retry(struct work_struct *work)
{
	struct softiw_listener *lst = container_of(to_delayed_work(work),
						   struct softiw_listener,
						   retry);

	queue_work(softiw_cm_wq, &lst->work);
}

/*
 * A wildcard listener takes connections of its own device only: its
 * socket is bound to the net_device, so that the wildcard listeners of
 * several devices of one namespace share the port (rdma_cm's wildcard
 * listen makes one per device).
 */
static int softiw_listener_open(struct softiw_listener *lst,
				const struct sockaddr_storage *addr,
				int backlog)
{
	int ret;

	ret = softiw_sock_create(lst->sdev, addr->ss_family, &lst->sock);
	if (ret)
		return ret;
	sock_set_reuseaddr(lst->sock->sk);
	softiw_sock_set_tos(lst->sock, lst->id);
	if (softiw_addr_any(addr)) {
		ret = sock_bindtoindex(lst->sock->sk,
				       lst->sdev->kdev.netdev->ifindex, true);
		if (ret)
			goto release_sock;
	}
	ret = kernel_bind(lst->sock, (struct sockaddr *)addr, sizeof(*addr));
	if (ret)
		goto release_sock;
	ret = kernel_listen(lst->sock, backlog > 0 ? backlog :
				       KIWI_CM_DEFAULT_BACKLOG);
	if (ret)
		goto release_sock;
	softiw_sock_attach_flags(lst->sock, lst, SK_USER_DATA_NOCOPY,
				 softiw_listener_sk_event, &lst->cbs);
	return 0;

release_sock:
	sock_release(lst->sock);
	return ret;
}

/**
 * softiw_create_listen() - iw_create_listen: listen on id->local_addr
 * @id: the listening id
 * @backlog: TCP accept queue length; 0 for the default
 *
 * Context: process context, may sleep.
 * Return: 0 or a negative errno (-EADDRINUSE, -EAFNOSUPPORT, -ENOMEM...).
 */
int softiw_create_listen(struct kiwi_cm_id *id, int backlog)
{
	struct softiw_listener *lst;
	int ret;

	might_sleep();
	lst = kiwi_should_fail() ? NULL : kzalloc(sizeof(*lst), GFP_KERNEL);
	if (!lst)
		return -ENOMEM;
	refcount_set(&lst->ref, 1);
	mutex_init(&lst->lock);
	lst->sdev = softiw_dev(id->device);
	lst->id = id;
	INIT_WORK(&lst->work, softiw_listener_work);
	INIT_DELAYED_WORK(&lst->retry, softiw_listener_retry);
	INIT_LIST_HEAD(&lst->pending);
	ret = softiw_listener_open(lst, &id->local_addr, backlog);
	if (ret) {
		kfree(lst);
		return ret;
	}
	kiwi_cm_id_add_ref(id);
	id->provider_data = lst;
	return 0;
}

/* Take the first connection still waiting for its request, if any. */
static struct softiw_cep *softiw_listener_pop(struct softiw_listener *lst)
{
	struct softiw_cep *cep;

	mutex_lock(&lst->lock);
	cep = softiw_listener_evict(lst);
	mutex_unlock(&lst->lock);
	return cep;
}

/**
 * softiw_destroy_listen() - iw_destroy_listen: stop listening
 * @id: the listening id
 *
 * Closes the listening socket and every connection that has not sent
 * its MPA request yet; no CONNECT_REQUEST starts after it returns.
 *
 * Context: process context, may sleep.
 * Return: 0.
 */
int softiw_destroy_listen(struct kiwi_cm_id *id)
{
	struct softiw_listener *lst = id->provider_data;
	struct softiw_cep *cep;

	might_sleep();
	mutex_lock(&lst->lock);
	lst->dead = true;
	softiw_sock_detach(lst->sock, &lst->cbs);
	mutex_unlock(&lst->lock);
	/* a retry is queued before @dead only, and may queue the work */
	cancel_delayed_work_sync(&lst->retry);
	cancel_work_sync(&lst->work);
	sock_release(lst->sock);
	while ((cep = softiw_listener_pop(lst))) {
		softiw_cep_close_pending(cep);
		softiw_cep_put(cep);
	}
	kiwi_cm_id_rem_ref(id);
	softiw_listener_put(lst);
	return 0;
}

/**
 * kiwi_softiw_listener_tos() - the type of service of a listener's
 *	socket, for tests
 * @id: an id listening on a softiw device
 * @tos: set to what its socket sends with (its SYN-ACKs; the sockets TCP
 *	clones from it start with the same)
 *
 * Context: process context, may sleep; the caller keeps @id listening.
 */
void kiwi_softiw_listener_tos(struct kiwi_cm_id *id, struct softiw_tos *tos)
{
	struct softiw_listener *lst = id->provider_data;

	softiw_sock_tos_of(lst->sock, tos);
}
EXPORT_SYMBOL_IF_KUNIT(kiwi_softiw_listener_tos);
