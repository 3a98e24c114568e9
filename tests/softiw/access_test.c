// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_softiw_access: the table of remote access violations of
 * Documentation/softiw.rst, against the raw peer of kiwi_softiw_hostile
 * (hostile_peer.h). Each row sends one RDMA WRITE, Read Request or Read
 * Response that breaks a rule: unknown STag, stale key, below and beyond
 * the MR, TO wrap, missing right, deregistered MR, MR invalidated by a
 * LOCAL_INV, another device's MR (softiw_kv0), another PD's MR, for WRITE
 * and READ, a WRITE to the local_dma_lkey, and an unasked-for Read
 * Response; a QP without the remote right, or with none as
 * kiwi_create_qp() makes it, for WRITE and READ, and a QP without rights
 * checked before a bad STag; the STags of the indices next to an MR's,
 * with guessed keys. Each checks the TERMINATE's layer, type and code,
 * the QP in ERROR, CLOSE(-EPROTO), the QP's owner's event, and that none
 * of the 1024 bytes around and inside the region changed.
 */
#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/string.h>

#include "cm_fixture.h"
#include "hostile_peer.h"
#include "softiw.h"

/**
 * struct hostile_access_case - a remote access that must be refused
 * @rreq: a Read Request (else an RDMA WRITE)
 * @access: rights of the MR named
 * @stag: how the STag is named, see HOSTILE_STAG_*
 * @to: tagged offset from the MR's iova
 * @abs: @to is absolute
 * @len: bytes accessed
 * @layer_etype: the TERMINATE's first byte
 * @ecode: its error code
 * @desc: what is wrong
 * @qp_access: rights of the QP: 0 for those of rdma_create_qp(),
 *	CMT_QP_AS_CREATED for those of kiwi_create_qp(), else these
 * @key_xor: HOSTILE_STAG_NEXT and _PREV: XORed into the MR's key
 */
struct hostile_access_case {
	bool rreq;
	u32 access;
	int stag;
	s64 to;
	bool abs;
	u16 len;
	u8 layer_etype;
	u8 ecode;
	const char *desc;
	u32 qp_access;
	u8 key_xor;
};

enum {
	HOSTILE_STAG_OK,
	HOSTILE_STAG_UNKNOWN,
	HOSTILE_STAG_STALE,
	HOSTILE_STAG_DEREG,
	HOSTILE_STAG_OTHER_DEV,
	HOSTILE_STAG_OTHER_PD,
	HOSTILE_STAG_LOCAL_DMA,
	HOSTILE_STAG_RRESP,	/* a Read Response nobody asked for */
	HOSTILE_STAG_INVALIDATED,	/* by a LOCAL_INV of the QP */
	HOSTILE_STAG_NEXT,	/* the index after the MR's, a guessed key */
	HOSTILE_STAG_PREV,	/* the index before the MR's, a guessed key */
};

#define HOSTILE_RW	KIWI_ACCESS_ALL

