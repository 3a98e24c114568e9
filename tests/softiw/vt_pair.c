// SPDX-License-Identifier: GPL-2.0
/*
 * The verbs suites' connected pair of QPs (vt_pair.h).
 */
#include <linux/delay.h>
#include <linux/dma-mapping.h>

#include "kiwi_test.h"
#include "verbs_util.h"
#include "vt_pair.h"

static void vt_init(struct ib_qp_init_attr *init, struct ib_cq *scq,
		    struct ib_cq *rcq)
{
	*init = (struct ib_qp_init_attr) {
		KT_QP_RC,
		.send_cq = scq, .recv_cq = rcq,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
}

/**
 * vt_connect_cqs() - create both QPs and connect QP 0 to QP 1
 * @p: the pair
 * @scq: QP 0's send CQ, or NULL for the fixture's
 * @rcq: QP 0's receive CQ, or NULL for the fixture's
 */
void vt_connect_cqs(struct vt_pair *p, struct ib_cq *scq, struct ib_cq *rcq)
{
	struct cmt *t = p->t;
	struct ib_qp_init_attr init;
	struct kiwi_cm_id *a;
	int i;

	vt_init(&init, scq ?: t->cq, rcq ?: t->cq);
	init.cap.max_rdma_ctxs = p->rdma_ctxs;
	if (p->send_sge)
		init.cap.max_send_sge = p->send_sge;
	init.cap.max_inline_data = p->inline_data;
	p->qp[0] = cmt_qp_init(t, &init);
	vt_init(&init, t->cq, t->cq);
	p->qp[1] = cmt_qp_init(t, &init);
	for (i = 0; i < 2; i++) {
		p->buf[i] = cmt_buf(t, VT_LEN);
		p->dma[i] = ib_dma_map_single(t->dev, p->buf[i], VT_LEN,
					      DMA_BIDIRECTIONAL);
		KUNIT_ASSERT_EQ(t->test, ib_dma_mapping_error(t->dev,
							      p->dma[i]), 0);
	}
	cmt_listen(t);
	a = cmt_connect_qp(t, NULL, t->port, p->qp[0]->qp_num);
	cmt_accept(t, a, t, p->qp[1]);
}

/**
 * vt_connect() - vt_connect_cqs() with the fixture's receive CQ
 * @p: the pair
 * @scq: QP 0's send CQ, or NULL for the fixture's
 */
void vt_connect(struct vt_pair *p, struct ib_cq *scq)
{
	vt_connect_cqs(p, scq, NULL);
}

/**
 * vt_sge() - an SGE of a side's buffer
 * @p: the pair
 * @i: the side
 *
 * Return: the whole buffer, by DMA address and the PD's local_dma_lkey.
 */
struct ib_sge vt_sge(struct vt_pair *p, int i)
{
	return (struct ib_sge) {
		.addr = p->dma[i], .length = VT_LEN,
		.lkey = p->t->pd->local_dma_lkey,
	};
}

/**
 * vt_recv() - post a RECV of QP 1's whole buffer
 * @p: the pair
 * @wr_id: its cookie
 *
 * Return: what ib_post_recv() returned.
 */
int vt_recv(struct vt_pair *p, u64 wr_id)
{
	struct ib_sge sge = vt_sge(p, 1);
	struct ib_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge,
				 .num_sge = 1 };

	return ib_post_recv(p->qp[1], &wr, NULL);
}

/**
 * vt_send() - post a SEND of QP 0's whole buffer
 * @p: the pair
 * @wr_id: its cookie
 * @flags: its send flags
 *
 * Return: what ib_post_send() returned.
 */
int vt_send(struct vt_pair *p, u64 wr_id, int flags)
{
	struct ib_sge sge = vt_sge(p, 0);
	struct ib_send_wr wr = { .wr_id = wr_id, .sg_list = &sge,
				 .num_sge = 1, .opcode = IB_WR_SEND,
				 .send_flags = flags };

	return ib_post_send(p->qp[0], &wr, NULL);
}

/**
 * vt_poll() - the next completion of a CQ, waiting up to 5 s
 * @cq: the CQ
 * @wc: set to it
 *
 * Return: 1, or 0 if none came.
 */
int vt_poll(struct ib_cq *cq, struct ib_wc *wc)
{
	unsigned long end = jiffies + 5 * HZ;
	int n;

	do {
		n = ib_poll_cq(cq, 1, wc);
		if (n)
			return n;
		usleep_range(1000, 2000);
	} while (time_before(jiffies, end));
	return 0;
}

/**
 * vt_setup() - a pair on a new cm fixture
 * @test: the test
 * @port: the fixture's port
 *
 * Return: the pair, its QPs not created yet (vt_connect()).
 */
struct vt_pair *vt_setup(struct kunit *test, u16 port)
{
	struct vt_pair *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	p->t = cmt_setup(test, port);
	return p;
}
