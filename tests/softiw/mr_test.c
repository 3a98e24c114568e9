// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_softiw_mr: page array and scatterlist MRs as the target of RDMA
 * WRITEs and READs between two softiw QPs connected over loopback
 * (dp_fixture.h): whole, across a page or entry, ending exactly on one,
 * and one byte past the end, every byte of the target's memory checked;
 * each MR invalidated by a LOCAL_INV and by the peer's SEND with
 * Invalidate; and the registration checks.
 */
#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/scatterlist.h>
#include <linux/string.h>

#include "cm_fixture.h"
#include "dp_fixture.h"
#include "softiw.h"

/*
 * MRs over pages and scatterlists (kiwi_softiw_mr): the target's memory
 * is MRT_SLOTS allocations of two pages each, full of guard bytes; an MR
 * takes spans of it in an order of its own, so that a transfer crosses
 * from a span to one in another allocation.
 */
#define MRT_SLOTS	4
#define MRT_SLOT	(2 * PAGE_SIZE)
#define MRT_MEM		(MRT_SLOTS * MRT_SLOT)
#define MRT_MAX_SPANS	6
#define MRT_IOVA	0x7ff000001234ULL	/* TO of an MR's first byte */

/**
 * struct mrt_span - bytes of an MR in the slots
 * @page: its first page, numbered across the slots (slot @page / 2)
 * @off: offset of its first byte in that page
 * @len: bytes; may run on into the second page of the slot
 */
struct mrt_span {
	u8 page;
	u16 off;
	u16 len;
};

/**
 * struct mrt_layout - an MR over a page array or a scatterlist
 * @sg: a scatterlist of @spans; else a page array of @spans' pages, the
 *	first from its @off on, and @length bytes
 * @spans: the entries, or the pages
 * @nspans: their number
 * @length: bytes of the page array
 */
struct mrt_layout {
	bool sg;
	struct mrt_span spans[MRT_MAX_SPANS];
	u8 nspans;
	u32 length;
};

/* Pages 1, 2, 5 from offset 100: pieces of 3996, 4096 and 300 bytes. */
static const struct mrt_layout mrt_pages = {
	.spans = { { 1, 100 }, { 2, 0 }, { 5, 0 } }, .nspans = 3,
	.length = 2 * PAGE_SIZE + 200,
};

/*
 * Entries of 1, 511, 4096 + 3 (over two pages), 4096 and 2 bytes: the
 * last two are contiguous in memory, yet two entries.
 */
static const struct mrt_layout mrt_sg = {
	.sg = true,
	.spans = { { 0, 3, 1 }, { 2, 7, 511 }, { 4, 5, PAGE_SIZE + 3 },
		   { 6, 0, PAGE_SIZE }, { 7, 0, 2 } },
	.nspans = 5,
};

/**
 * struct mrt - the target's memory and its MR
 * @slot: the allocations
 * @image: what the slots must hold
 * @spans: the MR's bytes in order
 * @nspans: their number
 * @length: the MR's bytes
 * @mr: the MR
 */
struct mrt {
	struct page *slot[MRT_SLOTS];
	u8 *image;
	struct mrt_span spans[MRT_MAX_SPANS];
	int nspans;
	u32 length;
	struct ib_mr *mr;
};

static void mrt_release(struct kunit_resource *res)
{
	struct mrt *m = res->data;
	int i;

	if (m->mr)
		kiwi_dereg_mr(m->mr);
	for (i = 0; i < MRT_SLOTS; i++)
		if (m->slot[i])
			__free_pages(m->slot[i], 1);
}

static u8 *mrt_addr(struct mrt *m, u8 page)
{
	return (u8 *)page_address(m->slot[page / 2]) + (page % 2) * PAGE_SIZE;
}

