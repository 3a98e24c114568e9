// SPDX-License-Identifier: GPL-2.0
/*
 * rping's protocol, RDMA READ and WRITE with siw: kiwi's side of the
 * kiwi_interop_siw cases whose peer is rping, as its server or its client,
 * on the case's fixture (siw_test.c).
 */
#include <linux/build_bug.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <kiwi/iw_cm.h>
#include <rdma/ib_verbs.h>

#include "interop.h"

/*
 * rping (rdma-core) ping-pong, per round: the client SENDs the address,
 * rkey and size of its source buffer; the server RDMA READs it and SENDs
 * "go ahead"; the client SENDs its sink buffer's; the server RDMA WRITEs
 * what it read there and SENDs "go ahead"; the client compares (-V).
 * Every SEND is a struct ipt_rping_info, 16 bytes.
 */
#define IPT_RPING_SIZE		5000	/* over several FPDUs on veth */
#define IPT_RPING_SIZE_STR	"5000"
#define IPT_RPING_COUNT		3
#define IPT_RPING_COUNT_STR	"3"
#define IPT_RPING_SLOT		16	/* RECV and SEND slots of 16 bytes */
#define IPT_RPING_A		512	/* start (client), rdma buffer (server) */
#define IPT_RPING_B		(IPT_RPING_A + 8192)	/* client's sink */
#define IPT_RPING_BUF		(IPT_RPING_B + 8192)

/**
 * struct ipt_rping_info - what an rping SEND carries
 * @buf: address of the buffer
 * @rkey: its rkey
 * @size: its size
 */
struct ipt_rping_info {
	__be64 buf;
	__be32 rkey;
	__be32 size;
};

static_assert(sizeof(struct ipt_rping_info) == IPT_RPING_SLOT);

static int ipt_rping_recv(struct ipt *t, int slot)
{
	struct ib_sge sge = {
		.addr = t->mr->iova + slot * IPT_RPING_SLOT,
		.length = IPT_RPING_SLOT, .lkey = t->mr->lkey,
	};
	struct ib_recv_wr wr = { .wr_id = slot, .sg_list = &sge,
				   .num_sge = 1 };
	const struct ib_recv_wr *bad;

	return kiwi_post_recv(t->qp, &wr, &bad);
}

