// SPDX-License-Identifier: GPL-2.0
/*
 * Memory regions of kernel memory: a virtual range, a page array or a
 * scatterlist, registered in a protection domain.
 */
#include <linux/err.h>
#include <linux/log2.h>
#include <linux/math.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>

#include "iwcm.h"

/* Are @access valid MR rights? Remote write needs local write. */
static bool kiwi_mr_access_ok(u32 access)
{
	if (access & ~KIWI_ACCESS_ALL)
		return false;
	return !(access & IB_ACCESS_REMOTE_WRITE) ||
	       (access & IB_ACCESS_LOCAL_WRITE);
}

/*
 * Take over an MR of @pd the provider returned, or drop the reference on
 * @dev, @pd's device as kiwi_mr_device() found it.
 */
static struct ib_mr *kiwi_mr_track(struct ib_device *dev, struct ib_pd *pd,
				   struct ib_mr *mr)
{
	if (IS_ERR(mr)) {
		kiwi_device_put(dev);
		return mr;
	}
	mr->device = dev;
	mr->pd = pd;
	mr->page_size = PAGE_SIZE;
	mr->type = IB_MR_TYPE_MEM_REG;
	mr->need_inval = false;
	INIT_LIST_HEAD(&mr->qp_entry);
	atomic_inc(&pd->usecnt);
	kiwi_verbs_track(dev, &mr->res, RDMA_RESTRACK_MR, &mr->node, &dev->mrs);
	return mr;
}

/* The live device of @pd with a reference, or NULL. */
static struct ib_device *kiwi_mr_device(struct ib_pd *pd)
{
	struct ib_device *dev = pd ? READ_ONCE(pd->device) : NULL;

	return dev && kiwi_device_get_live(dev) ? dev : NULL;
}

/**
 * kiwi_reg_kernel_mr() - register kernel memory
 * @pd: the protection domain
 * @addr: start, in the kernel's direct map or vmalloc space
 * @length: bytes
 * @access: IB_ACCESS_* bits; IB_ACCESS_REMOTE_WRITE requires
 *	IB_ACCESS_LOCAL_WRITE
 *
 * A kiwi extension (Linux's ULPs use fast registration or the PD's
 * local_dma_lkey instead). The MR's rkey lets the peer of any connected
 * QP of @pd read or write the region, as @access (and the QP's own
 * rights) allow; a QP of another PD cannot.
 *
 * Context: process context; sleeps.
 * Return: the MR, or ERR_PTR(-ENODEV) if the device is going away,
 * -EINVAL for no PD, an empty region, unknown @access bits or remote
 * write without local write, or the provider's error.
 */
struct ib_mr *kiwi_reg_kernel_mr(struct ib_pd *pd, void *addr,
				 size_t length, u32 access)
{
	struct ib_device *dev;
	struct ib_mr *mr;

	might_sleep();
	if (!pd || !addr || !length || !kiwi_mr_access_ok(access))
		return ERR_PTR(-EINVAL);
	dev = kiwi_mr_device(pd);
	if (!dev)
		return ERR_PTR(-ENODEV);
	if (!dev->ops->reg_kernel_mr) {
		kiwi_device_put(dev);
		return ERR_PTR(-EINVAL);
	}
	mr = kiwi_should_fail() ? ERR_PTR(-ENOMEM) :
	     dev->ops->reg_kernel_mr(pd, addr, length, access);
	return kiwi_mr_track(dev, pd, mr);
}
EXPORT_SYMBOL_GPL(kiwi_reg_kernel_mr);

/* The bytes of @nents entries at @sgl; 0 if there are fewer. */
static u64 kiwi_sg_length(struct scatterlist *sgl, unsigned int nents)
{
	struct scatterlist *sg;
	unsigned int i;
	u64 len = 0;

	for_each_sg(sgl, sg, nents, i) {
		if (!sg)
			return 0;
		len += sg->length;
	}
	return len;
}

