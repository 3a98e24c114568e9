// SPDX-License-Identifier: GPL-2.0
/*
 * Options of an rdma_cm id: Linux's socket-like ones (address family only,
 * address reuse, type of service) and kiwi's iWARP level of
 * rdma_set_option().
 */
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "rdmacm.h"

/**
 * kiwi_rdma_set_afonly() - keep an IPv6 id to IPv6 (rdma_set_afonly())
 * @id: an id not yet bound, or bound and not listening
 * @afonly: non-zero: an IPv6 wildcard bind covers IPv6 only, and does not
 *	collide with an IPv4 id of the same port that is also @afonly
 *
 * Context: any context.
 * Return: 0, or -EINVAL once the id is past ADDR_BOUND.
 */
int kiwi_rdma_set_afonly(struct rdma_cm_id *id, int afonly)
{
	struct kiwi_rdma_priv *priv = kiwi_rdma_priv(id);
	unsigned long flags;
	int ret = -EINVAL;

	spin_lock_irqsave(&priv->lock, flags);
	if (priv->state == KIWI_RDMA_IDLE ||
	    priv->state == KIWI_RDMA_ADDR_BOUND) {
		WRITE_ONCE(priv->afonly, !!afonly);
		ret = 0;
	}
	spin_unlock_irqrestore(&priv->lock, flags);
	return ret;
}
EXPORT_SYMBOL_GPL(kiwi_rdma_set_afonly);

/**
 * kiwi_rdma_set_reuseaddr() - share a port with other ids (rdma_set_reuseaddr())
 * @id: the id; turning reuse on needs an id that does not listen, turning
 *	it off an id not yet bound
 * @reuse: non-zero: the id's port may be bound by other ids that reuse
 *	too, as long as neither listens
 *
 * Context: any context.
 * Return: 0, or -EINVAL in another state.
 */
int kiwi_rdma_set_reuseaddr(struct rdma_cm_id *id, int reuse)
{
	struct kiwi_rdma_priv *priv = kiwi_rdma_priv(id);
	unsigned long flags;
	int ret = -EINVAL;

	spin_lock_irqsave(&priv->lock, flags);
	if ((reuse && priv->state != KIWI_RDMA_LISTEN) ||
	    priv->state == KIWI_RDMA_IDLE) {
		WRITE_ONCE(priv->reuseaddr, !!reuse);
		ret = 0;
	}
	spin_unlock_irqrestore(&priv->lock, flags);
	return ret;
}
EXPORT_SYMBOL_GPL(kiwi_rdma_set_reuseaddr);

/* Before listen or connect: the iw_cm ids are made with the options. */
static bool kiwi_rdma_options_open(enum kiwi_rdma_state state)
{
	return state <= KIWI_RDMA_ROUTE_RESOLVED;
}

/**
 * kiwi_rdma_set_option() - set an option of an id
 * @id: the id, not yet listening or connecting
 * @level: KIWI_RDMA_OPTION_IWARP
 * @optname: enum kiwi_iwarp_opt
 * @optval: the value, a u32
 * @optlen: sizeof(u32)
 *
 * Linux's rdma_set_option() with kiwi's one level: the iWARP settings of
 * the connections the id makes or, for a listener, accepts (MPA revision,
 * CRC, peer-to-peer mode and RTR types, MPA and RTR timeouts). Options not
 * set keep the provider's defaults.
 *
 * Context: process context; may sleep.
 * Return: 0; -ENOPROTOOPT for another level or an unknown option;
 * -EINVAL for a bad length or value; -EISCONN once the id listens or
 * connects, and for the id of a connection request; -ENOMEM.
 */
int kiwi_rdma_set_option(struct rdma_cm_id *id, int level, int optname,
			 void *optval, size_t optlen)
{
	struct kiwi_rdma_priv *priv = kiwi_rdma_priv(id);
	struct kiwi_iwarp_opts *opts = NULL;
	unsigned long flags;
	int ret;
	u32 v;

	might_sleep();
	if (level != KIWI_RDMA_OPTION_IWARP)
		return -ENOPROTOOPT;
	ret = kiwi_cm_check_option(optname, optval, optlen, &v);
	if (ret)
		return ret;
	/* Allocated on first use: most ids keep the defaults. */
	if (!READ_ONCE(priv->iwarp)) {
		opts = kiwi_should_fail() ? NULL :
		       kzalloc(sizeof(*opts), GFP_KERNEL);
		if (!opts)
			return -ENOMEM;
	}
	spin_lock_irqsave(&priv->lock, flags);
	if (!kiwi_rdma_options_open(priv->state)) {
		ret = -EISCONN;
	} else {
		if (!priv->iwarp)
			swap(priv->iwarp, opts);
		priv->iwarp->val[optname] = v;
		priv->iwarp->set |= BIT(optname);
	}
	spin_unlock_irqrestore(&priv->lock, flags);
	kfree(opts);
	return ret;
}
EXPORT_SYMBOL_GPL(kiwi_rdma_set_option);

/**
 * kiwi_rdma_apply_options() - give a new iw_cm id the options of its owner
 * @priv: the owner
 * @cm: the iw_cm id, neither listening nor connecting yet
 *
 * The iWARP options, and the type of service if rdma_set_service_type()
 * set one (for the provider's TCP socket).
 *
 * Context: any context.
 */
void kiwi_rdma_apply_options(struct kiwi_rdma_priv *priv,
			     struct kiwi_cm_id *cm)
{
	struct kiwi_iwarp_opts opts = {};
	unsigned long flags;
	int i;

	cm->tos_set = READ_ONCE(priv->id.route.tos_set);
	cm->tos = cm->tos_set ? READ_ONCE(priv->id.route.tos) : 0;
	spin_lock_irqsave(&priv->lock, flags);
	if (priv->iwarp)
		opts = *priv->iwarp;
	spin_unlock_irqrestore(&priv->lock, flags);
	for (i = 0; i < KIWI_IWARP_NR_OPTS; i++)
		if (opts.set & BIT(i))
			WARN_ON(kiwi_cm_set_option(cm, i, &opts.val[i],
						   sizeof(opts.val[i])));
}

/**
 * kiwi_rdma_set_service_type() - set the type of service of an id
 * @id: the id
 * @tos: IPv4 TOS / IPv6 traffic class
 *
 * Takes effect at the next route resolution: set between
 * rdma_resolve_addr() and rdma_resolve_route(), the route is looked up
 * with it. Set before rdma_connect() or rdma_listen(), it is also the
 * TOS (traffic class) of the connection's TCP socket, or of the
 * listener's and so of each connection it accepts (the provider's TCP
 * keeps the ECN bits). Without this call the sockets keep the kernel's
 * default.
 *
 * Context: any context.
 */
void kiwi_rdma_set_service_type(struct rdma_cm_id *id, int tos)
{
	WRITE_ONCE(id->route.tos, (u8)tos);
	WRITE_ONCE(id->route.tos_set, true);
}
EXPORT_SYMBOL_GPL(kiwi_rdma_set_service_type);
