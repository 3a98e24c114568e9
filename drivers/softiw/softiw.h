/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kiwi_softiw: the software RNIC's devices and verbs objects, shared by
 * the files of the module.
 */
#ifndef _KIWI_SOFTIW_H
#define _KIWI_SOFTIW_H

#include <linux/list.h>
#include <linux/netdevice.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include <kiwi/provider.h>
#include <kiwi/verbs.h>

/* Limits every softiw device reports through query_device. */
#define SOFTIW_MAX_QP		1024
#define SOFTIW_MAX_QP_WR	1024
#define SOFTIW_MAX_SGE		6
#define SOFTIW_MAX_CQ		1024
#define SOFTIW_MAX_CQE		4096
#define SOFTIW_MAX_MR		4096
#define SOFTIW_MAX_IRD_ORD	128

/**
 * struct softiw_device - a kiwi device bound to one net_device
 * @kdev: the core's device; its @netdev is held (dev_hold) while attached
 * @node: entry in the list of attached devices
 * @tracker: the reference on @kdev.netdev
 * @detach_work: unregisters the device after its netdev went away
 * @qps: live QPs by number
 */
struct softiw_device {
	struct kiwi_device kdev;
	struct list_head node;
	netdevice_tracker tracker;
	struct work_struct detach_work;
	struct xarray qps;
};

struct softiw_cep;

/**
 * struct softiw_qp - a queue pair
 * @qp: the core's QP
 * @sdev: its device
 * @ref: the creator's reference and the connection manager's pins
 * @lock: protects @state, @access and @cep
 * @state: current state
 * @access: access rights given with KIWI_QP_ATTR_ACCESS
 * @cep: the connection endpoint bound to the QP, or NULL
 */
struct softiw_qp {
	struct kiwi_qp qp;
	struct softiw_device *sdev;
	refcount_t ref;
	spinlock_t lock;	/* protects state, access and cep */
	enum kiwi_qp_state state;
	u32 access;
	struct softiw_cep *cep;
};

/**
 * struct softiw_cq - a completion queue (no completions before the data
 * path exists)
 * @cq: the core's CQ
 */
struct softiw_cq {
	struct kiwi_cq cq;
};

static inline struct softiw_device *softiw_dev(struct kiwi_device *kdev)
{
	return container_of(kdev, struct softiw_device, kdev);
}

static inline struct softiw_qp *softiw_qp(struct kiwi_qp *qp)
{
	return container_of(qp, struct softiw_qp, qp);
}

/* device.c */
int softiw_devices_init(const char *netdevs);
void softiw_devices_exit(void);
int kiwi_softiw_attach(const char *ifname);
int kiwi_softiw_detach(const char *ifname);
void kiwi_softiw_flush_detach(void);

/* device.c */
extern const struct kiwi_provider_ops softiw_ops;

/* qp.c */
void softiw_qps_init(struct softiw_device *sdev);
void softiw_qps_exit(struct softiw_device *sdev);
void softiw_qp_put(struct softiw_qp *sqp);
struct kiwi_qp *softiw_create_qp(struct kiwi_device *kdev,
				 const struct kiwi_qp_init_attr *init);
int softiw_modify_qp(struct kiwi_qp *qp, const struct kiwi_qp_attr *attr,
		     int mask);
void softiw_destroy_qp(struct kiwi_qp *qp);
void softiw_add_ref(struct kiwi_qp *qp);
void softiw_rem_ref(struct kiwi_qp *qp);
struct kiwi_qp *softiw_get_qp(struct kiwi_device *kdev, u32 qpn);
struct kiwi_cq *softiw_create_cq(struct kiwi_device *kdev, u32 cqe);
void softiw_destroy_cq(struct kiwi_cq *cq);
int softiw_poll_cq(struct kiwi_cq *cq, int num_entries, struct kiwi_wc *wc);

#endif /* _KIWI_SOFTIW_H */