static const struct hostile_access_case hostile_access_cases[] = {
	{ false, HOSTILE_RW, HOSTILE_STAG_UNKNOWN, 0, false, 8, 0x11, 0x00,
	  "WRITE, unknown STag" },
	{ false, HOSTILE_RW, HOSTILE_STAG_STALE, 0, false, 8, 0x11, 0x00,
	  "WRITE, stale key" },
	{ false, HOSTILE_RW, HOSTILE_STAG_OK, -4, false, 8, 0x11, 0x01,
	  "WRITE, below the MR" },
	{ false, HOSTILE_RW, HOSTILE_STAG_OK, 252, false, 8, 0x11, 0x01,
	  "WRITE, beyond the MR" },
	{ false, HOSTILE_RW, HOSTILE_STAG_OK, -4, true, 8, 0x11, 0x03,
	  "WRITE, TO wraps around" },
	{ false, IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ,
	  HOSTILE_STAG_OK, 0, false, 8, 0x11, 0x00, "WRITE, no remote write" },
	{ false, HOSTILE_RW, HOSTILE_STAG_DEREG, 0, false, 8, 0x11, 0x00,
	  "WRITE, deregistered MR" },
	{ false, HOSTILE_RW, HOSTILE_STAG_OTHER_DEV, 0, false, 8, 0x11, 0x00,
	  "WRITE, other device's MR" },
	{ false, HOSTILE_RW, HOSTILE_STAG_OTHER_PD, 0, false, 8, 0x11, 0x02,
	  "WRITE, other PD's MR" },
	{ false, HOSTILE_RW, HOSTILE_STAG_LOCAL_DMA, 0, false, 8, 0x11, 0x00,
	  "WRITE, the local_dma_lkey" },
	{ false, HOSTILE_RW, HOSTILE_STAG_RRESP, 0, false, 8, 0x10, 0x00,
	  "Read Response, no READ" },
	{ false, HOSTILE_RW, HOSTILE_STAG_INVALIDATED, 0, false, 8, 0x11, 0x00,
	  "WRITE, invalidated MR" },
	{ true, HOSTILE_RW, HOSTILE_STAG_INVALIDATED, 0, false, 8, 0x01, 0x00,
	  "READ, invalidated MR" },
	{ true, HOSTILE_RW, HOSTILE_STAG_UNKNOWN, 0, false, 8, 0x01, 0x00,
	  "READ, unknown STag" },
	{ true, HOSTILE_RW, HOSTILE_STAG_STALE, 0, false, 8, 0x01, 0x00,
	  "READ, stale key" },
	{ true, HOSTILE_RW, HOSTILE_STAG_OK, -1, false, 8, 0x01, 0x01,
	  "READ, below the MR" },
	{ true, HOSTILE_RW, HOSTILE_STAG_OK, 200, false, 57, 0x01, 0x01,
	  "READ, beyond the MR" },
	{ true, HOSTILE_RW, HOSTILE_STAG_OK, -4, true, 8, 0x01, 0x04,
	  "READ, TO wraps around" },
	{ true, IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE,
	  HOSTILE_STAG_OK, 0, false, 8, 0x01, 0x02, "READ, no remote read" },
	{ true, HOSTILE_RW, HOSTILE_STAG_DEREG, 0, false, 8, 0x01, 0x00,
	  "READ, deregistered MR" },
	{ true, HOSTILE_RW, HOSTILE_STAG_OTHER_DEV, 0, false, 8, 0x01, 0x00,
	  "READ, other device's MR" },
	{ true, HOSTILE_RW, HOSTILE_STAG_OTHER_PD, 0, false, 8, 0x01, 0x03,
	  "READ, other PD's MR" },
	/* The QP's rights, checked before the STag: RDMAP access rights. */
	{ false, HOSTILE_RW, HOSTILE_STAG_OK, 0, false, 8, 0x01, 0x02,
	  "WRITE, QP without remote write", IB_ACCESS_REMOTE_READ },
	{ true, HOSTILE_RW, HOSTILE_STAG_OK, 0, false, 8, 0x01, 0x02,
	  "READ, QP without remote read", IB_ACCESS_REMOTE_WRITE },
	{ false, HOSTILE_RW, HOSTILE_STAG_OK, 0, false, 8, 0x01, 0x02,
	  "WRITE, verbs QP (no rights)", CMT_QP_AS_CREATED },
	{ true, HOSTILE_RW, HOSTILE_STAG_OK, 0, false, 8, 0x01, 0x02,
	  "READ, verbs QP (no rights)", CMT_QP_AS_CREATED },
	{ false, HOSTILE_RW, HOSTILE_STAG_UNKNOWN, 0, false, 8, 0x01, 0x02,
	  "WRITE, QP without rights, bad STag", IB_ACCESS_LOCAL_WRITE },
	/*
	 * Neighbouring STags a peer guesses: the index after or before the
	 * MR's, each an MR of the QP's PD granting remote access, with the
	 * MR's key or another one, never the neighbour's own.
	 */
	{ false, HOSTILE_RW, HOSTILE_STAG_NEXT, 0, false, 8, 0x11, 0x00,
	  "WRITE, next index, same key", 0, 0x00 },
	{ false, HOSTILE_RW, HOSTILE_STAG_PREV, 0, false, 8, 0x11, 0x00,
	  "WRITE, previous index, same key", 0, 0x00 },
	{ false, HOSTILE_RW, HOSTILE_STAG_NEXT, 0, false, 8, 0x11, 0x00,
	  "WRITE, next index, key ^ 0x01", 0, 0x01 },
	{ false, HOSTILE_RW, HOSTILE_STAG_PREV, 0, false, 8, 0x11, 0x00,
	  "WRITE, previous index, key ^ 0x01", 0, 0x01 },
	{ false, HOSTILE_RW, HOSTILE_STAG_NEXT, 0, false, 8, 0x11, 0x00,
	  "WRITE, next index, key ^ 0x80", 0, 0x80 },
	{ false, HOSTILE_RW, HOSTILE_STAG_PREV, 0, false, 8, 0x11, 0x00,
	  "WRITE, previous index, key ^ 0xff", 0, 0xff },
	{ true, HOSTILE_RW, HOSTILE_STAG_NEXT, 0, false, 8, 0x01, 0x00,
	  "READ, next index, same key", 0, 0x00 },
	{ true, HOSTILE_RW, HOSTILE_STAG_PREV, 0, false, 8, 0x01, 0x00,
	  "READ, previous index, same key", 0, 0x00 },
};

