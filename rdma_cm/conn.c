// SPDX-License-Identifier: GPL-2.0
/*
 * Connections: listen, connect, accept, reject, disconnect over the iw_cm
 * core, and the QP an id owns.
 */
#include <linux/errno.h>
#include <linux/module.h>
#include <linux/mutex.h>

#include "rdmacm.h"

/* Give the id an iw_cm id with its addresses. */
static int kiwi_rdma_cm_create(struct kiwi_rdma_priv *priv)
{
	struct kiwi_cm_id *cm;

	cm = kiwi_cm_create_id(priv->id.device, kiwi_rdma_cm_handler, priv);
	if (IS_ERR(cm))
		return PTR_ERR(cm);
	cm->local_addr = priv->id.route.addr.src_addr;
	cm->remote_addr = priv->id.route.addr.dst_addr;
	kiwi_rdma_apply_options(priv, cm);
	mutex_lock(&kiwi_rdma_lock);
	priv->cm = cm;
	mutex_unlock(&kiwi_rdma_lock);
	return 0;
}

static void kiwi_rdma_cm_drop(struct kiwi_rdma_priv *priv)
{
	struct kiwi_cm_id *cm;

	mutex_lock(&kiwi_rdma_lock);
	cm = priv->cm;
	priv->cm = NULL;
	mutex_unlock(&kiwi_rdma_lock);
	kiwi_cm_destroy_id(cm);
}

static void kiwi_rdma_param(struct kiwi_rdma_priv *priv,
			    const struct rdma_conn_param *p,
			    struct kiwi_conn_param *out)
{
	out->private_data = p->private_data;
	out->private_data_len = p->private_data_len;
	out->ird = p->responder_resources;
	out->ord = p->initiator_depth;
	out->qpn = priv->id.qp ? priv->id.qp->qp_num : p->qp_num;
}

/* Listen on the id's device, or on every device of its namespace. */
static int kiwi_rdma_cm_listen(struct kiwi_rdma_priv *priv, int backlog)
{
	int ret;

	ret = kiwi_rdma_port_listen_ok(priv);
	if (ret)
		return ret;
	if (!priv->id.device)
		return kiwi_rdma_fan_listen(priv, backlog);
	ret = kiwi_rdma_cm_create(priv);
	if (ret)
		return ret;
	ret = kiwi_cm_listen(priv->cm, backlog);
	if (ret)
		kiwi_rdma_cm_drop(priv);
	return ret;
}

/**
 * kiwi_rdma_listen() - listen for connect requests
 * @id: a bound id, or an IDLE one, which is bound to the IPv4 wildcard
 *	address and a free port first (as Linux does)
 * @backlog: pending requests allowed; 0 or less for the default
 *
 * Each request comes as CONNECT_REQUEST on a new id. An id bound to a
 * specific address listens on that address's kiwi device; one bound to
 * the wildcard address on every kiwi device of its namespace, including
 * devices registered later. The provider's create_listen runs with no
 * lock held that client callbacks or netdev notifiers take.
 *
 * Context: process context; sleeps.
 * Return: 0; -EINVAL if the id is past ADDR_BOUND; -EADDRINUSE if it
 * shares its port with another id by rdma_set_reuseaddr(), or the bind of
 * an IDLE id's error; -ENODEV if the device is going; or the provider's
 * error (for a wildcard listener: the first
 * device's; then it listens nowhere).
 */
int kiwi_rdma_listen(struct rdma_cm_id *id, int backlog)
{
	struct kiwi_rdma_priv *priv = kiwi_rdma_priv(id);
	int ret;

	might_sleep();
	ret = kiwi_rdma_autobind(priv, NULL, AF_INET);
	if (ret)
		return ret;
	ret = kiwi_rdma_enter(priv, KIWI_RDMA_CALL_LISTEN);
	if (ret)
		return ret;
	ret = kiwi_rdma_cm_listen(priv, backlog);
	return kiwi_rdma_leave(priv, KIWI_RDMA_CALL_LISTEN, ret);
}
EXPORT_SYMBOL_GPL(kiwi_rdma_listen);

