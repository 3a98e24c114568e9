// SPDX-License-Identifier: GPL-2.0
/*
 * Clients: modules that want to hear of every device, as Linux's ib_client.
 * A client's add runs once per device (present when it registers, or
 * registered later), its remove once per device it was added to (when the
 * device goes, or when the client unregisters), never both at once.
 *
 * The callbacks run under kiwi_clients_lock only: a client's remove may
 * sleep, flush its workqueues, destroy its ids and QPs and wait for their
 * event handlers, since neither address resolution nor event delivery
 * takes this lock. It serialises the callbacks, so that a device seen by
 * add is not removed until add returned.
 */
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/printk.h>
#include <linux/slab.h>

#include "iwcm.h"

/* A client's association with one device: what ib_set_client_data() set. */
struct kiwi_client_ctx {
	struct list_head node;	/* in ib_device.client_ctxs, dev->lock */
	struct ib_client *client;
	void *data;
};

/* Protects the two lists; held across every add and remove callback. */
static DEFINE_MUTEX(kiwi_clients_lock);
static LIST_HEAD(kiwi_clients);
/* Devices clients have heard of, in registration order. */
static LIST_HEAD(kiwi_client_devices);

static struct kiwi_client_ctx *kiwi_client_ctx_find(struct ib_device *dev,
						    struct ib_client *client)
{
	struct kiwi_client_ctx *ctx;

	lockdep_assert_held(&dev->lock);
	list_for_each_entry(ctx, &dev->client_ctxs, node)
		if (ctx->client == client)
			return ctx;
	return NULL;
}

/*
 * Run @client's add for @dev; if add accepts, the two are associated.
 * An add that refuses @dev is not an error (Linux's rule), but running
 * out of memory, here or in add, is: the device would reach ULPs a
 * client never heard of, and the client would miss its removal.
 */
static int kiwi_client_add_one(struct ib_client *client,
			       struct ib_device *dev)
{
	struct kiwi_client_ctx *ctx;
	unsigned long flags;
	int ret;

	lockdep_assert_held(&kiwi_clients_lock);
	ctx = kiwi_should_fail() ? NULL : kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	ctx->client = client;
	/* visible before add runs: add may call ib_set_client_data() */
	spin_lock_irqsave(&dev->lock, flags);
	list_add_tail(&ctx->node, &dev->client_ctxs);
	spin_unlock_irqrestore(&dev->lock, flags);

	ret = client->add ? client->add(dev) : 0;
	if (!ret)
		return 0;
	if (ret != -EOPNOTSUPP && ret != -ENOMEM)
		pr_warn("kiwi_iwcm: client %s refused device %s: %pe\n",
			client->name, dev->name, ERR_PTR(ret));
	spin_lock_irqsave(&dev->lock, flags);
	list_del(&ctx->node);
	spin_unlock_irqrestore(&dev->lock, flags);
	kfree(ctx);
	return ret == -ENOMEM ? ret : 0;
}

/* Run @client's remove for @dev if the two are associated, and part them. */
static void kiwi_client_remove_one(struct ib_client *client,
				   struct ib_device *dev)
{
	struct kiwi_client_ctx *ctx;
	unsigned long flags;
	void *data = NULL;

	lockdep_assert_held(&kiwi_clients_lock);
	spin_lock_irqsave(&dev->lock, flags);
	ctx = kiwi_client_ctx_find(dev, client);
	if (ctx)
		data = ctx->data;
	spin_unlock_irqrestore(&dev->lock, flags);
	if (!ctx)
		return;
	if (client->remove)
		client->remove(dev, data);
	spin_lock_irqsave(&dev->lock, flags);
	list_del(&ctx->node);
	spin_unlock_irqrestore(&dev->lock, flags);
	kfree(ctx);
}

/**
 * kiwi_clients_device_add() - tell every client of a new device
 * @dev: the device, registered and live
 *
 * On failure @dev stays known to the clients that did hear of it:
 * the caller unregisters it, which tells them it goes.
 *
 * Context: process context; sleeps. No registry lock held.
 * Return: 0, or -ENOMEM if a client's association could not be recorded
 * or its add ran out of memory.
 */
int kiwi_clients_device_add(struct ib_device *dev)
{
	struct ib_client *client;
	int ret = 0;

	mutex_lock(&kiwi_clients_lock);
	list_add_tail(&dev->client_node, &kiwi_client_devices);
	list_for_each_entry(client, &kiwi_clients, node) {
		ret = kiwi_client_add_one(client, dev);
		if (ret)
			break;
	}
	mutex_unlock(&kiwi_clients_lock);
	return ret;
}

