// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_softiw devices: one kiwi device per attached net_device, attached
 * at load time (netdevs=) or at run time (the attach and detach module
 * parameters), and detached when the net_device goes away.
 *
 * Locks, outermost first: softiw_attach_lock serialises attach, detach and
 * module exit; rtnl; softiw_list_lock protects the list. The netdev
 * notifier runs under rtnl and hands a vanished device to softiw_wq, which
 * unregisters it without holding any lock.
 */
#include <linux/cpumask.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/nsproxy.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include "cm.h"

static DEFINE_MUTEX(softiw_attach_lock);
static DEFINE_MUTEX(softiw_list_lock);
static LIST_HEAD(softiw_devices);
/* Attach and detach work only between init and exit; softiw_attach_lock. */
static bool softiw_running;
static struct workqueue_struct *softiw_wq;

static void softiw_device_free(struct softiw_device *sdev)
{
	netdev_put(sdev->kdev.netdev, &sdev->tracker);
	kfree(sdev);
}

static void softiw_device_destroy(struct softiw_device *sdev)
{
	might_sleep();
	kiwi_unregister_device(&sdev->kdev);
	softiw_qps_exit(sdev);
	softiw_mrs_exit(sdev);
	softiw_device_free(sdev);
}

static void softiw_detach_work(struct work_struct *work)
{
	softiw_device_destroy(container_of(work, struct softiw_device,
					   detach_work));
}

static struct softiw_device *softiw_find(const struct net_device *netdev)
{
	struct softiw_device *sdev;

	lockdep_assert_held(&softiw_list_lock);
	list_for_each_entry(sdev, &softiw_devices, node)
		if (sdev->kdev.netdev == netdev)
			return sdev;
	return NULL;
}

static struct softiw_device *softiw_device_alloc(struct net_device *netdev)
{
	struct softiw_device *sdev;

	sdev = kiwi_should_fail() ? NULL : kzalloc(sizeof(*sdev), GFP_KERNEL);
	if (!sdev)
		return NULL;
	snprintf(sdev->kdev.name, sizeof(sdev->kdev.name), "softiw_%s",
		 netdev->name);
	sdev->kdev.netdev = netdev;
	sdev->kdev.ops = &softiw_ops;
	sdev->kdev.iw_max_private_data = SOFTIW_MPA_ULP_PD_MAX;
	/*
	 * A vector per CPU, as Linux's siw: ULPs size their queues by the
	 * vectors (NVMe-oF's I/O queues are at most num_comp_vectors).
	 */
	sdev->kdev.num_comp_vectors = num_possible_cpus();
	INIT_LIST_HEAD(&sdev->node);
	INIT_WORK(&sdev->detach_work, softiw_detach_work);
	softiw_qps_init(sdev);
	softiw_mrs_init(sdev);
	return sdev;
}

/*
 * Publish @sdev unless its netdev is already being unregistered: under
 * rtnl, so that the notifier either sees it in the list or has run before.
 */
static int softiw_publish(struct softiw_device *sdev)
{
	struct net_device *netdev = sdev->kdev.netdev;
	int ret = 0;

	rtnl_lock();
	mutex_lock(&softiw_list_lock);
	if (netdev->reg_state != NETREG_REGISTERED)
		ret = -ENODEV;
	else if (softiw_find(netdev))
		ret = -EEXIST;
	else
		list_add_tail(&sdev->node, &softiw_devices);
	mutex_unlock(&softiw_list_lock);
	rtnl_unlock();
	return ret;
}

/* Takes over the caller's reference on @netdev, even on failure. */
static int softiw_attach_netdev(struct net_device *netdev)
{
	struct softiw_device *sdev;
	int ret;

	lockdep_assert_held(&softiw_attach_lock);
	sdev = softiw_device_alloc(netdev);
	if (!sdev) {
		dev_put(netdev);
		return -ENOMEM;
	}
	netdev_tracker_alloc(netdev, &sdev->tracker, GFP_KERNEL);
	ret = kiwi_register_device(&sdev->kdev);
	if (ret)
		goto free_sdev;
	ret = softiw_publish(sdev);
	if (ret)
		goto unregister;
	return 0;

unregister:
	kiwi_unregister_device(&sdev->kdev);
free_sdev:
	softiw_qps_exit(sdev);
	softiw_mrs_exit(sdev);
	softiw_device_free(sdev);
	return ret;
}

