// SPDX-License-Identifier: GPL-2.0
/*
 * One connection of a sample ULP: rdma_cm events, the QP and CQ, the
 * ping-pong exchange and the log line a connection ends with. Shared by
 * the server and the client sample modules.
 *
 * Here: a connection's allocation, its setup (buffers, MRs, CQ and QP),
 * its rdma_cm events, its teardown, and the module's summary and address
 * parsing. The exchange itself, and how a connection ends, are in
 * exchange.c.
 *
 * conn->lock serialises the rdma_cm handler, the CQ worker and teardown;
 * once teardown has set conn->dead neither touches the connection again.
 */
#include <linux/inet.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "sample.h"
#include "exchange.h"

/**
 * kiwi_sample_conn_alloc() - a connection with its buffers, not yet set up
 * @who: the module's name, for the log (must outlive the connection)
 * @nr: the connection's number, for the log
 * @st: the module's counters
 * @size: bytes per message (client) or largest message (server)
 * @count: client: messages to exchange; server: 0
 * @passive: true for the server, which accepts and sends every message
 *	back
 * @rdma: client: ask the server to move the messages by RDMA READ and
 *	WRITE; server: false (the client's connect says)
 *
 * Context: process context; sleeps.
 * Return: the connection, or NULL without memory.
 */
struct kiwi_sample_conn *kiwi_sample_conn_alloc(const char *who,
						unsigned int nr,
						struct kiwi_sample_stats *st,
						u32 size, u32 count, bool passive,
						bool rdma)
{
	struct kiwi_sample_conn *conn;

	conn = kzalloc(sizeof(*conn), GFP_KERNEL);
	if (!conn)
		return NULL;
	conn->buf = kzalloc(2 * size, GFP_KERNEL);
	if (!conn->buf) {
		kfree(conn);
		return NULL;
	}
	conn->who = who;
	conn->nr = nr;
	conn->stats = st;
	conn->size = size;
	conn->count = count;
	conn->passive = passive;
	conn->rdma = rdma;
	mutex_init(&conn->lock);
	init_completion(&conn->done);
	return conn;
}
EXPORT_SYMBOL_GPL(kiwi_sample_conn_alloc);

/* DMA-map @len bytes at @buf for local SGEs; Return: 0 or -ENOMEM. */
static int sample_map(struct kiwi_sample_conn *conn, void *buf, u32 len,
		      u64 *dma)
{
	struct ib_device *dev = conn->pd->device;
	u64 addr = ib_dma_map_single(dev, buf, len, DMA_BIDIRECTIONAL);

	if (ib_dma_mapping_error(dev, addr)) {
		conn->what = "dma_map_single";
		return -ENOMEM;
	}
	*dma = addr;
	return 0;
}

/*
 * RDMA exchange: a fast-registration MR over the first @len bytes of the
 * message buffers, mapped, not registered yet.
 */
static int sample_mr_init(struct kiwi_sample_conn *conn, u32 len)
{
	struct ib_device *dev = conn->pd->device;
	struct ib_mr *mr;
	int n;

	mr = ib_alloc_mr(conn->pd, IB_MR_TYPE_MEM_REG,
			 DIV_ROUND_UP(len, PAGE_SIZE) + 1);
	if (IS_ERR(mr)) {
		conn->what = "alloc_mr";
		return PTR_ERR(mr);
	}
	conn->mr = mr;
	sg_init_one(&conn->sg, conn->buf, len);
	if (!ib_dma_map_sg(dev, &conn->sg, 1, DMA_BIDIRECTIONAL)) {
		conn->what = "dma_map_sg";
		return -ENOMEM;
	}
	conn->sg_mapped = true;
	n = ib_map_mr_sg(mr, &conn->sg, 1, NULL, PAGE_SIZE);
	if (n != 1) {
		conn->what = "map_mr_sg";
		return n < 0 ? n : -EINVAL;
	}
	return 0;
}

/* RDMA exchange: the ctrl buffers, local to each side. */
static int sample_ctrl_init(struct kiwi_sample_conn *conn)
{
	conn->ctrl = kcalloc(2, SAMPLE_CTRL_LEN, GFP_KERNEL);
	if (!conn->ctrl) {
		conn->what = "ctrl buffers";
		return -ENOMEM;
	}
	return sample_map(conn, conn->ctrl, 2 * SAMPLE_CTRL_LEN,
			  &conn->ctrl_dma);
}

