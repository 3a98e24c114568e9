// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_loop: module init and exit, its two devices, their limits and
 * protection domains.
 *
 * kiwi_loop is the reference provider of the provider conformance kit: a
 * correct RNIC with no wire, whose connections join two QPs in memory.
 * kiwi_loop0 answers for 192.0.2.1 and kiwi_loop1 for 192.0.2.2 (IPv4
 * only); a device may connect to itself.
 *
 * Deliberate defects, for the kit's runs that prove it can fail: the
 * module parameter "defect" (read-only once loaded) selects one, checked
 * by loop_defect() at exactly one place each:
 *
 *   no_rem_ref                the endpoint of a connection never calls
 *                             kiwi_cm_id_rem_ref() after its CLOSE
 *                             (loop_ep_let_go(), loop_ep.c): the id's
 *                             provider reference leaks
 *   close_before_established  iw_accept reports CLOSE(0) and then
 *                             ESTABLISHED on the passive id
 *                             (loop_accept(), loop_cm.c): a protocol
 *                             violation the core counts and WARNs about
 *   no_flush                  a QP moved to ERROR drops its outstanding
 *                             work requests without completing them
 *                             (loop_queue_flush(), loop_verbs.c)
 *
 * The default, "" or "none", is a correct provider.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "loop.h"

static char *defect = "";
module_param(defect, charp, 0444);
MODULE_PARM_DESC(defect,
		 "deliberate defect: none, no_rem_ref, close_before_established, no_flush");

static const char *const loop_defect_names[] = {
	[LOOP_DEFECT_NONE] = "none",
	[LOOP_DEFECT_NO_REM_REF] = "no_rem_ref",
	[LOOP_DEFECT_CLOSE_BEFORE_ESTABLISHED] = "close_before_established",
	[LOOP_DEFECT_NO_FLUSH] = "no_flush",
};

static enum loop_defect loop_the_defect;

/* Serialises connections, endpoints, flushes and the data path. */
DEFINE_MUTEX(loop_mutex);
/* Endpoint events and QP send queues are carried out here. */
struct workqueue_struct *loop_wq;

static struct loop_dev *loop_devs[LOOP_NR_DEVS];

/**
 * loop_defect() - is a deliberate defect selected?
 * @which: the defect
 *
 * Context: any context.
 * Return: true if the module was loaded with defect=@which.
 */
bool loop_defect(enum loop_defect which)
{
	return loop_the_defect == which;
}

static int loop_defect_parse(void)
{
	unsigned int i;

	if (!defect || !*defect)
		return 0;
	for (i = 0; i < ARRAY_SIZE(loop_defect_names); i++) {
		if (sysfs_streq(defect, loop_defect_names[i])) {
			loop_the_defect = i;
			if (i != LOOP_DEFECT_NONE)
				pr_warn("kiwi_loop: deliberate defect %s\n",
					loop_defect_names[i]);
			return 0;
		}
	}
	pr_err("kiwi_loop: unknown defect '%s'\n", defect);
	return -EINVAL;
}

/**
 * loop_dev_by_addr() - the device that answers for an IPv4 address
 * @addr: the address
 *
 * Context: loop_mutex held, which keeps the device from being freed.
 * Return: the device, or NULL if none does.
 */
struct loop_dev *loop_dev_by_addr(__be32 addr)
{
	unsigned int i;

	lockdep_assert_held(&loop_mutex);
	for (i = 0; i < LOOP_NR_DEVS; i++)
		if (loop_devs[i] && loop_devs[i]->addr == addr)
			return loop_devs[i];
	return NULL;
}

static int loop_query_device(struct ib_device *ibdev,
			     struct ib_device_attr *attr)
{
	*attr = (struct ib_device_attr) {
		.max_mr_size = LOOP_MAX_MR_SIZE,
		.page_size_cap = PAGE_SIZE,
		.vendor_id = 0x6b69,	/* "ki" */
		.max_qp = LOOP_MAX_QP,
		.max_qp_wr = LOOP_MAX_QP_WR,
		.kernel_cap_flags = IBK_LOCAL_DMA_LKEY,
		.max_send_sge = LOOP_MAX_SGE,
		.max_recv_sge = LOOP_MAX_SGE,
		.max_sge_rd = LOOP_MAX_SGE,
		.max_cq = LOOP_MAX_CQ,
		.max_cqe = LOOP_MAX_CQE,
		.max_mr = LOOP_MAX_MR,
		.max_pd = LOOP_MAX_PD,
		.max_qp_rd_atom = LOOP_MAX_IRD_ORD,
		.max_res_rd_atom = LOOP_MAX_QP * LOOP_MAX_IRD_ORD,
		.max_qp_init_rd_atom = LOOP_MAX_IRD_ORD,
		.max_fast_reg_page_list_len = LOOP_MAX_FR_PAGES,
	};
	return 0;
}

