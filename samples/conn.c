// SPDX-License-Identifier: GPL-2.0
/*
 * One connection of a sample ULP: rdma_cm events, the QP and CQ, the
 * ping-pong exchange and the log line a connection ends with. Shared by
 * the server and the client sample modules.
 *
 * The exchange: the client sends message 0 when the connection is up; the
 * server sends every message it receives back; the client checks the echo
 * byte for byte and sends the next, until it has sent count messages, and
 * then disconnects. One receive is always posted before the peer may
 * send, so neither side ever needs more than one buffer each way.
 *
 * By SEND, a message and its echo are SENDs of the whole message. By RDMA
 * (the client's connect carries a struct kiwi_sample_hello), the client
 * SENDs only a struct kiwi_sample_ctrl saying that message seq is ready;
 * the server RDMA READs it from the client's send buffer, RDMA WRITEs it
 * into the client's receive buffer, and SENDs the ctrl back. That SEND
 * comes after the WRITE on the same stream, so by the time the client
 * receives it the message is placed, and the client compares the buffers.
 *
 * Memory, as Linux's ULPs name it: local SGEs by DMA address and the PD's
 * local_dma_lkey; what the peer reaches by a fast-registered MR. The
 * client registers its message buffers once, under the key its connect
 * offers, by an IB_WR_REG_MR posted ahead of its first SEND. The server's
 * READ needs an MR too (an iWARP READ names its sink by STag): it
 * registers its receive buffer under a new key ahead of each READ and
 * invalidates it ahead of the WRITE, so the client can reach it only
 * while the READ is outstanding.
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

/* Work request ids: what a completion completes. */
enum {
	SAMPLE_WR_RECV = 1,
	SAMPLE_WR_SEND,
	SAMPLE_WR_READ,
	SAMPLE_WR_WRITE,
	SAMPLE_WR_REG,
	SAMPLE_WR_INV,
};

#define SAMPLE_CTRL_LEN		((u32)sizeof(struct kiwi_sample_ctrl))

/* Completions taken from the CQ at a time. */
#define SAMPLE_POLL_BATCH	8

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

/*
 * conn->buf (DMA address conn->buf_dma): the message's receive buffer at
 * offset 0, its send buffer at offset size. conn->ctrl (conn->ctrl_dma,
 * the RDMA exchange only): the ctrl's receive buffer, then its send
 * buffer.
 */
static u32 sample_send_off(const struct kiwi_sample_conn *conn)
{
	return conn->size;
}

static void *sample_recv_buf(struct kiwi_sample_conn *conn)
{
	return conn->buf;
}

static void *sample_send_buf(struct kiwi_sample_conn *conn)
{
	return conn->buf + sample_send_off(conn);
}

static struct kiwi_sample_ctrl *sample_ctrl_recv(struct kiwi_sample_conn *conn)
{
	return &conn->ctrl[0];
}

static struct kiwi_sample_ctrl *sample_ctrl_send(struct kiwi_sample_conn *conn)
{
	return &conn->ctrl[1];
}

static void sample_fail(struct kiwi_sample_conn *conn, const char *what,
			int error)
{
	lockdep_assert_held(&conn->lock);
	atomic_inc(&conn->stats->errors);
	if (conn->error)
		return;
	conn->error = error ? error : -EIO;
	conn->what = what;
}

/* Format the recorded events, "ADDR_RESOLVED REJECTED(-111)". */
static void sample_format_events(struct kiwi_sample_conn *conn, char *buf,
				 size_t len)
{
	size_t used = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < conn->nr_events; i++) {
		used += scnprintf(buf + used, len - used, "%s%s",
				  i ? " " : "",
				  rdma_event_msg(conn->events[i]));
		if (conn->status[i])
			used += scnprintf(buf + used, len - used, "(%d)",
					  conn->status[i]);
	}
	if (!conn->nr_events)
		scnprintf(buf, len, "(no event)");
}

/* How the connection's messages went, for its log line. */
static const char *sample_mode(const struct kiwi_sample_conn *conn)
{
	return conn->rdma && conn->mr ? " by RDMA READ/WRITE" : "";
}

