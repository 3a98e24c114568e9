// SPDX-License-Identifier: GPL-2.0
/*
 * The calls of the cm_id API on a live id: listen, options, connect,
 * accept, reject, disconnect, and the state and QP attributes ULPs read.
 * A call takes its step in the call table (cm_state.c) under the id's
 * lock, and calls the provider after dropping it.
 */
#include <linux/err.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/string.h>

#include "iwcm.h"

static int kiwi_cm_check_param(struct ib_device *dev, const void *pdata,
			       unsigned int len, unsigned int ird,
			       unsigned int ord)
{
	const struct ib_device_attr *a = &dev->attrs;

	if (len > dev->iw_max_private_data || (len && !pdata))
		return -EINVAL;
	if (ird > a->max_qp_rd_atom || ord > a->max_qp_init_rd_atom)
		return -EINVAL;
	return 0;
}

/* Look up and pin the QP a connection will use. */
static struct ib_qp *kiwi_cm_get_qp(struct ib_device *dev, u32 qpn)
{
	struct ib_qp *qp = dev->ops->iw_get_qp(dev, qpn);

	if (qp)
		dev->ops->iw_add_ref(qp);
	return qp;
}

/*
 * An op failed after moving the id to @from: go back to IDLE, unless an
 * upcall or destroy has moved the id on meanwhile, and unpin the QP.
 */
static void kiwi_cm_undo(struct kiwi_cm_priv *priv, enum kiwi_cm_state from)
{
	struct ib_qp *qp = NULL;
	unsigned long flags;

	spin_lock_irqsave(&priv->lock, flags);
	if (priv->state == from) {
		kiwi_cm_set_state(priv, KIWI_CM_STATE_IDLE);
		qp = priv->qp;
		priv->qp = NULL;
	}
	spin_unlock_irqrestore(&priv->lock, flags);
	if (qp)
		kiwi_cm_qp_put(qp);
}

/**
 * kiwi_cm_listen() - listen for connect requests on @id->local_addr
 * @id: a fresh id
 * @backlog: pending requests allowed; 0 or less for the default
 *
 * A CONNECT_REQUEST beyond @backlog pending ones is refused (the provider
 * rejects the connection) and counted; the listener keeps working.
 *
 * Context: process context; sleeps.
 * Return: 0, -EINVAL if the id is not fresh and IDLE, -ENODEV if the
 * device is going, or the provider's error.
 */
int kiwi_cm_listen(struct kiwi_cm_id *id, int backlog)
{
	struct kiwi_cm_priv *priv = kiwi_cm_priv(id);
	unsigned long flags;
	int ret;

	might_sleep();
	ret = kiwi_cm_check_live(priv);
	if (ret)
		return ret;
	if (backlog <= 0)
		backlog = KIWI_CM_DEFAULT_BACKLOG;
	backlog = min_t(int, backlog, U16_MAX);
	spin_lock_irqsave(&priv->lock, flags);
	if (!kiwi_cm_op_step(priv, KIWI_CM_OP_LISTEN)) {
		spin_unlock_irqrestore(&priv->lock, flags);
		return -EINVAL;
	}
	priv->flags |= KIWI_CM_F_USED;
	priv->backlog = backlog;
	spin_unlock_irqrestore(&priv->lock, flags);

	ret = kiwi_should_fail() ? -ENOMEM :
	      id->device->ops->iw_create_listen(id, backlog);
	if (ret)
		kiwi_cm_undo(priv, KIWI_CM_STATE_LISTEN);
	return ret;
}
EXPORT_SYMBOL_GPL(kiwi_cm_listen);

/**
 * kiwi_cm_check_option() - validate an iWARP option
 * @optname: enum kiwi_iwarp_opt
 * @optval: the value, a u32
 * @optlen: sizeof(u32)
 * @val: filled in with the value
 *
 * Context: any context.
 * Return: 0, -ENOPROTOOPT for an unknown option, or -EINVAL for a bad
 * length or value.
 */
int kiwi_cm_check_option(int optname, const void *optval, size_t optlen,
			 u32 *val)
{
	u32 v;

	if (optname < 0 || optname >= KIWI_IWARP_NR_OPTS)
		return -ENOPROTOOPT;
	if (!optval || optlen != sizeof(u32))
		return -EINVAL;
	memcpy(&v, optval, sizeof(v));
	switch (optname) {
	case KIWI_IWARP_OPT_MPA_REV:
		if (v != 1 && v != 2)
			return -EINVAL;
		break;
	case KIWI_IWARP_OPT_MPA_CRC:
	case KIWI_IWARP_OPT_P2P:
		if (v > 1)
			return -EINVAL;
		break;
	case KIWI_IWARP_OPT_RTR:
		if (!v || v & ~KIWI_IWARP_RTR_ALL)
			return -EINVAL;
		break;
	default:
		if (!v || v > KIWI_IWARP_TIMEOUT_MAX)
			return -EINVAL;
		break;
	}
	*val = v;
	return 0;
}
EXPORT_SYMBOL_GPL(kiwi_cm_check_option);

