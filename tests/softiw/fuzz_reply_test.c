// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_softiw_fuzz_reply: softiw's active side against a hostile
 * responder, from a fixed seed so that a failure repeats.
 *
 * fuzz_mpa_reply: a softiw initiator (MPA revision 1 or 2, CRC or not,
 * peer-to-peer or not, any RTR types offered) connects to a raw kernel
 * TCP listener on lo, at 127.0.0.1 or ::1 drawn at random. The listener
 * reads the whole Request and answers with a Reply built valid for it
 * (revision 1 or 2, the CRC flag as asked, the IRD/ORD word and the RTR
 * type of revision 2, private data of any length), then mutated as
 * fuzz_mpa_request mutates Requests (bits flipped, cut short, a lying
 * PD_Length, bytes appended, headers sent a byte at a time) and in the
 * Reply's own ways (wrong key, Reject, revision 0, 3 or 255, flags the
 * Request did not ask for, an IRD/ORD word the initiator cannot meet).
 * After an acceptable Reply it takes the initiator's RTR
 * and answers a READ one with a Read Response, valid or mutated, or sends
 * a mutated first FPDU. It closes by FIN or RST: at once, after a short
 * silence, or once the attempt is over.
 *
 * The oracle of fuzz_reply.c, written from the RFCs and not from
 * softiw's parser, judges what was sent: an acceptable exchange must end
 * in CONNECT_REPLY(0) carrying the Reply's private data, any other in
 * CONNECT_REPLY with an error; either exactly once, within FR_WAIT_MS,
 * with no event before it and only DISCONNECT or CLOSE after a success
 * (one of which the server's close must bring). kiwi_softiw_fuzz_oracle
 * (fuzz_oracle_test.c) checks the oracle itself.
 *
 * After every batch a legitimate exchange carries a SEND; at the end no
 * endpoint or id is left and the core counted no protocol violation.
 */
#include <asm/unaligned.h>
#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/in.h>
#include <linux/module.h>
#include <linux/string.h>
#include <linux/tcp.h>
#include <linux/wait.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "cm.h"
#include "cm_fixture.h"
#include "fuzz.h"
#include "fuzz_reply.h"
#include "hostile_peer.h"
#include "kiwi_test.h"

#define FR_PORT		22680
#define FR_CHUNK	500	/* attempts of one case run, a connect each */
#define FR_FRAME	640	/* a Reply (532 bytes at most), bytes appended */
#define FR_POST		128	/* what follows an acceptable Reply */
#define FR_WAIT_MS	5000	/* bound on an event the test waits for */
#define FR_TIMER_MS	8000	/* softiw's MPA and RTR timers: past the bound */
#define FR_PD		"fuzz-reply"
#define FR_LEGIT	"kiwi-legit"
#define FR_MSG		"fuzz-reply: still served"

/**
 * struct fr_cfg - what one softiw initiator asks for
 * @rev: KIWI_IWARP_OPT_MPA_REV
 * @crc: KIWI_IWARP_OPT_MPA_CRC
 * @p2p: KIWI_IWARP_OPT_P2P
 * @rtr: KIWI_IWARP_OPT_RTR: the RTR types offered
 * @ird: the connect's IRD
 * @ord: the connect's ORD
 */
struct fr_cfg {
	u32 rev;
	u32 crc;
	u32 p2p;
	u32 rtr;
	u16 ird;
	u16 ord;
};

/**
 * struct fr_events - what an active id heard
 * @lock: protects the rest
 * @wq: woken on each event
 * @replies: CONNECT_REPLYs
 * @status: the first one's status
 * @ends: DISCONNECTs and CLOSEs after a CONNECT_REPLY(0)
 * @stray: any other event
 * @pd_len: the first CONNECT_REPLY's private data length
 * @pd: its bytes, up to FR_PD_MAX
 */
struct fr_events {
	spinlock_t lock;	/* protects the rest */
	wait_queue_head_t wq;
	int replies;
	int status;
	int ends;
	int stray;
	u16 pd_len;
	u8 pd[FR_PD_MAX];
};

/**
 * struct fr - one run of the Reply fuzzer
 * @t: the fixture (device, PD)
 * @rnd: the random state
 * @ev: the events of the attempt in progress
 * @cfg: its initiator's settings
 * @req: its Request, as read
 * @id: its active id, or NULL
 * @qp: its QP, or NULL
 * @s: the server's end of its stream, or NULL
 * @lst: the raw listeners, on 127.0.0.1 and ::1
 * @cq: the QPs' CQ
 * @mr: the legitimate SEND's MR, over FR_MSG
 * @out: what the server sends: FR_FRAME + FR_POST bytes
 * @in: what it reads: FR_FRAME bytes
 * @violations: the device's protocol violations before the run
 * @ceps: softiw's live endpoints before the run
 * @up: attempts the oracle accepted
 * @v6: attempts over IPv6
 * @slab: slab memory over the case's chunks
 */
struct fr {
	struct cmt *t;
	struct rnd_state rnd;
	struct fr_events ev;
	struct fr_cfg cfg;
	struct fr_req req;
	struct kiwi_cm_id *id;
	struct ib_qp *qp;
	struct socket *s;
	struct socket *lst[2];
	struct ib_cq *cq;
	struct ib_mr *mr;
	u8 *out;
	u8 *in;
	unsigned long violations;
	unsigned int ceps;
	unsigned int up;
	unsigned int v6;
	struct fuzz_slab *slab;
};

/* Slab across the case's chunks: the parameters run in order. */
static struct fuzz_slab fr_slab;

/* ---- the server ---- */

static void fr_sock_release(struct kunit_resource *res)
{
	kiwi_softiw_sock_release(res->data, false);
}

static bool fr_sock_match(struct kunit *test, struct kunit_resource *res,
			  void *sock)
{
	return res->free == fr_sock_release && res->data == sock;
}

/* Release @sock when the case ends, unless fr_close() did before. */
static void fr_sock_keep(struct kunit *test, struct socket *sock)
{
	if (!kunit_alloc_resource(test, NULL, fr_sock_release, GFP_KERNEL,
				  sock)) {
		sock_release(sock);
		KUNIT_ASSERT_FAILURE(test, "no memory for a resource");
	}
}

/* The raw listener on FR_PORT of the loopback address of @family. */
static struct socket *fr_listen(struct kunit *test, int family)
{
	struct sockaddr_storage ss;
	struct socket *sock;

	kiwi_test_addr(test, &ss, family, KIWI_TEST_LO, FR_PORT);
	KUNIT_ASSERT_EQ(test, sock_create_kern(&init_net, family, SOCK_STREAM,
					       IPPROTO_TCP, &sock), 0);
	fr_sock_keep(test, sock);
	sock_set_reuseaddr(sock->sk);
	KUNIT_ASSERT_EQ(test, kernel_bind(sock, (struct sockaddr *)&ss,
					  sizeof(ss)), 0);
	KUNIT_ASSERT_EQ(test, kernel_listen(sock, 8), 0);
	sock->sk->sk_rcvtimeo = msecs_to_jiffies(FR_WAIT_MS);
	return sock;
}

/*
 * Closing drops what the server's socket has not transmitted yet (with
 * a RST, or with the RST that unread bytes turn a FIN into), while the
 * oracle judges all that was written: first wait for the queue to empty
 * or the connection to die. A frame written a byte at a time can wait
 * on the peer's delayed ACKs.
 */
static void fr_flush(struct socket *s)
{
	struct sock *sk = s->sk;
	bool done;
	int i;

	for (i = 0; i < FR_WAIT_MS; i++) {
		lock_sock(sk);
		done = tcp_write_queue_empty(sk) || sk->sk_state == TCP_CLOSE;
		release_sock(sk);
		if (done)
			return;
		usleep_range(1000, 2000);
	}
}

static void fr_close(struct fr *f, bool reset)
{
	fr_flush(f->s);
	if (reset)
		sock_no_linger(f->s->sk);
	kunit_destroy_resource(f->t->test, fr_sock_match, f->s);
	f->s = NULL;
}

/*
 * The active id's handler: the first CONNECT_REPLY is kept; after a
 * CONNECT_REPLY(0) the peer's close may bring DISCONNECT and CLOSE;
 * anything else is stray.
 */
static int fr_handler(struct kiwi_cm_id *id, const struct kiwi_cm_event *ev)
{
	struct fr_events *e = id->context;
	u16 n = min_t(u16, ev->private_data_len, FR_PD_MAX);

	spin_lock(&e->lock);
	if (ev->event == KIWI_CM_EVENT_CONNECT_REPLY && !e->replies++) {
		e->status = ev->status;
		e->pd_len = ev->private_data_len;
		if (n)
			memcpy(e->pd, ev->private_data, n);
	} else if (ev->event != KIWI_CM_EVENT_CONNECT_REPLY) {
		if (e->replies == 1 && !e->status &&
		    (ev->event == KIWI_CM_EVENT_DISCONNECT ||
		     ev->event == KIWI_CM_EVENT_CLOSE))
			e->ends++;
		else
			e->stray++;
	}
	spin_unlock(&e->lock);
	wake_up(&e->wq);
	return 0;
}

static bool fr_await(struct fr *f)
{
	return wait_event_timeout(f->ev.wq, READ_ONCE(f->ev.replies),
				  msecs_to_jiffies(FR_WAIT_MS));
}

static void fr_opt(struct kunit *test, struct kiwi_cm_id *id, int opt, u32 v)
{
	KUNIT_ASSERT_EQ(test, kiwi_cm_set_option(id, opt, &v, sizeof(v)), 0);
}

/* A fresh QP and active id, with the settings of f->cfg. */
static void fr_new_id(struct fr *f)
{
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_RC, .sq_sig_type = IB_SIGNAL_REQ_WR,
		.send_cq = f->cq, .recv_cq = f->cq,
		.cap = { .max_send_wr = 2, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ib_qp_attr attr = { .qp_access_flags = KIWI_QP_ACCESS_IWARP };
	struct kunit *test = f->t->test;
	struct kiwi_cm_id *id;
	struct ib_qp *qp;

	qp = kiwi_create_qp(f->t->pd, &init);
	KUNIT_ASSERT_FALSE(test, IS_ERR(qp));
	f->qp = qp;
	KUNIT_ASSERT_EQ(test, kiwi_modify_qp(qp, &attr, IB_QP_ACCESS_FLAGS), 0);
	id = kiwi_cm_create_id(f->t->dev, fr_handler, &f->ev);
	KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(id));
	f->id = id;
	fr_opt(test, id, KIWI_IWARP_OPT_MPA_REV, f->cfg.rev);
	fr_opt(test, id, KIWI_IWARP_OPT_MPA_CRC, f->cfg.crc);
	fr_opt(test, id, KIWI_IWARP_OPT_P2P, f->cfg.p2p);
	fr_opt(test, id, KIWI_IWARP_OPT_RTR, f->cfg.rtr);
	fr_opt(test, id, KIWI_IWARP_OPT_MPA_TIMEOUT_MS, FR_TIMER_MS);
	fr_opt(test, id, KIWI_IWARP_OPT_RTR_TIMEOUT_MS, FR_TIMER_MS);
}

/* Read the whole Request into f->req. */
static void fr_read_request(struct fr *f)
{
	struct kunit *test = f->t->test;
	struct fr_req *req = &f->req;
	u8 *b = f->in;
	u16 len, ird, ord;

	KUNIT_ASSERT_EQ(test, hostile_recv_all(f->s, b, FR_HDR), FR_HDR);
	KUNIT_ASSERT_EQ(test, memcmp(b, KEY_REQ, 16), 0);
	len = get_unaligned_be16(b + 18);
	KUNIT_ASSERT_LE(test, len, FR_PD_MAX);
	KUNIT_ASSERT_EQ(test, hostile_recv_all(f->s, b + FR_HDR, len), len);
	KUNIT_ASSERT_EQ(test, b[17], (u8)f->cfg.rev);
	memset(req, 0, sizeof(*req));
	req->rev = b[17];
	req->crc = b[16] & FR_F_C;
	req->enhanced = fr_enhanced(b) && len >= FR_WORD;
	if (!req->enhanced)
		return;
	ird = get_unaligned_be16(b + FR_HDR);
	ord = get_unaligned_be16(b + FR_HDR + 2);
	req->p2p = ird & FR_IRD_A;
	req->rtr = fr_rtr_bits(ird, ord);
	req->ird = ird & FR_DEPTH;
	req->ord = ord & FR_DEPTH;
}

/*
 * Start an attempt with the settings of f->cfg: connect to 127.0.0.1 or
 * ::1, drawn at random, take the connection on that family's raw
 * listener, read the Request.
 */
static void fr_start(struct fr *f)
{
	struct kiwi_conn_param p = {
		.private_data = FR_PD, .private_data_len = strlen(FR_PD),
		.ird = f->cfg.ird, .ord = f->cfg.ord,
	};
	struct kunit *test = f->t->test;
	bool v6 = fuzz_rand(&f->rnd, 2);
	struct socket *s;

	spin_lock(&f->ev.lock);
	f->ev.replies = 0;
	f->ev.status = 0;
	f->ev.ends = 0;
	f->ev.stray = 0;
	f->ev.pd_len = 0;
	spin_unlock(&f->ev.lock);
	fr_new_id(f);
	kiwi_test_addr(test, &f->id->remote_addr, v6 ? AF_INET6 : AF_INET,
		       KIWI_TEST_LO, FR_PORT);
	p.qpn = f->qp->qp_num;
	KUNIT_ASSERT_EQ(test, kiwi_cm_connect(f->id, &p), 0);
	KUNIT_ASSERT_EQ_MSG(test, kernel_accept(f->lst[v6], &s, 0), 0,
			    "softiw's connect never arrived");
	f->v6 += v6;
	fr_sock_keep(test, s);
	tcp_sock_set_nodelay(s->sk);
	f->s = s;
	fr_read_request(f);
}

/*
 * The attempt is over: the server's close must have reached an
 * established id (DISCONNECT or CLOSE); the id heard one CONNECT_REPLY
 * and nothing stray; the core counted no violation. Then the id and QP
 * go. @i names the attempt in messages (-1: the legitimate exchange).
 */
static void fr_end(struct fr *f, int i)
{
	struct kunit *test = f->t->test;
	struct fr_events *e = &f->ev;
	int replies, stray, ends = 1;
	struct ib_wc wc[4];

	if (READ_ONCE(e->replies) && !READ_ONCE(e->status))
		ends = wait_event_timeout(e->wq, READ_ONCE(e->ends),
					  msecs_to_jiffies(FR_WAIT_MS));
	spin_lock(&e->lock);
	replies = e->replies;
	stray = e->stray;
	spin_unlock(&e->lock);
	KUNIT_EXPECT_NE_MSG(test, ends, 0,
			    "frame %d: the close never reached the id", i);
	KUNIT_EXPECT_EQ_MSG(test, replies, 1, "frame %d: CONNECT_REPLYs", i);
	KUNIT_EXPECT_EQ_MSG(test, stray, 0, "frame %d: stray events", i);
	KUNIT_EXPECT_EQ_MSG(test, kiwi_device_counter(f->t->dev,
						      KIWI_DEV_CNT_VIOLATIONS),
			    f->violations, "frame %d: protocol violation", i);
	kiwi_cm_destroy_id(f->id);
	f->id = NULL;
	kiwi_destroy_qp(f->qp);
	f->qp = NULL;
	while (kiwi_poll_cq(f->cq, ARRAY_SIZE(wc), wc) > 0)
		;
}

/* ---- the Replies, and what follows them ---- */

/* A random one of the RTR types in @set, or 0 if it is empty. */
static u8 fr_any_rtr(struct rnd_state *rnd, u8 set)
{
	u8 bit;

	if (!(set & KIWI_IWARP_RTR_ALL))
		return 0;
	do
		bit = BIT(fuzz_rand(rnd, 3));
	while (!(set & bit));
	return bit;
}

/* A valid Reply to f->req with random content. Return: its length. */
static int fr_random_reply(struct fr *f, u8 *b)
{
	struct rnd_state *rnd = &f->rnd;
	const struct fr_req *req = &f->req;
	struct fr_rep rep = { .rev = 1 + fuzz_rand(rnd, req->rev) };
	bool enh = rep.rev == 2 && req->enhanced;
	u16 max = FR_PD_MAX - (enh ? FR_WORD : 0);
	int i, len;

	if (enh) {
		rep.ird = fuzz_rand(rnd, 17);
		rep.ord = fuzz_rand(rnd, req->ird + 1);
		if (req->p2p)
			rep.rtr = fr_any_rtr(rnd, req->rtr);
	}
	rep.len = fuzz_rand(rnd, 2) ? fuzz_rand(rnd, 17) :
				      fuzz_rand(rnd, max + 1);
	len = fr_put_reply(b, req, &rep);
	for (i = len - rep.len; i < len; i++)
		b[i] = fuzz_rand(rnd, 256);
	return len;
}

/* Mutate a Reply of @len bytes, or leave it. Return: the new length. */
static int fr_mutate_reply(struct rnd_state *rnd, u8 *b, int len)
{
	static const u8 revs[] = { 0, 3, 255, 1, 2 };
	int pd_len = get_unaligned_be16(b + 18), lie;

	switch (fuzz_rand(rnd, 16)) {
	case 0:
	case 1:		/* left valid */
		break;
	case 2:		/* another key */
		b[fuzz_rand(rnd, 16)] ^= 1 + fuzz_rand(rnd, 255);
		break;
	case 3:		/* Reject */
		b[16] |= FR_F_R;
		break;
	case 4:		/* a revision of any kind */
		b[17] = revs[fuzz_rand(rnd, ARRAY_SIZE(revs))];
		break;
	case 5:		/* a flag flipped: M, C, R, E or reserved */
		b[16] ^= BIT(fuzz_rand(rnd, 8));
		break;
	case 6:		/* markers or CRC the Request did not ask for */
		b[16] |= fuzz_rand(rnd, 2) ? FR_F_M : FR_F_C;
		break;
	case 7:		/* IRD or ORD (or private data) half-word */
		if (len >= FR_HDR + FR_WORD)
			put_unaligned_be16(fuzz_rand(rnd, 0x10000),
					   b + FR_HDR + 2 * fuzz_rand(rnd, 2));
		break;
	case 8:		/* the ULP's private data changed: harmless */
		if (pd_len > FR_WORD)
			b[len - 1 - fuzz_rand(rnd, pd_len - FR_WORD)] ^=
				1 + fuzz_rand(rnd, 255);
		break;
	case 9:		/* PD_Length off by a little, maybe backed */
		lie = max(pd_len + (int)fuzz_rand(rnd, 17) - 8, 0);
		put_unaligned_be16(lie, b + 18);
		if (fuzz_rand(rnd, 2))
			len = fuzz_append(rnd, b, len, FR_FRAME);
		break;
	default:	/* what fuzz_mpa_request does to Requests */
		len = fuzz_mutate(rnd, b, len, FR_FRAME,
				  len >= FR_HDR + FR_WORD ? FR_HDR + FR_WORD :
							    FR_HDR, 18);
		break;
	}
	return len;
}

/*
 * The server's answer to a READ RTR at @b (FR_POST bytes): the Read
 * Response, valid or mutated (the CRC made right again half the time),
 * garbage, or nothing. Return: its length.
 */
static int fr_response(struct rnd_state *rnd, u8 *b, bool crc, u32 stag,
		       u64 to)
{
	int i, n, kind = fuzz_rand(rnd, 16);

	if (!kind)
		return 0;
	if (kind == 1) {
		n = 1 + fuzz_rand(rnd, FR_POST);
		for (i = 0; i < n; i++)
			b[i] = fuzz_rand(rnd, 256);
		return n;
	}
	n = fr_put_response(b, stag, to, crc);
	if (kind < 9)
		return n;
	n = fuzz_mutate(rnd, b, n, FR_POST, 16, 0);
	if (crc && n >= 8 && fuzz_rand(rnd, 2))
		put_unaligned_le32(fr_crc(b, n - 4), b + n - 4);
	return n;
}

/* A first FPDU for the data path at @b: a SEND, mutated, or garbage. */
static int fr_first_fpdu(struct rnd_state *rnd, u8 *b, bool crc)
{
	struct hostile_fpdu fp = {
		.ctrl = HOSTILE_SEND_LAST, .msn = 1, .data = FR_MSG,
		.len = 1 + fuzz_rand(rnd, sizeof(FR_MSG) - 1),
	};
	int i, n;

	if (fuzz_rand(rnd, 4)) {
		n = hostile_fpdu_put(b, &fp, crc);
		return fuzz_mutate(rnd, b, n, FR_POST, 20, 0);
	}
	n = 1 + fuzz_rand(rnd, FR_POST);
	for (i = 0; i < n; i++)
		b[i] = fuzz_rand(rnd, 256);
	return n;
}

/*
 * Take the initiator's RTR, which must be of the type @v names, with
 * its CRC right if CRC is in force; a READ's Data Sink goes to @stag
 * and @to.
 */
static void fr_take_rtr(struct fr *f, const struct fr_verdict *v, u32 *stag,
			u64 *to)
{
	u8 op = v->rtr == KIWI_IWARP_RTR_WRITE ? 0 :
		v->rtr == KIWI_IWARP_RTR_READ ? 1 : 3;
	struct kunit *test = f->t->test;
	int n = hostile_recv_fpdu(f->s, f->in, FR_FRAME);
	u8 *b = f->in;

	*stag = 0;
	*to = 0;
	KUNIT_EXPECT_GE_MSG(test, n, 20, "RTR %u never came", v->rtr);
	if (n < 20)
		return;
	KUNIT_EXPECT_EQ(test, b[3] & 0xf, op);
	if (v->crc)
		KUNIT_EXPECT_EQ(test, get_unaligned_le32(b + n - 4),
				fr_crc(b, n - 4));
	if (op == 1 && n >= 32) {
		*stag = get_unaligned_be32(b + 20);
		*to = get_unaligned_be64(b + 24);
	}
}

/*
 * After an acceptable Reply of which @n bytes (with anything appended)
 * went: take the RTR if one is due and answer a READ one, which then
 * decides; else, one time in four, send a first FPDU, which is the data
 * path's business.
 */
static void fr_after_reply(struct fr *f, struct fr_verdict *v, int n)
{
	struct rnd_state *rnd = &f->rnd;
	u8 *post = f->out + n;
	u32 stag;
	u64 to;
	int m;

	if (v->rtr)
		fr_take_rtr(f, v, &stag, &to);
	if (v->rtr == KIWI_IWARP_RTR_READ) {
		m = fr_response(rnd, post, v->crc, stag, to);
		fuzz_send(rnd, f->s, post, m);
		v->ok = fr_response_ok(f->out + v->len, n + m - v->len,
				       v->crc, stag, to);
		v->decided = v->ok;
		return;
	}
	if (fuzz_rand(rnd, 4))
		return;
	m = fr_first_fpdu(rnd, post, v->crc);
	fuzz_send(rnd, f->s, post, m);
}

/* The outcome the oracle calls for, heard within the bound. */
static void fr_check(struct fr *f, const struct fr_verdict *v, bool heard,
		     int i)
{
	struct kunit *test = f->t->test;
	struct fr_events *e = &f->ev;
	int status, pd_len;

	KUNIT_EXPECT_TRUE_MSG(test, heard, "frame %d: no CONNECT_REPLY", i);
	if (!heard)
		return;
	/* set by the first CONNECT_REPLY, never changed after it */
	spin_lock(&e->lock);
	status = e->status;
	pd_len = e->pd_len;
	spin_unlock(&e->lock);
	if (!v->ok) {
		KUNIT_EXPECT_LT_MSG(test, status, 0,
				    "frame %d: bad Reply accepted", i);
		return;
	}
	KUNIT_EXPECT_EQ_MSG(test, status, 0,
			    "frame %d: acceptable Reply refused", i);
	KUNIT_EXPECT_EQ_MSG(test, pd_len, v->pd_len,
			    "frame %d: private data length", i);
	if (pd_len == v->pd_len)
		KUNIT_EXPECT_EQ_MSG(test, memcmp(e->pd, f->out + v->pd_off,
						 pd_len), 0,
				    "frame %d: private data", i);
}

/* Random settings of a fuzzed initiator. */
static void fr_random_cfg(struct fr *f)
{
	struct rnd_state *rnd = &f->rnd;
	struct fr_cfg *c = &f->cfg;

	c->rev = 1 + fuzz_rand(rnd, 2);
	c->crc = fuzz_rand(rnd, 2);
	c->p2p = c->rev == 2 && fuzz_rand(rnd, 2);
	c->rtr = 1 + fuzz_rand(rnd, KIWI_IWARP_RTR_ALL);
	c->ird = 1 + fuzz_rand(rnd, 8);
	c->ord = 1 + fuzz_rand(rnd, 8);
}

/*
 * One attempt: a mutated Reply and what follows it; the server closes
 * by FIN or RST, at once, after a short silence, or, when the bytes
 * decide, once the id has its outcome.
 */
static void fr_one(struct fr *f, int i)
{
	struct rnd_state *rnd = &f->rnd;
	struct fr_verdict v;
	bool heard;
	int n, how;

	fr_random_cfg(f);
	fr_start(f);
	n = fr_mutate_reply(rnd, f->out, fr_random_reply(f, f->out));
	fr_judge_reply(&f->req, f->out, n, &v);
	fuzz_send(rnd, f->s, f->out, n);
	if (v.ok)
		fr_after_reply(f, &v, n);
	how = fuzz_rand(rnd, 5);
	if (how == 4 && v.decided) {
		heard = fr_await(f);
		fr_close(f, fuzz_rand(rnd, 2));
	} else {
		if (how >= 2)
			msleep(1 + fuzz_rand(rnd, 20));
		fr_close(f, how & 1);
		heard = fr_await(f);
	}
	fr_check(f, &v, heard, i);
	f->up += v.ok;
	fr_end(f, i);
}

/*
 * A legitimate exchange: a revision 2 initiator, an acceptable Reply;
 * the connection is up with the Reply's private data and carries a SEND
 * to the server.
 */
static void fr_legit(struct fr *f)
{
	struct kunit *test = f->t->test;
	struct fr_rep rep = { .rev = 2, .ird = 4, .pd = FR_LEGIT,
			      .len = strlen(FR_LEGIT) };
	struct ib_sge sge = { .addr = f->mr->iova, .length = strlen(FR_MSG),
			      .lkey = f->mr->lkey };
	struct ib_send_wr wr = { .wr_id = 7, .sg_list = &sge, .num_sge = 1,
				 .opcode = IB_WR_SEND,
				 .send_flags = IB_SEND_SIGNALED };
	int n, want = round_up(FR_HDR + strlen(FR_MSG), 4) + 4, i;
	struct ib_wc wc = {};

	f->cfg = (struct fr_cfg){ .rev = 2, .rtr = KIWI_IWARP_RTR_ALL,
				  .ird = 4, .ord = 4 };
	fr_start(f);
	rep.ord = min_t(u16, f->req.ird, 4);
	n = fr_put_reply(f->out, &f->req, &rep);
	KUNIT_ASSERT_EQ(test, cmt_raw_send(f->s, f->out, n), n);
	KUNIT_ASSERT_TRUE_MSG(test, fr_await(f), "legitimate Reply unheard");
	KUNIT_ASSERT_EQ(test, f->ev.status, 0);
	KUNIT_EXPECT_EQ(test, f->ev.pd_len, (u16)strlen(FR_LEGIT));
	KUNIT_EXPECT_EQ(test, memcmp(f->ev.pd, FR_LEGIT, strlen(FR_LEGIT)), 0);
	KUNIT_ASSERT_EQ(test, kiwi_post_send(f->qp, &wr, NULL), 0);
	KUNIT_ASSERT_EQ(test, hostile_recv_fpdu(f->s, f->in, FR_FRAME), want);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(f->in),
			(u16)(18 + strlen(FR_MSG)));
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(f->in + 2), HOSTILE_SEND_LAST);
	KUNIT_EXPECT_EQ(test, memcmp(f->in + 20, FR_MSG, strlen(FR_MSG)), 0);
	for (i = 0; i < 500 && !kiwi_poll_cq(f->cq, 1, &wc); i++)
		usleep_range(2000, 4000);
	KUNIT_EXPECT_LT(test, i, 500);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 7ULL);
	fr_close(f, false);
	fr_end(f, -1);
	fuzz_slab_check(test, f->slab);
}

