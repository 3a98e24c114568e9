// SPDX-License-Identifier: GPL-2.0
/*
 * The data path of the benchmark over rdma_cm and verbs, in Linux's API:
 * one source compiled against Linux's headers (dp_linux.c) and against
 * kiwi's (kiwi/dp_kiwi.c), each defining DP_STACK_NAME and DP_STACK_DESC
 * first.
 *
 * The client says in its private data what it will do (struct dp_hello).
 * Each side has a 1 MiB buffer, a fast-registered MR over it for remote
 * access, and a CQ polled in softirq (IB_POLL_SOFTIRQ), whose handlers
 * post the next request. Once established, the server registers its MR
 * and SENDs its address and rkey (struct dp_region); the client, once it
 * has them, keeps the transfer's depth of requests in flight until its
 * time is up:
 *
 *   SEND   SENDs of the size; the server keeps DP_SERVER_RECVS RECVs
 *          posted and posts each again as it completes (iWARP has no
 *          receiver-not-ready retry: a SEND that finds no RECV ends the
 *          connection, and the transfer reports the error)
 *   WRITE  RDMA WRITEs into the server's buffer
 *   READ   RDMA READs from it, into the client's MR (an iWARP READ's
 *          sink is named by an STag the peer writes to)
 *   PING   one 64-byte SEND at a time, answered by a 64-byte SEND
 *
 * Local buffers are named by DMA address and the PD's local_dma_lkey, as
 * Linux's ULPs do.
 */
#include <linux/completion.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/wait.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "dp.h"

#define DP_TIMEOUT_MS		5000
#define DP_BACKLOG		16
#define DP_SERVER_RECVS		256
#define DP_PING_RECVS		4
#define DP_CTL_SIZE		64
/* Where a ping or its answer is sent from (received at offset 0). */
#define DP_PING_TX		4096

/**
 * struct dp_hello - the client's private data
 * @op: enum kiwi_bench_dp_op
 * @size: bytes a message
 * @depth: requests in flight
 */
struct dp_hello {
	__be32 op;
	__be32 size;
	__be32 depth;
};

/**
 * struct dp_region - the server's buffer, for RDMA WRITE and READ
 * @addr: its address in the MR
 * @rkey: the MR's rkey
 * @len: its length
 */
struct dp_region {
	__be64 addr;
	__be32 rkey;
	__be32 len;
};

/**
 * struct dp_conn - a connection of either side
 * @id: its id
 * @pd: its PD
 * @cq: its CQ, for sends and receives
 * @mr: the MR over @buf, for remote access
 * @buf: the data buffer, KIWI_BENCH_DP_MAX_SIZE bytes
 * @sg: @buf, DMA-mapped while @mapped
 * @ctl: the region message (sent by the server, received by the client)
 * @ctl_dma: @ctl's DMA address while @ctl_mapped
 * @mapped: @sg is mapped
 * @ctl_mapped: @ctl is mapped
 * @has_qp: the QP exists
 * @p: the transfer
 * @r: the client's result
 * @op_cqe: the client's requests and pongs; the server's RECVs
 * @send_cqe: other sends: a ping, a pong, the region message
 * @ctl_cqe: the client's RECV of the region message
 * @reg_cqe: the fast registration
 * @remote_addr: the server's buffer (client)
 * @remote_rkey: its rkey (client)
 * @t0: when the first request was posted (client)
 * @end: when the client stops posting
 * @last: when the last request completed
 * @sent: when the last ping was posted
 * @inflight: requests not completed, plus one while posting the first
 * @err: the first error
 * @step: completed at each connection event the client waits for
 * @ready: completed when the region message has come (client)
 * @done: completed when the last request has completed (client)
 * @closed: completed at DISCONNECTED (client)
 * @status: the outcome of the step the client waited for: 1 or -errno
 */
struct dp_conn {
	struct rdma_cm_id *id;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_mr *mr;
	void *buf;
	struct scatterlist sg;
	struct dp_region *ctl;
	u64 ctl_dma;
	bool mapped;
	bool ctl_mapped;
	bool has_qp;
	struct kiwi_bench_dp_params p;
	struct kiwi_bench_dp_result *r;
	struct ib_cqe op_cqe;
	struct ib_cqe send_cqe;
	struct ib_cqe ctl_cqe;
	struct ib_cqe reg_cqe;
	u64 remote_addr;
	u32 remote_rkey;
	u64 t0;
	u64 end;
	u64 last;
	u64 sent;
	atomic_t inflight;
	atomic_t err;
	struct completion step;
	struct completion ready;
	struct completion done;
	struct completion closed;
	int status;
};