/* The buffer and one MR over it with every right; RECVs in slots 0, 1. */
static u32 ipt_rping_ready(struct ipt *t)
{
	u32 qpn = ipt_qp(t);
	struct ib_mr *mr;
	int i;

	t->buf = kzalloc(IPT_RPING_BUF, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(t->test, t->buf);
	mr = kiwi_reg_kernel_mr(t->pd, t->buf, IPT_RPING_BUF,
				KIWI_ACCESS_ALL);
	KUNIT_ASSERT_FALSE(t->test, IS_ERR(mr));
	t->mr = mr;
	for (i = 0; i < 2; i++)
		KUNIT_ASSERT_EQ(t->test, ipt_rping_recv(t, i), 0);
	return qpn;
}

/* An unsignaled SEND of a buffer's info (or of zeros: "go ahead"). */
static int ipt_rping_send(struct ipt *t, int slot, u32 off)
{
	struct ipt_rping_info *info = (void *)(t->buf + (4 + slot) *
					       IPT_RPING_SLOT);
	struct ib_sge sge = {
		.addr = t->mr->iova + (4 + slot) * IPT_RPING_SLOT,
		.length = IPT_RPING_SLOT, .lkey = t->mr->lkey,
	};
	struct ib_send_wr wr = {
		.wr_id = 100 + slot, .sg_list = &sge, .num_sge = 1,
		.opcode = IB_WR_SEND,
	};
	const struct ib_send_wr *bad;

	memset(info, 0, sizeof(*info));
	if (off) {
		info->buf = cpu_to_be64(t->mr->iova + off);
		info->rkey = cpu_to_be32(t->mr->rkey);
		info->size = cpu_to_be32(IPT_RPING_SIZE);
	}
	return kiwi_post_send(t->qp, &wr, &bad);
}

static int ipt_rping_rdma(struct ipt *t, int opcode, u64 raddr, u32 rkey)
{
	struct ib_sge sge = {
		.addr = t->mr->iova + IPT_RPING_A, .length = IPT_RPING_SIZE,
		.lkey = t->mr->lkey,
	};
	struct ib_rdma_wr wr = {
		.wr = { .wr_id = 200, .sg_list = &sge, .num_sge = 1,
			.opcode = opcode, .send_flags = IB_SEND_SIGNALED },
		.remote_addr = raddr, .rkey = rkey,
	};
	const struct ib_send_wr *bad;

	return kiwi_post_send(t->qp, &wr.wr, &bad);
}

/* The next completion, which must be a success of @opcode. */
static void ipt_rping_wc(struct ipt *t, int opcode, struct ib_wc *wc)
{
	unsigned long end = jiffies + msecs_to_jiffies(IPT_WAIT_MS);
	int ret = 0;

	while (!ret && time_before(jiffies, end)) {
		ret = kiwi_poll_cq(t->cq, 1, wc);
		if (!ret)
			usleep_range(5000, 10000);
	}
	KUNIT_ASSERT_EQ_MSG(t->test, ret, 1, "no completion %d", opcode);
	KUNIT_ASSERT_EQ(t->test, wc->status, IB_WC_SUCCESS);
	KUNIT_ASSERT_EQ(t->test, wc->opcode, opcode);
}

/* Wait for a SEND of the peer; repost its slot. Return: its content. */
static struct ipt_rping_info ipt_rping_take(struct ipt *t)
{
	struct ipt_rping_info info;
	struct ib_wc wc;

	ipt_rping_wc(t, IB_WC_RECV, &wc);
	KUNIT_EXPECT_EQ(t->test, wc.byte_len, IPT_RPING_SLOT);
	memcpy(&info, t->buf + wc.wr_id * IPT_RPING_SLOT, sizeof(info));
	KUNIT_EXPECT_EQ(t->test, ipt_rping_recv(t, wc.wr_id), 0);
	return info;
}

/*
 * What rping's client puts in its source buffer for round @ping: its
 * text, then letters from 'A' + @ping on, cycling through 'A'..'z', and
 * a NUL at the end. Rebuilt here to check the READ byte for byte.
 */
static void ipt_rping_pattern(u8 *buf, int ping)
{
	int i = scnprintf(buf, IPT_RPING_SIZE, "rdma-ping-%d: ", ping);
	u8 c = 'A' + ping;

	for (; i < IPT_RPING_SIZE; i++) {
		buf[i] = c;
		c = c == 'z' ? 'A' : c + 1;
	}
	buf[IPT_RPING_SIZE - 1] = 0;
}

/**
 * ipt_rping_server() - a case with kiwi as the rping server
 * @t: the case
 * @cap: the capture on kv0, started for the case's port
 *
 * kiwi is the rping server: it READs siw's buffer and WRITEs it back to
 * siw's other buffer, which rping -V compares.
 *
 * Context: process context; sleeps; the test is aborted on failure.
 */
void ipt_rping_server(struct ipt *t, struct ipt_capture *cap)
{
	struct kunit *test = t->test;
	char port[8];
	const char *const args[] = { "-c", "-a", ipt_host(t, false), "-p", port,
			       "-C", IPT_RPING_COUNT_STR, "-S",
			       IPT_RPING_SIZE_STR, "-V", NULL };
	struct kiwi_conn_param p = {
		.private_data = IPT_KIWI_PD,
		.private_data_len = strlen(IPT_KIWI_PD),
		.ird = IPT_IRD_ORD, .ord = IPT_IRD_ORD,
	};
	struct ipt_rping_info info;
	struct ipt_wire wire;
	struct ib_wc wc;
	u8 *want;
	int ping;

	want = kunit_kzalloc(test, IPT_RPING_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, want);
	t->listen = kiwi_cm_create_id(t->dev, ipt_handler, t);
	KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(t->listen));
	ipt_addr(t, &t->listen->local_addr, false);
	KUNIT_ASSERT_EQ(test, kiwi_cm_listen(t->listen, 4), 0);
	snprintf(port, sizeof(port), "%u", t->port);
	ipt_start_peer_tool(t, "rping", args);
	KUNIT_ASSERT_NOT_NULL_MSG(test, ipt_wait(t,
						 KIWI_CM_EVENT_CONNECT_REQUEST,
						 NULL), "no CONNECT_REQUEST");
	ipt_expect_ends(t);
	p.qpn = ipt_rping_ready(t);
	ipt_siw_settle();
	KUNIT_ASSERT_EQ(test, kiwi_cm_accept(t->conn, &p), 0);
	KUNIT_ASSERT_NOT_NULL_MSG(test, ipt_wait(t, KIWI_CM_EVENT_ESTABLISHED,
						 t->conn), "no ESTABLISHED");
	for (ping = 0; ping < IPT_RPING_COUNT; ping++) {
		info = ipt_rping_take(t);
		KUNIT_ASSERT_EQ(test, be32_to_cpu(info.size), IPT_RPING_SIZE);
		memset(t->buf + IPT_RPING_A, 0, IPT_RPING_SIZE);
		KUNIT_ASSERT_EQ(test, ipt_rping_rdma(t, IB_WR_RDMA_READ,
						     be64_to_cpu(info.buf),
						     be32_to_cpu(info.rkey)),
				0);
		ipt_rping_wc(t, IB_WC_RDMA_READ, &wc);
		KUNIT_EXPECT_EQ(test, wc.byte_len, IPT_RPING_SIZE);
		ipt_rping_pattern(want, ping);
		KUNIT_EXPECT_EQ_MSG(test, memcmp(t->buf + IPT_RPING_A, want,
						 IPT_RPING_SIZE), 0,
				    "READ of round %d", ping);
		KUNIT_ASSERT_EQ(test, ipt_rping_send(t, 0, 0), 0);
		info = ipt_rping_take(t);
		KUNIT_ASSERT_EQ(test, ipt_rping_rdma(t, IB_WR_RDMA_WRITE,
						     be64_to_cpu(info.buf),
						     be32_to_cpu(info.rkey)),
				0);
		ipt_rping_wc(t, IB_WC_RDMA_WRITE, &wc);
		KUNIT_ASSERT_EQ(test, ipt_rping_send(t, 1, 0), 0);
	}
	/* rping's client disconnects after its last round; 0 if all matched. */
	KUNIT_ASSERT_NOT_NULL_MSG(test, ipt_wait(t, KIWI_CM_EVENT_DISCONNECT,
						 t->conn), "no DISCONNECT");
	ipt_close(t, t->conn);
	KUNIT_EXPECT_EQ(test, ipt_wait_peer(t), 0);
	ipt_capture_read(cap, &wire);
	ipt_check_frame(t, &wire.req, 2, false, 0);
	ipt_check_frame(t, &wire.rep, t->c->rev, t->c->crc,
			strlen(IPT_KIWI_PD));
}