static struct ib_pd *loop_alloc_pd(struct ib_device *ibdev)
{
	struct loop_dev *ldev = loop_dev(ibdev);
	struct ib_pd *pd;

	if (atomic_inc_return(&ldev->nr_pds) > LOOP_MAX_PD) {
		atomic_dec(&ldev->nr_pds);
		return ERR_PTR(-ENOSPC);
	}
	pd = kzalloc(sizeof(*pd), GFP_KERNEL);
	if (!pd) {
		atomic_dec(&ldev->nr_pds);
		return ERR_PTR(-ENOMEM);
	}
	pd->local_dma_lkey = LOOP_LOCAL_DMA_LKEY;
	return pd;
}

static void loop_dealloc_pd(struct ib_pd *pd)
{
	atomic_dec(&loop_dev(pd->device)->nr_pds);
	kfree(pd);
}

static const struct kiwi_provider_ops loop_ops = {
	.iw_connect = loop_connect,
	.iw_accept = loop_accept,
	.iw_reject = loop_reject,
	.iw_create_listen = loop_create_listen,
	.iw_destroy_listen = loop_destroy_listen,
	.iw_add_ref = loop_add_ref,
	.iw_rem_ref = loop_rem_ref,
	.iw_get_qp = loop_get_qp,
	.query_device = loop_query_device,
	.alloc_pd = loop_alloc_pd,
	.dealloc_pd = loop_dealloc_pd,
	.create_qp = loop_create_qp,
	.modify_qp = loop_modify_qp,
	.query_qp = loop_query_qp,
	.destroy_qp = loop_destroy_qp,
	.post_send = loop_post_send,
	.post_recv = loop_post_recv,
	.create_cq = loop_create_cq,
	.destroy_cq = loop_destroy_cq,
	.poll_cq = loop_poll_cq,
	.req_notify_cq = loop_req_notify_cq,
	.reg_kernel_mr = loop_reg_kernel_mr,
	.reg_sg_mr = loop_reg_sg_mr,
	.dereg_mr = loop_dereg_mr,
	.alloc_mr = loop_alloc_mr,
	.map_mr_sg = loop_map_mr_sg,
};

static void loop_dev_free(struct loop_dev *ldev)
{
	if (!xa_empty(&ldev->qps) || !xa_empty(&ldev->mrs))
		pr_warn("kiwi_loop: %s: QPs or MRs left behind by their owner\n",
			ldev->ibdev.name);
	loop_listeners_free(ldev);
	xa_destroy(&ldev->qps);
	xa_destroy(&ldev->mrs);
	kfree(ldev);
}

static struct loop_dev *loop_dev_add(unsigned int i)
{
	struct loop_dev *ldev;
	int ret;

	ldev = kzalloc(sizeof(*ldev), GFP_KERNEL);
	if (!ldev)
		return ERR_PTR(-ENOMEM);
	snprintf(ldev->ibdev.name, sizeof(ldev->ibdev.name), "kiwi_loop%u", i);
	ldev->ibdev.ops = &loop_ops;
	ldev->ibdev.iw_max_private_data = LOOP_MAX_PDATA;
	ldev->addr = htonl(0xc0000201 + i);	/* 192.0.2.1, 192.0.2.2 */
	xa_init_flags(&ldev->qps, XA_FLAGS_ALLOC1);
	xa_init_flags(&ldev->mrs, XA_FLAGS_ALLOC1);
	INIT_LIST_HEAD(&ldev->listeners);
	INIT_LIST_HEAD(&ldev->eps);
	/* Published first: a client's add callback may connect to it. */
	mutex_lock(&loop_mutex);
	loop_devs[i] = ldev;
	mutex_unlock(&loop_mutex);
	ret = kiwi_register_device(&ldev->ibdev);
	if (ret) {
		mutex_lock(&loop_mutex);
		loop_devs[i] = NULL;
		mutex_unlock(&loop_mutex);
		/* as after unregistering: a client's add may have used it */
		flush_workqueue(loop_wq);
		loop_dev_free(ldev);
		return ERR_PTR(ret);
	}
	return ldev;
}

