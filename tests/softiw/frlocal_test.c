// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_softiw_fr_local: local SGEs in fast-registered MRs.
 *
 * A SEND's or WRITE's source and a RECV's sink may lie in an MR of
 * ib_alloc_mr(), registered by an IB_WR_REG_MR posted in the same chain
 * ahead of the request that uses it. The MR's pages need not be
 * contiguous: each case maps two pages in reverse order, so that the
 * MR's tagged offsets run on across a jump in kernel memory. An SGE
 * whose MR is invalid or lacks the right ends its request with
 * IB_WC_LOC_PROT_ERR and its QP hears IB_EVENT_QP_ACCESS_ERR; the peer
 * hears a TERMINATE (IB_EVENT_QP_FATAL).
 */
#include <kunit/test.h>
#include <linux/mm.h>
#include <linux/scatterlist.h>
#include <linux/string.h>
#include <linux/wait.h>

#include "cm_fixture.h"
#include "kiwi_test.h"
#include "verbs_util.h"
#include "vt_pair.h"

#define FL_PORT		22501
#define FL_HEAD		100	/* bytes of a RECV's first, plain, SGE */
#define FL_OFF		300	/* the MR starts this far into its first page */
#define FL_TAIL		700	/* and takes this much of its second */
#define FL_LEN		(PAGE_SIZE - FL_OFF + FL_TAIL)

#define FL_HELD		8	/* completions kept for the other side */

/**
 * struct fl_pair - two connected QPs on the fixture's CQ
 * @t: the fixture
 * @qp: the active side (0) and the passive side (1)
 * @held: completions of each side polled while waiting for the other's
 * @nheld: entries at @held
 * @events: each QP's asynchronous events heard, BIT(type)
 * @wq: woken when an event is heard
 */
struct fl_pair {
	struct cmt *t;
	struct ib_qp *qp[2];
	struct ib_wc held[2][FL_HELD];
	int nheld[2];
	unsigned long events[2];
	wait_queue_head_t wq;
};

static void fl_qp_event(struct ib_event *ev, void *context)
{
	struct fl_pair *p = context;

	set_bit(ev->event, &p->events[ev->element.qp == p->qp[1]]);
	wake_up_all(&p->wq);
}

/* Did QP @side hear @type within 5 s? */
static bool fl_heard(struct fl_pair *p, int side, enum ib_event_type type)
{
	return wait_event_timeout(p->wq, test_bit(type, &p->events[side]),
				  5 * HZ) > 0;
}

/**
 * struct fl_mr - a fast-registration MR over two pages, in reverse order
 * @mr: the MR
 * @pages: the two pages' memory
 * @sg: its mapping: the second page from FL_OFF on, then the first
 */
struct fl_mr {
	struct ib_mr *mr;
	u8 *pages;
	struct scatterlist sg[2];
};

static void fl_mr_free(struct kunit_resource *res)
{
	ib_dereg_mr(res->data);
}

static void fl_pd_free(struct kunit_resource *res)
{
	ib_dealloc_pd(res->data);
}

/* The next completion of QP @side, in order; the test ends if none came. */
static void fl_next(struct kunit *test, struct fl_pair *p, int side,
		    struct ib_wc *wc)
{
	int other;

	if (p->nheld[side]) {
		*wc = p->held[side][0];
		memmove(p->held[side], p->held[side] + 1,
			--p->nheld[side] * sizeof(*wc));
		return;
	}
	for (;;) {
		KUNIT_ASSERT_EQ(test, vt_poll(p->t->cq, wc), 1);
		if (wc->qp == p->qp[side])
			return;
		other = !side;
		KUNIT_ASSERT_LT(test, p->nheld[other], FL_HELD);
		p->held[other][p->nheld[other]++] = *wc;
	}
}

