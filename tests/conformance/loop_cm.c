// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_loop connection management: listeners and the iw_cm ops connect,
 * accept and reject (endpoints and upcalls are in loop_ep.c).
 *
 * iw_connect makes two endpoints, the active one of the id and, if a
 * listener of the device that owns the remote address takes the
 * connection, a passive one for the request. The ops change endpoints
 * under loop_mutex, which the upcalls hold too: a CONNECT_REQUEST upcall
 * never runs once iw_destroy_listen has returned, and the listener stays
 * alive around it.
 *
 * Events of each end (Documentation/iw_cm.rst, softiw's choices):
 *
 *   accepted:  active CONNECT_REPLY(0); passive ESTABLISHED
 *   refused:   active CONNECT_REPLY(-ECONNREFUSED) (iw_reject with its
 *              private data, no listener, the core refused the request
 *              (its backlog full), the listener went)
 *   graceful:  the end whose QP went to SQD sees CLOSE(0) once both ends
 *              closed; the other DISCONNECT when the first end's send
 *              queue is done, then CLOSE(0) after its own close
 *   abortive:  the end moved to ERROR CLOSE(-ECONNABORTED); the other
 *              CLOSE(-ECONNRESET)
 *   gave up:   an active end moved to ERROR before the answer
 *              CONNECT_REPLY(-ECONNABORTED); a later iw_accept of the
 *              request fails with -ECONNRESET, with no event
 */
#include <linux/slab.h>
#include <linux/string.h>

#include "loop.h"

#define LOOP_PORT_LO	32768
#define LOOP_PORT_NR	28232	/* 32768 to 60999, as Linux's default */

/* Listeners */

static struct loop_listener *
loop_listener_find(struct loop_dev *ldev, const struct sockaddr_in *to)
{
	struct loop_listener *l, *any = NULL;

	lockdep_assert_held(&loop_mutex);
	list_for_each_entry(l, &ldev->listeners, node) {
		if (l->addr.sin_port != to->sin_port)
			continue;
		if (l->addr.sin_addr.s_addr == to->sin_addr.s_addr)
			return l;
		if (l->addr.sin_addr.s_addr == htonl(INADDR_ANY))
			any = l;
	}
	return any;
}

static bool loop_listen_busy(struct loop_dev *ldev,
			     const struct sockaddr_in *sin)
{
	struct loop_listener *l;

	lockdep_assert_held(&loop_mutex);
	list_for_each_entry(l, &ldev->listeners, node)
		if (l->addr.sin_port == sin->sin_port &&
		    (l->addr.sin_addr.s_addr == sin->sin_addr.s_addr ||
		     l->addr.sin_addr.s_addr == htonl(INADDR_ANY) ||
		     sin->sin_addr.s_addr == htonl(INADDR_ANY)))
			return true;
	return false;
}

/**
 * loop_create_listen() - iw_create_listen: listen on @id->local_addr
 * @id: the id
 * @backlog: not used: the core keeps the backlog, refusing the
 *	CONNECT_REQUEST upcalls beyond it, and a provider must not bound
 *	its own queue by it too
 *
 * Context: process context.
 * Return: 0; -EAFNOSUPPORT unless IPv4; -EADDRNOTAVAIL for an address
 * not the device's nor the wildcard; -EINVAL for port 0; -EADDRINUSE if
 * another id listens there; -ENOMEM.
 */
int loop_create_listen(struct kiwi_cm_id *id, int backlog)
{
	const struct sockaddr_in *sin = (const void *)&id->local_addr;
	struct loop_dev *ldev = loop_dev(id->device);
	struct loop_listener *l;
	int ret = 0;

	if (sin->sin_family != AF_INET)
		return -EAFNOSUPPORT;
	if (sin->sin_addr.s_addr != htonl(INADDR_ANY) &&
	    sin->sin_addr.s_addr != ldev->addr)
		return -EADDRNOTAVAIL;
	if (!sin->sin_port)
		return -EINVAL;
	l = kzalloc(sizeof(*l), GFP_KERNEL);
	if (!l)
		return -ENOMEM;
	l->ldev = ldev;
	l->id = id;
	l->addr = *sin;
	INIT_LIST_HEAD(&l->reqs);
	mutex_lock(&loop_mutex);
	if (loop_listen_busy(ldev, sin)) {
		ret = -EADDRINUSE;
	} else {
		list_add_tail(&l->node, &ldev->listeners);
		id->provider_data = l;
	}
	mutex_unlock(&loop_mutex);
	if (ret)
		kfree(l);
	return ret;
}

/**
 * loop_destroy_listen() - iw_destroy_listen: stop listening
 * @id: the listening id
 *
 * Requests not yet delivered to the core are refused (their active ends
 * get CONNECT_REPLY(-ECONNREFUSED)); delivered ones are their child ids'
 * to answer. No CONNECT_REQUEST upcall for @id runs once this returns.
 *
 * Context: process context.
 * Return: 0.
 */
int loop_destroy_listen(struct kiwi_cm_id *id)
{
	struct loop_listener *l = id->provider_data;
	struct loop_ep *pep, *tmp;

	mutex_lock(&loop_mutex);
	list_del(&l->node);
	list_for_each_entry_safe(pep, tmp, &l->reqs, lnode) {
		loop_ep_unlisten(pep);
		if (pep->delivered)
			continue;
		if (pep->peer)
			loop_ep_fail_connect(pep->peer, -ECONNREFUSED);
		loop_ep_release(pep);
	}
	id->provider_data = NULL;
	mutex_unlock(&loop_mutex);
	kfree(l);
	return 0;
}

/**
 * loop_listeners_free() - free the listeners a device still has
 * @ldev: the device, unregistered
 *
 * Only ids orphaned by an unregistration that gave up can leave some.
 *
 * Context: process context.
 */
void loop_listeners_free(struct loop_dev *ldev)
{
	struct loop_listener *l, *tmp;

	mutex_lock(&loop_mutex);
	list_for_each_entry_safe(l, tmp, &ldev->listeners, node) {
		list_del(&l->node);
		kfree(l);
	}
	mutex_unlock(&loop_mutex);
}

/* The connection ops */

static bool loop_tuple_busy(struct loop_dev *ldev, const struct sockaddr_in *l,
			    const struct sockaddr_in *r)
{
	struct loop_ep *ep;

	lockdep_assert_held(&loop_mutex);
	list_for_each_entry(ep, &ldev->eps, dev_node)
		if (ep->local.sin_port == l->sin_port &&
		    ep->local.sin_addr.s_addr == l->sin_addr.s_addr &&
		    ep->remote.sin_port == r->sin_port &&
		    ep->remote.sin_addr.s_addr == r->sin_addr.s_addr)
			return true;
	return false;
}

/* Give @ep's local address a port: the id's, or one free for this peer. */
static int loop_pick_port(struct loop_dev *ldev, struct loop_ep *ep,
			  __be16 port)
{
	unsigned int i;

	lockdep_assert_held(&loop_mutex);
	ep->local.sin_port = port;
	if (port)
		return loop_tuple_busy(ldev, &ep->local, &ep->remote) ?
		       -EADDRNOTAVAIL : 0;
	for (i = 0; i < LOOP_PORT_NR; i++) {
		ep->local.sin_port = htons(LOOP_PORT_LO +
					   ldev->next_port++ % LOOP_PORT_NR);
		if (!loop_tuple_busy(ldev, &ep->local, &ep->remote))
			return 0;
	}
	return -EADDRNOTAVAIL;
}

/* The passive end of a request to @l, from @aep. */
static void loop_request_start(struct loop_listener *l, struct loop_ep *aep,
			       struct loop_ep *pep,
			       const struct kiwi_conn_param *param)
{
	lockdep_assert_held(&loop_mutex);
	pep->ldev = l->ldev;
	pep->state = LOOP_EP_REQ;
	pep->local = aep->remote;
	pep->remote = aep->local;
	pep->ird = param->ird;
	pep->ord = param->ord;
	pep->pdata_len = min_t(u16, param->private_data_len,
			       sizeof(pep->pdata));
	if (pep->pdata_len)
		memcpy(pep->pdata, param->private_data, pep->pdata_len);
	pep->listener = l;
	list_add_tail(&pep->lnode, &l->reqs);
	list_add_tail(&pep->dev_node, &l->ldev->eps);
	loop_ep_link(aep, pep);
	loop_ep_queue(pep, KIWI_CM_EVENT_CONNECT_REQUEST, 0, false);
}

static int loop_connect_locked(struct kiwi_cm_id *id,
			       const struct kiwi_conn_param *param,
			       struct loop_ep *aep, struct loop_ep *pep)
{
	const struct sockaddr_in *laddr = (const void *)&id->local_addr;
	struct loop_dev *ldev = loop_dev(id->device), *tdev;
	struct loop_listener *l;
	struct loop_qp *qp;
	int ret;

	lockdep_assert_held(&loop_mutex);
	tdev = loop_dev_by_addr(aep->remote.sin_addr.s_addr);
	if (!tdev)
		return -EHOSTUNREACH;
	qp = loop_qp_bindable(ldev, param->qpn);
	if (!qp)
		return -EINVAL;
	ret = loop_pick_port(ldev, aep, laddr->sin_family == AF_INET ?
			     laddr->sin_port : 0);
	if (ret)
		return ret;
	aep->state = LOOP_EP_CONNECTING;
	aep->ird = param->ird;
	aep->ord = param->ord;
	loop_ep_bind(aep, qp);
	kiwi_cm_id_add_ref(id);
	aep->id = id;
	id->provider_data = aep;
	list_add_tail(&aep->dev_node, &ldev->eps);

	l = loop_listener_find(tdev, &aep->remote);
	/* The backlog is the core's: its CONNECT_REQUEST refuses beyond it. */
	if (!l)
		loop_ep_fail_connect(aep, -ECONNREFUSED);
	else
		loop_request_start(l, aep, pep, param);
	return 0;
}

/**
 * loop_connect() - iw_connect: connect to @id->remote_addr
 * @id: the id
 * @param: private data, IRD/ORD offered, the QP
 *
 * The answer comes as CONNECT_REPLY, from loop_wq.
 *
 * Context: process context.
 * Return: 0; -EAFNOSUPPORT unless IPv4; -EHOSTUNREACH if no kiwi_loop
 * device has the remote address; -EADDRNOTAVAIL for a local address not
 * the device's, or a port taken for this peer; -EINVAL for a QP that
 * cannot connect; -ENOMEM. No upcall follows an error.
 */
int loop_connect(struct kiwi_cm_id *id, const struct kiwi_conn_param *param)
{
	const struct sockaddr_in *laddr = (const void *)&id->local_addr;
	const struct sockaddr_in *raddr = (const void *)&id->remote_addr;
	struct loop_dev *ldev = loop_dev(id->device);
	struct loop_ep *aep, *pep;
	int ret = -ENOMEM;

	if (raddr->sin_family != AF_INET ||
	    (laddr->sin_family != AF_UNSPEC && laddr->sin_family != AF_INET))
		return -EAFNOSUPPORT;
	if (laddr->sin_family == AF_INET &&
	    laddr->sin_addr.s_addr != htonl(INADDR_ANY) &&
	    laddr->sin_addr.s_addr != ldev->addr)
		return -EADDRNOTAVAIL;
	aep = loop_ep_alloc(ldev);
	pep = loop_ep_alloc(NULL);
	if (!aep || !pep)
		goto put_eps;
	aep->local.sin_family = AF_INET;
	aep->local.sin_addr.s_addr = ldev->addr;
	aep->remote = *raddr;
	mutex_lock(&loop_mutex);
	ret = loop_connect_locked(id, param, aep, pep);
	if (!ret)
		aep = NULL;	/* live now: its reference is its own */
	if (pep->ldev)
		pep = NULL;	/* a request was made of it: likewise */
	mutex_unlock(&loop_mutex);
put_eps:
	loop_ep_put(pep);
	loop_ep_put(aep);
	return ret;
}

static int loop_accept_locked(struct kiwi_cm_id *id,
			      const struct kiwi_conn_param *param,
			      struct loop_ep *pep)
{
	struct loop_ep *aep = pep->peer;
	struct loop_qp *qp;

	lockdep_assert_held(&loop_mutex);
	if (pep->state != LOOP_EP_REQ || !aep ||
	    aep->state != LOOP_EP_CONNECTING) {
		loop_ep_release(pep);	/* the active end left */
		return -ECONNRESET;
	}
	qp = loop_qp_bindable(pep->ldev, param->qpn);
	if (!qp) {
		loop_ep_fail_connect(aep, -ECONNRESET);
		loop_ep_release(pep);
		return -EINVAL;
	}
	/* each end's ORD is bounded by the other's IRD */
	pep->ird = min(param->ird, aep->ord);
	pep->ord = min(param->ord, aep->ird);
	aep->ird = pep->ord;
	aep->ord = pep->ird;
	aep->pdata_len = min_t(u16, param->private_data_len,
			       sizeof(aep->pdata));
	if (aep->pdata_len)
		memcpy(aep->pdata, param->private_data, aep->pdata_len);
	loop_ep_unlisten(pep);
	loop_ep_bind(pep, qp);
	kiwi_cm_id_add_ref(id);
	pep->id = id;
	loop_qp_connect(qp, pep->ird, pep->ord);
	loop_qp_connect(aep->qp, aep->ird, aep->ord);
	pep->state = LOOP_EP_CONNECTED;
	aep->state = LOOP_EP_CONNECTED;
	loop_ep_queue(aep, KIWI_CM_EVENT_CONNECT_REPLY, 0, false);
	if (loop_defect(LOOP_DEFECT_CLOSE_BEFORE_ESTABLISHED))
		loop_ep_queue(pep, KIWI_CM_EVENT_CLOSE, 0, false);
	loop_ep_queue(pep, KIWI_CM_EVENT_ESTABLISHED, 0, false);
	return 0;
}

/**
 * loop_accept() - iw_accept: accept the request @id stands for
 * @id: the child id of the CONNECT_REQUEST
 * @param: private data, IRD/ORD, the QP
 *
 * The active end gets CONNECT_REPLY(0), @id ESTABLISHED, both with the
 * depths negotiated.
 *
 * Context: process context.
 * Return: 0; -ECONNRESET if the active end left (no event follows);
 * -EINVAL for a QP that cannot connect (the active end is refused).
 * After an error the request is over.
 */
int loop_accept(struct kiwi_cm_id *id, const struct kiwi_conn_param *param)
{
	int ret;

	mutex_lock(&loop_mutex);
	ret = loop_accept_locked(id, param, id->provider_data);
	mutex_unlock(&loop_mutex);
	return ret;
}

/**
 * loop_reject() - iw_reject: refuse the request @id stands for
 * @id: the child id of the CONNECT_REQUEST
 * @pdata: private data for the active end, or NULL
 * @len: bytes at @pdata
 *
 * The active end, if still there, gets CONNECT_REPLY(-ECONNREFUSED)
 * with @pdata.
 *
 * Context: process context.
 * Return: 0.
 */
int loop_reject(struct kiwi_cm_id *id, const void *pdata, u16 len)
{
	struct loop_ep *pep = id->provider_data;
	struct loop_ep *aep;

	mutex_lock(&loop_mutex);
	aep = pep->peer;
	if (pep->state == LOOP_EP_REQ) {
		if (aep && aep->state == LOOP_EP_CONNECTING) {
			aep->pdata_len = pdata ? min_t(u16, len,
						       sizeof(aep->pdata)) : 0;
			if (aep->pdata_len)
				memcpy(aep->pdata, pdata, aep->pdata_len);
			loop_ep_fail_connect(aep, -ECONNREFUSED);
		}
		loop_ep_release(pep);
	}
	mutex_unlock(&loop_mutex);
	return 0;
}