/* Give the id an iw_cm id and connect it. */
static int kiwi_rdma_cm_connect(struct kiwi_rdma_priv *priv,
				const struct rdma_conn_param *conn_param)
{
	struct kiwi_conn_param p = {};
	int ret;

	ret = kiwi_rdma_cm_create(priv);
	if (ret)
		return ret;
	kiwi_rdma_port_local(priv, &priv->cm->local_addr);
	kiwi_rdma_param(priv, conn_param, &p);
	ret = kiwi_cm_connect(priv->cm, &p);
	if (ret)
		kiwi_rdma_cm_drop(priv);
	return ret;
}

/**
 * kiwi_rdma_connect() - connect to the resolved peer
 * @id: an id whose route is resolved
 * @conn_param: private data, IRD (responder_resources), ORD
 *	(initiator_depth), and the QP number if the id has no QP
 *
 * The outcome comes as ESTABLISHED, REJECTED, UNREACHABLE or CONNECT_ERROR.
 *
 * Context: process context; sleeps.
 * Return: 0; -EINVAL without @conn_param, in another state or for values
 * the device refuses; -ENODEV if the device is going; or the provider's
 * error (the route stays resolved).
 */
int kiwi_rdma_connect(struct rdma_cm_id *id,
		      struct rdma_conn_param *conn_param)
{
	struct kiwi_rdma_priv *priv = kiwi_rdma_priv(id);
	int ret;

	might_sleep();
	if (!conn_param)
		return -EINVAL;
	ret = kiwi_rdma_enter(priv, KIWI_RDMA_CALL_CONNECT);
	if (ret)
		return ret;
	ret = kiwi_rdma_cm_connect(priv, conn_param);
	return kiwi_rdma_leave(priv, KIWI_RDMA_CALL_CONNECT, ret);
}
EXPORT_SYMBOL_GPL(kiwi_rdma_connect);

/**
 * kiwi_rdma_connect_locked() - rdma_connect() from the id's own handler
 * @id: an id whose route is resolved, whose handler the caller runs
 * @conn_param: as for rdma_connect()
 *
 * Linux's name for connecting from inside the id's handler (its
 * rdma_connect() takes a lock the handler holds). kiwi's rdma_connect()
 * may be called there as well; this one is for ULP code written for
 * Linux, and refuses a call from anywhere else, where Linux's would be
 * a locking error.
 *
 * Context: the id's event handler; sleeps.
 * Return: -EINVAL if the caller is not running @id's handler, else as
 * rdma_connect().
 */
int kiwi_rdma_connect_locked(struct rdma_cm_id *id,
			     struct rdma_conn_param *conn_param)
{
	if (READ_ONCE(kiwi_rdma_priv(id)->handler_task) != current)
		return -EINVAL;
	return kiwi_rdma_connect(id, conn_param);
}
EXPORT_SYMBOL_GPL(kiwi_rdma_connect_locked);

/**
 * kiwi_rdma_accept() - accept the request a CONNECT_REQUEST announced
 * @id: the id the request came on
 * @conn_param: as for rdma_connect()
 *
 * ESTABLISHED follows, or CONNECT_ERROR if the MPA exchange fails.
 *
 * Context: process context; sleeps. Legal inside the CONNECT_REQUEST
 * handler.
 * Return: 0; -EINVAL without @conn_param, on an id that is not an
 * unanswered request, or for values the device refuses; or the provider's
 * error (then destroy the id).
 */
int kiwi_rdma_accept(struct rdma_cm_id *id,
		     struct rdma_conn_param *conn_param)
{
	struct kiwi_rdma_priv *priv = kiwi_rdma_priv(id);
	struct kiwi_conn_param p = {};
	int ret;

	might_sleep();
	if (!conn_param)
		return -EINVAL;
	ret = kiwi_rdma_enter(priv, KIWI_RDMA_CALL_ACCEPT);
	if (ret)
		return ret;
	kiwi_rdma_param(priv, conn_param, &p);
	ret = kiwi_cm_accept(priv->cm, &p);
	return kiwi_rdma_leave(priv, KIWI_RDMA_CALL_ACCEPT, ret);
}
EXPORT_SYMBOL_GPL(kiwi_rdma_accept);