static void fr_release(struct kunit_resource *res)
{
	struct fr *f = res->data;

	if (f->id)
		kiwi_cm_destroy_id(f->id);
	f->id = NULL;
	if (f->qp)
		kiwi_destroy_qp(f->qp);
	f->qp = NULL;
	if (f->cq)
		kiwi_destroy_cq(f->cq);
	f->cq = NULL;
}

static struct fr *fr_setup(struct kunit *test)
{
	struct fr *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	struct ib_cq_init_attr attr = { .cqe = 16 };
	struct ib_cq *cq;
	void *buf;

	KUNIT_ASSERT_NOT_NULL(test, f);
	kiwi_test_tcp_watch(test);
	f->t = cmt_setup(test, FR_PORT);
	spin_lock_init(&f->ev.lock);
	init_waitqueue_head(&f->ev.wq);
	f->out = kunit_kzalloc(test, FR_FRAME + FR_POST, GFP_KERNEL);
	f->in = kunit_kzalloc(test, FR_FRAME, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f->out);
	KUNIT_ASSERT_NOT_NULL(test, f->in);
	buf = cmt_buf(f->t, sizeof(FR_MSG));
	memcpy(buf, FR_MSG, sizeof(FR_MSG));
	f->mr = cmt_mr(f->t, buf, sizeof(FR_MSG), IB_ACCESS_LOCAL_WRITE);
	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test, NULL, fr_release,
							 GFP_KERNEL, f));
	cq = kiwi_create_cq(f->t->dev, NULL, NULL, NULL, &attr);
	KUNIT_ASSERT_FALSE(test, IS_ERR(cq));
	f->cq = cq;
	f->lst[0] = fr_listen(test, AF_INET);
	f->lst[1] = fr_listen(test, AF_INET6);
	f->violations = kiwi_device_counter(f->t->dev,
					    KIWI_DEV_CNT_VIOLATIONS);
	f->ceps = kiwi_softiw_live_ceps();
	return f;
}