/**
 * kiwi_cm_set_option() - set an iWARP option of an id
 * @id: the id, neither listening nor connecting yet
 * @optname: enum kiwi_iwarp_opt
 * @optval: the value, a u32
 * @optlen: sizeof(u32)
 *
 * The provider reads the option when the id listens or connects; a
 * listener's children inherit its options. Options not set keep the
 * provider's defaults.
 *
 * Context: any context.
 * Return: 0; -ENOPROTOOPT for an unknown option; -EINVAL for a bad length
 * or value; -EISCONN once the id listens or connects, or for a child.
 */
int kiwi_cm_set_option(struct kiwi_cm_id *id, int optname,
		       const void *optval, size_t optlen)
{
	struct kiwi_cm_priv *priv = kiwi_cm_priv(id);
	unsigned long flags;
	int ret;
	u32 v;

	ret = kiwi_cm_check_option(optname, optval, optlen, &v);
	if (ret)
		return ret;
	spin_lock_irqsave(&priv->lock, flags);
	if (priv->flags & KIWI_CM_F_USED) {
		ret = -EISCONN;
	} else {
		id->opts.val[optname] = v;
		id->opts.set |= BIT(optname);
	}
	spin_unlock_irqrestore(&priv->lock, flags);
	return ret;
}
EXPORT_SYMBOL_GPL(kiwi_cm_set_option);

/*
 * The start connect() and accept() share: check the id and the parameters,
 * pin the QP, take the table step for @op and bind the QP to the id.
 */
static int kiwi_cm_bind_qp(struct kiwi_cm_priv *priv,
			   const struct kiwi_conn_param *param,
			   enum kiwi_cm_op op, u8 flag)
{
	struct ib_device *dev = priv->id.device;
	struct ib_qp *qp;
	unsigned long flags;
	int ret;

	ret = kiwi_cm_check_live(priv);
	if (ret)
		return ret;
	ret = kiwi_cm_check_param(dev, param->private_data,
				  param->private_data_len, param->ird,
				  param->ord);
	if (ret)
		return ret;
	qp = kiwi_cm_get_qp(dev, param->qpn);
	if (!qp)
		return -EINVAL;

	spin_lock_irqsave(&priv->lock, flags);
	if (!kiwi_cm_op_step(priv, op)) {
		spin_unlock_irqrestore(&priv->lock, flags);
		kiwi_cm_qp_put(qp);
		return -EINVAL;
	}
	priv->flags |= flag;
	priv->qp = qp;
	spin_unlock_irqrestore(&priv->lock, flags);
	return 0;
}

/**
 * kiwi_cm_connect() - start an active connection to @id->remote_addr
 * @id: a fresh id
 * @param: private data, IRD/ORD and the QP to use
 *
 * The QP is pinned until the connection ends. The outcome arrives as a
 * CONNECT_REPLY event. The owner must not destroy the QP while this runs.
 *
 * Context: process context; sleeps.
 * Return: 0; -EINVAL for a QP number the provider does not know, limits
 * beyond the device's (nothing is truncated), or an id not fresh and IDLE;
 * -ENODEV if the device is going; or the provider's error (the id is IDLE
 * again and the QP unpinned).
 */
int kiwi_cm_connect(struct kiwi_cm_id *id, const struct kiwi_conn_param *param)
{
	struct kiwi_cm_priv *priv = kiwi_cm_priv(id);
	int ret;

	might_sleep();
	ret = kiwi_cm_bind_qp(priv, param, KIWI_CM_OP_CONNECT, KIWI_CM_F_USED);
	if (ret)
		return ret;
	ret = kiwi_should_fail() ? -ENOMEM :
	      id->device->ops->iw_connect(id, param);
	if (ret)
		kiwi_cm_undo(priv, KIWI_CM_STATE_CONN_SENT);
	return ret;
}
EXPORT_SYMBOL_GPL(kiwi_cm_connect);

/*
 * The provider's accept, or its failure at a fault point: a failed accept
 * has let go of the request (see &kiwi_provider_ops.iw_accept), which the
 * fault does by refusing it.
 */
