/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Two QPs of softiw connected over lo through the cm fixture, with a
 * buffer each named by DMA address and local_dma_lkey: what the verbs
 * suites post on.
 */
#ifndef KIWI_TEST_VT_PAIR_H
#define KIWI_TEST_VT_PAIR_H

#include <kunit/test.h>
#include <rdma/ib_verbs.h>

#include "cm_fixture.h"

#define VT_LEN	64	/* bytes of each side's buffer */

/*
 * The first port of kiwi_softiw_verbs and kiwi_softiw_verbs_rw: their
 * cases listen on VT_PORT + 0 to VT_PORT + 12.
 */
#define VT_PORT	22401

/**
 * struct vt_pair - two connected QPs on the fixture's device
 * @t: the fixture
 * @qp: the active side (0) and the passive side (1)
 * @buf: a buffer of VT_LEN bytes for each
 * @dma: its DMA address, mapped with ib_dma_map_single()
 * @rdma_ctxs: cap.max_rdma_ctxs of QP 0
 * @send_sge: cap.max_send_sge of QP 0 if not 0
 * @inline_data: cap.max_inline_data of QP 0
 */
struct vt_pair {
	struct cmt *t;
	struct ib_qp *qp[2];
	u8 *buf[2];
	u64 dma[2];
	u32 rdma_ctxs;
	u32 send_sge;
	u32 inline_data;
};

struct vt_pair *vt_setup(struct kunit *test, u16 port);
void vt_connect_cqs(struct vt_pair *p, struct ib_cq *scq, struct ib_cq *rcq);
void vt_connect(struct vt_pair *p, struct ib_cq *scq);
struct ib_sge vt_sge(struct vt_pair *p, int i);
int vt_recv(struct vt_pair *p, u64 wr_id);
int vt_send(struct vt_pair *p, u64 wr_id, int flags);
int vt_poll(struct ib_cq *cq, struct ib_wc *wc);

#endif