static const void *fr_chunk_gen(const void *prev, char *desc)
{
	return fuzz_chunk_next(prev, desc, FR_CHUNK,
			       kiwi_test_fuzz_reply_iters());
}

static void fuzz_mpa_reply(struct kunit *test)
{
	struct fr *f = fr_setup(test);
	unsigned int i, chunk, iters;

	iters = fuzz_chunk_frames(test, FR_CHUNK, kiwi_test_fuzz_reply_iters(),
				  &chunk);
	prandom_seed_state(&f->rnd, FUZZ_SEED + FR_PORT + chunk);
	f->slab = &fr_slab;
	fuzz_slab_start(f->slab, chunk);
	for (i = 0; i < iters; i++) {
		fr_one(f, chunk * FR_CHUNK + i);
		if ((i + 1) % FUZZ_BATCH == 0)
			fr_legit(f);
	}
	fr_legit(f);
	fuzz_slab_end(test, f->slab);
	pr_info("%s chunk %u: %u mutated Replies, %u acceptable, %u attempts over IPv6; slab %lu KiB at the start, at most %ld KiB more since\n",
		__func__, chunk, iters, f->up, f->v6, f->slab->base,
		f->slab->peak);
	kunit_destroy_resource(test, fr_sock_match, f->lst[0]);
	kunit_destroy_resource(test, fr_sock_match, f->lst[1]);
	cmt_teardown(f->t);
	fuzz_ceps_settled(test, f->ceps);
}

static struct kunit_case fuzz_reply_cases[] = {
	KUNIT_CASE_PARAM(fuzz_mpa_reply, fr_chunk_gen),
	{}
};

static struct kunit_suite fuzz_reply_suite = {
	.suite_init = cmt_suite_init,
	.suite_exit = cmt_suite_exit,
	.name = "kiwi_softiw_fuzz_reply",
	.test_cases = fuzz_reply_cases,
};

kunit_test_suite(fuzz_reply_suite);
