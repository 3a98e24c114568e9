// SPDX-License-Identifier: GPL-2.0
/*
 * Observability: /sys/kernel/debug/kiwi_iwcm/<device>/{ids,counters}, and
 * the leak report printed while a device waits for its references.
 */
#include <linux/debugfs.h>
#include <linux/printk.h>
#include <linux/seq_file.h>
#include <linux/string.h>

#include <kunit/visibility.h>

#include "iwcm.h"

static struct dentry *kiwi_debugfs_root;

static const char *const kiwi_counter_names[KIWI_DEV_NR_COUNTERS] = {
	[KIWI_DEV_CNT_REQUESTS] = "requests",
	[KIWI_DEV_CNT_ACCEPTS] = "accepts",
	[KIWI_DEV_CNT_REJECTS] = "rejects",
	[KIWI_DEV_CNT_BACKLOG_DROPS] = "backlog_drops",
	[KIWI_DEV_CNT_ALLOC_DROPS] = "alloc_drops",
	[KIWI_DEV_CNT_VIOLATIONS] = "protocol_violations",
};

static void kiwi_debugfs_addr(char *buf, size_t len,
			      const struct sockaddr_storage *sa)
{
	if (sa->ss_family)
		snprintf(buf, len, "%pISpc", sa);
	else
		strscpy(buf, "-", len);
}

/**
 * kiwi_cm_describe() - one line naming an id and who holds it
 * @priv: the id
 * @buf: the line
 * @len: size of @buf
 *
 * Context: any context; @priv->lock held.
 */
void kiwi_cm_describe(struct kiwi_cm_priv *priv, char *buf, size_t len)
{
	const struct kiwi_cm_id *id = &priv->id;
	char local[64], remote[64];

	lockdep_assert_held(&priv->lock);
	kiwi_debugfs_addr(local, sizeof(local), &id->local_addr);
	kiwi_debugfs_addr(remote, sizeof(remote), &id->remote_addr);
	snprintf(buf, len,
		 "id %p state %s refs %u provider_refs %u owner %s queued %u handlers %s qp %d listener %p local %s remote %s",
		 id, kiwi_cm_state_name(priv->state),
		 refcount_read(&priv->ref), priv->provider_refs,
		 kiwi_cm_owner_gone(priv->state) ? "none" : "ulp",
		 priv->count,
		 list_empty(&priv->deliveries) ? "idle" : "running",
		 priv->qp ? (int)priv->qp->qp_num : -1, priv->listener,
		 local, remote);
}

/**
 * kiwi_debugfs_show_ids() - print every id of a device
 * @m: the seq_file
 * @dev: the device
 *
 * Context: process context; takes @dev->lock and each id's lock.
 */
void kiwi_debugfs_show_ids(struct seq_file *m, struct ib_device *dev)
{
	struct kiwi_cm_priv *priv;
	unsigned long flags;
	char line[256];

	spin_lock_irqsave(&dev->lock, flags);
	list_for_each_entry(priv, &dev->ids, dev_node) {
		spin_lock(&priv->lock);
		kiwi_cm_describe(priv, line, sizeof(line));
		spin_unlock(&priv->lock);
		seq_printf(m, "%s\n", line);
	}
	spin_unlock_irqrestore(&dev->lock, flags);
}
EXPORT_SYMBOL_IF_KUNIT(kiwi_debugfs_show_ids);

/**
 * kiwi_debugfs_show_counters() - print a device's counters
 * @m: the seq_file
 * @dev: the device
 *
 * Context: any context.
 */
void kiwi_debugfs_show_counters(struct seq_file *m, struct ib_device *dev)
{
	int i;

	for (i = 0; i < KIWI_DEV_NR_COUNTERS; i++)
		seq_printf(m, "%s %lu\n", kiwi_counter_names[i],
			   kiwi_device_counter(dev, i));
}
EXPORT_SYMBOL_IF_KUNIT(kiwi_debugfs_show_counters);

static int kiwi_debugfs_ids_show(struct seq_file *m, void *unused)
{
	kiwi_debugfs_show_ids(m, m->private);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(kiwi_debugfs_ids);

static int kiwi_debugfs_counters_show(struct seq_file *m, void *unused)
{
	kiwi_debugfs_show_counters(m, m->private);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(kiwi_debugfs_counters);

/**
 * kiwi_debugfs_add_device() - create a device's debugfs directory
 * @dev: the device
 *
 * Context: process context; sleeps.
 */
void kiwi_debugfs_add_device(struct ib_device *dev)
{
	dev->debugfs = debugfs_create_dir(dev->name, kiwi_debugfs_root);
	debugfs_create_file("ids", 0400, dev->debugfs, dev,
			    &kiwi_debugfs_ids_fops);
	debugfs_create_file("counters", 0400, dev->debugfs, dev,
			    &kiwi_debugfs_counters_fops);
}

/**
 * kiwi_debugfs_del_device() - remove a device's debugfs directory
 * @dev: the device
 *
 * Context: process context; sleeps.
 */
void kiwi_debugfs_del_device(struct ib_device *dev)
{
	debugfs_remove_recursive(dev->debugfs);
	dev->debugfs = NULL;
}

/**
 * kiwi_device_report_leaks() - name what keeps a device from going away
 * @dev: a device waiting in kiwi_unregister_device()
 *
 * Context: process context; takes @dev->lock.
 */
void kiwi_device_report_leaks(struct ib_device *dev)
{
	struct kiwi_cm_priv *priv;
	struct ib_qp *qp;
	unsigned long flags;
	char line[256];

	pr_warn("kiwi_iwcm: %s: unregister waits, %u references left\n",
		dev->name, refcount_read(&dev->ref));
	spin_lock_irqsave(&dev->lock, flags);
	list_for_each_entry(priv, &dev->ids, dev_node) {
		spin_lock(&priv->lock);
		kiwi_cm_describe(priv, line, sizeof(line));
		spin_unlock(&priv->lock);
		pr_warn("kiwi_iwcm: %s: leaked %s\n", dev->name, line);
	}
	list_for_each_entry(qp, &dev->qps, node)
		pr_warn("kiwi_iwcm: %s: leaked qp %u (%p) not destroyed\n",
			dev->name, qp->qp_num, qp);
	if (!list_empty(&dev->cqs) || !list_empty(&dev->mrs))
		pr_warn("kiwi_iwcm: %s: leaked CQs or MRs not destroyed\n",
			dev->name);
	spin_unlock_irqrestore(&dev->lock, flags);
}

/**
 * kiwi_debugfs_init() - create /sys/kernel/debug/kiwi_iwcm
 *
 * Context: module init.
 */
void kiwi_debugfs_init(void)
{
	kiwi_debugfs_root = debugfs_create_dir("kiwi_iwcm", NULL);
}

/**
 * kiwi_debugfs_exit() - remove /sys/kernel/debug/kiwi_iwcm
 *
 * Context: module exit.
 */
void kiwi_debugfs_exit(void)
{
	debugfs_remove_recursive(kiwi_debugfs_root);
}
