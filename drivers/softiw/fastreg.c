// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_softiw fast registration: MRs of ib_alloc_mr(), their page lists
 * (ib_map_mr_sg()) and IB_WR_REG_MR.
 *
 * Such an MR is published in the STag table from the start, invalid. Its
 * page list is a pending one, which no access reads: an IB_WR_REG_MR
 * that reaches the head of the send queue turns it into the MR's pieces
 * (a piece per page, by kernel address: softiw is a virtual-DMA device),
 * sets the rights and the STag's key, and makes the MR valid. A
 * registration of an MR still valid re-registers it, as if invalidated
 * first. Either way it waits until no remote access that began before
 * holds the MR, so that no access reads pieces being rewritten.
 *
 * A fast-registered MR serves remote access, the sink of an RDMA READ
 * (an iWARP READ names its sink by STag, which the Read Response is
 * placed to) and any other local SGE. Such an SGE is not resolved when
 * posted: it keeps the STag and is checked when its bytes are sent or
 * received (struct softiw_buf), so that a REG_MR queued ahead of it in
 * the same chain has taken effect.
 */
#include <linux/slab.h>
#include <linux/wait_bit.h>

#include "softiw.h"

struct ib_mr *softiw_alloc_mr(struct ib_pd *pd, u32 max_num_sg)
{
	struct softiw_mr *smr;

	might_sleep();
	smr = softiw_mr_alloc(pd, max_num_sg, 0, 0, 0);
	if (!smr)
		return ERR_PTR(-ENOMEM);
	smr->pages = kiwi_should_fail() ? NULL :
		     kvcalloc(max_num_sg, sizeof(*smr->pages), GFP_KERNEL);
	if (!smr->pages) {
		if (smr->pieces != &smr->one)
			kvfree(smr->pieces);
		kfree(smr);
		return ERR_PTR(-ENOMEM);
	}
	smr->max_pages = max_num_sg;
	smr->npieces = 0;
	smr->fast = true;
	smr->invalid = true;
	return softiw_mr_publish(softiw_dev(pd->device), smr);
}

static int softiw_fr_set_page(struct ib_mr *mr, u64 addr)
{
	struct softiw_mr *smr = softiw_mr(mr);

	if (smr->npages == smr->max_pages)
		return -ENOMEM;
	smr->pages[smr->npages++] = addr;
	return 0;
}

int softiw_map_mr_sg(struct ib_mr *mr, struct scatterlist *sg, int sg_nents,
		     unsigned int *sg_offset)
{
	struct softiw_mr *smr = softiw_mr(mr);
	int n;

	if (!smr->fast)
		return -EINVAL;
	smr->npages = 0;
	n = kiwi_sg_to_pages(mr, sg, sg_nents, sg_offset, smr->max_pages,
			     softiw_fr_set_page);
	smr->first_off = n > 0 ? mr->iova - smr->pages[0] : 0;
	return n;
}

/**
 * softiw_fr_named() - does an lkey name a fast-registration MR of a PD?
 * @pd: the PD of the QP a work request is posted to
 * @lkey: the lkey of one of its SGEs
 *
 * Such an SGE is used by its STag (a READ's single sink is placed as a
 * tagged WRITE would be), after the registrations queued before the
 * request took effect; the key is checked then, since the ULP sets the
 * key a queued IB_WR_REG_MR gives it before that registration runs.
 *
 * Context: any context.
 * Return: true if it does, valid or not.
 */
bool softiw_fr_named(const struct ib_pd *pd, u32 lkey)
{
	struct softiw_device *sdev = softiw_dev(pd->device);
	struct softiw_mr *smr;
	bool ok;

	rcu_read_lock();
	smr = xa_load(&sdev->mrs, lkey >> SOFTIW_STAG_INDEX_SHIFT);
	ok = smr && smr->fast && smr->mr.pd == pd;
	rcu_read_unlock();
	return ok;
}

/**
 * softiw_reg_check() - may a QP of a PD post this registration?
 * @pd: the QP's PD
 * @wr: the IB_WR_REG_MR work request
 *
 * Context: any context.
 * Return: 0; -EINVAL for no MR, one not of ib_alloc_mr() or of another
 * PD, one without pages for its length, or rights that are unknown or
 * give remote write without local write.
 */
int softiw_reg_check(const struct ib_pd *pd, const struct ib_reg_wr *wr)
{
	struct softiw_mr *smr = wr->mr ? softiw_mr(wr->mr) : NULL;
	u64 room;

	if (!smr || !smr->fast || wr->mr->pd != pd || !smr->npages)
		return -EINVAL;
	if (wr->access & ~KIWI_ACCESS_ALL ||
	    ((wr->access & IB_ACCESS_REMOTE_WRITE) &&
	     !(wr->access & IB_ACCESS_LOCAL_WRITE)))
		return -EINVAL;
	room = (u64)smr->npages * wr->mr->page_size - smr->first_off;
	return wr->mr->length && wr->mr->length <= room ? 0 : -EINVAL;
}

/**
 * softiw_mr_fast_reg() - carry out an IB_WR_REG_MR
 * @smr: the MR, checked by softiw_reg_check() when posted
 * @key: the key byte its STag gets
 * @access: the rights it gets
 *
 * Context: process context, the endpoint's mutex held (the transmitter);
 * sleeps while remote accesses of other connections finish.
 */
void softiw_mr_fast_reg(struct softiw_mr *smr, u32 key, u32 access)
{
	u64 ps = smr->mr.page_size, left = smr->mr.length, start = 0;
	struct softiw_mr_piece *p;
	u32 i, off;

	might_sleep();
	WRITE_ONCE(smr->invalid, true);
	smp_mb();	/* against softiw_mr_get()'s second look */
	wait_var_event(&smr->users, refcount_read(&smr->users) == 1);
	for (i = 0; i < smr->npages && left; i++) {
		off = i ? 0 : smr->first_off;
		p = &smr->pieces[i];
		*p = (struct softiw_mr_piece) {
			.start = start,
			.addr = (void *)(uintptr_t)(smr->pages[i] + off),
			.len = min_t(u64, left, ps - off),
		};
		start += p->len;
		left -= p->len;
	}
	smr->npieces = i;
	smr->iova = smr->mr.iova;
	smr->length = smr->mr.length;
	smr->access = access;
	WRITE_ONCE(smr->stag, (smr->stag & ~SOFTIW_STAG_KEY) |
		   (key & SOFTIW_STAG_KEY));
	/* the index's next MR gets another key than this one */
	softiw_dev(smr->mr.device)->mr_keys[smr->stag >>
					    SOFTIW_STAG_INDEX_SHIFT] = key;
	smr->mr.lkey = smr->stag;
	smr->mr.rkey = smr->stag;
	/* pairs with softiw_mr_get()'s acquire: pieces, then valid */
	smp_store_release(&smr->invalid, false);
}
