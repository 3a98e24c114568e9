// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_softiw memory regions and the STag table.
 *
 * An STag is a 24-bit index into the device's table and an 8-bit key
 * (RFC 5040: the consumer-owned low byte), drawn at random for each
 * registration, so that a peer cannot derive one STag from another, but
 * never the key the index had last, so that a stale STag whose index was
 * reused does not match. An
 * STag is honoured only on a QP of its MR's protection domain. lkey and
 * rkey are the same STag; STag 0 is never an MR's: it is every PD's
 * local_dma_lkey, valid in local SGEs only. Work requests name their
 * buffers by lkey, resolved when posted. The table is read under RCU, so
 * posting works in any context.
 *
 * An MR is a list of pieces in tagged-offset order: a kernel virtual
 * range is one piece, a page array or scatterlist one piece per entry.
 * Remote access (tagged placement, RDMA Read Responses) looks the STag
 * up again for every piece of payload, holds a reference on the MR while
 * it copies, and copies by walking the pieces, a page at a time
 * (kmap_local_page()) where a piece is pages. Deregistration waits for
 * those references, so memory is never touched after kiwi_dereg_mr()
 * returned. Work requests' SGEs are kernel addresses, resolved when
 * posted, so only an MR of a virtual range (or the local_dma_lkey) may
 * back them.
 */
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/random.h>
#include <linux/rcupdate.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/wait_bit.h>

#include "softiw.h"

/**
 * softiw_mrs_init() - prepare a device's STag table
 * @sdev: the device
 */
void softiw_mrs_init(struct softiw_device *sdev)
{
	xa_init_flags(&sdev->mrs, XA_FLAGS_ALLOC1);
}

/**
 * softiw_mrs_exit() - release a device's STag table
 * @sdev: the device, unregistered
 *
 * An MR still in the table was orphaned by its owner and stays allocated.
 */
void softiw_mrs_exit(struct softiw_device *sdev)
{
	if (!xa_empty(&sdev->mrs))
		pr_warn("kiwi_softiw: %s: MRs left behind by their owner\n",
			sdev->kdev.name);
	xa_destroy(&sdev->mrs);
}

/**
 * softiw_mr_alloc() - an MR of @pd of @npieces pieces (the one it
 *	embeds, or an array), not published
 * @pd: its protection domain
 * @npieces: pieces it has room for
 * @iova: tagged offset of its first byte
 * @length: its bytes
 * @access: IB_ACCESS_* rights
 *
 * Context: process context; sleeps.
 * Return: the MR, or NULL.
 */
struct softiw_mr *softiw_mr_alloc(struct ib_pd *pd, u32 npieces, u64 iova,
				  u64 length, u32 access)
{
	struct softiw_mr *smr;

	smr = kiwi_should_fail() ? NULL : kzalloc(sizeof(*smr), GFP_KERNEL);
	if (!smr)
		return NULL;
	smr->pieces = &smr->one;
	if (npieces > 1) {
		smr->pieces = kiwi_should_fail() ? NULL :
			      kvcalloc(npieces, sizeof(*smr->pieces),
				       GFP_KERNEL);
		if (!smr->pieces) {
			kfree(smr);
			return NULL;
		}
	}
	smr->npieces = npieces;
	smr->access = access;
	refcount_set(&smr->users, 1);
	smr->mr.iova = iova;
	smr->mr.length = length;
	smr->iova = iova;
	smr->length = length;
	/* Set before the STag is published: remote access checks it. */
	smr->mr.pd = pd;
	return smr;
}

/* Free an MR no reader of the STag table can see any more. */
static void softiw_mr_free(struct softiw_mr *smr)
{
	if (smr->pieces != &smr->one)
		kvfree(smr->pieces);
	kvfree(smr->pages);
	kfree_rcu(smr, rcu);
}

/**
 * softiw_mr_publish() - give an MR an STag and publish it
 * @sdev: the device
 * @smr: the MR, of softiw_mr_alloc(); freed on failure
 *
 * Context: process context; sleeps.
 * Return: the MR or an ERR_PTR().
 */
struct ib_mr *softiw_mr_publish(struct softiw_device *sdev,
				struct softiw_mr *smr)
{
	u32 index, key;
	int ret;