static void hostile_access_case_desc(const struct hostile_access_case *c,
				     char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(hostile_access_case, hostile_access_cases,
		  hostile_access_case_desc);

static void hostile_detach(struct kunit_resource *res)
{
	kiwi_softiw_detach(res->data);
}

static void hostile_dereg(struct kunit_resource *res)
{
	kiwi_dereg_mr(res->data);
}

static void hostile_put_dev(struct kunit_resource *res)
{
	kiwi_device_put(res->data);
}

static void hostile_dealloc_pd(struct kunit_resource *res)
{
	kiwi_dealloc_pd(res->data);
}

/* An MR of a PD of its own on @dev, both released after the QPs. */
static struct ib_mr *hostile_own_pd_mr(struct kunit *test,
				       struct ib_device *dev, void *buf,
				       u32 access)
{
	struct ib_pd *pd = kiwi_alloc_pd(dev, 0);
	struct ib_mr *mr;

	KUNIT_ASSERT_FALSE(test, IS_ERR(pd));
	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test, NULL,
							 hostile_dealloc_pd,
							 GFP_KERNEL, pd));
	mr = kiwi_reg_kernel_mr(pd, buf, HOSTILE_REGION, access);
	KUNIT_ASSERT_FALSE(test, IS_ERR(mr));
	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test, NULL,
							 hostile_dereg,
							 GFP_KERNEL, mr));
	return mr;
}

/* An MR of softiw_kv0, attached for the test, released after the QPs. */
static struct ib_mr *hostile_other_mr(struct kunit *test, void *buf,
				      u32 access)
{
	struct ib_device *kv0;

	KUNIT_ASSERT_EQ(test, kiwi_softiw_attach("kv0"), 0);
	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test, NULL,
							 hostile_detach,
							 GFP_KERNEL, "kv0"));
	kv0 = kiwi_device_get_by_name("softiw_kv0");
	KUNIT_ASSERT_NOT_NULL(test, kv0);
	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test, NULL,
							 hostile_put_dev,
							 GFP_KERNEL, kv0));
	return hostile_own_pd_mr(test, kv0, buf, access);
}

static bool hostile_dereg_match(struct kunit *test,
				struct kunit_resource *res, void *mr)
{
	return res->free == hostile_dereg && res->data == mr;
}

/* An MR of the fixture's PD over @buf, deregistered after the case. */
static struct ib_mr *hostile_neighbour_mr(struct kunit *test, struct cmt *t,
					  void *buf, u32 access)
{
	struct ib_mr *mr = kiwi_reg_kernel_mr(t->pd, buf, HOSTILE_REGION,
					      access);

	KUNIT_ASSERT_FALSE(test, IS_ERR(mr));
	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test, NULL,
							 hostile_dereg,
							 GFP_KERNEL, mr));
	return mr;
}

