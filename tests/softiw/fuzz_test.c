// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_softiw_fuzz: a raw kernel TCP client throws mutated frames at a
 * softiw listener on lo (127.0.0.1 or ::1, drawn for each connection),
 * from a fixed seed so that a failure repeats.
 *
 * fuzz_mpa_request: MPA Requests of either revision, built valid, then
 * mutated (bits flipped, cut short, lying PD_Length, bytes appended,
 * headers sent a byte at a time), the connection closed by FIN or RST.
 * fuzz_fpdu: after a good MPA exchange and an accept, FPDUs built valid
 * (SENDs of the four kinds, RDMA WRITEs to a registered region, Read
 * Requests of it, unsolicited Read Responses, TERMINATEs), three in four
 * then mutated in header (MSN, MO, STag, TO, queue, opcode, versions),
 * length, payload or CRC, the CRC recomputed half the time so that the
 * mutation reaches DDP and RDMAP.
 *
 * After every batch a legitimate client connects and is served, and slab
 * stands within FUZZ_SLAB_BOUND_KIB of its level at the first chunk's
 * start; at the end no endpoint or id is left behind. KASAN, UBSAN, lockdep and
 * kmemleak judge the rest. kiwi_testlib's fuzz_iters sets the frames of
 * each kind: make check runs a few hundred, make stress 100,000.
 * fuzz_reply_test.c fuzzes the other direction: MPA Replies to softiw's
 * active side.
 */
#include <asm/unaligned.h>
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/prandom.h>
#include <linux/string.h>

#include "cm.h"
#include "cm_fixture.h"
#include "fpdu.h"
#include "fuzz.h"
#include "hostile_peer.h"
#include "kiwi_test.h"
#include "mpa.h"
#include "softiw.h"

#define FUZZ_FRAME	600	/* room for a frame and what is appended */
#define FUZZ_PER_CONN	8	/* mutated FPDUs per accepted connection */
#define FUZZ_RECVS	8
#define FUZZ_LEGIT	"kiwi-legit"
#define FUZZ_REGION	512	/* bytes the peer may write and read */
/* RDMAP opcodes of the SENDs (RFC 5040 section 4.3) */
#define FUZZ_OP_SEND		0x3
#define FUZZ_OP_SEND_INV	0x4
#define FUZZ_OP_SEND_SE		0x5
#define FUZZ_OP_SEND_SE_INV	0x6
/*
 * Frames of one case run: KUnit gives a case 300 s, and the hung-task
 * detector watches insmod, which waits for it; about 45 s under TCG.
 */
#define FUZZ_CHUNK	1500

/**
 * struct fuzz - one fuzz run
 * @t: the fixture (device, PD)
 * @rnd: the mutations' random state
 * @requests: CONNECT_REQUESTs the mutated frames made, each refused
 * @lock: protects @child
 * @child: the request of a legitimate client, kept to be accepted
 * @req: completed when @child is set
 * @cq: the accepted QPs' CQ
 * @buf: their receive memory
 * @mr: @buf's MR
 * @rmr: the region the peer's WRITEs and Read Requests aim at
 * @ceps: softiw's live endpoints before the listener
 * @conns: connections made, the legitimate clients' too
 * @v6: those made over IPv6
 * @slab: slab memory over the case's chunks
 */
struct fuzz {
	struct cmt *t;
	struct rnd_state rnd;
	atomic_t requests;
	spinlock_t lock;	/* protects child */
	struct kiwi_cm_id *child;
	struct completion req;
	struct ib_cq *cq;
	u8 *buf;
	struct ib_mr *mr;
	struct ib_mr *rmr;
	unsigned int ceps;
	unsigned int conns;
	unsigned int v6;
	struct fuzz_slab *slab;
};

/* Slab across the chunks of each case: the parameters run in order. */
static struct fuzz_slab fuzz_request_slab, fuzz_fpdu_slab;

static const char fuzz_data[] = "0123456789abcdefghijklmnopqrstuvwxyz";

/*
 * The listener's handler: a request whose private data starts with
 * FUZZ_LEGIT is kept for the test to accept; any other is refused (the
 * core destroys the new id when the handler returns non-zero).
 */
static int fuzz_handler(struct kiwi_cm_id *id, const struct kiwi_cm_event *ev)
{
	struct fuzz *f = id->context;
	bool legit;

	if (ev->event != KIWI_CM_EVENT_CONNECT_REQUEST)
		return 0;
	legit = ev->private_data_len >= sizeof(FUZZ_LEGIT) - 1 &&
		!memcmp(ev->private_data, FUZZ_LEGIT, sizeof(FUZZ_LEGIT) - 1);
	if (!legit) {
		atomic_inc(&f->requests);
		return 1;
	}
	spin_lock(&f->lock);
	if (f->child) {
		spin_unlock(&f->lock);
		return 1;
	}
	f->child = id;
	spin_unlock(&f->lock);
	complete(&f->req);
	return 0;
}