/**
 * kiwi_reg_sg_mr() - register the memory a scatterlist describes
 * @pd: the protection domain
 * @sgl: the first entry; the pages of each entry (page, offset, length:
 *	any offset and length, highmem included) are the caller's and
 *	must stay until kiwi_dereg_mr() returns. Entries of length 0 add
 *	nothing. For an &struct sg_table pass its sgl and orig_nents.
 * @nents: number of entries
 * @iova: tagged offset of the first byte: the MR is [@iova, @iova +
 *	length) to the peer, its bytes in entry order
 * @access: IB_ACCESS_* bits, as for kiwi_reg_kernel_mr()
 *
 * A kiwi extension, as kiwi_reg_kernel_mr(). The provider copies the
 * list: @sgl may be freed once this returns.
 *
 * Context: process context; sleeps.
 * Return: the MR, or ERR_PTR(-ENODEV) if the device is going away,
 * -EOPNOTSUPP if its provider has no such MRs, -EINVAL for no PD, no bytes, a
 * region that reaches past the 64-bit tagged offset space or bad
 * @access, or the provider's error.
 */
struct ib_mr *kiwi_reg_sg_mr(struct ib_pd *pd, struct scatterlist *sgl,
			     unsigned int nents, u64 iova, u32 access)
{
	struct ib_device *dev;
	u64 length, end;
	struct ib_mr *mr;

	might_sleep();
	length = sgl && nents ? kiwi_sg_length(sgl, nents) : 0;
	if (!pd || !length || check_add_overflow(iova, length, &end) ||
	    !kiwi_mr_access_ok(access))
		return ERR_PTR(-EINVAL);
	dev = kiwi_mr_device(pd);
	if (!dev)
		return ERR_PTR(-ENODEV);
	if (!dev->ops->reg_sg_mr) {
		kiwi_device_put(dev);
		return ERR_PTR(-EOPNOTSUPP);
	}
	mr = kiwi_should_fail() ? ERR_PTR(-ENOMEM) :
	     dev->ops->reg_sg_mr(pd, sgl, nents, length, iova, access);
	return kiwi_mr_track(dev, pd, mr);
}
EXPORT_SYMBOL_GPL(kiwi_reg_sg_mr);

/* Are @npages pages from @offset on exactly what @length bytes need? */
static bool kiwi_pages_fit(struct page **pages, unsigned int npages,
			   unsigned int offset, u64 length)
{
	unsigned int i;

	if (!pages || !npages || !length || offset >= PAGE_SIZE ||
	    length > (u64)npages * PAGE_SIZE - offset ||
	    DIV_ROUND_UP_ULL(offset + length, PAGE_SIZE) != npages)
		return false;
	for (i = 0; i < npages; i++)
		if (!pages[i])
			return false;
	return true;
}

/**
 * kiwi_reg_page_mr() - register bytes spread over an array of pages
 * @pd: the protection domain
 * @pages: the pages (highmem included), the caller's until
 *	kiwi_dereg_mr() returns; the array itself may be freed on return
 * @npages: entries at @pages, each one used
 * @offset: of the first byte in the first page of @pages, below PAGE_SIZE
 * @length: bytes: from @offset to the end of the first page, then whole
 *	pages, then the start of the last
 * @iova: tagged offset of the first byte
 * @access: IB_ACCESS_* bits, as for kiwi_reg_kernel_mr()
 *
 * A kiwi extension, as kiwi_reg_kernel_mr().
 *
 * Context: process context; sleeps.
 * Return: the MR, or ERR_PTR(-ENODEV) if the device is going away,
 * -EOPNOTSUPP if its provider has no such MRs, -EINVAL if the pages do
 * not hold exactly @offset + @length bytes (rounded up to a page), for
 * a region that wraps around, bad @access, -ENOMEM, or the provider's
 * error.
 */
