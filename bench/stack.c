// SPDX-License-Identifier: GPL-2.0
/*
 * The verbs of the benchmark's connections, in Linux's API, compiled once
 * against Linux's headers (stack_linux.c) and once against kiwi's
 * (kiwi/stack_kiwi.c), each defining BENCH_STACK_NAME and
 * BENCH_STACK_DESC first; rdma.c follows. A protection domain is shared
 * by the connections of one device, as ULPs do; each connection has its
 * own CQ and QP.
 */
#include <linux/mutex.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#define BENCH_MAX_DEVICES	4

/**
 * struct bench_qpres - what a connection's QP needs besides the id
 * @cq: its CQ, for sends and receives
 */
struct bench_qpres {
	struct ib_cq *cq;
};

static struct ib_pd *bench_pds[BENCH_MAX_DEVICES];
static DEFINE_MUTEX(bench_pd_lock);	/* protects bench_pds */

/* The shared PD of @dev, allocated on first use. */
static struct ib_pd *bench_pd_of(struct ib_device *dev)
{
	struct ib_pd *pd = ERR_PTR(-ENOSPC);
	int i;

	mutex_lock(&bench_pd_lock);
	for (i = 0; i < BENCH_MAX_DEVICES; i++) {
		if (bench_pds[i] && bench_pds[i]->device == dev) {
			pd = bench_pds[i];
			break;
		}
		if (!bench_pds[i]) {
			pd = ib_alloc_pd(dev, 0);
			if (!IS_ERR(pd))
				bench_pds[i] = pd;
			break;
		}
	}
	mutex_unlock(&bench_pd_lock);
	return pd;
}

static int bench_qp_create(struct rdma_cm_id *id, struct bench_qpres *r)
{
	struct ib_qp_init_attr attr = {
		.cap = {
			.max_send_wr = 4,
			.max_recv_wr = 4,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
	};
	struct ib_pd *pd = bench_pd_of(id->device);
	int ret;

	if (IS_ERR(pd))
		return PTR_ERR(pd);
	r->cq = ib_alloc_cq(id->device, NULL, 8, 0, IB_POLL_DIRECT);
	if (IS_ERR(r->cq))
		return PTR_ERR(r->cq);
	attr.send_cq = r->cq;
	attr.recv_cq = r->cq;
	ret = rdma_create_qp(id, pd, &attr);
	if (ret)
		ib_free_cq(r->cq);
	return ret;
}

static void bench_qp_destroy(struct bench_qpres *r)
{
	ib_free_cq(r->cq);
}

static void bench_verbs_exit(void)
{
	int i;

	for (i = 0; i < BENCH_MAX_DEVICES && bench_pds[i]; i++)
		ib_dealloc_pd(bench_pds[i]);
}

#include "rdma.c"

MODULE_DESCRIPTION(BENCH_STACK_DESC);