/* The connection is over: count it, log its line, wake its waiter. */
static void sample_finish(struct kiwi_sample_conn *conn)
{
	struct kiwi_sample_stats *st = conn->stats;
	char events[192];

	lockdep_assert_held(&conn->lock);
	if (conn->finished)
		return;
	conn->finished = true;
	if (!conn->error && !conn->established)
		sample_fail(conn, "never established", -ENOTCONN);
	if (conn->error) {
		atomic_inc(&st->failed);
		atomic_cmpxchg(&st->first_error, 0, conn->error);
	} else {
		atomic_inc(&st->completed);
	}
	atomic64_add(conn->received, &st->messages);
	atomic64_add(conn->bytes, &st->bytes);
	sample_format_events(conn, events, sizeof(events));
	if (conn->error)
		pr_info("%s: conn %u: %s; %u messages, %llu bytes%s; failed: %s %d\n",
			conn->who, conn->nr, events, conn->received,
			conn->bytes, sample_mode(conn), conn->what,
			conn->error);
	else
		pr_info("%s: conn %u: %s; %u messages, %llu bytes%s; ok\n",
			conn->who, conn->nr, events, conn->received,
			conn->bytes, sample_mode(conn));
	complete(&conn->done);
}

/* Close the connection after an error; DISCONNECTED finishes it. */
static void sample_close(struct kiwi_sample_conn *conn)
{
	lockdep_assert_held(&conn->lock);
	if (conn->finished)
		return;
	if (!conn->established || rdma_disconnect(conn->id))
		sample_finish(conn);
}

/* @len bytes at @off of the memory mapped at @dma, by local_dma_lkey. */
static void sample_sge(struct ib_sge *sge, const struct kiwi_sample_conn *conn,
		       u64 dma, u32 off, u32 len)
{
	*sge = (struct ib_sge) {
		.addr = dma + off,
		.length = len,
		.lkey = conn->pd->local_dma_lkey,
	};
}

/* An IB_WR_REG_MR of conn->mr under its current key, with @access. */
static void sample_reg_wr(struct kiwi_sample_conn *conn, struct ib_reg_wr *reg,
			  int access, struct ib_send_wr *next)
{
	*reg = (struct ib_reg_wr) {
		.wr = { .wr_id = SAMPLE_WR_REG, .opcode = IB_WR_REG_MR,
			.next = next },
		.mr = conn->mr,
		.key = conn->mr->rkey,
		.access = access,
	};
}

static int sample_post_recv(struct kiwi_sample_conn *conn)
{
	struct ib_sge sge;
	struct ib_recv_wr wr = {
		.wr_id = SAMPLE_WR_RECV,
		.sg_list = &sge,
		.num_sge = 1,
	};
	const struct ib_recv_wr *bad;

	if (conn->rdma)
		sample_sge(&sge, conn, conn->ctrl_dma, 0, SAMPLE_CTRL_LEN);
	else
		sample_sge(&sge, conn, conn->buf_dma, 0, conn->size);
	return ib_post_recv(conn->id->qp, &wr, &bad);
}

/*
 * Fill @wr, signaled, over @sge; for an RDMA READ or WRITE, at @remote of
 * the client's buffers.
 */
static void sample_wr(struct kiwi_sample_conn *conn, struct ib_rdma_wr *wr,
		      struct ib_sge *sge, u64 wr_id, __be64 remote)
{
	*wr = (struct ib_rdma_wr) {
		.wr = {
			.wr_id = wr_id,
			.sg_list = sge,
			.num_sge = 1,
			.opcode = IB_WR_SEND,
			.send_flags = IB_SEND_SIGNALED,
		},
	};
	if (wr_id == SAMPLE_WR_SEND)
		return;
	wr->wr.opcode = wr_id == SAMPLE_WR_READ ? IB_WR_RDMA_READ :
						  IB_WR_RDMA_WRITE;
	wr->remote_addr = be64_to_cpu(remote);
	wr->rkey = be32_to_cpu(conn->hello.rkey);
}

/* SEND @len bytes at @off of the memory mapped at @dma, after @first. */
static int sample_post_send(struct kiwi_sample_conn *conn,
			    struct ib_send_wr *first, u64 dma, u32 off, u32 len)
{
	const struct ib_send_wr *bad;
	struct ib_rdma_wr wr;
	struct ib_sge sge;

	sample_sge(&sge, conn, dma, off, len);
	sample_wr(conn, &wr, &sge, SAMPLE_WR_SEND, 0);
	if (!first)
		return ib_post_send(conn->id->qp, &wr.wr, &bad);
	first->next = &wr.wr;
	return ib_post_send(conn->id->qp, first, &bad);
}

/*
 * Client, RDMA: say that message @seq is ready; clear where it comes back.
 * The first time, the message buffers are registered ahead of the SEND,
 * under the key the connect offered.
 */
static int sample_announce(struct kiwi_sample_conn *conn, u32 seq)
{
	struct kiwi_sample_ctrl *ctrl = sample_ctrl_send(conn);
	struct ib_reg_wr reg;
	bool first = !conn->mr_valid;

	memset(sample_recv_buf(conn), 0, conn->size);
	ctrl->nr = cpu_to_be32(conn->nr);
	ctrl->seq = cpu_to_be32(seq);
	ctrl->len = cpu_to_be32(conn->size);
	if (first)
		sample_reg_wr(conn, &reg, IB_ACCESS_LOCAL_WRITE |
			      IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ,
			      NULL);
	conn->mr_valid = true;
	return sample_post_send(conn, first ? &reg.wr : NULL, conn->ctrl_dma,
				SAMPLE_CTRL_LEN, SAMPLE_CTRL_LEN);
}

