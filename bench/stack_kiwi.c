// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_bench_kiwi: the benchmark's rdma_cm source (rdma.c) built against
 * kiwi. Only the verbs below are kiwi's own; every rdma_* call goes
 * through kiwi's renaming header.
 */
#include <kiwi/rdma_cm.h>
#include <kiwi/verbs.h>

#define BENCH_STACK_NAME	"kiwi"

/**
 * struct bench_qpres - what a connection's QP needs besides the id
 * @cq: its CQ, for sends and receives
 */
struct bench_qpres {
	struct kiwi_cq *cq;
};

static int bench_qp_create(struct rdma_cm_id *id, struct bench_qpres *r)
{
	struct kiwi_qp_init_attr attr = {
		.cap = {
			.max_send_wr = 4,
			.max_recv_wr = 4,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
	};
	int ret;

	r->cq = kiwi_create_cq(id->device, 8, NULL, NULL);
	if (IS_ERR(r->cq))
		return PTR_ERR(r->cq);
	attr.send_cq = r->cq;
	attr.recv_cq = r->cq;
	ret = rdma_create_qp(id, NULL, &attr);
	if (ret)
		kiwi_destroy_cq(r->cq);
	return ret;
}

static void bench_qp_destroy(struct bench_qpres *r)
{
	kiwi_destroy_cq(r->cq);
}

static void bench_verbs_exit(void)
{
}

#include "rdma.c"

MODULE_DESCRIPTION("kiwi connection benchmark: kiwi's rdma_cm");
