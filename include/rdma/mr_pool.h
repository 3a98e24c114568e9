/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kiwi's <rdma/mr_pool.h>: a QP's pools of fast-registration MRs, as
 * Linux's. The defines give kiwi's exports Linux's names.
 */
#ifndef _KIWI_MR_POOL_H
#define _KIWI_MR_POOL_H

#include <rdma/ib_verbs.h>

#define ib_mr_pool_get		kiwi_mr_pool_get
#define ib_mr_pool_put		kiwi_mr_pool_put
#define ib_mr_pool_init		kiwi_mr_pool_init
#define ib_mr_pool_destroy	kiwi_mr_pool_destroy

struct ib_mr *kiwi_mr_pool_get(struct ib_qp *qp, struct list_head *list);
void kiwi_mr_pool_put(struct ib_qp *qp, struct list_head *list,
		      struct ib_mr *mr);
int kiwi_mr_pool_init(struct ib_qp *qp, struct list_head *list, int nr,
		      enum ib_mr_type type, u32 max_num_sg,
		      u32 max_num_meta_sg);
void kiwi_mr_pool_destroy(struct ib_qp *qp, struct list_head *list);

#endif /* _KIWI_MR_POOL_H */
