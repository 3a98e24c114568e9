// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_loop memory regions: kernel memory, scatterlists and fast
 * registration; STag lookup, and the copy between two buffers that
 * carries out every work request.
 *
 * An MR's STag is its index in the device's table, shifted left by 8,
 * with a key byte drawn at random. Posting looks MRs up locklessly
 * (RCU) to refuse bad SGEs; the data path looks them up again, and uses
 * their memory, under loop_mutex, which every change of an MR's
 * registration (REG_MR, invalidation, deregistration) takes too.
 */
#include <linux/highmem.h>
#include <linux/log2.h>
#include <linux/overflow.h>
#include <linux/random.h>
#include <linux/slab.h>

#include "loop.h"

static struct loop_mr *loop_mr_new(struct ib_pd *pd, enum loop_mr_kind kind,
				   u32 access, u64 iova, u64 length)
{
	struct loop_mr *mr = kzalloc(sizeof(*mr), GFP_KERNEL);

	if (!mr)
		return NULL;
	mr->ldev = loop_dev(pd->device);
	mr->pd = pd;
	mr->ibmr.pd = pd;
	mr->kind = kind;
	mr->key = get_random_u32() & 0xff;
	mr->valid = kind != LOOP_MR_FR;
	mr->access = access;
	mr->iova = iova;
	mr->length = length;
	mr->ibmr.iova = iova;
	mr->ibmr.length = length;
	return mr;
}

static void loop_mr_free(struct loop_mr *mr)
{
	kvfree(mr->pieces);
	kfree(mr->pages);
	kfree(mr->map);
	kfree(mr);
}

/* Give @mr its STag: from now on it can be found. */
static int loop_mr_insert(struct loop_mr *mr)
{
	u32 index;
	int ret;

	ret = xa_alloc(&mr->ldev->mrs, &index, mr, XA_LIMIT(1, LOOP_MAX_MR),
		       GFP_KERNEL);
	if (ret)
		return ret == -EBUSY ? -ENOSPC : ret;
	mr->index = index;
	mr->ibmr.lkey = index << 8 | mr->key;
	mr->ibmr.rkey = mr->ibmr.lkey;
	return 0;
}

static struct ib_mr *loop_mr_done(struct loop_mr *mr)
{
	int ret = loop_mr_insert(mr);

	if (ret) {
		loop_mr_free(mr);
		return ERR_PTR(ret);
	}
	return &mr->ibmr;
}

/**
 * loop_reg_kernel_mr() - reg_kernel_mr: register kernel memory
 * @pd: the PD
 * @addr: the memory's kernel address, also the MR's iova
 * @length: its length
 * @access: IB_ACCESS_* rights
 *
 * Context: process context.
 * Return: the MR, or an ERR_PTR().
 */
struct ib_mr *loop_reg_kernel_mr(struct ib_pd *pd, void *addr, size_t length,
				 u32 access)
{
	u64 iova = (uintptr_t)addr, end;
	struct loop_mr *mr;

	if (!length || length > LOOP_MAX_MR_SIZE ||
	    check_add_overflow(iova, (u64)length, &end))
		return ERR_PTR(-EINVAL);
	mr = loop_mr_new(pd, LOOP_MR_KERNEL, access, iova, length);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->va = addr;
	return loop_mr_done(mr);
}

/* One piece per non-empty entry, its page normalised to hold its start. */
static u32 loop_mr_fill_pieces(struct loop_mr *mr, struct scatterlist *sgl,
			       unsigned int nents, u64 iova)
{
	struct loop_piece *p = mr->pieces;
	struct scatterlist *sg;
	unsigned int i;

	for_each_sg(sgl, sg, nents, i) {
		if (!sg->length)
			continue;
		p->to = iova;
		p->len = sg->length;
		p->page = nth_page(sg_page(sg), sg->offset >> PAGE_SHIFT);
		p->offset = offset_in_page(sg->offset);
		iova += sg->length;
		p++;
	}
	return p - mr->pieces;
}

/**
 * loop_reg_sg_mr() - reg_sg_mr: register a scatterlist at @iova
 * @pd: the PD
 * @sgl: the list (the caller's: what is needed is copied)
 * @nents: its entries
 * @length: bytes
 * @iova: the tagged offset of the first byte
 * @access: IB_ACCESS_* rights
 *
 * Context: process context.
 * Return: the MR, or an ERR_PTR().
 */