/* Client: fill the send buffer with message @seq and send it. */
static void sample_send_next(struct kiwi_sample_conn *conn)
{
	u8 *msg = sample_send_buf(conn);
	u32 seq = conn->sent;
	__be32 hdr[2] = { cpu_to_be32(conn->nr), cpu_to_be32(seq) };
	u32 i;
	int ret;

	lockdep_assert_held(&conn->lock);
	memcpy(msg, hdr, sizeof(hdr));
	for (i = sizeof(hdr); i < conn->size; i++)
		msg[i] = (u8)(conn->nr * 31 + seq * 7 + i);
	if (conn->rdma)
		ret = sample_announce(conn, seq);
	else
		ret = sample_post_send(conn, NULL, conn->buf_dma,
				       sample_send_off(conn), conn->size);
	if (ret) {
		sample_fail(conn, "post_send", ret);
		sample_close(conn);
		return;
	}
	conn->sent++;
}

/* Client: is what came back what was sent? */
static bool sample_echo_ok(struct kiwi_sample_conn *conn, u32 len)
{
	if (conn->rdma &&
	    (len != SAMPLE_CTRL_LEN ||
	     memcmp(sample_ctrl_recv(conn), sample_ctrl_send(conn), len)))
		return false;
	if (!conn->rdma && len != conn->size)
		return false;
	return !memcmp(sample_recv_buf(conn), sample_send_buf(conn),
		       conn->size);
}

/* Client: check an echo, then send the next message or disconnect. */
static void sample_client_recv(struct kiwi_sample_conn *conn, u32 len)
{
	int ret;

	if (!sample_echo_ok(conn, len)) {
		sample_fail(conn, "echo differs", -EBADMSG);
		sample_close(conn);
		return;
	}
	conn->received++;
	conn->bytes += conn->size;
	if (conn->received == conn->count) {
		ret = rdma_disconnect(conn->id);
		if (ret) {
			sample_fail(conn, "disconnect", ret);
			sample_finish(conn);
		}
		return;
	}
	ret = sample_post_recv(conn);
	if (ret) {
		sample_fail(conn, "post_recv", ret);
		sample_close(conn);
		return;
	}
	sample_send_next(conn);
}

/*
 * Server, RDMA: a message is announced; read it from the client. One
 * message at a time: conn->pending stays set until the SEND that returns
 * the ctrl completes, which is before the client can announce the next.
 */
static int sample_server_read(struct kiwi_sample_conn *conn, u32 len)
{
	struct kiwi_sample_ctrl *ctrl = sample_ctrl_recv(conn);
	const struct ib_send_wr *bad;
	struct ib_reg_wr reg;
	struct ib_rdma_wr wr;
	struct ib_sge sge;
	u32 msg_len;
	int ret;

	if (len != SAMPLE_CTRL_LEN)
		return -EBADMSG;
	if (conn->pending)
		return -EPROTO;
	msg_len = be32_to_cpu(ctrl->len);
	if (!msg_len || msg_len > conn->size ||
	    msg_len > be32_to_cpu(conn->hello.size))
		return -EMSGSIZE;
	memcpy(sample_ctrl_send(conn), ctrl, SAMPLE_CTRL_LEN);
	conn->pending = msg_len;
	ret = sample_post_recv(conn);
	if (ret)
		return ret;
	/* The sink: the receive buffer, registered under a new key. */
	ib_update_fast_reg_key(conn->mr, ib_inc_rkey(conn->mr->rkey));
	sge = (struct ib_sge) {
		.addr = conn->mr->iova, .length = msg_len,
		.lkey = conn->mr->lkey,
	};
	sample_wr(conn, &wr, &sge, SAMPLE_WR_READ, conn->hello.read_addr);
	sample_reg_wr(conn, &reg, IB_ACCESS_LOCAL_WRITE |
		      IB_ACCESS_REMOTE_WRITE, &wr.wr);
	return ib_post_send(conn->id->qp, &reg.wr, &bad);
}

/*
 * Server, RDMA: the message is read; close the sink to the client, write
 * the message back, then say so.
 */