/* The spans of @l, a page array's cut at page ends. */
static void mrt_spans(struct mrt *m, const struct mrt_layout *l)
{
	u32 left = l->length, off;
	int i;

	m->nspans = l->nspans;
	m->length = 0;
	for (i = 0; i < l->nspans; i++) {
		m->spans[i] = l->spans[i];
		if (!l->sg) {
			off = i ? 0 : l->spans[0].off;
			m->spans[i].off = off;
			m->spans[i].len = min_t(u32, left, PAGE_SIZE - off);
			left -= m->spans[i].len;
		}
		m->length += m->spans[i].len;
	}
}

/* Byte @x of an MR's test pattern. */
static u8 mrt_byte(u32 x)
{
	return x * 13 + (x >> 9) + 1;
}

/*
 * Write the pattern's bytes [@to, @to + @len) where the MR keeps them:
 * into @base, a copy of the slots (the image), or the slots if NULL.
 */
static void mrt_put(struct mrt *m, u8 *base, u32 to, u32 len)
{
	u32 start = 0, i, x;
	int k;
	u8 *p;

	for (k = 0; k < m->nspans; k++) {
		const struct mrt_span *sp = &m->spans[k];

		p = base ? base + sp->page / 2 * MRT_SLOT +
			   sp->page % 2 * PAGE_SIZE : mrt_addr(m, sp->page);
		for (i = 0; i < sp->len; i++) {
			x = start + i;
			if (x >= to && x - to < len)
				p[sp->off + i] = mrt_byte(x);
		}
		start += sp->len;
	}
}

/* Index of the first byte of the slots that differs from the image. */
static int mrt_diff(struct mrt *m)
{
	const u8 *mem;
	int i, j;

	for (i = 0; i < MRT_SLOTS; i++) {
		mem = page_address(m->slot[i]);
		for (j = 0; j < MRT_SLOT; j++)
			if (mem[j] != m->image[i * MRT_SLOT + j])
				return i * MRT_SLOT + j;
	}
	return -1;
}

static struct ib_mr *mrt_reg(struct kunit *test, struct mrt *m,
			     struct ib_pd *pd, bool sg)
{
	struct scatterlist sgl[MRT_MAX_SPANS];
	struct page *pages[MRT_MAX_SPANS];
	const struct mrt_span *sp;
	int i;

	sg_init_table(sgl, m->nspans);
	for (i = 0; i < m->nspans; i++) {
		sp = &m->spans[i];
		pages[i] = nth_page(m->slot[sp->page / 2], sp->page % 2);
		sg_set_page(&sgl[i], pages[i], sp->len, sp->off);
	}
	if (sg)
		return kiwi_reg_sg_mr(pd, sgl, m->nspans, MRT_IOVA,
				      KIWI_ACCESS_ALL);
	return kiwi_reg_page_mr(pd, pages, m->nspans, m->spans[0].off,
				m->length, MRT_IOVA, KIWI_ACCESS_ALL);
}

/*
 * Slots full of guard bytes (the MR's bytes too if @filled: the pattern)
 * and the MR of @l over them in @pd.
 */
static struct mrt *mrt_setup(struct kunit *test, struct ib_pd *pd,
			     const struct mrt_layout *l, bool filled)
{
	struct mrt *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	struct ib_mr *mr;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, m);
	m->image = kunit_kzalloc(test, MRT_MEM, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m->image);
	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test, NULL,
							 mrt_release,
							 GFP_KERNEL, m));
	for (i = 0; i < MRT_SLOTS; i++) {
		m->slot[i] = alloc_pages(GFP_KERNEL, 1);
		KUNIT_ASSERT_NOT_NULL(test, m->slot[i]);
		memset(page_address(m->slot[i]), 0xa5, MRT_SLOT);
	}
	memset(m->image, 0xa5, MRT_MEM);
	mrt_spans(m, l);
	if (filled) {
		mrt_put(m, NULL, 0, m->length);
		mrt_put(m, m->image, 0, m->length);
	}
	mr = mrt_reg(test, m, pd, l->sg);
	KUNIT_ASSERT_FALSE(test, IS_ERR(mr));
	m->mr = mr;
	KUNIT_EXPECT_EQ(test, mr->iova, MRT_IOVA);
	KUNIT_EXPECT_EQ(test, mr->length, (u64)m->length);
	return m;
}