/**
 * kiwi_rdma_reject() - refuse the request a CONNECT_REQUEST announced
 * @id: the id the request came on
 * @private_data: sent to the peer (its REJECTED event carries it), or NULL
 * @private_data_len: bytes at @private_data
 * @reason: ignored (IB only)
 *
 * Context: process context; sleeps. Legal inside the CONNECT_REQUEST
 * handler.
 * Return: 0 (destroy the id next), -EINVAL on an id that is not an
 * unanswered request, or the provider's error.
 */
int kiwi_rdma_reject(struct rdma_cm_id *id, const void *private_data,
		     u8 private_data_len, u8 reason)
{
	struct kiwi_rdma_priv *priv = kiwi_rdma_priv(id);
	int ret;

	might_sleep();
	ret = kiwi_rdma_enter(priv, KIWI_RDMA_CALL_REJECT);
	if (ret)
		return ret;
	ret = kiwi_cm_reject(priv->cm, private_data, private_data_len);
	return kiwi_rdma_leave(priv, KIWI_RDMA_CALL_REJECT, ret);
}
EXPORT_SYMBOL_GPL(kiwi_rdma_reject);

/* Close gracefully what is left; @after: the id had got DISCONNECTED. */
static int kiwi_rdma_cm_disconnect(struct kiwi_rdma_priv *priv, bool after)
{
	struct kiwi_cm_id *cm;
	int ret;

	mutex_lock(&kiwi_rdma_lock);
	cm = priv->cm;
	mutex_unlock(&kiwi_rdma_lock);
	if (!cm)
		return 0;
	ret = kiwi_cm_disconnect(cm, KIWI_CM_DISCONNECT_GRACEFUL);
	/* -EINVAL after DISCONNECTED: the connection is fully closed. */
	return after && ret == -EINVAL ? 0 : ret;
}

/**
 * kiwi_rdma_disconnect() - close a connection gracefully
 * @id: a connected id, or one that got DISCONNECTED
 *
 * On a connected id DISCONNECTED (status 0) follows as soon as the
 * provider took the close (the QP is in CLOSING, its FIN queued), without
 * waiting for the peer's half of the close: the core finishes that in
 * the background and the CLOSE that ends it is not shown. WRs posted
 * before this call are still sent and may complete after DISCONNECTED;
 * rdma_destroy_qp() completes or flushes every one before it returns.
 * After DISCONNECTED the call closes what is left: when the peer closed
 * first, this side's half of the stream, gracefully (otherwise
 * destroying the id resets it); when nothing is left, it does nothing.
 * No second DISCONNECTED follows. rdma_destroy_id() right after this call
 * does not reset the stream either: the close goes on in the background.
 *
 * Context: process context; sleeps.
 * Return: 0, -EINVAL before any connection was attempted, or the
 * provider's error.
 */
int kiwi_rdma_disconnect(struct rdma_cm_id *id)
{
	struct kiwi_rdma_priv *priv = kiwi_rdma_priv(id);
	enum kiwi_rdma_state from;
	int ret;

	might_sleep();
	ret = kiwi_rdma_enter(priv, KIWI_RDMA_CALL_DISCONNECT);
	if (ret)
		return ret;
	from = priv->from;
	ret = kiwi_rdma_cm_disconnect(priv, from == KIWI_RDMA_DISCONNECTED);
	if (!ret && from == KIWI_RDMA_ESTABLISHED)
		kiwi_rdma_closing(priv);
	return kiwi_rdma_leave(priv, KIWI_RDMA_CALL_DISCONNECT, ret);
}
EXPORT_SYMBOL_GPL(kiwi_rdma_disconnect);

/**
 * kiwi_rdma_create_qp() - create the QP of an id on its device
 * @id: an id with a device (address resolved, bound, or a request)
 * @pd: the QP's protection domain, of the id's device
 * @qp_init_attr: CQs, queue sizes, signalling, event handler, cookie
 *
 * rdma_connect() and rdma_accept() then use it. The QP gets the access
 * rights Linux's iw_cm gives iWARP QPs, KIWI_QP_ACCESS_IWARP: its peer
 * may RDMA WRITE and READ the MRs that allow it.
 *
 * Context: process context; sleeps.
 * Return: 0; -EINVAL without a @pd, with one of another device, without
 * a device or if the id has a QP; or the error of creating or modifying
 * the QP.
 */