	/* Reserve the index; the MR is published once its STag is set. */
	ret = kiwi_should_fail() ? -ENOMEM :
	      xa_alloc(&sdev->mrs, &index, NULL, XA_LIMIT(1, SOFTIW_MAX_MR),
		       GFP_KERNEL);
	if (ret)
		goto err_free_mr;
	/*
	 * A random key, so that a peer cannot derive one STag from another,
	 * but never the last one of the index: a stale STag never matches.
	 */
	key = (sdev->mr_keys[index] + 1 + get_random_u32_below(255)) &
	      SOFTIW_STAG_KEY;
	sdev->mr_keys[index] = key;
	smr->stag = index << SOFTIW_STAG_INDEX_SHIFT | key;
	smr->mr.lkey = smr->stag;
	smr->mr.rkey = smr->stag;
	ret = kiwi_should_fail() ? -ENOMEM :
	      xa_err(xa_store(&sdev->mrs, index, smr, GFP_KERNEL));
	if (ret)
		goto err_erase_index;
	return &smr->mr;

err_erase_index:
	xa_erase(&sdev->mrs, index);
err_free_mr:
	softiw_mr_free(smr);
	return ERR_PTR(ret == -EBUSY ? -ENOSPC : ret);
}

struct ib_mr *softiw_reg_kernel_mr(struct ib_pd *pd, void *addr,
				   size_t length, u32 access)
{
	struct softiw_mr *smr;

	might_sleep();
	if (length > U32_MAX || (uintptr_t)addr + length < (uintptr_t)addr)
		return ERR_PTR(-EINVAL);
	smr = softiw_mr_alloc(pd, 1, (uintptr_t)addr, length, access);
	if (!smr)
		return ERR_PTR(-ENOMEM);
	smr->addr = addr;
	smr->one.addr = addr;
	smr->one.len = length;
	return softiw_mr_publish(softiw_dev(pd->device), smr);
}

/* Entries of @sgl with bytes in them; -EINVAL if there are too many. */
static int softiw_sg_pieces(struct scatterlist *sgl, unsigned int nents)
{
	struct scatterlist *sg;
	unsigned int i;
	int n = 0;

	for_each_sg(sgl, sg, nents, i) {
		if (sg->length)
			n++;
	}
	return n > SOFTIW_MAX_MR_PIECES ? -EINVAL : n;
}

struct ib_mr *softiw_reg_sg_mr(struct ib_pd *pd, struct scatterlist *sgl,
			       unsigned int nents, u64 length, u64 iova,
			       u32 access)
{
	struct softiw_mr_piece *p;
	struct softiw_mr *smr;
	struct scatterlist *sg;
	unsigned int i;
	u64 start = 0;
	int n;

	might_sleep();
	n = softiw_sg_pieces(sgl, nents);
	if (n <= 0)
		return ERR_PTR(-EINVAL);
	smr = softiw_mr_alloc(pd, n, iova, length, access);
	if (!smr)
		return ERR_PTR(-ENOMEM);
	p = smr->pieces;
	for_each_sg(sgl, sg, nents, i) {
		if (!sg->length)
			continue;
		p->start = start;
		p->page = sg_page(sg);
		p->offset = sg->offset;
		p->len = sg->length;
		start += p->len;
		p++;
	}
	return softiw_mr_publish(softiw_dev(pd->device), smr);
}

struct ib_pd *softiw_alloc_pd(struct ib_device *kdev)
{
	struct ib_pd *pd;

	might_sleep();
	pd = kiwi_should_fail() ? NULL : kzalloc(sizeof(*pd), GFP_KERNEL);
	if (!pd)
		return ERR_PTR(-ENOMEM);
	pd->local_dma_lkey = SOFTIW_LOCAL_DMA_LKEY;
	return pd;
}

void softiw_dealloc_pd(struct ib_pd *pd)
{
	kfree(pd);
}

void softiw_dereg_mr(struct ib_mr *mr)
{
	struct softiw_mr *smr = softiw_mr(mr);
	struct softiw_device *sdev = softiw_dev(mr->device);

	might_sleep();
	xa_erase(&sdev->mrs, mr->lkey >> SOFTIW_STAG_INDEX_SHIFT);
	/* Wait for the remote accesses in progress; no new one starts. */
	softiw_mr_put(smr);
	wait_var_event(&smr->users, !refcount_read(&smr->users));
	softiw_mr_free(smr);
}