/* A pair connected over the fixture; its QPs send their events here. */
static struct fl_pair *fl_setup(struct kunit *test, u16 port)
{
	struct fl_pair *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	struct ib_qp_init_attr init = {
		KT_QP_RC,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 2, .max_recv_sge = 2 },
	};
	struct kiwi_cm_id *a;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, p);
	init_waitqueue_head(&p->wq);
	p->t = cmt_setup(test, port);
	init.send_cq = p->t->cq;
	init.recv_cq = p->t->cq;
	init.event_handler = fl_qp_event;
	init.qp_context = p;
	for (i = 0; i < 2; i++)
		p->qp[i] = cmt_qp_init(p->t, &init);
	cmt_listen(p->t);
	a = cmt_connect_qp(p->t, NULL, p->t->port, p->qp[0]->qp_num);
	cmt_accept(p->t, a, p->t, p->qp[1]);
	return p;
}

/* What fl_mr() writes to byte @i of its pages. */
static u8 fl_pattern(u32 i)
{
	return i * 7 + 5;
}

/* An MR of @pd over two pages of the fixture's, mapped but not registered. */
static struct fl_mr *fl_mr(struct fl_pair *p, struct ib_pd *pd)
{
	struct kunit *test = p->t->test;
	struct fl_mr *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, m);
	m->pages = cmt_buf(p->t, 2 * PAGE_SIZE);
	KUNIT_ASSERT_TRUE(test, PAGE_ALIGNED(m->pages));
	for (i = 0; i < 2 * PAGE_SIZE; i++)
		m->pages[i] = fl_pattern(i);
	m->mr = ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, 2);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, m->mr);
	kunit_alloc_resource(test, NULL, fl_mr_free, GFP_KERNEL, m->mr);
	sg_init_table(m->sg, 2);
	sg_set_buf(&m->sg[0], m->pages + PAGE_SIZE + FL_OFF,
		   PAGE_SIZE - FL_OFF);
	sg_set_buf(&m->sg[1], m->pages, FL_TAIL);
	KUNIT_ASSERT_EQ(test, ib_dma_map_sg(p->t->dev, m->sg, 2,
					    DMA_BIDIRECTIONAL), 2);
	KUNIT_ASSERT_EQ(test, ib_map_mr_sg(m->mr, m->sg, 2, NULL, PAGE_SIZE),
			2);
	KUNIT_ASSERT_EQ(test, m->mr->length, (u64)FL_LEN);
	return m;
}

/* Byte @i of @m's MR, where the MR's pages hold it. */
static u8 *fl_byte(struct fl_mr *m, u32 i)
{
	u32 first = PAGE_SIZE - FL_OFF;

	return i < first ? m->pages + PAGE_SIZE + FL_OFF + i :
			   m->pages + i - first;
}

/* The SGE of @len bytes of @m's MR from offset @off on. */
static struct ib_sge fl_sge(struct fl_mr *m, u32 off, u32 len)
{
	return (struct ib_sge) {
		.addr = m->mr->iova + off, .length = len, .lkey = m->mr->lkey,
	};
}

/* An SGE of plain memory by local_dma_lkey. */
static struct ib_sge fl_plain(struct fl_pair *p, void *buf, u32 len)
{
	u64 dma = ib_dma_map_single(p->t->dev, buf, len, DMA_BIDIRECTIONAL);

	return (struct ib_sge) {
		.addr = dma, .length = len, .lkey = p->t->pd->local_dma_lkey,
	};
}

/* A REG_MR of @m under a new key with @access, to go ahead of @next. */
static void fl_reg(struct fl_mr *m, struct ib_reg_wr *reg, u32 access,
		   struct ib_send_wr *next)
{
	ib_update_fast_reg_key(m->mr, ib_inc_rkey(m->mr->rkey) & 0xff);
	*reg = (struct ib_reg_wr) {
		.wr = { .wr_id = 90, .opcode = IB_WR_REG_MR, .next = next },
		.mr = m->mr, .key = m->mr->rkey & 0xff, .access = access,
	};
}