/* A listener on the loopback address of @family, destroyed at teardown. */
static void fuzz_listen(struct fuzz *f, int family, u16 port)
{
	struct kunit *test = f->t->test;
	struct kiwi_cm_id *l;

	l = kiwi_cm_create_id(f->t->dev, fuzz_handler, f);
	KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(l));
	KUNIT_ASSERT_LT(test, f->t->nids, CMT_MAX_IDS);
	f->t->ids[f->t->nids++] = l;
	kiwi_test_addr(test, &l->local_addr, family, KIWI_TEST_LO, port);
	KUNIT_ASSERT_EQ(test, kiwi_cm_listen(l, 16), 0);
}

/* Listeners on 127.0.0.1 and ::1: each connection picks one. */
static struct fuzz *fuzz_setup(struct kunit *test, u16 port)
{
	struct fuzz *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	struct ib_cq_init_attr attr = { .cqe = 4 * FUZZ_RECVS };

	KUNIT_ASSERT_NOT_NULL(test, f);
	kiwi_test_tcp_watch(test);
	f->t = cmt_setup(test, port);
	spin_lock_init(&f->lock);
	init_completion(&f->req);
	f->buf = cmt_buf(f->t, FUZZ_RECVS * 256);
	f->mr = cmt_mr(f->t, f->buf, FUZZ_RECVS * 256, IB_ACCESS_LOCAL_WRITE);
	f->rmr = cmt_mr(f->t, cmt_buf(f->t, FUZZ_REGION), FUZZ_REGION,
			KIWI_ACCESS_ALL);
	f->cq = kiwi_create_cq(f->t->dev, NULL, NULL, NULL, &attr);
	KUNIT_ASSERT_FALSE(test, IS_ERR(f->cq));
	f->ceps = kiwi_softiw_live_ceps();
	fuzz_listen(f, AF_INET, port);
	fuzz_listen(f, AF_INET6, port);
	return f;
}

/* A raw client to the listener of a family drawn at random. */
static struct socket *fuzz_connect(struct fuzz *f)
{
	bool v6 = fuzz_rand(&f->rnd, 2);

	f->conns++;
	f->v6 += v6;
	return cmt_raw_connect_lo(f->t->test, v6 ? AF_INET6 : AF_INET,
				  f->t->port);
}

/* The legitimate client's request, kept by the handler, or NULL. */
static struct kiwi_cm_id *fuzz_take_child(struct fuzz *f)
{
	struct kiwi_cm_id *child;

	if (!wait_for_completion_timeout(&f->req, 5 * HZ))
		return NULL;
	spin_lock(&f->lock);
	child = f->child;
	f->child = NULL;
	spin_unlock(&f->lock);
	reinit_completion(&f->req);
	return child;
}

/*
 * Accept the kept request on a new QP with FUZZ_RECVS RECVs posted.
 * Return: the QP, or NULL if the accept failed.
 */