int kiwi_rdma_create_qp(struct rdma_cm_id *id, struct ib_pd *pd,
			struct ib_qp_init_attr *qp_init_attr)
{
	struct ib_qp_attr attr = { .qp_access_flags = KIWI_QP_ACCESS_IWARP };
	struct kiwi_rdma_priv *priv = kiwi_rdma_priv(id);
	struct ib_device *dev;
	struct ib_qp *qp;
	int ret = -EINVAL;

	might_sleep();
	/* pinned: a removed device's cut does not take the device away */
	if (!pd || !kiwi_rdma_pin(priv))
		return -EINVAL;
	dev = READ_ONCE(id->device);
	if (!dev || id->qp || READ_ONCE(pd->device) != dev)
		goto unpin;
	qp_init_attr->port_num = id->port_num;
	qp = kiwi_create_qp(pd, qp_init_attr);
	ret = PTR_ERR_OR_ZERO(qp);
	if (ret)
		goto unpin;
	ret = kiwi_modify_qp(qp, &attr, IB_QP_ACCESS_FLAGS);
	if (ret) {
		kiwi_destroy_qp(qp);
		goto unpin;
	}
	id->qp = qp;
unpin:
	kiwi_rdma_unpin(priv);
	return ret;
}
EXPORT_SYMBOL_GPL(kiwi_rdma_create_qp);

/**
 * kiwi_rdma_destroy_qp() - destroy the QP of an id
 * @id: the id; nothing happens if it has no QP
 *
 * Context: process context; sleeps.
 */
void kiwi_rdma_destroy_qp(struct rdma_cm_id *id)
{
	might_sleep();
	if (!id->qp)
		return;
	kiwi_destroy_qp(id->qp);
	id->qp = NULL;
}
EXPORT_SYMBOL_GPL(kiwi_rdma_destroy_qp);

/**
 * kiwi_rdma_init_qp_attr() - QP attributes the id's connection needs
 * @id: an id with a connection being set up or up
 * @qp_attr: filled in
 * @qp_attr_mask: set to the IB_QP_* bits filled in
 *
 * Context: any context.
 * Return: 0, or -EINVAL if the id has no connection being set up or up.
 */
int kiwi_rdma_init_qp_attr(struct rdma_cm_id *id,
			   struct ib_qp_attr *qp_attr, int *qp_attr_mask)
{
	struct kiwi_rdma_priv *priv = kiwi_rdma_priv(id);
	struct kiwi_cm_id *cm;
	int ret = -EINVAL;

	/* pinned: neither a teardown nor a removed device's cut frees cm */
	if (!kiwi_rdma_pin(priv))
		return -EINVAL;
	cm = READ_ONCE(priv->cm);
	if (cm)
		ret = kiwi_cm_init_qp_attr(cm, qp_attr, qp_attr_mask);
	kiwi_rdma_unpin(priv);
	return ret;
}
EXPORT_SYMBOL_GPL(kiwi_rdma_init_qp_attr);

/**
 * kiwi_rdma_notify() - tell the CM of an event its QP saw first
 *	(rdma_notify())
 * @id: an id with a connection being set up or up
 * @event: the event (IB_EVENT_COMM_EST on InfiniBand)
 *
 * InfiniBand's CM must hear of a QP that received before the connection
 * was established; an iWARP QP receives nothing before its connection is
 * up (the MPA exchange comes first), so there is nothing to do.
 *
 * Context: any context.
 * Return: 0, or -EINVAL if the id has no connection being set up or up.
 */
int kiwi_rdma_notify(struct rdma_cm_id *id, enum ib_event_type event)
{
	struct kiwi_rdma_priv *priv = kiwi_rdma_priv(id);
	int ret = -EINVAL;

	if (!kiwi_rdma_pin(priv))
		return -EINVAL;
	if (READ_ONCE(priv->cm))
		ret = 0;
	kiwi_rdma_unpin(priv);
	return ret;
}
EXPORT_SYMBOL_GPL(kiwi_rdma_notify);