/* Register @m on @qp by itself, then invalidate it if @inv. */
static void fl_reg_alone(struct kunit *test, struct fl_pair *p, int side,
			 struct fl_mr *m, u32 access, bool inv)
{
	struct ib_send_wr li = {
		.wr_id = 91, .opcode = IB_WR_LOCAL_INV,
		.send_flags = IB_SEND_SIGNALED,
		.ex.invalidate_rkey = m->mr->rkey,
	};
	struct ib_reg_wr reg;
	struct ib_wc wc;

	fl_reg(m, &reg, access, NULL);
	reg.wr.send_flags = IB_SEND_SIGNALED;
	KUNIT_ASSERT_EQ(test, ib_post_send(p->qp[side], &reg.wr, NULL), 0);
	fl_next(test, p, side, &wc);
	KUNIT_ASSERT_EQ(test, wc.status, IB_WC_SUCCESS);
	if (!inv)
		return;
	li.ex.invalidate_rkey = m->mr->rkey;
	KUNIT_ASSERT_EQ(test, ib_post_send(p->qp[side], &li, NULL), 0);
	fl_next(test, p, side, &wc);
	KUNIT_ASSERT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_ASSERT_EQ(test, wc.opcode, IB_WC_LOCAL_INV);
}

/* The next completion of QP @side: of @wr_id, with @status. */
static void fl_expect(struct kunit *test, struct fl_pair *p, int side,
		      u64 wr_id, enum ib_wc_status status)
{
	struct ib_wc wc;

	fl_next(test, p, side, &wc);
	KUNIT_EXPECT_EQ(test, wc.wr_id, wr_id);
	KUNIT_EXPECT_EQ(test, wc.status, status);
}

/*
 * A SEND whose source is a fast-registered MR, its REG_MR in the same
 * chain; then an RDMA WRITE from part of it; an MR of another PD is
 * refused when posted.
 */
static void fl_send_write_source(struct kunit *test)
{
	struct fl_pair *p = fl_setup(test, FL_PORT);
	struct fl_mr *m = fl_mr(p, p->t->pd);
	u8 *dst = cmt_buf(p->t, FL_LEN), *wdst = cmt_buf(p->t, FL_LEN);
	struct ib_mr *wmr = cmt_mr(p->t, wdst, FL_LEN,
				   IB_ACCESS_LOCAL_WRITE |
				   IB_ACCESS_REMOTE_WRITE);
	struct ib_sge src = fl_sge(m, 0, FL_LEN), sink = fl_plain(p, dst,
								   FL_LEN);
	struct ib_send_wr send = {
		.wr_id = 1, .opcode = IB_WR_SEND, .sg_list = &src,
		.num_sge = 1, .send_flags = IB_SEND_SIGNALED,
	};
	struct ib_recv_wr recv = { .wr_id = 2, .sg_list = &sink, .num_sge = 1 };
	struct ib_rdma_wr write = {
		.wr = { .wr_id = 3, .opcode = IB_WR_RDMA_WRITE,
			.sg_list = &src, .num_sge = 1,
			.send_flags = IB_SEND_SIGNALED },
		.remote_addr = wmr->iova, .rkey = wmr->rkey,
	};
	struct ib_reg_wr reg;
	struct ib_sge none = { .length = 0 };
	struct ib_wc wc;
	struct ib_pd *pd2;
	struct fl_mr *m2;
	u32 i;

	KUNIT_ASSERT_EQ(test, ib_post_recv(p->qp[1], &recv, NULL), 0);
	fl_reg(m, &reg, IB_ACCESS_LOCAL_WRITE, &send);
	src = fl_sge(m, 0, FL_LEN);	/* the key the REG_MR gives */
	KUNIT_ASSERT_EQ(test, ib_post_send(p->qp[0], &reg.wr, NULL), 0);
	fl_expect(test, p, 0, 1, IB_WC_SUCCESS);
	fl_next(test, p, 1, &wc);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.byte_len, (u32)FL_LEN);
	for (i = 0; i < FL_LEN; i++)
		if (dst[i] != *fl_byte(m, i))
			break;
	KUNIT_EXPECT_EQ(test, i, (u32)FL_LEN);

	/* A WRITE of its last FL_LEN - 50 bytes, then a SEND behind it. */
	src = fl_sge(m, 50, FL_LEN - 50);
	KUNIT_ASSERT_EQ(test, ib_post_recv(p->qp[1], &recv, NULL), 0);
	send.sg_list = &none;
	write.wr.next = &send;
	KUNIT_ASSERT_EQ(test, ib_post_send(p->qp[0], &write.wr, NULL), 0);
	fl_expect(test, p, 0, 3, IB_WC_SUCCESS);
	fl_expect(test, p, 0, 1, IB_WC_SUCCESS);
	fl_expect(test, p, 1, 2, IB_WC_SUCCESS);
	for (i = 0; i < FL_LEN - 50; i++)
		if (wdst[i] != *fl_byte(m, i + 50))
			break;
	KUNIT_EXPECT_EQ(test, i, (u32)FL_LEN - 50);

	/* An MR of another PD names nothing on this QP. */
	pd2 = ib_alloc_pd(p->t->dev, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pd2);
	kunit_alloc_resource(test, NULL, fl_pd_free, GFP_KERNEL, pd2);
	m2 = fl_mr(p, pd2);
	src = fl_sge(m2, 0, 64);
	send.sg_list = &src;
	send.next = NULL;
	KUNIT_EXPECT_EQ(test, ib_post_send(p->qp[0], &send, NULL), -EINVAL);
}