/*
 * Client, RDMA: the MR over both message buffers, for the server alone,
 * under a new key, and the hello that offers it.
 */
static int sample_remote_init(struct kiwi_sample_conn *conn)
{
	struct kiwi_sample_hello *h = &conn->hello;
	int ret;

	ret = sample_mr_init(conn, 2 * conn->size);
	if (ret)
		return ret;
	ib_update_fast_reg_key(conn->mr, ib_inc_rkey(conn->mr->rkey));
	h->magic = cpu_to_be32(KIWI_SAMPLE_HELLO_MAGIC);
	h->size = cpu_to_be32(conn->size);
	h->read_addr = cpu_to_be64(conn->mr->iova + sample_send_off(conn));
	h->write_addr = cpu_to_be64(conn->mr->iova);
	h->rkey = cpu_to_be32(conn->mr->rkey);
	return 0;
}

/* Server: does the client's connect ask for the RDMA exchange? */
static void sample_take_hello(struct kiwi_sample_conn *conn,
			      const struct rdma_conn_param *param)
{
	struct kiwi_sample_hello *h = &conn->hello;

	if (param->private_data_len < sizeof(*h))
		return;
	memcpy(h, param->private_data, sizeof(*h));
	conn->rdma = be32_to_cpu(h->magic) == KIWI_SAMPLE_HELLO_MAGIC;
}

/*
 * Buffers, MRs and the first receive. A device without a data path fails
 * here, with -EOPNOTSUPP from ib_alloc_mr() or ib_post_recv(). The
 * client's message buffers of the RDMA exchange are open to the server's
 * RDMA READ and WRITE; the server's receive buffer is its READ's sink.
 */
static int sample_data_init(struct kiwi_sample_conn *conn)
{
	int ret;

	ret = sample_map(conn, conn->buf, 2 * conn->size, &conn->buf_dma);
	if (ret)
		return ret;
	if (conn->rdma) {
		ret = sample_ctrl_init(conn);
		if (ret)
			return ret;
		ret = conn->passive ? sample_mr_init(conn, conn->size) :
				      sample_remote_init(conn);
		if (ret)
			return ret;
	}
	ret = sample_post_recv(conn);
	if (ret) {
		conn->what = "post_recv";
		return ret;
	}
	ret = ib_req_notify_cq(conn->cq, IB_CQ_NEXT_COMP);
	if (ret)
		conn->what = "req_notify_cq";
	return ret;
}

/*
 * CQ, QP, and the data path if messages will flow. The server serves
 * connections without messages on a device with no data path; the client
 * fails a connection that has messages to send.
 */