static int sample_server_write(struct kiwi_sample_conn *conn, u32 len)
{
	struct ib_send_wr inv = {
		.wr_id = SAMPLE_WR_INV, .opcode = IB_WR_LOCAL_INV,
		.ex.invalidate_rkey = conn->mr->rkey,
	};
	struct ib_rdma_wr write, send;
	struct ib_sge write_sge, send_sge;
	const struct ib_send_wr *bad;

	if (len != conn->pending)
		return -EBADMSG;
	conn->received++;
	conn->bytes += len;
	sample_sge(&write_sge, conn, conn->buf_dma, 0, len);
	sample_wr(conn, &write, &write_sge, SAMPLE_WR_WRITE,
		  conn->hello.write_addr);
	sample_sge(&send_sge, conn, conn->ctrl_dma, SAMPLE_CTRL_LEN,
		   SAMPLE_CTRL_LEN);
	sample_wr(conn, &send, &send_sge, SAMPLE_WR_SEND, 0);
	inv.next = &write.wr;
	write.wr.next = &send.wr;
	return ib_post_send(conn->id->qp, &inv, &bad);
}

/* Server, by SEND: take the next receive, then send the message back. */
static int sample_server_echo(struct kiwi_sample_conn *conn, u32 len)
{
	int ret;

	conn->received++;
	conn->bytes += len;
	memcpy(sample_send_buf(conn), sample_recv_buf(conn), len);
	ret = sample_post_recv(conn);
	if (ret)
		return ret;
	return sample_post_send(conn, NULL, conn->buf_dma,
				sample_send_off(conn), len);
}

static const char *sample_wr_name(u64 wr_id)
{
	switch (wr_id) {
	case SAMPLE_WR_RECV:
		return "recv completion";
	case SAMPLE_WR_SEND:
		return "send completion";
	case SAMPLE_WR_READ:
		return "read completion";
	case SAMPLE_WR_WRITE:
		return "write completion";
	case SAMPLE_WR_REG:
		return "registration";
	case SAMPLE_WR_INV:
		return "invalidation";
	default:
		return "completion";
	}
}

/* A successful completion: the exchange's next step. */
static int sample_step(struct kiwi_sample_conn *conn, const struct ib_wc *wc)
{
	switch (wc->wr_id) {
	case SAMPLE_WR_RECV:
		if (!conn->passive) {
			sample_client_recv(conn, wc->byte_len);
			return 0;
		}
		if (conn->rdma)
			return sample_server_read(conn, wc->byte_len);
		return sample_server_echo(conn, wc->byte_len);
	case SAMPLE_WR_READ:
		atomic64_inc(&conn->stats->reads);
		return sample_server_write(conn, wc->byte_len);
	case SAMPLE_WR_WRITE:
		atomic64_inc(&conn->stats->writes);
		return 0;
	case SAMPLE_WR_SEND:
		if (conn->passive)
			conn->pending = 0;
		return 0;
	default:
		return 0;
	}
}

static void sample_completion(struct kiwi_sample_conn *conn,
			      const struct ib_wc *wc)
{
	int ret;

	lockdep_assert_held(&conn->lock);
	/* Flushed requests of a closing connection are no error. */
	if (wc->status == IB_WC_WR_FLUSH_ERR || conn->finished)
		return;
	if (wc->status) {
		pr_info("%s: conn %u: %s: %s\n", conn->who, conn->nr,
			sample_wr_name(wc->wr_id),
			ib_wc_status_msg(wc->status));
		sample_fail(conn, sample_wr_name(wc->wr_id), -EIO);
		sample_close(conn);
		return;
	}
	ret = sample_step(conn, wc);
	if (ret) {
		sample_fail(conn, conn->rdma ? "rdma exchange" : "echo", ret);
		sample_close(conn);
	}
}

static int sample_drain_cq(struct kiwi_sample_conn *conn)
{
	struct ib_wc wc[SAMPLE_POLL_BATCH];
	int n, i, total = 0;

	do {
		n = ib_poll_cq(conn->cq, ARRAY_SIZE(wc), wc);
		for (i = 0; i < n; i++)
			sample_completion(conn, &wc[i]);
		total += max(n, 0);
	} while (n == ARRAY_SIZE(wc));
	return total;
}

static void sample_cq_work(struct work_struct *work)
{
	struct kiwi_sample_conn *conn =
		container_of(work, struct kiwi_sample_conn, cq_work);

	mutex_lock(&conn->lock);
	if (conn->dead)
		goto unlock;
	/* Arm, then poll once more: a completion may have come in between. */
	do {
		sample_drain_cq(conn);
		ib_req_notify_cq(conn->cq, IB_CQ_NEXT_COMP);
	} while (sample_drain_cq(conn));
unlock:
	mutex_unlock(&conn->lock);
}

static void sample_cq_event(struct ib_cq *cq, void *context)
{
	struct kiwi_sample_conn *conn = context;

	queue_work(system_wq, &conn->cq_work);
}

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