/*
 * A RECV of two SGEs, plain memory then a fast-registered MR, filled by
 * one SEND of many segments.
 */
static void fl_recv_sink(struct kunit *test)
{
	struct fl_pair *p = fl_setup(test, FL_PORT + 1);
	struct fl_mr *m = fl_mr(p, p->t->pd);
	u32 len = FL_HEAD + FL_LEN, i;
	u8 *src = cmt_buf(p->t, len), *head = cmt_buf(p->t, FL_HEAD);
	struct ib_sge sinks[2] = { fl_plain(p, head, FL_HEAD) };
	struct ib_sge sge = fl_plain(p, src, len);
	struct ib_recv_wr recv = { .wr_id = 2, .sg_list = sinks, .num_sge = 2 };
	struct ib_send_wr send = {
		.wr_id = 1, .opcode = IB_WR_SEND, .sg_list = &sge,
		.num_sge = 1, .send_flags = IB_SEND_SIGNALED,
	};
	struct ib_wc wc;

	for (i = 0; i < len; i++)
		src[i] = i * 11 + 1;
	fl_reg_alone(test, p, 1, m, IB_ACCESS_LOCAL_WRITE, false);
	sinks[1] = fl_sge(m, 0, FL_LEN);
	KUNIT_ASSERT_EQ(test, ib_post_recv(p->qp[1], &recv, NULL), 0);
	KUNIT_ASSERT_EQ(test, ib_post_send(p->qp[0], &send, NULL), 0);
	fl_expect(test, p, 0, 1, IB_WC_SUCCESS);
	fl_next(test, p, 1, &wc);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.byte_len, len);
	KUNIT_EXPECT_EQ(test, memcmp(head, src, FL_HEAD), 0);
	for (i = 0; i < FL_LEN; i++)
		if (*fl_byte(m, i) != src[FL_HEAD + i])
			break;
	KUNIT_EXPECT_EQ(test, i, (u32)FL_LEN);
	/* The bytes before the MR's first are as they were. */
	KUNIT_EXPECT_EQ(test, m->pages[PAGE_SIZE + FL_OFF - 1],
			fl_pattern(PAGE_SIZE + FL_OFF - 1));
}

/**
 * struct fl_fault_case - an SGE in an MR it may not use
 * @name: what is wrong
 * @opcode: the request on QP 0 (a SEND whose sink is QP 1's bad RECV
 *	if @recv)
 * @recv: the bad SGE is QP 1's RECV sink, not QP 0's source
 * @access: the rights the MR is registered with
 * @inv: the MR is invalidated after its registration
 */
struct fl_fault_case {
	const char *name;
	enum ib_wr_opcode opcode;
	bool recv;
	u32 access;
	bool inv;
};