static struct ib_qp *fuzz_accept(struct fuzz *f, struct kiwi_cm_id *child)
{
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_RC, .sq_sig_type = IB_SIGNAL_REQ_WR,
		.send_cq = f->cq, .recv_cq = f->cq,
		.cap = { .max_send_wr = 4, .max_recv_wr = FUZZ_RECVS,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ib_qp_attr attr = { .qp_access_flags = KIWI_QP_ACCESS_IWARP };
	struct kiwi_conn_param cp = { .ird = 4, .ord = 1 };
	struct ib_qp *qp = kiwi_create_qp(f->t->pd, &init);
	int i;

	KUNIT_ASSERT_FALSE(f->t->test, IS_ERR(qp));
	KUNIT_EXPECT_EQ(f->t->test,
			kiwi_modify_qp(qp, &attr, IB_QP_ACCESS_FLAGS), 0);
	for (i = 0; i < FUZZ_RECVS; i++) {
		struct ib_sge sge = { .addr = f->mr->iova + i * 256,
				      .length = 256, .lkey = f->mr->lkey };
		struct ib_recv_wr wr = { .wr_id = i, .sg_list = &sge,
					 .num_sge = 1 };

		KUNIT_EXPECT_EQ(f->t->test, kiwi_post_recv(qp, &wr, NULL), 0);
	}
	cp.qpn = qp->qp_num;
	if (kiwi_cm_accept(child, &cp)) {
		kiwi_destroy_qp(qp);
		return NULL;
	}
	return qp;
}

/* Take what the CQ holds; return how many RECVs completed successfully. */
static int fuzz_drain(struct fuzz *f)
{
	struct ib_wc wc[8];
	int n, i, ok = 0;

	while ((n = kiwi_poll_cq(f->cq, ARRAY_SIZE(wc), wc)) > 0)
		for (i = 0; i < n; i++)
			ok += wc[i].status == IB_WC_SUCCESS;
	return ok;
}

/* A valid MPA Request: revision 1 or 2, CRC or not, private data. */
static int fuzz_request(struct fuzz *f, u8 *buf, const char *pd)
{
	struct kiwi_softiw_mpa_info info = {
		.rev = 1 + fuzz_rand(&f->rnd, 2),
		.crc = fuzz_rand(&f->rnd, 2),
		.pdata = (const u8 *)pd,
		.pd_len = strlen(pd),
	};

	if (info.rev == 2) {
		info.enhanced = true;
		info.ird = 1 + fuzz_rand(&f->rnd, 4);
		info.ord = 1 + fuzz_rand(&f->rnd, 4);
	}
	return kiwi_softiw_mpa_build(SOFTIW_MPA_REQUEST, &info, buf,
				     FUZZ_FRAME);
}

/*
 * A legitimate client: a valid revision 1 Request, accepted on a QP; a
 * valid SEND lands in the first RECV with its bytes.
 */
static void fuzz_legit(struct fuzz *f)
{
	struct kunit *test = f->t->test;
	static const char msg[] = "fuzz: still served";
	struct hostile_fpdu fp = { .ctrl = HOSTILE_SEND_LAST, .msn = 1,
				   .data = msg, .len = sizeof(msg) };
	struct kiwi_softiw_mpa_info info = {
		.rev = 1, .pdata = (const u8 *)FUZZ_LEGIT,
		.pd_len = strlen(FUZZ_LEGIT),
	};
	u8 buf[64], rep[20];
	struct kiwi_cm_id *child;
	struct ib_wc wc = {};
	struct socket *s;
	struct ib_qp *qp;
	int len, i;

	s = fuzz_connect(f);
	len = kiwi_softiw_mpa_build(SOFTIW_MPA_REQUEST, &info, buf,
				    sizeof(buf));
	KUNIT_ASSERT_EQ(test, cmt_raw_send(s, buf, len), len);
	child = fuzz_take_child(f);
	KUNIT_ASSERT_NOT_NULL_MSG(test, child, "legitimate client not heard");
	qp = fuzz_accept(f, child);
	KUNIT_ASSERT_NOT_NULL(test, qp);
	KUNIT_EXPECT_EQ(test, hostile_recv_all(s, rep, sizeof(rep)), 20);
	KUNIT_EXPECT_EQ(test, memcmp(rep, KEY_REP, 16), 0);
	len = hostile_fpdu_put(buf, &fp, false);
	KUNIT_EXPECT_EQ(test, cmt_raw_send(s, buf, len), len);
	for (i = 0; i < 500 && !kiwi_poll_cq(f->cq, 1, &wc); i++)
		usleep_range(2000, 4000);
	KUNIT_EXPECT_LT(test, i, 500);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.byte_len, (u32)sizeof(msg));
	KUNIT_EXPECT_EQ(test, memcmp(f->buf, msg, sizeof(msg)), 0);
	cmt_raw_close(s, true);
	kiwi_cm_destroy_id(child);
	kiwi_destroy_qp(qp);
	fuzz_drain(f);
	fuzz_slab_check(test, f->slab);
}

static const void *fuzz_chunk_gen(const void *prev, char *desc)
{
	return fuzz_chunk_next(prev, desc, FUZZ_CHUNK, kiwi_test_fuzz_iters());
}