/**
 * struct dp_listener - a listening id
 * @id: the id
 * @node: entry in dp_listeners
 */
struct dp_listener {
	struct rdma_cm_id *id;
	struct list_head node;
};

static LIST_HEAD(dp_listeners);
static DEFINE_MUTEX(dp_listen_lock);	/* protects dp_listeners */
static atomic_t dp_served = ATOMIC_INIT(0);
static DECLARE_WAIT_QUEUE_HEAD(dp_served_wq);

static void dp_fail(struct dp_conn *dc, int err)
{
	atomic_cmpxchg(&dc->err, 0, err);
}

static dma_addr_t dp_buf_dma(const struct dp_conn *dc, u32 off)
{
	return sg_dma_address(&dc->sg) + off;
}

/*
 * Free what dp_res_create() made; the QP first, drained, so that no
 * handler runs on it (and posts again) any more, then what it used.
 */
static void dp_res_destroy(struct dp_conn *dc)
{
	struct ib_device *dev = dc->id->device;

	if (dc->has_qp) {
		ib_drain_qp(dc->id->qp);
		rdma_destroy_qp(dc->id);
	}
	dc->has_qp = false;
	if (dc->mr)
		ib_dereg_mr(dc->mr);
	if (dc->ctl_mapped)
		ib_dma_unmap_single(dev, dc->ctl_dma, DP_CTL_SIZE,
				    DMA_BIDIRECTIONAL);
	if (dc->mapped)
		ib_dma_unmap_sg(dev, &dc->sg, 1, DMA_BIDIRECTIONAL);
	if (dc->cq)
		ib_free_cq(dc->cq);
	if (dc->pd)
		ib_dealloc_pd(dc->pd);
	kfree(dc->ctl);
	kfree(dc->buf);
	dc->mr = NULL;
	dc->cq = NULL;
	dc->pd = NULL;
	dc->ctl = NULL;
	dc->buf = NULL;
	dc->mapped = false;
	dc->ctl_mapped = false;
}

static int dp_res_buffers(struct dp_conn *dc)
{
	struct ib_device *dev = dc->id->device;

	dc->buf = kzalloc(KIWI_BENCH_DP_MAX_SIZE, GFP_KERNEL);
	dc->ctl = kzalloc(DP_CTL_SIZE, GFP_KERNEL);
	if (!dc->buf || !dc->ctl)
		return -ENOMEM;
	sg_init_one(&dc->sg, dc->buf, KIWI_BENCH_DP_MAX_SIZE);
	if (ib_dma_map_sg(dev, &dc->sg, 1, DMA_BIDIRECTIONAL) != 1)
		return -ENOMEM;
	dc->mapped = true;
	dc->ctl_dma = ib_dma_map_single(dev, dc->ctl, DP_CTL_SIZE,
					DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(dev, dc->ctl_dma))
		return -ENOMEM;
	dc->ctl_mapped = true;
	dc->mr = ib_alloc_mr(dc->pd, IB_MR_TYPE_MEM_REG,
			     KIWI_BENCH_DP_MAX_SIZE >> PAGE_SHIFT);
	if (IS_ERR(dc->mr)) {
		int ret = PTR_ERR(dc->mr);

		dc->mr = NULL;
		return ret;
	}
	if (ib_map_mr_sg(dc->mr, &dc->sg, 1, NULL, PAGE_SIZE) != 1)
		return -EINVAL;
	return 0;
}

/* PD, CQ, QP and buffers; on failure, dp_res_destroy() frees the part. */
static int dp_res_create(struct dp_conn *dc, u32 send_wr, u32 recv_wr)
{
	struct ib_qp_init_attr attr = {
		.cap = {
			.max_send_wr = send_wr,
			.max_recv_wr = recv_wr,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
	};
	struct ib_device *dev = dc->id->device;
	int ret;

	dc->pd = ib_alloc_pd(dev, 0);
	if (IS_ERR(dc->pd)) {
		ret = PTR_ERR(dc->pd);
		dc->pd = NULL;
		return ret;
	}
	dc->cq = ib_alloc_cq(dev, dc, send_wr + recv_wr, 0, IB_POLL_SOFTIRQ);
	if (IS_ERR(dc->cq)) {
		ret = PTR_ERR(dc->cq);
		dc->cq = NULL;
		return ret;
	}
	ret = dp_res_buffers(dc);
	if (ret)
		return ret;
	attr.send_cq = dc->cq;
	attr.recv_cq = dc->cq;
	ret = rdma_create_qp(dc->id, dc->pd, &attr);
	dc->has_qp = !ret;
	return ret;
}

static void dp_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct dp_conn *dc = cq->cq_context;

	if (wc->status != IB_WC_SUCCESS)
		dp_fail(dc, -EIO);
}