/**
 * ipt_rping_client() - a case with kiwi as the rping client
 * @t: the case
 * @cap: the capture on kv0, started for the case's port
 *
 * kiwi is the rping client: siw READs kiwi's source buffer and WRITEs it
 * into kiwi's sink, which kiwi compares byte for byte.
 *
 * Context: process context; sleeps; the test is aborted on failure.
 */
void ipt_rping_client(struct ipt *t, struct ipt_capture *cap)
{
	struct kunit *test = t->test;
	char port[8];
	const char *const args[] = { "-s", "-a", ipt_host(t, true), "-p", port,
			       "-S", IPT_RPING_SIZE_STR, "-V", NULL };
	struct kiwi_conn_param p = {
		.private_data = IPT_KIWI_PD,
		.private_data_len = strlen(IPT_KIWI_PD),
		.ird = IPT_IRD_ORD, .ord = IPT_IRD_ORD,
	};
	struct ipt_wire wire;
	const struct ipt_rec *r;
	int ping;

	snprintf(port, sizeof(port), "%u", t->port);
	ipt_start_peer_tool(t, "rping", args);
	KUNIT_ASSERT_EQ_MSG(test, ipt_peer("listening", port, NULL), 0,
			    "rping does not listen");
	t->conn = kiwi_cm_create_id(t->dev, ipt_handler, t);
	KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(t->conn));
	ipt_addr(t, &t->conn->remote_addr, true);
	p.qpn = ipt_rping_ready(t);
	KUNIT_ASSERT_EQ(test, kiwi_cm_connect(t->conn, &p), 0);
	r = ipt_wait(t, KIWI_CM_EVENT_CONNECT_REPLY, t->conn);
	KUNIT_ASSERT_NOT_NULL_MSG(test, r, "no CONNECT_REPLY");
	KUNIT_ASSERT_EQ(test, r->status, 0);
	ipt_expect_ends(t);
	/*
	 * siw, the responder, must take its Reply's send alone: see
	 * ipt_siw_settle().
	 */
	ipt_siw_settle();
	for (ping = 0; ping < IPT_RPING_COUNT; ping++) {
		ipt_rping_pattern(t->buf + IPT_RPING_A, ping + 5);
		memset(t->buf + IPT_RPING_B, 0, IPT_RPING_SIZE);
		KUNIT_ASSERT_EQ(test, ipt_rping_send(t, 0, IPT_RPING_A), 0);
		ipt_rping_take(t);	/* siw READ the source */
		KUNIT_ASSERT_EQ(test, ipt_rping_send(t, 1, IPT_RPING_B), 0);
		ipt_rping_take(t);	/* siw WROTE it to the sink */
		KUNIT_EXPECT_EQ_MSG(test, memcmp(t->buf + IPT_RPING_A,
						 t->buf + IPT_RPING_B,
						 IPT_RPING_SIZE), 0,
				    "round %d", ping);
	}
	/* Nor may kiwi's FIN reach siw while it still sends its last SEND. */
	ipt_siw_settle();
	ipt_close(t, t->conn);
	KUNIT_EXPECT_EQ(test, ipt_wait_peer(t), 0);
	ipt_capture_read(cap, &wire);
	ipt_check_frame(t, &wire.req, t->c->rev, t->c->crc,
			strlen(IPT_KIWI_PD));
	ipt_check_frame(t, &wire.rep, t->c->rev, t->c->crc, 0);
}