/**
 * softiw_mr_put() - end an access to an MR by STag
 * @smr: the MR, from softiw_mr_get()
 *
 * Context: any context.
 */
void softiw_mr_put(struct softiw_mr *smr)
{
	/* Deregistration waits for 0, a fast registration for 1. */
	if (refcount_dec_and_test(&smr->users) ||
	    (smr->fast && refcount_read(&smr->users) == 1))
		wake_up_var(&smr->users);
}

/* [@to, @to + @len) in @smr? Return: 0, -EOVERFLOW (wraps) or -ERANGE. */
static int softiw_mr_check_range(const struct softiw_mr *smr, u64 to, u32 len)
{
	u64 end;

	if (check_add_overflow(to, (u64)len, &end))
		return -EOVERFLOW;
	if (to < smr->iova || end > smr->iova + smr->length)
		return -ERANGE;
	return 0;
}

/* The MR @stag names on @pd's device, under RCU; NULL if none. */
static struct softiw_mr *softiw_mr_find(const struct ib_pd *pd, u32 stag)
{
	struct softiw_device *sdev = softiw_dev(pd->device);
	struct softiw_mr *smr;

	smr = xa_load(&sdev->mrs, stag >> SOFTIW_STAG_INDEX_SHIFT);
	return smr && READ_ONCE(smr->stag) == stag ? smr : NULL;
}

/* The MR of @pd that @stag names, under RCU; NULL if none. */
static struct softiw_mr *softiw_mr_lookup(const struct ib_pd *pd, u32 stag)
{
	struct softiw_mr *smr = softiw_mr_find(pd, stag);

	return smr && smr->mr.pd == pd ? smr : NULL;
}

/**
 * softiw_mr_get() - validate an access by STag and pin its MR
 * @pd: the PD of the QP the access arrived on, or was posted to
 * @stag: the STag the peer named, or a local SGE in a fast-registration
 *	MR (struct softiw_buf)
 * @to: the tagged offset (an address in the MR's iova space)
 * @len: bytes accessed
 * @access: the rights needed: IB_ACCESS_REMOTE_WRITE or
 *	IB_ACCESS_REMOTE_READ for a peer's access; IB_ACCESS_LOCAL_WRITE
 *	for a local sink, 0 for a local source
 * @off: set to the offset of @to in the MR
 *
 * An STag is valid on the QPs of its MR's protection domain, and on no
 * other: not on another PD's QPs, nor on another device's. On success
 * the caller copies at most @len bytes from @off on, with
 * softiw_mr_map() or softiw_mr_copy_from(), and then calls
 * softiw_mr_put().
 *
 * Context: any context.
 * Return: the MR, referenced; ERR_PTR(-ENOENT) for an unknown, stale,
 * invalidated or deregistered STag, -EPERM for one of another PD (RFC
 * 5040's "STag not associated with RDMAP Stream"), -EACCES for missing
 * rights, -EOVERFLOW if @to + @len wraps around, -ERANGE outside the MR.
 */
struct softiw_mr *softiw_mr_get(const struct ib_pd *pd, u32 stag,
				u64 to, u32 len, u32 access, u64 *off)
{
	struct softiw_mr *smr;
	int ret;

	rcu_read_lock();
	smr = softiw_mr_find(pd, stag);
	if (!smr || READ_ONCE(smr->invalid)) {
		rcu_read_unlock();
		return ERR_PTR(-ENOENT);
	}
	if (smr->mr.pd != pd) {
		rcu_read_unlock();
		return ERR_PTR(-EPERM);
	}
	if (!refcount_inc_not_zero(&smr->users)) {
		rcu_read_unlock();
		return ERR_PTR(-ENOENT);
	}
	rcu_read_unlock();
	/*
	 * Against softiw_mr_fast_reg(), which invalidates, then waits for
	 * the references taken before: a reference taken after sees the
	 * invalidation, and one that sees the MR valid again sees its
	 * new pieces.
	 */
	smp_mb__after_atomic();
	/* pairs with the release that makes a fast-registered MR valid */
	if (smp_load_acquire(&smr->invalid)) {
		softiw_mr_put(smr);
		return ERR_PTR(-ENOENT);
	}
	ret = (smr->access & access) == access ? 0 : -EACCES;
	if (!ret)
		ret = softiw_mr_check_range(smr, to, len);
	if (ret) {
		softiw_mr_put(smr);
		return ERR_PTR(ret);
	}
	*off = to - smr->iova;
	return smr;
}