static int kiwi_cm_provider_accept(struct kiwi_cm_id *id,
				   const struct kiwi_conn_param *param)
{
	const struct kiwi_provider_ops *ops = id->device->ops;

	if (!kiwi_should_fail())
		return ops->iw_accept(id, param);
	ops->iw_reject(id, NULL, 0);
	return -ENOMEM;
}

/**
 * kiwi_cm_accept() - accept the connection a CONNECT_REQUEST announced
 * @id: the child id the request came with
 * @param: private data, IRD/ORD and the QP to use
 *
 * The QP is pinned until the connection ends. The outcome arrives as
 * ESTABLISHED or, if the MPA exchange fails after this returned 0, as a
 * CLOSE with a negative status (and nothing else).
 *
 * Context: process context; sleeps. Legal inside the CONNECT_REQUEST handler.
 * Return: 0; -EINVAL for an unknown QP number, limits beyond the device's,
 * or an id that is not an unanswered request; -ENODEV if the device is
 * going; or the provider's error (the id is then IDLE: destroy it).
 */
int kiwi_cm_accept(struct kiwi_cm_id *id, const struct kiwi_conn_param *param)
{
	struct kiwi_cm_priv *priv = kiwi_cm_priv(id);
	struct ib_device *dev = id->device;
	int ret;

	might_sleep();
	ret = kiwi_cm_bind_qp(priv, param, KIWI_CM_OP_ACCEPT,
			      KIWI_CM_F_ACCEPTED);
	if (ret)
		return ret;
	ret = kiwi_cm_provider_accept(id, param);
	if (ret) {
		kiwi_cm_undo(priv, KIWI_CM_STATE_CONN_RECV);
		return ret;
	}
	kiwi_device_count(dev, KIWI_DEV_CNT_ACCEPTS);
	return 0;
}
EXPORT_SYMBOL_GPL(kiwi_cm_accept);

/*
 * iw_reject failed: the request is still the provider's, unanswered. Back
 * to CONN_RECV (unless destroyed meanwhile) so that destroy rejects it.
 */
static void kiwi_cm_unreject(struct kiwi_cm_priv *priv)
{
	unsigned long flags;

	spin_lock_irqsave(&priv->lock, flags);
	if (priv->state == KIWI_CM_STATE_IDLE) {
		kiwi_cm_set_state(priv, KIWI_CM_STATE_CONN_RECV);
		priv->flags &= ~KIWI_CM_F_ACCEPTED;
	}
	spin_unlock_irqrestore(&priv->lock, flags);
}

/**
 * kiwi_cm_reject() - refuse the connection a CONNECT_REQUEST announced
 * @id: the child id the request came with
 * @private_data: sent to the peer, or NULL
 * @private_data_len: bytes at @private_data
 *
 * Only the passive side rejects: on any other id (an active id waiting
 * for its CONNECT_REPLY included) this returns -EINVAL and changes
 * nothing; an active side gives up with kiwi_cm_destroy_id().
 *
 * Context: process context; sleeps. Legal inside the CONNECT_REQUEST handler.
 * Return: 0 (the id is IDLE: destroy it), -EINVAL as above or for private
 * data beyond the device's limit, or the provider's error (the request is
 * unanswered again, in CONN_RECV: reject it again, or destroy it, which
 * rejects it).
 */
int kiwi_cm_reject(struct kiwi_cm_id *id, const void *private_data,
		   u16 private_data_len)
{
	struct kiwi_cm_priv *priv = kiwi_cm_priv(id);
	struct ib_device *dev = id->device;
	unsigned long flags;
	int ret;

	might_sleep();
	if (kiwi_cm_is_orphan(priv))
		return -ENODEV;
	ret = kiwi_cm_check_param(dev, private_data, private_data_len, 0, 0);
	if (ret)
		return ret;
	spin_lock_irqsave(&priv->lock, flags);
	if (!kiwi_cm_op_step(priv, KIWI_CM_OP_REJECT)) {
		spin_unlock_irqrestore(&priv->lock, flags);
		return -EINVAL;
	}
	priv->flags |= KIWI_CM_F_ACCEPTED;	/* answered */
	spin_unlock_irqrestore(&priv->lock, flags);

	ret = kiwi_should_fail() ? -ENOMEM :
	      dev->ops->iw_reject(id, private_data, private_data_len);
	if (ret) {
		kiwi_cm_unreject(priv);
		return ret;
	}
	kiwi_device_count(dev, KIWI_DEV_CNT_REJECTS);
	return 0;
}
EXPORT_SYMBOL_GPL(kiwi_cm_reject);