/* Unregister and free device @i, if it is there. */
static void loop_dev_remove(unsigned int i)
{
	struct loop_dev *ldev;

	mutex_lock(&loop_mutex);	/* no new connection to it */
	ldev = loop_devs[i];
	loop_devs[i] = NULL;
	mutex_unlock(&loop_mutex);
	if (!ldev)
		return;
	kiwi_unregister_device(&ldev->ibdev);
	/* the device's last endpoint events, before it goes */
	flush_workqueue(loop_wq);
	loop_dev_free(ldev);
}

static void loop_devs_remove(void)
{
	unsigned int i;

	for (i = LOOP_NR_DEVS; i-- > 0;)
		loop_dev_remove(i);
}

/* Serialises unplug and plug, and them against init and exit. */
static DEFINE_MUTEX(loop_plug_lock);
/* Between init and exit (loop_plug_lock): plug and unplug may run. */
static bool loop_live;

/*
 * Writing a device's number to the "unplug" parameter unregisters it,
 * live connections and all (the write returns once the ULPs let go of
 * it); writing it to "plug" registers it again. The conformance kit's
 * unplug_b= and plug_b= scripts use them.
 */
/* A device number written to plug or unplug. */
static int loop_param_dev(const char *val, unsigned int *i)
{
	int ret = kstrtouint(val, 0, i);

	return ret ?: *i < LOOP_NR_DEVS ? 0 : -EINVAL;
}

static int loop_param_unplug(const char *val, const struct kernel_param *kp)
{
	unsigned int i;
	int ret = loop_param_dev(val, &i);

	if (ret)
		return ret;
	mutex_lock(&loop_plug_lock);
	ret = loop_live ? 0 : -ENODEV;
	if (!ret)
		loop_dev_remove(i);
	mutex_unlock(&loop_plug_lock);
	return ret;
}

static int loop_param_plug(const char *val, const struct kernel_param *kp)
{
	struct loop_dev *ldev;
	unsigned int i;
	int ret = loop_param_dev(val, &i);

	if (ret)
		return ret;
	mutex_lock(&loop_plug_lock);
	ret = -ENODEV;
	if (!loop_live)
		goto unlock;
	ret = -EEXIST;
	if (loop_devs[i])	/* stable: its writers hold loop_plug_lock */
		goto unlock;
	ldev = loop_dev_add(i);
	ret = PTR_ERR_OR_ZERO(ldev);
unlock:
	mutex_unlock(&loop_plug_lock);
	return ret;
}

static const struct kernel_param_ops loop_unplug_ops = {
	.set = loop_param_unplug,
};

static const struct kernel_param_ops loop_plug_ops = {
	.set = loop_param_plug,
};

module_param_cb(unplug, &loop_unplug_ops, NULL, 0200);
MODULE_PARM_DESC(unplug, "write a device number to unregister that device");
module_param_cb(plug, &loop_plug_ops, NULL, 0200);
MODULE_PARM_DESC(plug, "write a device number to register that device again");

static int __init loop_init(void)
{
	struct loop_dev *ldev;
	unsigned int i;
	int ret;

	ret = kiwi_iwcm_require();
	if (ret)
		return ret;
	ret = loop_defect_parse();
	if (ret)
		return ret;
	/* It carries data a storage ULP may need to free memory. */
	loop_wq = alloc_ordered_workqueue("kiwi_loop", WQ_MEM_RECLAIM);
	if (!loop_wq)
		return -ENOMEM;
	mutex_lock(&loop_plug_lock);
	for (i = 0; i < LOOP_NR_DEVS; i++) {
		ldev = loop_dev_add(i);
		if (IS_ERR(ldev)) {
			ret = PTR_ERR(ldev);
			goto remove_devs;
		}
	}
	loop_live = true;
	mutex_unlock(&loop_plug_lock);
	return 0;

remove_devs:
	loop_devs_remove();
	mutex_unlock(&loop_plug_lock);
	destroy_workqueue(loop_wq);
	return ret;
}

static void __exit loop_exit(void)
{
	mutex_lock(&loop_plug_lock);
	loop_live = false;
	loop_devs_remove();
	mutex_unlock(&loop_plug_lock);
	destroy_workqueue(loop_wq);
}

module_init(loop_init);
module_exit(loop_exit);
MODULE_DESCRIPTION("kiwi_loop: in-memory reference RNIC for the provider conformance kit");
MODULE_LICENSE("GPL");