static int dp_post_recv(struct dp_conn *dc, struct ib_cqe *cqe, u64 addr,
			u32 len)
{
	struct ib_sge sge = {
		.addr = addr, .length = len, .lkey = dc->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = { .wr_cqe = cqe, .sg_list = &sge, .num_sge = 1 };

	return ib_post_recv(dc->id->qp, &wr, NULL);
}

static int dp_post_send(struct dp_conn *dc, u64 addr, u32 len)
{
	struct ib_sge sge = {
		.addr = addr, .length = len, .lkey = dc->pd->local_dma_lkey,
	};
	struct ib_send_wr wr = {
		.wr_cqe = &dc->send_cqe,
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
		.sg_list = &sge,
		.num_sge = 1,
	};

	return ib_post_send(dc->id->qp, &wr, NULL);
}

/* Register the MR over the buffer for remote read and write. */
static int dp_post_reg(struct dp_conn *dc)
{
	struct ib_reg_wr wr = {
		.wr = {
			.opcode = IB_WR_REG_MR,
			.wr_cqe = &dc->reg_cqe,
			.send_flags = IB_SEND_SIGNALED,
		},
		.mr = dc->mr,
		.key = dc->mr->rkey,
		.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ |
			  IB_ACCESS_REMOTE_WRITE,
	};

	dc->reg_cqe.done = dp_send_done;
	return ib_post_send(dc->id->qp, &wr.wr, NULL);
}

static struct dp_conn *dp_conn_new(struct rdma_cm_id *id)
{
	struct dp_conn *dc = kzalloc(sizeof(*dc), GFP_KERNEL);

	if (!dc)
		return NULL;
	dc->id = id;
	dc->send_cqe.done = dp_send_done;
	init_completion(&dc->step);
	init_completion(&dc->ready);
	init_completion(&dc->done);
	init_completion(&dc->closed);
	return dc;
}

/* Server: a RECV of the SEND transfer, or a ping, came (or was flushed). */
static void dp_server_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct dp_conn *dc = cq->cq_context;
	bool ping = dc->p.op == KIWI_BENCH_DP_PING;
	u32 len = ping ? KIWI_BENCH_DP_PING_SIZE : dc->p.size;

	if (wc->status != IB_WC_SUCCESS) {
		dp_fail(dc, -EIO);
		return;
	}
	if (dp_post_recv(dc, &dc->op_cqe, dp_buf_dma(dc, 0), len) ||
	    (ping && dp_post_send(dc, dp_buf_dma(dc, DP_PING_TX), len)))
		dp_fail(dc, -EIO);
}

/* Server: take a transfer's parameters from the client's private data. */
static int dp_server_params(struct dp_conn *dc, const struct rdma_cm_event *ev)
{
	const struct dp_hello *h = ev->param.conn.private_data;

	if (ev->param.conn.private_data_len < sizeof(*h))
		return -EINVAL;
	dc->p.op = be32_to_cpu(h->op);
	dc->p.size = be32_to_cpu(h->size);
	dc->p.depth = be32_to_cpu(h->depth);
	if (dc->p.op >= KIWI_BENCH_DP_NR || !dc->p.size ||
	    dc->p.size > KIWI_BENCH_DP_MAX_SIZE)
		return -EINVAL;
	return 0;
}

/* Server: the RECVs a transfer needs before it may start. */
static int dp_server_post_recvs(struct dp_conn *dc, u32 n)
{
	u32 len = dc->p.op == KIWI_BENCH_DP_PING ? KIWI_BENCH_DP_PING_SIZE :
						   dc->p.size;
	int ret = 0;

	dc->op_cqe.done = dp_server_recv_done;
	if (dc->p.op != KIWI_BENCH_DP_SEND && dc->p.op != KIWI_BENCH_DP_PING)
		return 0;
	while (n-- && !ret)
		ret = dp_post_recv(dc, &dc->op_cqe, dp_buf_dma(dc, 0), len);
	return ret;
}

