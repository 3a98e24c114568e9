// SPDX-License-Identifier: GPL-2.0
/*
 * ADDR_CHANGE: the link-layer address of the interface a resolved id will
 * leave through changed (a MAC change, a bonding failover), so what
 * address resolution found is stale; the ULP may resolve again.
 */
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <net/net_namespace.h>

#include "rdmacm.h"

/* Resolved and not connecting yet: the ids ADDR_CHANGE is for. */
static bool kiwi_rdma_change_due(enum kiwi_rdma_state state)
{
	return state == KIWI_RDMA_ADDR_RESOLVED ||
	       state == KIWI_RDMA_ROUTE_RESOLVED;
}

/* Checked again once the handler is claimed: a connect may have won. */
static bool kiwi_rdma_change_still_due(struct kiwi_rdma_priv *priv)
{
	return kiwi_rdma_change_due(kiwi_rdma_state_of(priv));
}

static void kiwi_rdma_link_changed(struct net_device *nd)
{
	struct kiwi_rdma_priv *priv;

	mutex_lock(&kiwi_rdma_lock);
	list_for_each_entry(priv, &kiwi_rdma_ids, node) {
		if (READ_ONCE(priv->id.route.ifindex) == nd->ifindex &&
		    net_eq(priv->net, dev_net(nd)) &&
		    kiwi_rdma_change_due(kiwi_rdma_state_of(priv)))
			kiwi_rdma_kick(priv, KIWI_RDMA_TODO_CHANGE);
	}
	mutex_unlock(&kiwi_rdma_lock);
}

static int kiwi_rdma_netdev_event(struct notifier_block *nb,
				  unsigned long event, void *ptr)
{
	if (event == NETDEV_CHANGEADDR || event == NETDEV_BONDING_FAILOVER)
		kiwi_rdma_link_changed(netdev_notifier_info_to_dev(ptr));
	return NOTIFY_DONE;
}

static struct notifier_block kiwi_rdma_netdev_nb = {
	.notifier_call = kiwi_rdma_netdev_event,
};

/**
 * kiwi_rdma_change_step() - tell a resolved id its interface changed
 * @priv: the id
 *
 * Context: the id's work.
 * Return: non-zero if the id is to be torn down now.
 */
int kiwi_rdma_change_step(struct kiwi_rdma_priv *priv)
{
	struct rdma_cm_event ev = { .event = RDMA_CM_EVENT_ADDR_CHANGE };

	return kiwi_rdma_deliver(priv, &ev, kiwi_rdma_change_still_due);
}

/**
 * kiwi_rdma_netdev_init() - start watching interfaces for ADDR_CHANGE
 *
 * Context: module init.
 * Return: 0 or the notifier registration's error.
 */
int kiwi_rdma_netdev_init(void)
{
	return register_netdevice_notifier(&kiwi_rdma_netdev_nb);
}

/**
 * kiwi_rdma_netdev_exit() - stop watching interfaces
 *
 * Context: module exit.
 */
void kiwi_rdma_netdev_exit(void)
{
	unregister_netdevice_notifier(&kiwi_rdma_netdev_nb);
}