struct ib_mr *loop_reg_sg_mr(struct ib_pd *pd, struct scatterlist *sgl,
			     unsigned int nents, u64 length, u64 iova,
			     u32 access)
{
	struct loop_mr *mr;

	if (!length || length > LOOP_MAX_MR_SIZE)
		return ERR_PTR(-EINVAL);
	mr = loop_mr_new(pd, LOOP_MR_SG, access, iova, length);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->pieces = kvcalloc(nents, sizeof(*mr->pieces), GFP_KERNEL);
	if (!mr->pieces) {
		loop_mr_free(mr);
		return ERR_PTR(-ENOMEM);
	}
	mr->npieces = loop_mr_fill_pieces(mr, sgl, nents, iova);
	return loop_mr_done(mr);
}

/**
 * loop_dereg_mr() - dereg_mr: the STag goes at once, the memory after RCU
 * @ibmr: the MR
 *
 * Context: process context.
 */
void loop_dereg_mr(struct ib_mr *ibmr)
{
	struct loop_mr *mr = loop_mr(ibmr);

	/* no copy is using it once the STag is gone under loop_mutex */
	mutex_lock(&loop_mutex);
	xa_erase(&mr->ldev->mrs, mr->index);
	WRITE_ONCE(mr->valid, false);
	mutex_unlock(&loop_mutex);
	kvfree(mr->pieces);
	kfree(mr->pages);
	kfree(mr->map);
	kfree_rcu(mr, rcu);	/* posts look it up under RCU */
}

/**
 * loop_alloc_mr() - alloc_mr: an invalid fast-registration MR
 * @pd: the PD
 * @max_num_sg: pages it may map
 *
 * Context: process context.
 * Return: the MR, or an ERR_PTR().
 */
struct ib_mr *loop_alloc_mr(struct ib_pd *pd, u32 max_num_sg)
{
	struct loop_mr *mr;

	if (max_num_sg > LOOP_MAX_FR_PAGES)
		return ERR_PTR(-EINVAL);
	mr = loop_mr_new(pd, LOOP_MR_FR, 0, 0, 0);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->max_pages = max_num_sg;
	mr->pages = kcalloc(max_num_sg, sizeof(*mr->pages), GFP_KERNEL);
	mr->map = kcalloc(max_num_sg, sizeof(*mr->map), GFP_KERNEL);
	if (!mr->pages || !mr->map) {
		loop_mr_free(mr);
		return ERR_PTR(-ENOMEM);
	}
	return loop_mr_done(mr);
}

static int loop_mr_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct loop_mr *mr = loop_mr(ibmr);

	if (mr->nmap >= mr->max_pages)
		return -ENOMEM;
	mr->map[mr->nmap++] = addr;
	return 0;
}

/**
 * loop_map_mr_sg() - map_mr_sg: the page list of the next IB_WR_REG_MR
 * @ibmr: the MR
 * @sg: the DMA-mapped list
 * @sg_nents: its entries
 * @sg_offset: where to start in the first, or NULL
 *
 * Context: process context.
 * Return: entries mapped (fewer than @sg_nents when the MR is full), or
 * a negative errno.
 */
int loop_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		   unsigned int *sg_offset)
{
	struct loop_mr *mr = loop_mr(ibmr);
	int ret;

	if (mr->kind != LOOP_MR_FR)
		return -EINVAL;
	mr->nmap = 0;
	ret = kiwi_sg_to_pages(ibmr, sg, sg_nents, sg_offset, mr->max_pages,
			       loop_mr_set_page);
	mr->map_off = ibmr->iova & (ibmr->page_size - 1);
	return ret;
}

/**
 * loop_mr_find() - the MR an STag names
 * @ldev: the device
 * @stag: the STag
 *
 * The caller checks validity, PD, rights and bounds.
 *
 * Context: loop_mutex held, or rcu_read_lock().
 * Return: the MR, or NULL if its index or key does not match.
 */
struct loop_mr *loop_mr_find(struct loop_dev *ldev, u32 stag)
{
	struct loop_mr *mr = xa_load(&ldev->mrs, stag >> 8);

	if (!mr || READ_ONCE(mr->key) != (stag & 0xff))
		return NULL;
	return mr;
}

/**
 * loop_mr_fr() - the fast-registration MR an STag's index names
 * @ldev: the device
 * @stag: the STag; its key may be one a queued IB_WR_REG_MR gives
 *
 * Context: loop_mutex held, or rcu_read_lock().
 * Return: the MR, or NULL if the index names none of ib_alloc_mr().
 */