/* An RDMA WRITE or READ of @s's bytes from 0 on to the target's @to. */
static int mrt_post(struct dpt_side *s, u64 wr_id, int opcode, u32 off,
		    u32 len, const struct ib_mr *mr, u32 to)
{
	struct ib_sge sge = {
		.addr = s->mr->iova + off, .length = len, .lkey = s->mr->lkey,
	};
	struct ib_rdma_wr wr = {
		.wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
			.opcode = opcode, .send_flags = IB_SEND_SIGNALED },
		.remote_addr = mr->iova + to, .rkey = mr->rkey,
	};
	const struct ib_send_wr *bad = NULL;

	return kiwi_post_send(s->qp, &wr.wr, &bad);
}

/* @a's WRITE is placed at @b once a SEND behind it arrives. */
static void mrt_write_placed(struct kunit *test, struct dpt_side *a,
			     struct dpt_side *b, u64 wr_id)
{
	struct ib_wc wc;

	dpt_expect_wc(test, a, wr_id, IB_WC_RDMA_WRITE, 0);
	KUNIT_ASSERT_EQ(test, dpt_recv(b, wr_id + 1, DPT_BUF - 16, 16), 0);
	KUNIT_ASSERT_EQ(test, dpt_send(a, wr_id + 2, 0, 0, 0), 0);
	KUNIT_ASSERT_EQ(test, dpt_poll(b, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, wr_id + 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
}

/**
 * struct mrt_case - a remote access to a page array or scatterlist MR
 * @name: description
 * @layout: the MR
 * @read: an RDMA READ of the MR, else a WRITE into it
 * @to: offset in the MR of the first byte
 * @len: bytes
 * @ecode: 0, or the error code of the TERMINATE the target sends
 *	(one byte past the end: tagged bounds, DDP or RDMAP)
 */
struct mrt_case {
	const char *name;
	const struct mrt_layout *layout;
	bool read;
	u32 to;
	u32 len;
	u8 ecode;
};

#define MRT_P1	(PAGE_SIZE - 100)	/* the first page's piece */
#define MRT_PL	(2 * PAGE_SIZE + 200)	/* the page array's length */
#define MRT_SL	(1 + 511 + PAGE_SIZE + 3 + PAGE_SIZE + 2)

static const struct mrt_case mrt_cases[] = {
	{ "WRITE pages, all", &mrt_pages, false, 0, MRT_PL },
	{ "WRITE pages, across a page", &mrt_pages, false, MRT_P1 - 6, 20 },
	{ "WRITE pages, ends on a page end", &mrt_pages, false, 0, MRT_P1 },
	{ "WRITE pages, one whole page", &mrt_pages, false, MRT_P1,
	  PAGE_SIZE },
	{ "WRITE pages, last byte", &mrt_pages, false, MRT_PL - 1, 1 },
	{ "WRITE pages, 1 past the end", &mrt_pages, false, 1, MRT_PL, 1 },
	{ "READ pages, all", &mrt_pages, true, 0, MRT_PL },
	{ "READ pages, across a page", &mrt_pages, true, MRT_P1 - 6, 20 },
	{ "READ pages, ends on a page end", &mrt_pages, true, 0, MRT_P1 },
	{ "READ pages, 1 past the end", &mrt_pages, true, MRT_PL - 10, 11,
	  1 },
	{ "WRITE sg, all", &mrt_sg, false, 0, MRT_SL },
	{ "WRITE sg, the 1-byte entry", &mrt_sg, false, 0, 1 },
	{ "WRITE sg, mid 511 to mid 4099", &mrt_sg, false, 201, 2311 },
	{ "WRITE sg, ends on an entry end", &mrt_sg, false, 0, 512 },
	{ "WRITE sg, 4099 entry exactly", &mrt_sg, false, 512,
	  PAGE_SIZE + 3 },
	{ "WRITE sg, 1 past the end", &mrt_sg, false, MRT_SL - 10, 11, 1 },
	{ "READ sg, all", &mrt_sg, true, 0, MRT_SL },
	{ "READ sg, mid 511 to last", &mrt_sg, true, 300, MRT_SL - 300 },
	{ "READ sg, 4099 entry exactly", &mrt_sg, true, 512, PAGE_SIZE + 3 },
	{ "READ sg, 1 past the end", &mrt_sg, true, 0, MRT_SL + 1, 1 },
};

static void mrt_case_desc(const struct mrt_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(mrt_case, mrt_cases, mrt_case_desc);

/* A WRITE into the MR: its bytes placed, not one byte else of the slots. */
static void mr_write(struct kunit *test, struct dpt *d, struct mrt *m,
		     const struct mrt_case *c, u32 room)
{
	struct dpt_side *a = &d->s[0], *b = &d->s[1];
	u32 i;

	for (i = 0; i < c->len; i++)
		a->buf[i] = mrt_byte(c->to + i);
	KUNIT_ASSERT_EQ(test, mrt_post(a, 1, IB_WR_RDMA_WRITE, 0, c->len,
				       m->mr, c->to), 0);
	if (c->ecode) {
		/* One segment: refused before a byte of it is placed. */
		KUNIT_ASSERT_LE(test, c->len, room);
		dpt_expect_terminated(d, 1, 1, c->ecode);
	} else {
		mrt_write_placed(test, a, b, 1);
		mrt_put(m, m->image, c->to, c->len);
	}
	KUNIT_EXPECT_EQ(test, mrt_diff(m), -1);
}

/* A READ of the MR: the reader gets its bytes; the slots are unchanged. */
static void mr_read(struct kunit *test, struct dpt *d, struct mrt *m,
		    const struct mrt_case *c)
{
	struct dpt_side *a = &d->s[0];
	u32 i, bad = 0;

	memset(a->buf, 0xa5, DPT_OFF + c->len + 1);
	KUNIT_ASSERT_EQ(test, mrt_post(a, 1, IB_WR_RDMA_READ, DPT_OFF,
				       c->len, m->mr, c->to), 0);
	if (c->ecode) {
		dpt_expect_terminated(d, 0, 1, c->ecode);
		KUNIT_EXPECT_PTR_EQ(test, memchr_inv(a->buf, 0xa5,
						     DPT_OFF + c->len + 1),
				    NULL);
	} else {
		dpt_expect_wc(test, a, 1, IB_WC_RDMA_READ, c->len);
		for (i = 0; i < c->len; i++)
			bad += a->buf[DPT_OFF + i] != mrt_byte(c->to + i);
		KUNIT_EXPECT_EQ(test, bad, 0U);
		KUNIT_EXPECT_EQ(test, a->buf[DPT_OFF - 1], 0xa5);
		KUNIT_EXPECT_EQ(test, a->buf[DPT_OFF + c->len], 0xa5);
	}
	KUNIT_EXPECT_EQ(test, mrt_diff(m), -1);
}

/*
 * Each row: a WRITE into or READ of a page array or scatterlist MR of
 * the peer, over a real connection; byte for byte, guard bytes around.
 */
static void mr_access(struct kunit *test)
{
	const struct mrt_case *c = test->param_value;
	struct dpt *d;
	struct mrt *m;
	u32 room;

	dpt_rdma_setup(test, &d, 23400 + (c - mrt_cases), true, &room);
	m = mrt_setup(test, d->t->pd, c->layout, c->read);
	if (c->read)
		mr_read(test, d, m, c);
	else
		mr_write(test, d, m, c, room);
	cmt_teardown(d->t);
}

/**
 * struct mrt_inv_case - invalidating a page array or scatterlist MR
 * @name: description
 * @layout: the MR
 * @remote: by the peer's SEND with Invalidate, else by a LOCAL_INV
 */
struct mrt_inv_case {
	const char *name;
	const struct mrt_layout *layout;
	bool remote;
};

static const struct mrt_inv_case mrt_inv_cases[] = {
	{ "pages, LOCAL_INV", &mrt_pages, false },
	{ "pages, SEND_WITH_INV", &mrt_pages, true },
	{ "sg, LOCAL_INV", &mrt_sg, false },
	{ "sg, SEND_WITH_INV", &mrt_sg, true },
};

static void mrt_inv_case_desc(const struct mrt_inv_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(mrt_inv_case, mrt_inv_cases, mrt_inv_case_desc);

/* @b invalidates @m's STag itself. */
static void mrt_local_inv(struct kunit *test, struct dpt_side *b,
			  struct mrt *m)
{
	struct ib_send_wr wr = {
		.wr_id = 5, .opcode = IB_WR_LOCAL_INV,
		.send_flags = IB_SEND_SIGNALED,
		.ex.invalidate_rkey = m->mr->rkey,
	};
	const struct ib_send_wr *bad = NULL;

	KUNIT_ASSERT_EQ(test, kiwi_post_send(b->qp, &wr, &bad), 0);
	dpt_expect_wc(test, b, 5, IB_WC_LOCAL_INV, 0);
}

/* @a's SEND with Invalidate makes @b's RECV report @m's STag. */
static void mrt_remote_inv(struct kunit *test, struct dpt_side *a,
			   struct dpt_side *b, struct mrt *m)
{
	struct ib_wc wc;

	KUNIT_ASSERT_EQ(test, dpt_recv(b, 6, 0, 64), 0);
	KUNIT_ASSERT_EQ(test, dpt_send_inv(a, 7, 8, m->mr->rkey), 0);
	dpt_expect_wc(test, a, 7, IB_WC_SEND, 0);
	KUNIT_ASSERT_EQ(test, dpt_poll(b, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 6ULL);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.wc_flags, IB_WC_WITH_INVALIDATE);
	KUNIT_EXPECT_EQ(test, wc.ex.invalidate_rkey, m->mr->rkey);
}

/*
 * A WRITE lands in the MR; once its STag is invalidated, by the owner or
 * by the peer, the next WRITE is refused (DDP, tagged, invalid STag) and
 * nothing more of the slots changes.
 */
static void mr_invalidate(struct kunit *test)
{
	const struct mrt_inv_case *c = test->param_value;
	struct dpt_side *a, *b;
	struct dpt *d;
	struct mrt *m;
	u32 room, i;

	dpt_rdma_setup(test, &d, 23430 + (c - mrt_inv_cases), false, &room);
	a = &d->s[0];
	b = &d->s[1];
	m = mrt_setup(test, d->t->pd, c->layout, false);
	for (i = 0; i < 16; i++)
		a->buf[i] = mrt_byte(i);
	KUNIT_ASSERT_EQ(test, mrt_post(a, 1, IB_WR_RDMA_WRITE, 0, 16, m->mr,
				       0), 0);
	mrt_write_placed(test, a, b, 1);
	mrt_put(m, m->image, 0, 16);
	KUNIT_EXPECT_EQ(test, mrt_diff(m), -1);
	if (c->remote)
		mrt_remote_inv(test, a, b, m);
	else
		mrt_local_inv(test, b, m);
	memset(a->buf, 0x11, 16);
	KUNIT_ASSERT_EQ(test, mrt_post(a, 8, IB_WR_RDMA_WRITE, 0, 16, m->mr,
				       0), 0);
	dpt_expect_terminated(d, 1, 1, 0);
	KUNIT_EXPECT_EQ(test, mrt_diff(m), -1);
	cmt_teardown(d->t);
}

/* Post a RECV of @mr's first 8 bytes on the fixture's newest QP. */
static int mrt_recv(struct cmt *t, const struct ib_mr *mr)
{
	struct ib_sge sge = { .addr = mr->iova, .length = 8,
				.lkey = mr->lkey };
	struct ib_recv_wr wr = { .wr_id = 1, .sg_list = &sge,
				   .num_sge = 1 };
	const struct ib_recv_wr *bad = NULL;

	return kiwi_post_recv(t->qps[t->nqps - 1], &wr, &bad);
}

/*
 * Registration checks: page arrays must hold exactly the bytes asked
 * for, scatterlists some bytes, neither may run past the top of the TO
 * space; their lkey backs no SGE (SGEs are kernel addresses).
 */
static void mr_reg_checks(struct kunit *test)
{
	struct cmt *t = cmt_setup(test, 23440);
	struct ib_pd *pd = t->pd;
	struct page *pages[2];
	struct scatterlist sg;
	struct ib_mr *mr;
	struct mrt *m;

	m = mrt_setup(test, pd, &mrt_sg, false);
	pages[0] = m->slot[0];
	pages[1] = m->slot[1];
	KUNIT_EXPECT_EQ(test, PTR_ERR(kiwi_reg_page_mr(pd, pages, 2, 0,
						       PAGE_SIZE, 0, 0)),
			-EINVAL);		/* a page too many */
	KUNIT_EXPECT_EQ(test, PTR_ERR(kiwi_reg_page_mr(pd, pages, 1, 1,
						       PAGE_SIZE, 0, 0)),
			-EINVAL);		/* a byte too many */
	KUNIT_EXPECT_EQ(test, PTR_ERR(kiwi_reg_page_mr(pd, pages, 1,
						       PAGE_SIZE, 1, 0, 0)),
			-EINVAL);		/* offset beyond the page */
	KUNIT_EXPECT_EQ(test, PTR_ERR(kiwi_reg_page_mr(pd, pages, 1, 0, 0,
						       0, 0)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(kiwi_reg_page_mr(pd, pages, 1, 0, 8,
						       -4ULL, 0)),
			-EINVAL);		/* past the top of the TOs */
	mr = kiwi_reg_page_mr(pd, pages, 1, 0, 8, 0, IB_ACCESS_REMOTE_WRITE);
	KUNIT_EXPECT_EQ(test, PTR_ERR(mr), -EINVAL);	/* no local write */
	sg_init_table(&sg, 1);
	sg_set_page(&sg, m->slot[0], 0, 0);
	KUNIT_EXPECT_EQ(test, PTR_ERR(kiwi_reg_sg_mr(pd, &sg, 1, 0, 0)),
			-EINVAL);		/* no bytes */
	KUNIT_EXPECT_EQ(test, PTR_ERR(kiwi_reg_sg_mr(pd, &sg, 0, 0, 0)),
			-EINVAL);
	cmt_qp(t);
	KUNIT_EXPECT_EQ(test, mrt_recv(t, m->mr), -EINVAL);
	KUNIT_EXPECT_EQ(test, mrt_recv(t, cmt_mr(t, cmt_buf(t, 64), 64,
						 IB_ACCESS_LOCAL_WRITE)),
			0);
	cmt_teardown(t);
}

static struct kunit_case mr_cases[] = {
	KUNIT_CASE_PARAM(mr_access, mrt_case_gen_params),
	KUNIT_CASE_PARAM(mr_invalidate, mrt_inv_case_gen_params),
	KUNIT_CASE(mr_reg_checks),
	{}
};

static struct kunit_suite mr_suite = {
	.suite_init = cmt_suite_init,
	.suite_exit = cmt_suite_exit,
	.name = "kiwi_softiw_mr",
	.exit = dpt_exit,
	.test_cases = mr_cases,
};

kunit_test_suite(mr_suite);