static void fuzz_mpa_request(struct kunit *test)
{
	struct fuzz *f = fuzz_setup(test, 22501);
	u8 *buf = kunit_kmalloc(test, FUZZ_FRAME, GFP_KERNEL);
	unsigned int i, chunk, iters;
	int len;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	iters = fuzz_chunk_frames(test, FUZZ_CHUNK, kiwi_test_fuzz_iters(),
				  &chunk);
	prandom_seed_state(&f->rnd, FUZZ_SEED + 22501 + chunk);
	f->slab = &fuzz_request_slab;
	fuzz_slab_start(f->slab, chunk);
	for (i = 0; i < iters; i++) {
		struct socket *s = fuzz_connect(f);

		len = fuzz_request(f, buf, "fuzz");
		KUNIT_ASSERT_GT(test, len, 0);
		len = fuzz_mutate(&f->rnd, buf, len, FUZZ_FRAME, 24, 18);
		fuzz_send(&f->rnd, s, buf, len);
		cmt_raw_close(s, fuzz_rand(&f->rnd, 2));
		if ((i + 1) % FUZZ_BATCH == 0)
			fuzz_legit(f);
	}
	fuzz_legit(f);
	fuzz_slab_end(test, f->slab);
	pr_info("%s chunk %u: %u mutated Requests, %d made a CONNECT_REQUEST, %u of %u connections over IPv6; slab %lu KiB at the start, at most %ld KiB more since\n",
		__func__, chunk, iters, atomic_read(&f->requests), f->v6,
		f->conns, f->slab->base, f->slab->peak);
	cmt_teardown(f->t);
	fuzz_ceps_settled(test, f->ceps);
	kiwi_destroy_cq(f->cq);
}

/* A connection's next MSNs: SEND (queue 0) and Read Request (queue 1). */
struct fuzz_conn {
	u32 msn[2];
	bool crc;
};

/* Write the CRC of the FPDU of @len bytes at @buf into its last word. */
static void fuzz_fpdu_seal(u8 *buf, int len)
{
	__le32 sum = kiwi_softiw_fpdu_crc(buf, len - 4);

	memcpy(buf + len - 4, &sum, 4);
}

/*
 * A valid untagged FPDU on queue 0 of SEND opcode @op (RFC 5040 section
 * 4.3); those that invalidate name an STag no MR has.
 */
static int fuzz_fpdu_send(struct fuzz *f, struct fuzz_conn *c, u8 *buf,
			  u8 op, u16 len)
{
	struct hostile_fpdu fp = { .ctrl = 0x4140 | op, .msn = c->msn[0]++,
				   .data = fuzz_data, .len = len };
	int n = hostile_fpdu_put(buf, &fp, false);

	if (op == FUZZ_OP_SEND_INV || op == FUZZ_OP_SEND_SE_INV)
		put_unaligned_be32(f->rmr->rkey + 1 + fuzz_rand(&f->rnd, 255),
				   buf + 4);
	return n;
}

/* A TERMINATE (RFC 5040 section 4.8): queue 2, MSN 1, one cause word. */
static int fuzz_fpdu_term(struct fuzz *f, u8 *buf)
{
	u8 cause[4];
	struct hostile_fpdu fp = { .ctrl = 0x4147, .msn = 1, .qn = 2,
				   .data = cause, .len = sizeof(cause) };

	put_unaligned_be32(prandom_u32_state(&f->rnd) & 0xffff0000, cause);
	return hostile_fpdu_put(buf, &fp, false);
}

/*
 * A valid FPDU of a kind drawn at random: a SEND of each kind, an RDMA
 * WRITE (whole, or a first segment) to the region, a Read Request of the
 * region, an unsolicited Read Response, a TERMINATE.
 * Return: its length; *@hdr: its header bytes, which mutations aim at.
 */
static int fuzz_fpdu_build(struct fuzz *f, struct fuzz_conn *c, u8 *buf,
			   int *hdr)
{
	u16 len = 1 + fuzz_rand(&f->rnd, sizeof(fuzz_data) - 1);
	u64 to = f->rmr->iova + fuzz_rand(&f->rnd, FUZZ_REGION - len);
	int n;

	*hdr = 20;
	switch (fuzz_rand(&f->rnd, 8)) {
	case 0:
		n = fuzz_fpdu_send(f, c, buf, FUZZ_OP_SEND, len);
		break;
	case 1:
		n = fuzz_fpdu_send(f, c, buf, FUZZ_OP_SEND_SE, len);
		break;
	case 2:
		n = fuzz_fpdu_send(f, c, buf, FUZZ_OP_SEND_INV +
				   2 * fuzz_rand(&f->rnd, 2), len);
		break;
	case 3:
	case 4:
		*hdr = 16;
		n = hostile_tagged_put(buf, HOSTILE_WRITE_LAST &
				       ~(fuzz_rand(&f->rnd, 4) ? 0 : 0x4000),
				       f->rmr->rkey, to, fuzz_data, len);
		break;
	case 5:
		*hdr = 48;
		n = hostile_rreq_put(buf, c->msn[1]++, prandom_u32_state(&f->rnd),
				     prandom_u32_state(&f->rnd), len,
				     f->rmr->rkey, to);
		break;
	case 6:
		*hdr = 16;
		n = hostile_tagged_put(buf, HOSTILE_RRESP_LAST,
				       prandom_u32_state(&f->rnd), to,
				       fuzz_data, len);
		break;
	default:
		n = fuzz_fpdu_term(f, buf);
		break;
	}
	if (c->crc)
		fuzz_fpdu_seal(buf, n);
	return n;
}