/**
 * kiwi_softiw_attach() - create the softiw device of a net_device
 * @ifname: the interface name, in the caller's network namespace
 *
 * The device is named ``softiw_`` followed by @ifname and keeps that name
 * if the interface is renamed. The name is looked up in the network
 * namespace of the calling task: the initial one for kernel threads, the
 * writer's for the attach parameter, so that an interface of another
 * namespace is attached by writing its name from inside that namespace.
 *
 * Context: process context, may sleep; takes rtnl.
 * Return: 0, -ENODEV if there is no such interface (or the module is
 * going away), -EEXIST if it is attached already, -ENOMEM, or the error
 * of kiwi_register_device().
 */
int kiwi_softiw_attach(const char *ifname)
{
	return kiwi_softiw_attach_in(current->nsproxy->net_ns, ifname);
}
EXPORT_SYMBOL_IF_KUNIT(kiwi_softiw_attach);

/**
 * kiwi_softiw_attach_in() - kiwi_softiw_attach() in a given namespace
 * @net: the network namespace to look @ifname up in
 * @ifname: the interface name
 *
 * Context: process context, may sleep; takes rtnl.
 * Return: as kiwi_softiw_attach().
 */
int kiwi_softiw_attach_in(struct net *net, const char *ifname)
{
	struct net_device *netdev;
	int ret = -ENODEV;

	might_sleep();
	mutex_lock(&softiw_attach_lock);
	if (!softiw_running)
		goto unlock;
	netdev = dev_get_by_name(net, ifname);
	if (!netdev)
		goto unlock;
	ret = softiw_attach_netdev(netdev);
unlock:
	mutex_unlock(&softiw_attach_lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(kiwi_softiw_attach_in);

static struct softiw_device *softiw_unlink_by_name(const struct net *net,
						   const char *ifname)
{
	struct softiw_device *sdev, *found = NULL;
	struct net_device *netdev;

	ASSERT_RTNL();
	mutex_lock(&softiw_list_lock);
	list_for_each_entry(sdev, &softiw_devices, node) {
		netdev = sdev->kdev.netdev;
		if (net_eq(dev_net(netdev), net) &&
		    !strcmp(netdev->name, ifname)) {
			found = sdev;
			list_del_init(&found->node);
			break;
		}
	}
	mutex_unlock(&softiw_list_lock);
	return found;
}

/**
 * kiwi_softiw_detach() - remove the softiw device of a net_device
 * @ifname: the interface's current name, in the caller's network namespace
 *
 * Unregisters the kiwi device, which waits until its users have let go
 * (see kiwi_unregister_device()).
 *
 * Context: process context, may sleep; takes rtnl.
 * Return: 0, or -ENODEV if no attached interface of the caller's network
 * namespace has that name.
 */
int kiwi_softiw_detach(const char *ifname)
{
	return kiwi_softiw_detach_in(current->nsproxy->net_ns, ifname);
}
EXPORT_SYMBOL_IF_KUNIT(kiwi_softiw_detach);

/**
 * kiwi_softiw_detach_in() - kiwi_softiw_detach() in a given namespace
 * @net: the network namespace of the interface
 * @ifname: the interface's current name there
 *
 * Context: process context, may sleep; takes rtnl.
 * Return: as kiwi_softiw_detach().
 */
int kiwi_softiw_detach_in(struct net *net, const char *ifname)
{
	struct softiw_device *sdev;

	might_sleep();
	mutex_lock(&softiw_attach_lock);
	rtnl_lock();
	sdev = softiw_unlink_by_name(net, ifname);
	rtnl_unlock();
	if (sdev)
		softiw_device_destroy(sdev);
	mutex_unlock(&softiw_attach_lock);
	return sdev ? 0 : -ENODEV;
}
EXPORT_SYMBOL_IF_KUNIT(kiwi_softiw_detach_in);

/**
 * kiwi_softiw_flush_detach() - wait for detaches the notifier started
 *
 * Context: process context, may sleep.
 */
void kiwi_softiw_flush_detach(void)
{
	flush_workqueue(softiw_wq);
}
EXPORT_SYMBOL_IF_KUNIT(kiwi_softiw_flush_detach);

static int softiw_netdev_event(struct notifier_block *nb,
			       unsigned long event, void *ptr)
{
	struct net_device *netdev = netdev_notifier_info_to_dev(ptr);
	struct softiw_device *sdev;

	if (event != NETDEV_UNREGISTER && event != NETDEV_UP &&
	    event != NETDEV_DOWN)
		return NOTIFY_DONE;
	mutex_lock(&softiw_list_lock);
	sdev = softiw_find(netdev);
	if (sdev && event == NETDEV_UNREGISTER) {
		list_del_init(&sdev->node);
		queue_work(softiw_wq, &sdev->detach_work);
	} else if (sdev) {
		/* as siw does: the port follows its interface */
		kiwi_device_event(&sdev->kdev, event == NETDEV_UP ?
				  IB_EVENT_PORT_ACTIVE : IB_EVENT_PORT_ERR);
	}
	mutex_unlock(&softiw_list_lock);
	return NOTIFY_DONE;
}

static struct notifier_block softiw_netdev_nb = {
	.notifier_call = softiw_netdev_event,
};

static int softiw_query_device(struct ib_device *kdev,
			       struct ib_device_attr *attr)
{
	*attr = (struct ib_device_attr) {
		.max_qp = SOFTIW_MAX_QP,
		.max_qp_wr = SOFTIW_MAX_QP_WR,
		.max_send_sge = SOFTIW_MAX_SGE,
		.max_recv_sge = SOFTIW_MAX_SGE,
		.max_sge_rd = SOFTIW_MAX_SGE,
		.max_cq = SOFTIW_MAX_CQ,
		.max_cqe = SOFTIW_MAX_CQE,
		.max_mr = SOFTIW_MAX_MR,
		.max_pd = SOFTIW_MAX_PD,
		.max_mr_size = U32_MAX,
		.page_size_cap = PAGE_SIZE,
		.max_qp_rd_atom = SOFTIW_MAX_IRD_ORD,
		.max_qp_init_rd_atom = SOFTIW_MAX_IRD_ORD,
		.max_res_rd_atom = SOFTIW_MAX_QP * SOFTIW_MAX_IRD_ORD,
		.kernel_cap_flags = IBK_LOCAL_DMA_LKEY,
		.max_fast_reg_page_list_len = SOFTIW_MAX_FR_PAGES,
	};
	return 0;
}

const struct kiwi_provider_ops softiw_ops = {
	.iw_connect = softiw_connect,
	.iw_accept = softiw_accept,
	.iw_reject = softiw_reject,
	.iw_create_listen = softiw_create_listen,
	.iw_destroy_listen = softiw_destroy_listen,
	.iw_add_ref = softiw_add_ref,
	.iw_rem_ref = softiw_rem_ref,
	.iw_get_qp = softiw_get_qp,
	.query_device = softiw_query_device,
	.alloc_pd = softiw_alloc_pd,
	.dealloc_pd = softiw_dealloc_pd,
	.create_qp = softiw_create_qp,
	.modify_qp = softiw_modify_qp,
	.query_qp = softiw_query_qp,
	.destroy_qp = softiw_destroy_qp,
	.post_send = softiw_post_send,
	.post_recv = softiw_post_recv,
	.create_cq = softiw_create_cq,
	.destroy_cq = softiw_destroy_cq,
	.poll_cq = softiw_poll_cq,
	.req_notify_cq = softiw_req_notify_cq,
	.reg_kernel_mr = softiw_reg_kernel_mr,
	.reg_sg_mr = softiw_reg_sg_mr,
	.dereg_mr = softiw_dereg_mr,
	.alloc_mr = softiw_alloc_mr,
	.map_mr_sg = softiw_map_mr_sg,
};

/* Strip surrounding blanks and a trailing newline from a sysfs write. */
static int softiw_param_ifname(const char *val, char *name)
{
	size_t len;

	val = skip_spaces(val);
	len = strcspn(val, " \t\n");
	if (!len || len >= IFNAMSIZ)
		return -EINVAL;
	memcpy(name, val, len);
	name[len] = '\0';
	return 0;
}

static int softiw_param_attach(const char *val, const struct kernel_param *kp)
{
	char name[IFNAMSIZ];
	int ret;

	ret = softiw_param_ifname(val, name);
	return ret ? ret : kiwi_softiw_attach(name);
}

static int softiw_param_detach(const char *val, const struct kernel_param *kp)
{
	char name[IFNAMSIZ];
	int ret;

	ret = softiw_param_ifname(val, name);
	return ret ? ret : kiwi_softiw_detach(name);
}

/* Reading "attach" lists the attached interfaces, one per line. */
static int softiw_param_list(char *buf, const struct kernel_param *kp)
{
	struct softiw_device *sdev;
	int len = 0;

	rtnl_lock();
	mutex_lock(&softiw_list_lock);
	list_for_each_entry(sdev, &softiw_devices, node)
		len += scnprintf(buf + len, PAGE_SIZE - len, "%s\n",
				 sdev->kdev.netdev->name);
	mutex_unlock(&softiw_list_lock);
	rtnl_unlock();
	return len;
}

static const struct kernel_param_ops softiw_attach_ops = {
	.set = softiw_param_attach,
	.get = softiw_param_list,
};

static const struct kernel_param_ops softiw_detach_ops = {
	.set = softiw_param_detach,
};

module_param_cb(attach, &softiw_attach_ops, NULL, 0644);
MODULE_PARM_DESC(attach, "write an interface name to attach it; read: attached interfaces");
module_param_cb(detach, &softiw_detach_ops, NULL, 0200);
MODULE_PARM_DESC(detach, "write an interface name to detach it");

static void softiw_attach_list(const char *netdevs)
{
	char *list, *cur, *name;
	int ret;

	list = kstrdup(netdevs, GFP_KERNEL);
	if (!list)
		return;
	cur = list;
	while ((name = strsep(&cur, ",")) != NULL) {
		name = strim(name);
		if (!*name)
			continue;
		ret = kiwi_softiw_attach(name);
		if (ret)
			pr_warn("kiwi_softiw: cannot attach %s: %d\n", name, ret);
	}
	kfree(list);
}

/**
 * softiw_devices_init() - start following netdevs and attach the first ones
 * @netdevs: comma-separated interface names; one that cannot be attached
 *	is reported and skipped
 *
 * Context: module init.
 * Return: 0 or a negative errno.
 */
int softiw_devices_init(const char *netdevs)
{
	int ret;

	softiw_wq = alloc_ordered_workqueue("kiwi_softiw_detach", 0);
	if (!softiw_wq)
		return -ENOMEM;
	ret = register_netdevice_notifier(&softiw_netdev_nb);
	if (ret)
		goto destroy_wq;
	mutex_lock(&softiw_attach_lock);
	softiw_running = true;
	mutex_unlock(&softiw_attach_lock);
	softiw_attach_list(netdevs);
	return 0;

destroy_wq:
	destroy_workqueue(softiw_wq);
	return ret;
}

/**
 * softiw_devices_exit() - detach every device
 *
 * Context: module exit.
 */
void softiw_devices_exit(void)
{
	struct softiw_device *sdev, *next;
	LIST_HEAD(doomed);

	mutex_lock(&softiw_attach_lock);
	softiw_running = false;
	mutex_unlock(&softiw_attach_lock);
	unregister_netdevice_notifier(&softiw_netdev_nb);
	destroy_workqueue(softiw_wq);
	mutex_lock(&softiw_list_lock);
	list_splice_init(&softiw_devices, &doomed);
	mutex_unlock(&softiw_list_lock);
	list_for_each_entry_safe(sdev, next, &doomed, node)
		softiw_device_destroy(sdev);
}