/* The piece holding byte @off of @smr: the last one starting at or before. */
static const struct softiw_mr_piece *
softiw_mr_piece(const struct softiw_mr *smr, u64 off)
{
	u32 lo = 0, hi = smr->npieces, mid;

	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (smr->pieces[mid].start <= off)
			lo = mid;
		else
			hi = mid;
	}
	return &smr->pieces[lo];
}

/**
 * softiw_mr_map() - map the bytes of an MR from an offset on
 * @smr: the MR, referenced by softiw_mr_get()
 * @off: offset in the MR, of a byte inside it
 * @len: bytes wanted
 * @chunk: set to the mapping: at most @len bytes, up to the end of the
 *	piece, or of the page for a piece of pages
 *
 * Undo with softiw_mr_unmap(), in reverse order of mapping.
 *
 * Context: any context.
 */
void softiw_mr_map(const struct softiw_mr *smr, u64 off, u32 len,
		   struct softiw_mr_chunk *chunk)
{
	const struct softiw_mr_piece *p = softiw_mr_piece(smr, off);
	u64 in = off - p->start, pos;
	struct page *page;

	chunk->len = min_t(u64, len, p->len - in);
	chunk->kmapped = false;
	if (!p->page) {
		chunk->addr = p->addr + in;
		return;
	}
	pos = p->offset + in;
	page = nth_page(p->page, pos >> PAGE_SHIFT);
	chunk->len = min_t(u64, chunk->len, PAGE_SIZE - offset_in_page(pos));
	chunk->addr = kmap_local_page(page) + offset_in_page(pos);
	chunk->kmapped = true;
}

/**
 * softiw_mr_unmap() - undo softiw_mr_map()
 * @chunk: the mapping
 *
 * Context: the context that mapped it.
 */
void softiw_mr_unmap(const struct softiw_mr_chunk *chunk)
{
	if (chunk->kmapped)
		kunmap_local(chunk->addr);
}

/**
 * softiw_mr_copy_from() - copy bytes out of an MR
 * @smr: the MR, referenced by softiw_mr_get()
 * @off: offset in the MR of the first byte
 * @dst: where to
 * @len: bytes, all inside the MR
 *
 * Context: any context.
 */
void softiw_mr_copy_from(const struct softiw_mr *smr, u64 off, void *dst,
			 u32 len)
{
	struct softiw_mr_chunk c;

	while (len) {
		softiw_mr_map(smr, off, len, &c);
		memcpy(dst, c.addr, c.len);
		softiw_mr_unmap(&c);
		dst += c.len;
		off += c.len;
		len -= c.len;
	}
}

/**
 * softiw_mr_resolve() - turn an SGE into a kernel buffer
 * @pd: the PD of the QP the SGE was posted to
 * @sge: the SGE
 * @access: IB_ACCESS_* rights the MR must grant (LOCAL_WRITE for
 *	receive buffers; 0 for data that is only read)
 * @buf: filled with the kernel address and length
 *
 * An SGE of length 0 names no memory and needs no valid STag. An SGE
 * with the PD's local_dma_lkey names kernel memory by its DMA address,
 * which on softiw, a virtual-DMA device, is its kernel address. Any
 * other must name an MR of @pd over a kernel virtual range
 * (kiwi_reg_kernel_mr()): pages and scatterlists are for remote access
 * only. (An SGE in a fast-registration MR is not resolved when posted
 * but named by its STag, see struct softiw_buf.)
 *
 * Context: any context.
 * Return: 0, -EINVAL for a NULL DMA address, an unknown or invalidated
 * STag, one of another PD, an MR over pages or a range outside the MR,
 * -EACCES if the MR lacks @access.
 */