/*
 * One connection: up to FUZZ_PER_CONN FPDUs, three in four of them
 * mutated. Return: the mutated FPDUs sent.
 */
static unsigned int fuzz_fpdu_conn(struct fuzz *f, u8 *buf,
				   unsigned int left)
{
	struct kunit *test = f->t->test;
	struct fuzz_conn c = { .msn = { 1, 1 }, .crc = fuzz_rand(&f->rnd, 2) };
	struct kiwi_softiw_mpa_info info = {
		.rev = 1, .crc = c.crc,
		.pdata = (const u8 *)FUZZ_LEGIT, .pd_len = strlen(FUZZ_LEGIT),
	};
	unsigned int mutated = 0, i;
	struct kiwi_cm_id *child;
	struct socket *s;
	struct ib_qp *qp;
	u8 rep[20];
	int len, hdr;

	s = fuzz_connect(f);
	len = kiwi_softiw_mpa_build(SOFTIW_MPA_REQUEST, &info, buf,
				    FUZZ_FRAME);
	KUNIT_ASSERT_EQ(test, cmt_raw_send(s, buf, len), len);
	child = fuzz_take_child(f);
	KUNIT_ASSERT_NOT_NULL(test, child);
	qp = fuzz_accept(f, child);
	KUNIT_ASSERT_NOT_NULL(test, qp);
	KUNIT_ASSERT_EQ(test, hostile_recv_all(s, rep, sizeof(rep)), 20);
	for (i = 0; i < FUZZ_PER_CONN && mutated < left; i++) {
		len = fuzz_fpdu_build(f, &c, buf, &hdr);
		if (fuzz_rand(&f->rnd, 4)) {
			len = fuzz_mutate(&f->rnd, buf, len, FUZZ_FRAME, hdr,
					  0);
			/* the CRC made right: the mutation reaches DDP */
			if (c.crc && len >= 8 && fuzz_rand(&f->rnd, 2))
				fuzz_fpdu_seal(buf, len);
			mutated++;
		}
		fuzz_send(&f->rnd, s, buf, len);
	}
	/* whatever softiw answers (Read Responses, a TERMINATE, its FIN) */
	while (cmt_raw_recv(s, buf, FUZZ_FRAME, 20) > 0)
		;
	cmt_raw_close(s, fuzz_rand(&f->rnd, 2));
	kiwi_cm_destroy_id(child);
	kiwi_destroy_qp(qp);
	fuzz_drain(f);
	return mutated;
}

static void fuzz_fpdu(struct kunit *test)
{
	struct fuzz *f = fuzz_setup(test, 22502);
	u8 *buf = kunit_kmalloc(test, FUZZ_FRAME, GFP_KERNEL);
	unsigned int sent = 0, next = FUZZ_BATCH;
	unsigned int chunk, iters;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	iters = fuzz_chunk_frames(test, FUZZ_CHUNK, kiwi_test_fuzz_iters(),
				  &chunk);
	prandom_seed_state(&f->rnd, FUZZ_SEED + 22502 + chunk);
	f->slab = &fuzz_fpdu_slab;
	fuzz_slab_start(f->slab, chunk);
	while (sent < iters) {
		sent += fuzz_fpdu_conn(f, buf, iters - sent);
		if (sent >= next) {
			fuzz_legit(f);
			next += FUZZ_BATCH;
		}
	}
	fuzz_legit(f);
	fuzz_slab_end(test, f->slab);
	pr_info("%s chunk %u: %u mutated FPDUs, %u of %u connections over IPv6; slab %lu KiB at the start, at most %ld KiB more since\n",
		__func__, chunk, sent, f->v6, f->conns, f->slab->base,
		f->slab->peak);
	cmt_teardown(f->t);
	fuzz_ceps_settled(test, f->ceps);
	kiwi_destroy_cq(f->cq);
}

static struct kunit_case fuzz_cases[] = {
	KUNIT_CASE_PARAM(fuzz_mpa_request, fuzz_chunk_gen),
	KUNIT_CASE_PARAM(fuzz_fpdu, fuzz_chunk_gen),
	{}
};

static struct kunit_suite fuzz_suite = {
	.suite_init = cmt_suite_init,
	.suite_exit = cmt_suite_exit,
	.name = "kiwi_softiw_fuzz",
	.test_cases = fuzz_cases,
};

kunit_test_suite(fuzz_suite);
