// SPDX-License-Identifier: GPL-2.0
/*
 * The ping-pong exchange of a sample connection: its buffers, the work
 * requests it posts, its completions and the CQ worker that takes them;
 * and how a connection ends: the error it records, its close and its
 * log line. conn.c builds on these; nothing here calls it.
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
 */
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "sample.h"
#include "exchange.h"

/* Work request ids: what a completion completes. */
enum {
	SAMPLE_WR_RECV = 1,
	SAMPLE_WR_SEND,
	SAMPLE_WR_READ,
	SAMPLE_WR_WRITE,
	SAMPLE_WR_REG,
	SAMPLE_WR_INV,
};

/* Completions taken from the CQ at a time. */
#define SAMPLE_POLL_BATCH	8

/*
 * conn->buf (DMA address conn->buf_dma): the message's receive buffer at
 * offset 0, its send buffer at offset size. conn->ctrl (conn->ctrl_dma,
 * the RDMA exchange only): the ctrl's receive buffer, then its send
 * buffer.
 */
u32 sample_send_off(const struct kiwi_sample_conn *conn)
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

void sample_fail(struct kiwi_sample_conn *conn, const char *what,
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
void sample_finish(struct kiwi_sample_conn *conn)
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

int sample_post_recv(struct kiwi_sample_conn *conn)
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
void sample_send_next(struct kiwi_sample_conn *conn)
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

int sample_drain_cq(struct kiwi_sample_conn *conn)
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

void sample_cq_work(struct work_struct *work)
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

void sample_cq_event(struct ib_cq *cq, void *context)
{
	struct kiwi_sample_conn *conn = context;

	queue_work(system_wq, &conn->cq_work);
}