static int dp_server_request(struct rdma_cm_id *id,
			     const struct rdma_cm_event *ev)
{
	/* The event's depths are this end's already: the client's ORD is
	 * the responder resources it asks of us.
	 */
	struct rdma_conn_param param = {
		.responder_resources = ev->param.conn.responder_resources,
		.initiator_depth = ev->param.conn.initiator_depth,
	};
	u32 recvs = DP_PING_RECVS;
	struct dp_conn *dc;
	int ret;

	dc = dp_conn_new(id);
	if (!dc)
		return -ENOMEM;
	ret = dp_server_params(dc, ev);
	if (ret)
		goto err_free_dc;
	if (dc->p.op == KIWI_BENCH_DP_SEND)
		recvs = min_t(u32, DP_SERVER_RECVS,
			      id->device->attrs.max_qp_wr - 1);
	ret = dp_res_create(dc, 2 + DP_PING_RECVS, recvs);
	if (!ret)
		ret = dp_server_post_recvs(dc, recvs);
	if (ret)
		goto err_destroy_res;
	id->context = dc;
	ret = rdma_accept(id, &param);
	if (ret)
		goto err_destroy_res;
	atomic_inc(&dp_served);
	return 0;

err_destroy_res:
	id->context = NULL;
	dp_res_destroy(dc);
err_free_dc:
	kfree(dc);
	return ret;
}

/* Server: established; register the buffer and tell the client where. */
static void dp_server_established(struct dp_conn *dc)
{
	dc->ctl->addr = cpu_to_be64(dc->mr->iova);
	dc->ctl->rkey = cpu_to_be32(dc->mr->rkey);
	dc->ctl->len = cpu_to_be32(KIWI_BENCH_DP_MAX_SIZE);
	ib_dma_sync_single_for_device(dc->id->device, dc->ctl_dma,
				      DP_CTL_SIZE, DMA_BIDIRECTIONAL);
	if (dp_post_reg(dc) ||
	    dp_post_send(dc, dc->ctl_dma, sizeof(struct dp_region)))
		dp_fail(dc, -EIO);
}

/* The server's connection ended: free it; returning 1 destroys the id. */
static int dp_server_gone(struct rdma_cm_id *id)
{
	struct dp_conn *dc = id->context;

	if (!dc)
		return 0;
	dp_res_destroy(dc);
	kfree(dc);
	id->context = NULL;
	if (atomic_dec_and_test(&dp_served))
		wake_up(&dp_served_wq);
	return 1;
}

static int dp_server_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	switch (ev->event) {
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		return dp_server_request(id, ev) ? 1 : 0;
	case RDMA_CM_EVENT_ESTABLISHED:
		if (id->context)
			dp_server_established(id->context);
		return 0;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		return dp_server_gone(id);
	default:
		return 0;
	}
}

static int dp_serve(struct net *net, const struct sockaddr_storage *addr)
{
	struct dp_listener *l = kzalloc(sizeof(*l), GFP_KERNEL);
	int ret;

	if (!l)
		return -ENOMEM;
	l->id = rdma_create_id(net, dp_server_handler, NULL, RDMA_PS_TCP,
			       IB_QPT_RC);
	if (IS_ERR(l->id)) {
		ret = PTR_ERR(l->id);
		goto err_free_l;
	}
	ret = rdma_bind_addr(l->id, (struct sockaddr *)addr);
	if (!ret)
		ret = rdma_listen(l->id, DP_BACKLOG);
	if (ret)
		goto err_destroy_id;
	mutex_lock(&dp_listen_lock);
	list_add_tail(&l->node, &dp_listeners);
	mutex_unlock(&dp_listen_lock);
	return 0;

err_destroy_id:
	rdma_destroy_id(l->id);
err_free_l:
	kfree(l);
	return ret;
}

static void dp_unserve(void)
{
	struct dp_listener *l, *tmp;

	mutex_lock(&dp_listen_lock);
	list_for_each_entry_safe(l, tmp, &dp_listeners, node) {
		rdma_destroy_id(l->id);
		list_del(&l->node);
		kfree(l);
	}
	mutex_unlock(&dp_listen_lock);
	wait_event_timeout(dp_served_wq, !atomic_read(&dp_served),
			   msecs_to_jiffies(DP_TIMEOUT_MS));
}

