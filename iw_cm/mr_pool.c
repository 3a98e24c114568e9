// SPDX-License-Identifier: GPL-2.0
/*
 * MR pools of a QP (Linux's <rdma/mr_pool.h>): fast-registration MRs
 * allocated up front, taken and given back on the data path without
 * sleeping. The rw API keeps its READ sinks in the QP's rdma_mrs pool.
 */
#include <linux/list.h>
#include <linux/spinlock.h>

#include <rdma/mr_pool.h>

#include "iwcm.h"

/**
 * kiwi_mr_pool_get() - take an MR from a QP's pool (ib_mr_pool_get())
 * @qp: the QP
 * @list: the pool, @qp->rdma_mrs or @qp->sig_mrs
 *
 * Context: any context.
 * Return: the MR, or NULL if the pool is empty.
 */
struct ib_mr *kiwi_mr_pool_get(struct ib_qp *qp, struct list_head *list)
{
	struct ib_mr *mr;
	unsigned long flags;

	spin_lock_irqsave(&qp->mr_lock, flags);
	mr = list_first_entry_or_null(list, struct ib_mr, qp_entry);
	if (mr) {
		list_del(&mr->qp_entry);
		qp->mrs_used++;
	}
	spin_unlock_irqrestore(&qp->mr_lock, flags);
	return mr;
}
EXPORT_SYMBOL_GPL(kiwi_mr_pool_get);

/**
 * kiwi_mr_pool_put() - give an MR back to its pool (ib_mr_pool_put())
 * @qp: the QP
 * @list: the pool it was taken from
 * @mr: the MR
 *
 * Context: any context.
 */
void kiwi_mr_pool_put(struct ib_qp *qp, struct list_head *list,
		      struct ib_mr *mr)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->mr_lock, flags);
	list_add(&mr->qp_entry, list);
	qp->mrs_used--;
	spin_unlock_irqrestore(&qp->mr_lock, flags);
}
EXPORT_SYMBOL_GPL(kiwi_mr_pool_put);

/**
 * kiwi_mr_pool_init() - fill a QP's MR pool (ib_mr_pool_init())
 * @qp: the QP
 * @list: the pool, empty or holding MRs already
 * @nr: MRs to add
 * @type: IB_MR_TYPE_MEM_REG (kiwi has no integrity MRs)
 * @max_num_sg: pages each MR may map
 * @max_num_meta_sg: 0
 *
 * Context: process context; sleeps.
 * Return: 0; -EOPNOTSUPP for integrity MRs; or the error of
 * ib_alloc_mr(), after which the pool is empty.
 */
int kiwi_mr_pool_init(struct ib_qp *qp, struct list_head *list, int nr,
		      enum ib_mr_type type, u32 max_num_sg,
		      u32 max_num_meta_sg)
{
	unsigned long flags;
	struct ib_mr *mr;
	int i;

	might_sleep();
	if (type == IB_MR_TYPE_INTEGRITY || max_num_meta_sg)
		return -EOPNOTSUPP;
	for (i = 0; i < nr; i++) {
		mr = kiwi_alloc_mr(qp->pd, type, max_num_sg);
		if (IS_ERR(mr)) {
			kiwi_mr_pool_destroy(qp, list);
			return PTR_ERR(mr);
		}
		spin_lock_irqsave(&qp->mr_lock, flags);
		list_add_tail(&mr->qp_entry, list);
		spin_unlock_irqrestore(&qp->mr_lock, flags);
	}
	return 0;
}
EXPORT_SYMBOL_GPL(kiwi_mr_pool_init);

/**
 * kiwi_mr_pool_destroy() - free the MRs of a pool (ib_mr_pool_destroy())
 * @qp: the QP
 * @list: the pool; MRs still taken from it are not freed
 *
 * Context: process context; sleeps.
 */
void kiwi_mr_pool_destroy(struct ib_qp *qp, struct list_head *list)
{
	unsigned long flags;
	struct ib_mr *mr;

	might_sleep();
	spin_lock_irqsave(&qp->mr_lock, flags);
	while ((mr = list_first_entry_or_null(list, struct ib_mr,
					      qp_entry))) {
		list_del(&mr->qp_entry);
		spin_unlock_irqrestore(&qp->mr_lock, flags);
		kiwi_dereg_mr(mr);
		spin_lock_irqsave(&qp->mr_lock, flags);
	}
	spin_unlock_irqrestore(&qp->mr_lock, flags);
}
EXPORT_SYMBOL_GPL(kiwi_mr_pool_destroy);

/**
 * kiwi_mr_pool_qp_init() - a new QP's pools, empty
 * @qp: the QP
 *
 * Context: any context.
 */
void kiwi_mr_pool_qp_init(struct ib_qp *qp)
{
	spin_lock_init(&qp->mr_lock);
	qp->mrs_used = 0;
	INIT_LIST_HEAD(&qp->rdma_mrs);
	INIT_LIST_HEAD(&qp->sig_mrs);
}