static int sample_setup(struct kiwi_sample_conn *conn)
{
	struct ib_qp_init_attr init = {
		.cap = {
			.max_send_wr = 6,
			.max_recv_wr = 2,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
		.qp_context = conn,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
	};
	struct ib_cq_init_attr cq_attr = { .cqe = 8 };
	struct ib_cq *cq;
	struct ib_pd *pd;
	int ret;

	lockdep_assert_held(&conn->lock);
	INIT_WORK(&conn->cq_work, sample_cq_work);
	pd = ib_alloc_pd(conn->id->device, 0);
	if (IS_ERR(pd)) {
		sample_fail(conn, "alloc_pd", PTR_ERR(pd));
		return PTR_ERR(pd);
	}
	conn->pd = pd;
	cq = ib_create_cq(conn->id->device, sample_cq_event, NULL, conn,
			  &cq_attr);
	if (IS_ERR(cq)) {
		sample_fail(conn, "create_cq", PTR_ERR(cq));
		return PTR_ERR(cq);
	}
	conn->cq = cq;
	init.send_cq = cq;
	init.recv_cq = cq;
	ret = rdma_create_qp(conn->id, pd, &init);
	if (ret) {
		sample_fail(conn, "create_qp", ret);
		return ret;
	}
	if (!conn->passive && !conn->count)
		return 0;
	ret = sample_data_init(conn);
	if (ret && conn->passive) {
		pr_info("%s: conn %u: no data path (%s %d): connection only\n",
			conn->who, conn->nr, conn->what, ret);
		conn->what = NULL;
		return 0;
	}
	if (ret)
		sample_fail(conn, conn->what, ret);
	return ret;
}

static void sample_record(struct kiwi_sample_conn *conn,
			  const struct rdma_cm_event *ev)
{
	unsigned int i = conn->nr_events;

	if (i == KIWI_SAMPLE_MAX_EVENTS)
		return;
	conn->events[i] = ev->event;
	conn->status[i] = ev->status;
	conn->nr_events++;
}

static void sample_connect(struct kiwi_sample_conn *conn)
{
	struct rdma_conn_param param = {
		.responder_resources = 1,
		.initiator_depth = 1,
	};
	int ret;

	if (sample_setup(conn)) {
		sample_finish(conn);
		return;
	}
	if (conn->rdma && conn->mr && !conn->passive) {
		param.private_data = &conn->hello;
		param.private_data_len = sizeof(conn->hello);
	}
	if (conn->passive)
		ret = rdma_accept(conn->id, &param);
	else
		ret = rdma_connect(conn->id, &param);
	if (ret) {
		sample_fail(conn, conn->passive ? "accept" : "connect", ret);
		sample_finish(conn);
	}
}

static void sample_established(struct kiwi_sample_conn *conn)
{
	int ret;

	conn->established = true;
	if (conn->passive)
		return;
	if (conn->count) {
		sample_send_next(conn);
		return;
	}
	ret = rdma_disconnect(conn->id);
	if (ret) {
		sample_fail(conn, "disconnect", ret);
		sample_finish(conn);
	}
}

static void sample_disconnected(struct kiwi_sample_conn *conn)
{
	int ret;

	/*
	 * Completions the CQ worker has not taken yet (the last WRITE's)
	 * are counted before the connection is over.
	 */
	if (conn->cq)
		sample_drain_cq(conn);
	if (conn->finished)
		return;

	if (!conn->passive && conn->received < conn->count)
		sample_fail(conn, "disconnected early", -ECONNRESET);
	/* The peer closed first: close this half too, rather than reset. */
	if (conn->passive) {
		ret = rdma_disconnect(conn->id);
		if (ret)
			sample_fail(conn, "disconnect", ret);
	}
	sample_finish(conn);
}

static void sample_dispatch(struct kiwi_sample_conn *conn,
			    const struct rdma_cm_event *ev)
{
	int ret;

	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		ret = rdma_resolve_route(conn->id, 2000);
		if (ret) {
			sample_fail(conn, "resolve_route", ret);
			sample_finish(conn);
		}
		break;
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		sample_take_hello(conn, &ev->param.conn);
		sample_connect(conn);
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		sample_connect(conn);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		sample_established(conn);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		sample_disconnected(conn);
		break;
	default:
		sample_fail(conn, rdma_event_msg(ev->event), ev->status);
		sample_finish(conn);
		break;
	}
}

/**
 * kiwi_sample_conn_event() - handle an rdma_cm event of a connection
 * @conn: the connection; conn->id is the event's id
 * @ev: the event
 *
 * Records the event and takes the connection's next step: resolve the
 * route, set up and connect or accept, start the exchange, or finish.
 *
 * Context: the id's rdma_cm event handler.
 * Return: true if this event ended the connection (its log line is out
 * and its waiter woken): the owner then destroys it, outside the handler.
 * False otherwise, and for every event after that one.
 */
bool kiwi_sample_conn_event(struct kiwi_sample_conn *conn,
			    const struct rdma_cm_event *ev)
{
	bool finished;

	mutex_lock(&conn->lock);
	if (conn->dead || conn->finished) {
		finished = false;	/* told once; teardown owns a dead one */
		goto unlock;
	}
	sample_record(conn, ev);
	sample_dispatch(conn, ev);
	finished = conn->finished;
unlock:
	mutex_unlock(&conn->lock);
	return finished;
}
EXPORT_SYMBOL_GPL(kiwi_sample_conn_event);

/**
 * kiwi_sample_conn_abort() - end a connection that failed outside a handler
 * @conn: the connection
 * @what: what failed, for the log
 * @error: negative errno
 *
 * Counts it as failed and logs its line, unless it is over already.
 *
 * Context: process context; sleeps.
 */