struct ib_mr *kiwi_reg_page_mr(struct ib_pd *pd, struct page **pages,
			       unsigned int npages, unsigned int offset,
			       u64 length, u64 iova, u32 access)
{
	struct scatterlist *sgl;
	struct ib_mr *mr;
	u64 left = length;
	unsigned int i;
	u32 part;

	might_sleep();
	if (!kiwi_pages_fit(pages, npages, offset, length))
		return ERR_PTR(-EINVAL);
	sgl = kiwi_should_fail() ? NULL :
	      kvcalloc(npages, sizeof(*sgl), GFP_KERNEL);
	if (!sgl)
		return ERR_PTR(-ENOMEM);
	sg_init_table(sgl, npages);
	for (i = 0; i < npages; i++) {
		part = min_t(u64, left, PAGE_SIZE - offset);
		sg_set_page(&sgl[i], pages[i], part, offset);
		left -= part;
		offset = 0;
	}
	mr = kiwi_reg_sg_mr(pd, sgl, npages, iova, access);
	kvfree(sgl);
	return mr;
}
EXPORT_SYMBOL_GPL(kiwi_reg_page_mr);

/**
 * kiwi_dereg_mr() - deregister an MR (ib_dereg_mr())
 * @mr: the MR
 *
 * Context: process context; sleeps.
 * Return: 0.
 */
int kiwi_dereg_mr(struct ib_mr *mr)
{
	struct ib_device *dev = READ_ONCE(mr->device);
	struct ib_pd *pd = mr->pd;

	might_sleep();
	if (!dev)
		return 0;	/* orphaned: its provider is gone */
	kiwi_verbs_untrack(dev, &mr->res, &mr->node);
	dev->ops->dereg_mr(mr);
	atomic_dec(&pd->usecnt);
	kiwi_device_put(dev);
	return 0;
}
EXPORT_SYMBOL_GPL(kiwi_dereg_mr);

/**
 * kiwi_alloc_mr() - a fast-registration MR (ib_alloc_mr())
 * @pd: the protection domain
 * @mr_type: IB_MR_TYPE_MEM_REG, the only type kiwi has
 * @max_num_sg: pages it may map, at most the device's
 *	max_fast_reg_page_list_len
 *
 * The MR starts invalid: ib_map_mr_sg() gives it pages, an IB_WR_REG_MR
 * posted with it makes its STag valid, IB_WR_LOCAL_INV or a peer's SEND
 * with Invalidate invalid again; then it may be mapped and registered
 * anew, under a new key (ib_update_fast_reg_key()).
 *
 * Context: process context; sleeps.
 * Return: the MR, or ERR_PTR(-EINVAL) for no PD, another type, no pages
 * or too many, -EOPNOTSUPP if the device has no fast registration,
 * -ENODEV if it is going away, or the provider's error.
 */
struct ib_mr *kiwi_alloc_mr(struct ib_pd *pd, enum ib_mr_type mr_type,
			    u32 max_num_sg)
{
	struct ib_device *dev;
	struct ib_mr *mr;

	might_sleep();
	if (!pd || mr_type != IB_MR_TYPE_MEM_REG || !max_num_sg)
		return ERR_PTR(-EINVAL);
	dev = kiwi_mr_device(pd);
	if (!dev)
		return ERR_PTR(-ENODEV);
	if (!dev->ops->alloc_mr ||
	    max_num_sg > dev->attrs.max_fast_reg_page_list_len) {
		kiwi_device_put(dev);
		return ERR_PTR(dev->ops->alloc_mr ? -EINVAL : -EOPNOTSUPP);
	}
	mr = kiwi_should_fail() ? ERR_PTR(-ENOMEM) :
	     dev->ops->alloc_mr(pd, max_num_sg);
	return kiwi_mr_track(dev, pd, mr);
}
EXPORT_SYMBOL_GPL(kiwi_alloc_mr);