/* Is the owner's graceful close in flight? Destroy lingers only then. */
static void kiwi_cm_set_graceful(struct kiwi_cm_priv *priv, bool graceful)
{
	lockdep_assert_held(&priv->lock);
	if (graceful)
		priv->flags |= KIWI_CM_F_GRACEFUL;
	else
		priv->flags &= ~KIWI_CM_F_GRACEFUL;
}

/**
 * kiwi_cm_disconnect() - tear a connection down
 * @id: an ESTABLISHED or CLOSING id
 * @mode: graceful (QP to CLOSING) or abortive (QP to ERROR)
 *
 * The id moves to CLOSING. The side that disconnects first sees only
 * CLOSE; the peer sees DISCONNECT then CLOSE (graceful) or only CLOSE with
 * a negative status (abortive). Calling it again in CLOSING is legal; an
 * abortive call then escalates a graceful close. Destroying the id while
 * a graceful close is in flight finishes it in the background (see
 * kiwi_cm_destroy_id()).
 *
 * Context: process context; sleeps.
 * Return: 0, -EINVAL in any other state, or the provider's error.
 */
int kiwi_cm_disconnect(struct kiwi_cm_id *id,
		       enum kiwi_cm_disconnect_mode mode)
{
	struct kiwi_cm_priv *priv = kiwi_cm_priv(id);
	const struct kiwi_provider_ops *ops;
	struct ib_qp_attr attr = {};
	struct ib_qp *qp;
	unsigned long flags;
	int ret;

	might_sleep();
	if (kiwi_cm_is_orphan(priv))
		return -ENODEV;
	ops = id->device->ops;
	spin_lock_irqsave(&priv->lock, flags);
	if (!kiwi_cm_op_step(priv, KIWI_CM_OP_DISCONNECT)) {
		spin_unlock_irqrestore(&priv->lock, flags);
		return -EINVAL;
	}
	qp = priv->qp;
	if (qp)
		ops->iw_add_ref(qp);	/* a CLOSE may unpin it meanwhile */
	kiwi_cm_set_graceful(priv, qp && mode == KIWI_CM_DISCONNECT_GRACEFUL);
	spin_unlock_irqrestore(&priv->lock, flags);
	if (!qp)
		return 0;

	attr.qp_state = mode == KIWI_CM_DISCONNECT_ABORTIVE ?
			IB_QPS_ERR : IB_QPS_SQD;
	/* A move to ERROR never fails: only a graceful close may. */
	if (attr.qp_state == IB_QPS_SQD && kiwi_should_fail())
		ret = -ENOMEM;
	else
		ret = ops->modify_qp(qp, &attr, IB_QP_STATE);
	if (ret) {		/* no close of ours is in flight */
		spin_lock_irqsave(&priv->lock, flags);
		kiwi_cm_set_graceful(priv, false);
		spin_unlock_irqrestore(&priv->lock, flags);
	}
	kiwi_cm_qp_put(qp);
	return ret;
}
EXPORT_SYMBOL_GPL(kiwi_cm_disconnect);

/**
 * kiwi_cm_init_qp_attr() - QP attributes a connection needs
 * @id: an id with a connection being set up or up
 * @attr: filled in
 * @mask: set to the IB_QP_* bits filled in
 *
 * Context: any context.
 * Return: 0, or -EINVAL if @id is not in CONN_RECV, CONN_SENT or
 * ESTABLISHED.
 */
int kiwi_cm_init_qp_attr(struct kiwi_cm_id *id, struct ib_qp_attr *attr,
			 int *mask)
{
	switch (kiwi_cm_id_state(id)) {
	case KIWI_CM_STATE_CONN_RECV:
	case KIWI_CM_STATE_CONN_SENT:
	case KIWI_CM_STATE_ESTABLISHED:
		attr->qp_access_flags = IB_ACCESS_LOCAL_WRITE |
			       IB_ACCESS_REMOTE_WRITE |
			       IB_ACCESS_REMOTE_READ;
		*mask = IB_QP_ACCESS_FLAGS;
		return 0;
	default:
		return -EINVAL;
	}
}
EXPORT_SYMBOL_GPL(kiwi_cm_init_qp_attr);

/**
 * kiwi_cm_id_state() - an id's current state
 * @id: the id
 *
 * Queued events are not yet seen by the owner: the state runs ahead of
 * the handler by what is queued.
 *
 * Context: any context.
 * Return: the state.
 */
enum kiwi_cm_state kiwi_cm_id_state(struct kiwi_cm_id *id)
{
	return READ_ONCE(kiwi_cm_priv(id)->state);
}
EXPORT_SYMBOL_GPL(kiwi_cm_id_state);