struct loop_mr *loop_mr_fr(struct loop_dev *ldev, u32 stag)
{
	struct loop_mr *mr = xa_load(&ldev->mrs, stag >> 8);

	return mr && mr->kind == LOOP_MR_FR ? mr : NULL;
}

/**
 * loop_mr_range_ok() - is a range inside an MR?
 * @mr: the MR
 * @addr: tagged offset of its first byte
 * @len: its bytes
 *
 * Context: any context.
 * Return: true if [@addr, @addr + @len) lies in the MR.
 */
bool loop_mr_range_ok(const struct loop_mr *mr, u64 addr, u64 len)
{
	u64 iova = READ_ONCE(mr->iova), end;

	if (check_add_overflow(addr, len, &end))
		return false;
	return addr >= iova && end <= iova + READ_ONCE(mr->length);
}

static const struct loop_piece *loop_piece_find(const struct loop_mr *mr,
						u64 to)
{
	u32 lo = 0, hi = mr->npieces, mid;

	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (mr->pieces[mid].to <= to)
			lo = mid;
		else
			hi = mid;
	}
	return &mr->pieces[lo];
}

/* Map the byte at @to of @mr; *@contig: bytes contiguous from there. */
static void *loop_mr_map(const struct loop_mr *mr, u64 to, u64 *contig)
{
	const struct loop_piece *p;
	u64 rel = to - mr->iova;
	struct page *page;
	u32 shift, off;

	lockdep_assert_held(&loop_mutex);
	switch (mr->kind) {
	case LOOP_MR_KERNEL:
		*contig = mr->length - rel;
		return mr->va + rel;
	case LOOP_MR_FR:
		shift = ilog2(mr->page_size);
		rel += mr->first_off;
		off = rel & (mr->page_size - 1);
		*contig = min_t(u64, mr->page_size - off,
				mr->length - (to - mr->iova));
		return (void *)(uintptr_t)(mr->pages[rel >> shift] + off);
	default:
		p = loop_piece_find(mr, to);
		rel = p->offset + (to - p->to);
		page = nth_page(p->page, rel >> PAGE_SHIFT);
		off = offset_in_page(rel);
		*contig = min_t(u64, p->len - (to - p->to), PAGE_SIZE - off);
		return kmap_local_page(page) + off;
	}
}

static void *loop_seg_map(const struct loop_seg *seg, u32 off, u32 *contig)
{
	u64 n;
	void *p;

	if (!seg->mr) {
		*contig = seg->len - off;
		return (void *)(uintptr_t)(seg->addr + off);
	}
	p = loop_mr_map(seg->mr, seg->addr + off, &n);
	*contig = min_t(u64, n, seg->len - off);
	return p;
}

static void loop_seg_unmap(const struct loop_seg *seg, void *p)
{
	if (seg->mr && seg->mr->kind == LOOP_MR_SG)
		kunmap_local(p);
}

/* Step past @done bytes of @sgl's run *@i, and past empty runs. */
static void loop_sgl_advance(const struct loop_sgl *sgl, u32 *i, u32 *off,
			     u32 done)
{
	*off += done;
	while (*i < sgl->n && *off >= sgl->seg[*i].len) {
		*off -= sgl->seg[*i].len;
		(*i)++;
	}
}

/**
 * loop_copy() - copy bytes from one buffer to another
 * @dst: where to, at least @len bytes
 * @src: where from, at least @len bytes
 * @len: bytes
 *
 * Context: process context, loop_mutex held: the MRs' memory stays.
 */
void loop_copy(const struct loop_sgl *dst, const struct loop_sgl *src,
	       u64 len)
{
	u32 di = 0, doff = 0, si = 0, soff = 0, dn, sn, n;
	void *dp, *sp;

	lockdep_assert_held(&loop_mutex);
	loop_sgl_advance(dst, &di, &doff, 0);
	loop_sgl_advance(src, &si, &soff, 0);
	while (len && di < dst->n && si < src->n) {
		dp = loop_seg_map(&dst->seg[di], doff, &dn);
		sp = loop_seg_map(&src->seg[si], soff, &sn);
		n = min_t(u64, min(dn, sn), len);
		memcpy(dp, sp, n);
		loop_seg_unmap(&src->seg[si], sp);	/* kmap_local: LIFO */
		loop_seg_unmap(&dst->seg[di], dp);
		len -= n;
		loop_sgl_advance(dst, &di, &doff, n);
		loop_sgl_advance(src, &si, &soff, n);
	}
}