/**
 * kiwi_map_mr_sg() - map DMA-mapped memory into a fast-registration MR
 *	(ib_map_mr_sg())
 * @mr: an MR of kiwi_alloc_mr(), invalid
 * @sg: the entries, mapped with ib_dma_map_sg()
 * @sg_nents: their number
 * @sg_offset: bytes of the first entry to skip, or NULL for none; set
 *	to the offset in the first entry not mapped, if one was cut short
 * @page_size: bytes of the MR's pages, a power of two the device's
 *	page_size_cap has
 *
 * Sets @mr's iova (the DMA address of its first byte) and length. Every
 * entry but the first must start on a page, every entry but the last end
 * on one; mapping stops at the first entry that does not, or when the
 * MR has no room for its pages.
 *
 * Context: any context the provider allows; kiwi's own does not sleep.
 * Return: the entries mapped (fewer than @sg_nents if it stopped early),
 * or a negative errno: -EINVAL for no entry, a page size the device does
 * not have, or an MR not of kiwi_alloc_mr().
 */
int kiwi_map_mr_sg(struct ib_mr *mr, struct scatterlist *sg, int sg_nents,
		   unsigned int *sg_offset, unsigned int page_size)
{
	struct ib_device *dev = READ_ONCE(mr->device);

	if (!dev || !dev->ops->map_mr_sg || sg_nents <= 0 ||
	    !is_power_of_2(page_size) ||
	    !(dev->attrs.page_size_cap & page_size))
		return -EINVAL;
	if (kiwi_should_fail())
		return -ENOMEM;
	mr->page_size = page_size;
	return dev->ops->map_mr_sg(mr, sg, sg_nents, sg_offset);
}
EXPORT_SYMBOL_GPL(kiwi_map_mr_sg);

/**
 * kiwi_sg_to_pages() - walk DMA-mapped entries as pages of an MR
 * @mr: the MR; its page_size set, its iova and length set here
 * @sgl: the entries
 * @sg_nents: their number
 * @sg_offset: bytes of the first entry to skip, or NULL; on return the
 *	bytes of the first unmapped entry already mapped (0)
 * @max_pages: room the provider has for pages
 * @set_page: called with each page's DMA address, in order
 *
 * For providers' map_mr_sg. An entry is taken whole or not at all: one
 * whose pages do not fit in @max_pages, or that leaves a gap (not the
 * first and not starting on a page, or after one not ending on a page),
 * ends the walk.
 *
 * Context: any context.
 * Return: the entries taken; -EINVAL if the first one could not be
 * (bad offset, no room) or @set_page failed on it.
 */
int kiwi_sg_to_pages(struct ib_mr *mr, struct scatterlist *sgl, int sg_nents,
		     unsigned int *sg_offset, unsigned int max_pages,
		     int (*set_page)(struct ib_mr *mr, u64 addr))
{
	unsigned int off = sg_offset ? *sg_offset : 0, used = 0, n;
	u64 mask = (u64)mr->page_size - 1, addr, end, last_end = 0, page;
	struct scatterlist *sg;
	int i, ret;

	if (sg_nents <= 0 || !sgl || off >= sg_dma_len(sgl))
		return -EINVAL;
	mr->iova = sg_dma_address(sgl) + off;
	mr->length = 0;
	for_each_sg(sgl, sg, sg_nents, i) {
		addr = sg_dma_address(sg) + off;
		end = addr + sg_dma_len(sg) - off;
		if (i && ((addr & mask) || (last_end & mask)))
			break;
		n = ((end + mask) & ~mask) - (addr & ~mask);
		n /= mr->page_size;
		if (end <= addr || n > max_pages - used)
			break;
		for (page = addr & ~mask; page < end; page += mr->page_size) {
			ret = set_page(mr, page);
			if (ret)
				return i ? i : ret;
		}
		used += n;
		mr->length += end - addr;
		last_end = end;
		off = 0;
	}
	if (sg_offset)
		*sg_offset = 0;
	return i ? i : -EINVAL;
}
EXPORT_SYMBOL_GPL(kiwi_sg_to_pages);