static const struct fl_fault_case fl_fault_cases[] = {
	{ "SEND from an invalidated MR", IB_WR_SEND, false,
	  IB_ACCESS_LOCAL_WRITE, true },
	{ "WRITE from an invalidated MR", IB_WR_RDMA_WRITE, false,
	  IB_ACCESS_LOCAL_WRITE, true },
	{ "RECV into an invalidated MR", IB_WR_SEND, true,
	  IB_ACCESS_LOCAL_WRITE, true },
	{ "RECV into an MR without local write", IB_WR_SEND, true,
	  IB_ACCESS_REMOTE_READ, false },
};

static void fl_fault_case_desc(const struct fl_fault_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(fl_fault_case, fl_fault_cases, fl_fault_case_desc);

/*
 * The request whose SGE fails completes with IB_WC_LOC_PROT_ERR and its
 * QP hears IB_EVENT_QP_ACCESS_ERR; the peer, which did nothing wrong,
 * gets a TERMINATE: its QP hears IB_EVENT_QP_FATAL and its RECV is
 * flushed. No byte reaches the peer's memory.
 */
static void fl_fault(struct kunit *test)
{
	const struct fl_fault_case *c = test->param_value;
	struct fl_pair *p = fl_setup(test, FL_PORT + 2);
	int bad = c->recv ? 1 : 0;
	struct fl_mr *m = fl_mr(p, p->t->pd);
	u8 *plain = cmt_buf(p->t, FL_LEN);
	struct ib_mr *wmr = cmt_mr(p->t, plain, FL_LEN,
				   IB_ACCESS_LOCAL_WRITE |
				   IB_ACCESS_REMOTE_WRITE);
	struct ib_sge good = fl_plain(p, plain, FL_LEN), fr;
	struct ib_recv_wr recv = { .wr_id = 2, .num_sge = 1 };
	struct ib_rdma_wr req = {
		.wr = { .wr_id = 1, .opcode = c->opcode, .num_sge = 1,
			.send_flags = IB_SEND_SIGNALED },
		.remote_addr = wmr->iova, .rkey = wmr->rkey,
	};

	fl_reg_alone(test, p, bad, m, c->access, c->inv);
	fr = fl_sge(m, 0, FL_LEN);
	recv.sg_list = c->recv ? &fr : &good;
	req.wr.sg_list = c->recv ? &good : &fr;
	KUNIT_ASSERT_EQ(test, ib_post_recv(p->qp[1], &recv, NULL), 0);
	KUNIT_ASSERT_EQ(test, ib_post_send(p->qp[0], &req.wr, NULL), 0);
	if (c->recv) {
		fl_expect(test, p, 1, 2, IB_WC_LOC_PROT_ERR);
	} else {
		fl_expect(test, p, 0, 1, IB_WC_LOC_PROT_ERR);
		fl_expect(test, p, 1, 2, IB_WC_WR_FLUSH_ERR);
	}
	KUNIT_EXPECT_TRUE(test, fl_heard(p, bad, IB_EVENT_QP_ACCESS_ERR));
	KUNIT_EXPECT_TRUE(test, fl_heard(p, !bad, IB_EVENT_QP_FATAL));
	KUNIT_EXPECT_FALSE(test, test_bit(IB_EVENT_QP_FATAL,
					  &p->events[bad]));
	if (!c->recv)
		KUNIT_EXPECT_PTR_EQ(test, memchr_inv(plain, 0, FL_LEN), NULL);
}

static struct kunit_case fl_cases[] = {
	KUNIT_CASE(fl_send_write_source),
	KUNIT_CASE(fl_recv_sink),
	KUNIT_CASE_PARAM(fl_fault, fl_fault_case_gen_params),
	{}
};

static struct kunit_suite fl_suite = {
	.name = "kiwi_softiw_fr_local",
	.suite_init = cmt_suite_init,
	.suite_exit = cmt_suite_exit,
	.test_cases = fl_cases,
};

kunit_test_suite(fl_suite);