/*
 * A guess must name no MR: if @stag is @mr's, register @mr again, at
 * the same index under another key (an index never gets its last key).
 */
static void hostile_neighbour_not(struct kunit *test, struct cmt *t,
				  struct ib_mr *mr, void *buf, u32 access,
				  u32 stag)
{
	if (mr->rkey == stag) {
		kunit_destroy_resource(test, hostile_dereg_match, mr);
		mr = hostile_neighbour_mr(test, t, buf, access);
	}
	KUNIT_EXPECT_NE(test, mr->rkey, stag);
}

/*
 * The STag of the index after or before that of an MR over @buf, with
 * a guessed key: the neighbours, MRs over the bytes before and after
 * @buf registered just before and after it, take those indices.
 */
static u32 hostile_neighbour_stag(struct kunit *test, struct cmt *t,
				  const struct hostile_access_case *c, u8 *buf,
				  u64 *iova)
{
	struct ib_mr *prev, *mr, *next;
	u32 index, stag;

	prev = hostile_neighbour_mr(test, t, buf - HOSTILE_REGION, c->access);
	mr = cmt_mr(t, buf, HOSTILE_REGION, c->access);
	next = hostile_neighbour_mr(test, t, buf + HOSTILE_REGION, c->access);
	*iova = mr->iova;
	index = mr->rkey >> SOFTIW_STAG_INDEX_SHIFT;
	index = c->stag == HOSTILE_STAG_NEXT ? index + 1 : index - 1;
	stag = index << SOFTIW_STAG_INDEX_SHIFT |
	       ((mr->rkey ^ c->key_xor) & SOFTIW_STAG_KEY);
	hostile_neighbour_not(test, t, prev, buf - HOSTILE_REGION, c->access,
			      stag);
	hostile_neighbour_not(test, t, next, buf + HOSTILE_REGION, c->access,
			      stag);
	return stag;
}

/* The STag a case names, for an MR of this device over @buf. */
static u32 hostile_case_stag(struct kunit *test, struct cmt *t,
			     const struct hostile_access_case *c, u8 *buf,
			     u64 *iova)
{
	struct ib_mr *mr;
	u32 stag;

	if (c->stag == HOSTILE_STAG_OTHER_DEV) {
		mr = hostile_other_mr(test, buf, c->access);
		*iova = mr->iova;
		return mr->rkey;
	}
	if (c->stag == HOSTILE_STAG_LOCAL_DMA) {
		mr = cmt_mr(t, buf, HOSTILE_REGION, c->access);
		*iova = mr->iova;
		return t->pd->local_dma_lkey;
	}
	if (c->stag == HOSTILE_STAG_OTHER_PD) {
		mr = hostile_own_pd_mr(test, t->dev, buf, c->access);
		*iova = mr->iova;
		return mr->rkey;
	}
	if (c->stag == HOSTILE_STAG_DEREG) {
		mr = kiwi_reg_kernel_mr(t->pd, buf, HOSTILE_REGION, c->access);
		KUNIT_ASSERT_FALSE(test, IS_ERR(mr));
		*iova = mr->iova;
		stag = mr->rkey;
		kiwi_dereg_mr(mr);
		return stag;
	}
	if (c->stag == HOSTILE_STAG_NEXT || c->stag == HOSTILE_STAG_PREV)
		return hostile_neighbour_stag(test, t, c, buf, iova);
	mr = cmt_mr(t, buf, HOSTILE_REGION, c->access);
	*iova = mr->iova;
	if (c->stag == HOSTILE_STAG_UNKNOWN)
		return 0xfffff000 | (mr->rkey & 0xff);
	if (c->stag == HOSTILE_STAG_STALE)
		return mr->rkey ^ 0x80;
	return mr->rkey;
}