int softiw_mr_resolve(const struct ib_pd *pd, const struct ib_sge *sge,
		      u32 access, struct softiw_buf *buf)
{
	struct softiw_mr *smr;
	u64 end, off;
	int ret = 0;

	*buf = (struct softiw_buf) { .len = sge->length };
	if (!sge->length)
		return 0;
	if (sge->lkey == SOFTIW_LOCAL_DMA_LKEY) {
		buf->addr = (void *)(uintptr_t)sge->addr;
		return buf->addr ? 0 : -EINVAL;
	}
	rcu_read_lock();
	smr = softiw_mr_lookup(pd, sge->lkey);
	if (!smr || READ_ONCE(smr->invalid) || !smr->addr) {
		ret = -EINVAL;
		goto unlock;
	}
	if (check_add_overflow(sge->addr, (u64)sge->length, &end) ||
	    sge->addr < smr->iova || end > smr->iova + smr->length) {
		ret = -EINVAL;
		goto unlock;
	}
	if ((smr->access & access) != access) {
		ret = -EACCES;
		goto unlock;
	}
	off = sge->addr - smr->iova;
	buf->addr = smr->addr + off;
unlock:
	rcu_read_unlock();
	return ret;
}

/* Copy @len bytes of a buffer named by STag, from offset @off in it. */
static int softiw_buf_copy_stag(const struct ib_pd *pd,
				const struct softiw_buf *b, u32 off, u8 *dst,
				u32 len)
{
	struct softiw_mr *smr;
	u64 moff;

	smr = softiw_mr_get(pd, b->stag, b->to + off, len, 0, &moff);
	if (IS_ERR(smr))
		return PTR_ERR(smr);
	softiw_mr_copy_from(smr, moff, dst, len);
	softiw_mr_put(smr);
	return 0;
}

/**
 * softiw_bufs_copy_out() - copy bytes out of a work request's buffers
 * @pd: the PD of the QP the request was posted to
 * @b: its buffers (softiw_mr_resolve(), or named by STag), enough of
 *	them for @off + @len bytes
 * @off: offset of the first byte in the message
 * @dst: where to
 * @len: bytes
 *
 * A buffer named by STag is checked as its MR is now, each call.
 *
 * Context: any context.
 * Return: 0, or softiw_mr_get()'s error for a buffer named by STag
 * that may not be read.
 */
int softiw_bufs_copy_out(const struct ib_pd *pd, const struct softiw_buf *b,
			 u32 off, u8 *dst, u32 len)
{
	u32 n;
	int ret;

	for (; len; b++) {
		if (off >= b->len) {
			off -= b->len;
			continue;
		}
		n = min(len, b->len - off);
		if (b->stag) {
			ret = softiw_buf_copy_stag(pd, b, off, dst, n);
			if (ret)
				return ret;
		} else {
			memcpy(dst, b->addr + off, n);
		}
		dst += n;
		len -= n;
		off = 0;
	}
	return 0;
}

/**
 * softiw_mr_known() - does an STag name a valid MR of a PD?
 * @pd: the PD it must belong to
 * @stag: the STag
 *
 * Context: any context.
 * Return: true if it does.
 */
bool softiw_mr_known(const struct ib_pd *pd, u32 stag)
{
	struct softiw_mr *smr;
	bool known;

	rcu_read_lock();
	smr = softiw_mr_lookup(pd, stag);
	known = smr && !READ_ONCE(smr->invalid);
	rcu_read_unlock();
	return known;
}

/**
 * softiw_mr_invalidate() - invalidate an STag
 * @pd: the PD of the QP that asks; the MR must be of it
 * @stag: the STag
 * @remote: the peer asks (SEND with Invalidate): only an MR with a
 *	remote right may be invalidated so
 *
 * The MR stays registered, but its STag names it no more, for local or
 * remote access, until it is deregistered or, for an MR of
 * ib_alloc_mr(), registered again by an IB_WR_REG_MR.
 * Accesses already checked finish.
 *
 * Context: any context.
 * Return: 0, -ENOENT if @stag names no valid MR of @pd, -EACCES if @remote and
 * the MR has no remote right.
 */
int softiw_mr_invalidate(const struct ib_pd *pd, u32 stag, bool remote)
{
	struct softiw_mr *smr;
	int ret = -ENOENT;

	rcu_read_lock();
	smr = softiw_mr_lookup(pd, stag);
	if (smr && !READ_ONCE(smr->invalid)) {
		ret = 0;
		if (remote && !(smr->access & (IB_ACCESS_REMOTE_READ |
					       IB_ACCESS_REMOTE_WRITE)))
			ret = -EACCES;
		else
			WRITE_ONCE(smr->invalid, true);
	}
	rcu_read_unlock();
	return ret;
}