/**
 * kiwi_clients_device_remove() - tell every client a device goes
 * @dev: the device, marked dying
 *
 * The clients' remove callbacks run in the reverse of their registration
 * order, so that a ULP hears of the removal before the rdma_cm it uses.
 *
 * Context: process context; sleeps. No registry lock held.
 */
void kiwi_clients_device_remove(struct ib_device *dev)
{
	struct ib_client *client;

	mutex_lock(&kiwi_clients_lock);
	list_for_each_entry_reverse(client, &kiwi_clients, node)
		kiwi_client_remove_one(client, dev);
	list_del(&dev->client_node);
	mutex_unlock(&kiwi_clients_lock);
}

/* Part @client from every device, newest first; then forget @client. */
static void kiwi_client_remove_all(struct ib_client *client)
{
	struct ib_device *dev;

	lockdep_assert_held(&kiwi_clients_lock);
	list_for_each_entry_reverse(dev, &kiwi_client_devices, client_node)
		kiwi_client_remove_one(client, dev);
	list_del(&client->node);
}

/**
 * kiwi_register_client() - hear of every kiwi device, now and later
 * @client: the client, with Linux's &struct ib_client callbacks
 *
 * @client->add runs for each device already registered before this
 * returns, and for each device registered later. An add that returns an
 * error leaves @client and that device unassociated: no remove for it.
 * -ENOMEM from add, or no memory to record the association, fails the
 * registration under way: this one, or the device's. If this fails,
 * @client->remove has run for every device its add accepted, and
 * @client is not registered.
 *
 * Context: process context; sleeps. Not from a client callback.
 * Return: 0, or -ENOMEM.
 */
int kiwi_register_client(struct ib_client *client)
{
	struct ib_device *dev;
	int ret = 0;

	might_sleep();
	mutex_lock(&kiwi_clients_lock);
	list_add_tail(&client->node, &kiwi_clients);
	list_for_each_entry(dev, &kiwi_client_devices, client_node) {
		ret = kiwi_client_add_one(client, dev);
		if (ret)
			break;
	}
	if (ret)
		kiwi_client_remove_all(client);
	mutex_unlock(&kiwi_clients_lock);
	return ret;
}
EXPORT_SYMBOL_GPL(kiwi_register_client);

/**
 * kiwi_unregister_client() - stop hearing of devices
 * @client: a registered client
 *
 * @client->remove runs for every device @client was added to, newest
 * device first, before this returns.
 *
 * Context: process context; sleeps. Not from a client callback.
 */
void kiwi_unregister_client(struct ib_client *client)
{
	might_sleep();
	mutex_lock(&kiwi_clients_lock);
	kiwi_client_remove_all(client);
	mutex_unlock(&kiwi_clients_lock);
}
EXPORT_SYMBOL_GPL(kiwi_unregister_client);

/**
 * kiwi_set_client_data() - store a client's cookie for a device
 * @dev: the device
 * @client: a client added to @dev (typically from its add callback)
 * @data: the cookie, given back to @client->remove
 *
 * Context: any context.
 */
void kiwi_set_client_data(struct ib_device *dev, struct ib_client *client,
			  void *data)
{
	struct kiwi_client_ctx *ctx;
	unsigned long flags;

	spin_lock_irqsave(&dev->lock, flags);
	ctx = kiwi_client_ctx_find(dev, client);
	if (ctx)
		ctx->data = data;
	spin_unlock_irqrestore(&dev->lock, flags);
	WARN_ONCE(!ctx, "kiwi_iwcm: client %s not added to %s\n",
		  client->name, dev->name);
}
EXPORT_SYMBOL_GPL(kiwi_set_client_data);

/**
 * kiwi_get_client_data() - a client's cookie for a device
 * @dev: the device
 * @client: the client
 *
 * Context: any context.
 * Return: what kiwi_set_client_data() stored, or NULL if nothing was or
 * @client is not added to @dev.
 */
void *kiwi_get_client_data(struct ib_device *dev, struct ib_client *client)
{
	struct kiwi_client_ctx *ctx;
	unsigned long flags;
	void *data = NULL;

	spin_lock_irqsave(&dev->lock, flags);
	ctx = kiwi_client_ctx_find(dev, client);
	if (ctx)
		data = ctx->data;
	spin_unlock_irqrestore(&dev->lock, flags);
	return data;
}
EXPORT_SYMBOL_GPL(kiwi_get_client_data);