/* Invalidate @stag with a LOCAL_INV on the peer's QP (primed first). */
static void hostile_local_inv(struct cmt *t, struct hostile_peer *p, u32 stag)
{
	struct ib_send_wr wr = {
		.wr_id = 77, .opcode = IB_WR_LOCAL_INV,
		.send_flags = IB_SEND_SIGNALED, .ex.invalidate_rkey = stag,
	};
	const struct ib_send_wr *bad;
	struct ib_wc wc;

	hostile_post_recv(t, p, 78, 512, 256);
	hostile_prime(t, p);
	KUNIT_ASSERT_EQ(t->test, kiwi_post_send(p->qp, &wr, &bad), 0);
	KUNIT_ASSERT_EQ(t->test, hostile_poll(t, &wc), 1);
	KUNIT_EXPECT_EQ(t->test, wc.wr_id, 77ULL);
	KUNIT_EXPECT_EQ(t->test, wc.opcode, IB_WC_LOCAL_INV);
	KUNIT_EXPECT_EQ(t->test, wc.status, IB_WC_SUCCESS);
}

/*
 * Each remote access that breaks a rule ends the connection with the
 * TERMINATE of Documentation/softiw.rst; the QP is in ERROR, and no byte
 * of the memory around and inside the region was written.
 */
static void hostile_access(struct kunit *test)
{
	const struct hostile_access_case *c = test->param_value;
	struct cmt *t = cmt_setup(test, 22104);
	u8 *mem = cmt_buf(t, 1024);
	struct hostile_peer p;
	u8 f[96];
	u64 iova, to;
	u32 stag;
	int i, n;

	memset(mem, HOSTILE_GUARD, 1024);
	stag = hostile_case_stag(test, t, c, mem + 256, &iova);
	to = c->abs ? (u64)c->to : iova + c->to;
	if (c->qp_access)
		t->qp_access = c->qp_access;
	hostile_peer_connect(t, &p, false, 1);
	if (c->stag == HOSTILE_STAG_INVALIDATED)
		hostile_local_inv(t, &p, stag);
	if (c->rreq)
		n = hostile_rreq_put(f, 1, 0x99, 0, c->len, stag, to);
	else
		n = hostile_tagged_put(f, c->stag == HOSTILE_STAG_RRESP ?
				       HOSTILE_RRESP_LAST : HOSTILE_WRITE_LAST,
				       stag, to, "12345678", c->len);
	KUNIT_ASSERT_EQ(test, cmt_raw_send(p.s, f, n), n);
	hostile_expect_term(t, &p, c->layer_etype, c->ecode);
	/*
	 * Its owner hears the QP end: an access error for a protection
	 * rule (tagged DDP, RDMAP protection), a request error otherwise.
	 */
	KUNIT_EXPECT_PTR_EQ(test,
			    cmt_wait_qp_event(t, (c->layer_etype == 0x11 ||
						  c->layer_etype == 0x01) ?
					      IB_EVENT_QP_ACCESS_ERR :
					      IB_EVENT_QP_REQ_ERR),
			    p.qp);
	for (i = 0; i < 1024; i++)
		if (mem[i] != HOSTILE_GUARD)
			break;
	KUNIT_EXPECT_EQ(test, i, 1024);
	/* Nor into the other MR of the device, the peer's QP's memory. */
	if (c->stag == HOSTILE_STAG_NEXT || c->stag == HOSTILE_STAG_PREV)
		KUNIT_EXPECT_PTR_EQ(test, memchr_inv(p.buf, 0, 4096), NULL);
	cmt_teardown(t);
}

static struct kunit_case access_cases[] = {
	KUNIT_CASE_PARAM(hostile_access, hostile_access_case_gen_params),
	{}
};

static struct kunit_suite access_suite = {
	.suite_init = cmt_suite_init,
	.suite_exit = cmt_suite_exit,
	.name = "kiwi_softiw_access",
	.init = hostile_init,
	.exit = hostile_exit,
	.test_cases = access_cases,
};

kunit_test_suites(&access_suite);