void kiwi_sample_conn_abort(struct kiwi_sample_conn *conn, const char *what,
			    int error)
{
	mutex_lock(&conn->lock);
	if (!conn->finished) {
		sample_fail(conn, what, error);
		sample_finish(conn);
	}
	mutex_unlock(&conn->lock);
}
EXPORT_SYMBOL_GPL(kiwi_sample_conn_abort);

/* Undo the DMA mappings; the PD keeps the device. */
static void sample_unmap(struct kiwi_sample_conn *conn)
{
	struct ib_device *dev = conn->pd->device;

	if (conn->sg_mapped)
		ib_dma_unmap_sg(dev, &conn->sg, 1, DMA_BIDIRECTIONAL);
	if (conn->ctrl_dma)
		ib_dma_unmap_single(dev, conn->ctrl_dma, 2 * SAMPLE_CTRL_LEN,
				    DMA_BIDIRECTIONAL);
	if (conn->buf_dma)
		ib_dma_unmap_single(dev, conn->buf_dma, 2 * conn->size,
				    DMA_BIDIRECTIONAL);
}

/**
 * kiwi_sample_conn_destroy() - tear a connection down and free it
 * @conn: the connection, finished or not
 *
 * Stops the handler and the CQ worker from touching it, destroys its QP,
 * id, CQ and MR, unmaps its buffers, and frees it.
 *
 * Context: process context; sleeps. Not from the id's own handler.
 */
void kiwi_sample_conn_destroy(struct kiwi_sample_conn *conn)
{
	mutex_lock(&conn->lock);
	conn->dead = true;
	mutex_unlock(&conn->lock);
	if (conn->id) {
		rdma_destroy_qp(conn->id);
		rdma_destroy_id(conn->id);
	}
	if (conn->cq) {
		ib_destroy_cq(conn->cq);
		cancel_work_sync(&conn->cq_work);
	}
	if (conn->mr)
		ib_dereg_mr(conn->mr);
	if (conn->pd)
		sample_unmap(conn);
	if (conn->pd)
		ib_dealloc_pd(conn->pd);
	kfree(conn->ctrl);
	kfree(conn->buf);
	kfree(conn);
}
EXPORT_SYMBOL_GPL(kiwi_sample_conn_destroy);

/**
 * kiwi_sample_summary() - log a module's summary line
 * @who: the module's name
 * @st: its counters
 * @start: when it started
 *
 * One line of key=value pairs that scripts parse: "connections=
 * completed= failed= messages= bytes= reads= writes= errors= elapsed_ms=".
 *
 * Context: any context.
 */
void kiwi_sample_summary(const char *who, struct kiwi_sample_stats *st,
			 ktime_t start)
{
	int completed = atomic_read(&st->completed);
	int failed = atomic_read(&st->failed);

	pr_info("%s: summary: connections=%d completed=%d failed=%d messages=%lld bytes=%lld reads=%lld writes=%lld errors=%d elapsed_ms=%lld\n",
		who, completed + failed, completed, failed,
		atomic64_read(&st->messages), atomic64_read(&st->bytes),
		atomic64_read(&st->reads), atomic64_read(&st->writes),
		atomic_read(&st->errors),
		ktime_ms_delta(ktime_get(), start));
}
EXPORT_SYMBOL_GPL(kiwi_sample_summary);

/**
 * kiwi_sample_parse_addr() - an IPv4 or IPv6 address and a port
 * @net: namespace, for an IPv6 scope given by interface name
 * @addr: "198.18.0.1", "fd00:198:18::1", "fe80::1%kv0"
 * @port: port
 * @ss: filled in
 *
 * Context: process context.
 * Return: 0, or -EINVAL if @addr is not an address.
 */
int kiwi_sample_parse_addr(struct net *net, const char *addr, u16 port,
			   struct sockaddr_storage *ss)
{
	char port_str[8];

	if (!addr)
		return -EINVAL;
	snprintf(port_str, sizeof(port_str), "%u", port);
	return inet_pton_with_scope(net, AF_UNSPEC, addr, port_str, ss);
}
EXPORT_SYMBOL_GPL(kiwi_sample_parse_addr);

MODULE_DESCRIPTION("kiwi sample ULPs: connection and message exchange");
MODULE_AUTHOR("kiwi");
MODULE_LICENSE("GPL");
