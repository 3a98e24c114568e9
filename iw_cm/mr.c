// SPDX-License-Identifier: GPL-2.0
/*
 * Memory regions of kernel memory: a virtual range, a page array or a
 * scatterlist, registered in a protection domain.
 */
#include <linux/err.h>
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

/* Take over an MR the provider returned, or drop the device reference. */
static struct ib_mr *kiwi_mr_track(struct ib_pd *pd, struct ib_mr *mr)
{
	struct ib_device *dev = pd->device;

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
	kiwi_verbs_track(dev, &mr->node, &dev->mrs);
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
	return kiwi_mr_track(pd, dev->ops->reg_kernel_mr(pd, addr, length,
							  access));
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
	return kiwi_mr_track(pd, dev->ops->reg_sg_mr(pd, sgl, nents, length,
						      iova, access));
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
 * @offset: of the first byte in @pages[0], below PAGE_SIZE
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
	sgl = kvcalloc(npages, sizeof(*sgl), GFP_KERNEL);
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
	kiwi_verbs_untrack(dev, &mr->node);
	dev->ops->dereg_mr(mr);
	atomic_dec(&pd->usecnt);
	kiwi_device_put(dev);
	return 0;
}
EXPORT_SYMBOL_GPL(kiwi_dereg_mr);