/* Client: the next request of the transfer. */
static int dp_post_op(struct dp_conn *dc)
{
	struct ib_sge sge = {
		.addr = dp_buf_dma(dc, 0),
		.length = dc->p.size,
		.lkey = dc->pd->local_dma_lkey,
	};
	struct ib_rdma_wr wr = {
		.wr = {
			.wr_cqe = &dc->op_cqe,
			.opcode = IB_WR_SEND,
			.send_flags = IB_SEND_SIGNALED,
			.sg_list = &sge,
			.num_sge = 1,
		},
		.remote_addr = dc->remote_addr,
		.rkey = dc->remote_rkey,
	};

	if (dc->p.op == KIWI_BENCH_DP_WRITE) {
		wr.wr.opcode = IB_WR_RDMA_WRITE;
	} else if (dc->p.op == KIWI_BENCH_DP_READ) {
		wr.wr.opcode = IB_WR_RDMA_READ;
		sge.addr = dc->mr->iova;
		sge.lkey = dc->mr->lkey;
	}
	return ib_post_send(dc->id->qp, &wr.wr, NULL);
}

/* Client: a ping, with the RECV of its answer posted first. */
static int dp_ping(struct dp_conn *dc)
{
	int ret = dp_post_recv(dc, &dc->op_cqe, dp_buf_dma(dc, 0),
			       KIWI_BENCH_DP_PING_SIZE);

	if (ret)
		return ret;
	dc->sent = ktime_get_ns();
	return dp_post_send(dc, dp_buf_dma(dc, DP_PING_TX),
			    KIWI_BENCH_DP_PING_SIZE);
}

static int dp_next(struct dp_conn *dc)
{
	return dc->p.op == KIWI_BENCH_DP_PING ? dp_ping(dc) : dp_post_op(dc);
}

/* Client: a request (or a ping's answer) completed: count it, go on. */
static void dp_op_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct dp_conn *dc = cq->cq_context;
	u64 now = ktime_get_ns();

	if (wc->status == IB_WC_SUCCESS) {
		dc->r->bytes += dc->p.size;
		dc->r->ops++;
		dc->last = now;
		if (dc->p.op == KIWI_BENCH_DP_PING)
			kiwi_bench_dp_lat(dc->r, now - dc->sent);
	} else {
		dp_fail(dc, -EIO);
	}
	if (!atomic_read(&dc->err) && now < dc->end) {
		if (!dp_next(dc))
			return;
		dp_fail(dc, -EIO);
	}
	if (atomic_dec_and_test(&dc->inflight))
		complete(&dc->done);
}

/* Client: the server's region message came (or was flushed). */
static void dp_ctl_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct dp_conn *dc = cq->cq_context;

	if (wc->status == IB_WC_SUCCESS &&
	    wc->byte_len >= sizeof(struct dp_region)) {
		ib_dma_sync_single_for_cpu(dc->id->device, dc->ctl_dma,
					   DP_CTL_SIZE, DMA_BIDIRECTIONAL);
		dc->remote_addr = be64_to_cpu(dc->ctl->addr);
		dc->remote_rkey = be32_to_cpu(dc->ctl->rkey);
	} else {
		dp_fail(dc, -EIO);
	}
	complete(&dc->ready);
}

static int dp_client_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct dp_conn *dc = id->context;

	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
	case RDMA_CM_EVENT_ESTABLISHED:
		dc->status = 1;
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		complete(&dc->closed);
		return 0;
	case RDMA_CM_EVENT_REJECTED:
		dc->status = -ECONNREFUSED;
		break;
	default:
		dc->status = ev->status ? ev->status : -EIO;
		break;
	}
	complete(&dc->step);
	return 0;
}

static int dp_wait(struct completion *c, u32 ms)
{
	return wait_for_completion_timeout(c, msecs_to_jiffies(ms)) ?
	       0 : -ETIMEDOUT;
}

static int dp_wait_step(struct dp_conn *dc)
{
	int ret = dp_wait(&dc->step, DP_TIMEOUT_MS);

	reinit_completion(&dc->step);
	return ret ? ret : dc->status > 0 ? 0 : dc->status;
}

/* Client: resolve, create the resources, connect, wait for the region. */
static int dp_client_connect(struct dp_conn *dc,
			     const struct sockaddr_storage *dst)
{
	struct ib_device_attr *attrs;
	struct dp_hello h = {
		.op = cpu_to_be32(dc->p.op),
		.size = cpu_to_be32(dc->p.size),
		.depth = cpu_to_be32(dc->p.depth),
	};
	struct rdma_conn_param param = {
		.private_data = &h,
		.private_data_len = sizeof(h),
		.responder_resources = 1,
	};
	int ret;

	ret = rdma_resolve_addr(dc->id, NULL, (struct sockaddr *)dst,
				DP_TIMEOUT_MS);
	if (!ret)
		ret = dp_wait_step(dc);
	if (!ret)
		ret = rdma_resolve_route(dc->id, DP_TIMEOUT_MS);
	if (!ret)
		ret = dp_wait_step(dc);
	if (!ret)
		ret = dp_res_create(dc, dc->p.depth + 2, DP_PING_RECVS);
	if (ret)
		return ret;
	attrs = &dc->id->device->attrs;
	param.initiator_depth = min_t(u32, dc->p.depth,
				      attrs->max_qp_init_rd_atom);
	dc->ctl_cqe.done = dp_ctl_done;
	ret = dp_post_recv(dc, &dc->ctl_cqe, dc->ctl_dma, DP_CTL_SIZE);
	if (!ret)
		ret = rdma_connect(dc->id, &param);
	if (!ret)
		ret = dp_wait_step(dc);
	if (!ret)
		ret = dp_post_reg(dc);
	if (!ret)
		ret = dp_wait(&dc->ready, DP_TIMEOUT_MS);
	return ret ? ret : atomic_read(&dc->err);
}

/* Client: keep the transfer's depth in flight for its time. */
static int dp_client_go(struct dp_conn *dc)
{
	u32 i;

	dc->op_cqe.done = dp_op_done;
	atomic_set(&dc->inflight, 1);
	dc->t0 = ktime_get_ns();
	dc->last = dc->t0;
	dc->end = dc->t0 + (u64)dc->p.ms * NSEC_PER_MSEC;
	for (i = 0; i < dc->p.depth && !atomic_read(&dc->err); i++) {
		atomic_inc(&dc->inflight);
		if (dp_next(dc)) {
			atomic_dec(&dc->inflight);
			dp_fail(dc, -EIO);
		}
	}
	if (atomic_dec_and_test(&dc->inflight))
		complete(&dc->done);
	if (dp_wait(&dc->done, dc->p.ms + DP_TIMEOUT_MS))
		dp_fail(dc, -ETIMEDOUT);
	dc->r->ns = dc->last - dc->t0;
	return atomic_read(&dc->err);
}

static int dp_run(struct net *net, const struct sockaddr_storage *dst,
		  const struct kiwi_bench_dp_params *p,
		  struct kiwi_bench_dp_result *r)
{
	struct rdma_cm_id *id;
	struct dp_conn *dc;
	int ret;

	dc = dp_conn_new(NULL);
	if (!dc)
		return -ENOMEM;
	dc->p = *p;
	dc->r = r;
	id = rdma_create_id(net, dp_client_handler, dc, RDMA_PS_TCP,
			    IB_QPT_RC);
	if (IS_ERR(id)) {
		ret = PTR_ERR(id);
		goto out_free_dc;
	}
	dc->id = id;
	ret = dp_client_connect(dc, dst);
	if (!ret)
		ret = dp_client_go(dc);
	if (!rdma_disconnect(id))
		dp_wait(&dc->closed, DP_TIMEOUT_MS);
	if (id->device)
		dp_res_destroy(dc);
	rdma_destroy_id(id);
out_free_dc:
	kfree(dc);
	return ret;
}

static struct kiwi_bench_dp dp_stack = {
	.name = DP_STACK_NAME,
	.owner = THIS_MODULE,
	.serve = dp_serve,
	.unserve = dp_unserve,
	.run = dp_run,
};

static int __init dp_stack_init(void)
{
	return kiwi_bench_dp_register(&dp_stack);
}

static void __exit dp_stack_exit(void)
{
	kiwi_bench_dp_unregister(&dp_stack);
	dp_unserve();
}

module_init(dp_stack_init);
module_exit(dp_stack_exit);

MODULE_DESCRIPTION(DP_STACK_DESC);
MODULE_LICENSE("GPL");
