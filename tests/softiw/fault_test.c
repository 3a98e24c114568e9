// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_softiw_fault: every fault point a scenario over softiw reaches
 * (the allocations of kiwi_iwcm and kiwi_softiw, the provider ops the
 * core calls: <kiwi/fault.h>) fails once, in turn, for n = 1, 2, ...
 * until the scenario no longer reaches the n-th. Each time, every wait is
 * bounded (a hang fails the case), the ULP sees the failure as an error
 * (a call's negative errno, an event's status, a completion's), every
 * work request posted completes exactly once, and once everything is
 * destroyed no id, endpoint, PD, CQ, QP or MR is left, in the core or in
 * softiw. The scenario of the last n, which no failure reached, must
 * succeed with the data in place.
 *
 * Two scenarios: a connection (listen, connect with private data, accept
 * with private data, a RECV, a SEND, an RDMA WRITE and an RDMA READ,
 * graceful disconnects, destroy), and the verbs no connection needs (the
 * CQ library, a QP with an rw MR pool and inline data, query_qp, a page
 * array MR, fast registration, rw contexts of a READ and of a WRITE).
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/mm.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/wait.h>
#include <rdma/rw.h>

#include "cm_fixture.h"
#include "cm.h"
#include "softiw.h"
#include "verbs_util.h"

#define SF_PORT		25101
#define SF_MAX_NTH	400	/* far more than either scenario reaches */
#define SF_WAIT_MS	5000
#define SF_BUF		512
#define SF_MSG		64	/* bytes of the SEND, the WRITE, the READ */
#define SF_SEND_OFF	0	/* where each is in its buffers */
#define SF_WRITE_OFF	64
#define SF_READ_OFF	128

/* Fault points of the connection scenario's path; see the case below. */
#define SF_CONN_SITES	51
/* And of the verbs scenario's. */
#define SF_VERBS_SITES	37

enum { SF_ACTIVE, SF_CHILD, SF_LISTENER, SF_NR_IDS };

struct sf_mem;

/**
 * struct sf - a sweep, and what its run of the scenario saw
 * @test: the test
 * @dev: softiw_lo
 * @lock: protects @ids, @seen, @errors and @extra
 * @wq: woken on every event
 * @buf: the memory of the connection's MRs
 * @mem: what the verbs scenario uses
 * @ids: everything from here on is a run's own: the active id, the
 *	child of its request, the listener
 * @seen: per id, BIT(enum kiwi_cm_event_type) of the events it got
 * @errors: events with a non-zero status
 * @extra: requests beyond the one expected (refused)
 * @err: the first negative errno a call returned
 * @odd: a call returned something it may not (a positive value, ...)
 * @hang: what did not come in time, or NULL
 * @done: the scenario ran to its end
 * @pd: its PD
 * @cq: its CQ
 * @qp: its QPs: the active side's, the passive side's
 * @mr: its MRs, over @buf
 * @posted: work requests posted, per QP
 * @completed: their completions, per QP
 * @wc_err: completions with an error status
 * @recv_len: byte_len of the RECV's completion
 */
struct sf {
	struct kunit *test;
	struct ib_device *dev;
	spinlock_t lock;	/* protects ids, seen, errors, extra */
	wait_queue_head_t wq;
	u8 *buf[2];
	struct sf_mem *mem;
	struct kiwi_cm_id *ids[SF_NR_IDS];
	unsigned long seen[SF_NR_IDS];
	int errors;
	int extra;
	int err;
	bool odd;
	const char *hang;
	bool done;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qp[2];
	struct ib_mr *mr[2];
	int posted[2];
	int completed[2];
	int wc_err;
	u32 recv_len;
};

static int sf_handler(struct kiwi_cm_id *id, const struct kiwi_cm_event *ev)
{
	struct sf *s = id->context;
	unsigned long flags;
	int who, ret = 0;

	spin_lock_irqsave(&s->lock, flags);
	if (ev->event == KIWI_CM_EVENT_CONNECT_REQUEST && s->ids[SF_CHILD]) {
		s->extra++;
		ret = -EINVAL;		/* the core refuses it */
		goto unlock;
	}
	if (ev->event == KIWI_CM_EVENT_CONNECT_REQUEST)
		s->ids[SF_CHILD] = id;
	if (id == s->ids[SF_ACTIVE])
		who = SF_ACTIVE;
	else if (id == s->ids[SF_CHILD])
		who = SF_CHILD;
	else
		who = SF_LISTENER;
	__set_bit(ev->event, &s->seen[who]);
	s->errors += ev->status != 0;
unlock:
	spin_unlock_irqrestore(&s->lock, flags);
	wake_up_all(&s->wq);
	return ret;
}

static unsigned long sf_seen(struct sf *s, int who)
{
	unsigned long flags, seen;

	spin_lock_irqsave(&s->lock, flags);
	seen = s->seen[who];
	spin_unlock_irqrestore(&s->lock, flags);
	return seen;
}

/* Did an event come with an error? */
static bool sf_failed(struct sf *s)
{
	unsigned long flags;
	bool failed;

	spin_lock_irqsave(&s->lock, flags);
	failed = s->errors;
	spin_unlock_irqrestore(&s->lock, flags);
	return failed;
}

/* Has @who seen one of @events, within SF_WAIT_MS? Else note the hang. */
static bool sf_wait(struct sf *s, int who, unsigned long events,
		    const char *what)
{
	if (wait_event_timeout(s->wq, sf_seen(s, who) & events,
			       msecs_to_jiffies(SF_WAIT_MS)))
		return true;
	s->hang = what;
	return false;
}

/* Note a call's outcome. Return: it succeeded. */
static bool sf_ok(struct sf *s, int ret)
{
	if (ret > 0)
		s->odd = true;
	if (ret < 0 && !s->err)
		s->err = ret;
	return !ret;
}

/* Note the outcome of a call that makes an object. */
static bool sf_made(struct sf *s, const void *obj)
{
	if (!obj)
		s->odd = true;
	return obj && sf_ok(s, PTR_ERR_OR_ZERO(obj));
}

static void sf_set_id(struct sf *s, int who, struct kiwi_cm_id *id)
{
	unsigned long flags;

	spin_lock_irqsave(&s->lock, flags);
	s->ids[who] = id;
	spin_unlock_irqrestore(&s->lock, flags);
}

/* Take the completions the CQ holds. */
static void sf_poll(struct sf *s)
{
	struct ib_wc wc;
	int n;

	while ((n = kiwi_poll_cq(s->cq, 1, &wc)) == 1) {
		s->completed[wc.qp == s->qp[1]]++;
		if (wc.status != IB_WC_SUCCESS)
			s->wc_err++;
		else if (wc.opcode == IB_WC_RECV)
			s->recv_len = wc.byte_len;
	}
	if (n < 0)
		s->odd = true;
}

/* PD, CQ, two QPs and two MRs, all rights. */
static bool sf_verbs(struct sf *s)
{
	struct ib_qp_attr attr = { .qp_access_flags = KIWI_QP_ACCESS_IWARP };
	struct ib_qp_init_attr init = { KT_QP_RC, .cap = { 4, 4, 1, 1 } };
	int i;

	s->pd = kiwi_alloc_pd(s->dev, 0);
	if (!sf_made(s, s->pd))
		return false;
	s->cq = kt_cq(s->dev, 32, NULL, NULL);
	if (!sf_made(s, s->cq))
		return false;
	init.send_cq = s->cq;
	init.recv_cq = s->cq;
	for (i = 0; i < 2; i++) {
		s->qp[i] = kiwi_create_qp(s->pd, &init);
		if (!sf_made(s, s->qp[i]) ||
		    !sf_ok(s, kiwi_modify_qp(s->qp[i], &attr,
					     IB_QP_ACCESS_FLAGS)))
			return false;
	}
	for (i = 0; i < 2; i++) {
		s->mr[i] = kiwi_reg_kernel_mr(s->pd, s->buf[i], SF_BUF,
					      KIWI_ACCESS_ALL);
		if (!sf_made(s, s->mr[i]))
			return false;
	}
	return true;
}

static void sf_addr(struct sockaddr_storage *ss)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	sin->sin_family = AF_INET;
	sin->sin_port = htons(SF_PORT);
	sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
}

/* A new id of @who's: the listener listening, the active id connecting. */
static bool sf_start(struct sf *s, int who)
{
	struct kiwi_conn_param p = {
		.private_data = "req", .private_data_len = 3,
		.ird = 4, .ord = 4, .qpn = s->qp[0]->qp_num,
	};
	struct kiwi_cm_id *id;

	id = kiwi_cm_create_id(s->dev, sf_handler, s);
	if (!sf_made(s, id))
		return false;
	sf_set_id(s, who, id);
	if (who == SF_LISTENER) {
		sf_addr(&id->local_addr);
		return sf_ok(s, kiwi_cm_listen(id, 8));
	}
	sf_addr(&id->remote_addr);
	return sf_ok(s, kiwi_cm_connect(id, &p));
}

/* Listen, connect, accept; both ends up, or the attempt over. */
static bool sf_connect(struct sf *s)
{
	struct kiwi_conn_param p = {
		.private_data = "rep", .private_data_len = 3,
		.ird = 4, .ord = 4, .qpn = s->qp[1]->qp_num,
	};
	const unsigned long up = BIT(KIWI_CM_EVENT_ESTABLISHED) |
				 BIT(KIWI_CM_EVENT_CLOSE);

	if (!sf_start(s, SF_LISTENER) || !sf_start(s, SF_ACTIVE))
		return false;
	/* the request, or the attempt's end */
	if (!wait_event_timeout(s->wq,
				(sf_seen(s, SF_CHILD) &
				 BIT(KIWI_CM_EVENT_CONNECT_REQUEST)) ||
				(sf_seen(s, SF_ACTIVE) &
				 BIT(KIWI_CM_EVENT_CONNECT_REPLY)),
				msecs_to_jiffies(SF_WAIT_MS))) {
		s->hang = "CONNECT_REQUEST or CONNECT_REPLY";
		return false;
	}
	if (!(sf_seen(s, SF_CHILD) & BIT(KIWI_CM_EVENT_CONNECT_REQUEST)))
		return false;	/* refused: CONNECT_REPLY's status says why */
	if (!sf_ok(s, kiwi_cm_accept(s->ids[SF_CHILD], &p)))
		return false;
	if (!sf_wait(s, SF_CHILD, up, "ESTABLISHED or CLOSE of the child") ||
	    !sf_wait(s, SF_ACTIVE, BIT(KIWI_CM_EVENT_CONNECT_REPLY),
		     "CONNECT_REPLY"))
		return false;
	return !sf_failed(s);
}

static int sf_post_send(struct sf *s, struct ib_rdma_wr *wr, int n)
{
	const struct ib_send_wr *bad = NULL;
	int ret, i;

	for (i = 0; i < n - 1; i++)
		wr[i].wr.next = &wr[i + 1].wr;
	ret = kiwi_post_send(s->qp[0], &wr[0].wr, &bad);
	for (i = 0; i < n && &wr[i].wr != bad; i++)
		s->posted[0]++;
	return ret;
}

/* A RECV on the passive side; a SEND, a WRITE and a READ to it. */
static bool sf_transfer(struct sf *s)
{
	u64 a = (uintptr_t)s->buf[0], b = (uintptr_t)s->buf[1];
	struct ib_sge sge[4] = {
		{ b + SF_SEND_OFF, SF_MSG, s->mr[1]->lkey },
		{ a + SF_SEND_OFF, SF_MSG, s->mr[0]->lkey },
		{ a + SF_WRITE_OFF, SF_MSG, s->mr[0]->lkey },
		{ a + SF_READ_OFF, SF_MSG, s->mr[0]->lkey },
	};
	struct ib_recv_wr rwr = { .sg_list = &sge[0], .num_sge = 1 };
	const struct ib_recv_wr *rbad = NULL;
	struct ib_rdma_wr wr[3] = {};
	int i, ret;

	for (i = 0; i < 3; i++) {
		wr[i].wr.sg_list = &sge[i + 1];
		wr[i].wr.num_sge = 1;
		wr[i].wr.send_flags = IB_SEND_SIGNALED;
		wr[i].rkey = s->mr[1]->rkey;
	}
	wr[0].wr.opcode = IB_WR_SEND;
	wr[1].wr.opcode = IB_WR_RDMA_WRITE;
	wr[1].remote_addr = b + SF_WRITE_OFF;
	wr[2].wr.opcode = IB_WR_RDMA_READ;
	wr[2].remote_addr = b + SF_READ_OFF;
	ret = kiwi_post_recv(s->qp[1], &rwr, &rbad);
	if (!ret)
		s->posted[1]++;
	if (!sf_ok(s, ret) || !sf_ok(s, sf_post_send(s, wr, 3)))
		return false;
	for (i = 0; i < SF_WAIT_MS / 20; i++) {
		sf_poll(s);
		if (s->wc_err || sf_failed(s) ||
		    (s->completed[0] == 3 && s->completed[1] == 1))
			break;
		msleep(20);
	}
	if (s->wc_err || sf_failed(s))
		return false;
	if (i == SF_WAIT_MS / 20) {
		s->hang = "the completions";
		return false;
	}
	return true;
}

/* The bytes of a SEND, a WRITE and a READ, each with a pattern of its own. */
static void sf_fill(struct sf *s)
{
	int i;

	for (i = 0; i < SF_MSG; i++) {
		s->buf[0][SF_SEND_OFF + i] = i + 1;
		s->buf[0][SF_WRITE_OFF + i] = i + 101;
		s->buf[1][SF_READ_OFF + i] = i + 201;
	}
}

static bool sf_placed(struct sf *s)
{
	return s->recv_len == SF_MSG &&
	       !memcmp(s->buf[1] + SF_SEND_OFF, s->buf[0] + SF_SEND_OFF,
		       SF_MSG) &&
	       !memcmp(s->buf[1] + SF_WRITE_OFF, s->buf[0] + SF_WRITE_OFF,
		       SF_MSG) &&
	       !memcmp(s->buf[0] + SF_READ_OFF, s->buf[1] + SF_READ_OFF,
		       SF_MSG);
}

/* Graceful disconnects, the active side first; both CLOSE. */
static bool sf_disconnect(struct sf *s)
{
	const unsigned long close = BIT(KIWI_CM_EVENT_CLOSE);

	if (!sf_ok(s, kiwi_cm_disconnect(s->ids[SF_ACTIVE],
					 KIWI_CM_DISCONNECT_GRACEFUL)))
		return false;
	if (!sf_wait(s, SF_CHILD, BIT(KIWI_CM_EVENT_DISCONNECT) | close,
		     "DISCONNECT of the child") || sf_failed(s))
		return false;
	if (!sf_ok(s, kiwi_cm_disconnect(s->ids[SF_CHILD],
					 KIWI_CM_DISCONNECT_GRACEFUL)))
		return false;
	return sf_wait(s, SF_CHILD, close, "CLOSE of the child") &&
	       sf_wait(s, SF_ACTIVE, close, "CLOSE of the active id") &&
	       !sf_failed(s);
}

static void sf_connection(struct sf *s)
{
	if (!sf_verbs(s) || !sf_connect(s) || !sf_transfer(s))
		return;
	if (!sf_placed(s)) {
		s->odd = true;
		return;
	}
	s->done = sf_disconnect(s);
}

/*
 * Destroy what the scenario made: the listener first (no child can come
 * after), then every QP's work requests are complete.
 */
static void sf_release(struct sf *s)
{
	static const int order[] = { SF_LISTENER, SF_CHILD, SF_ACTIVE };
	int i;

	for (i = 0; i < ARRAY_SIZE(order); i++)
		if (!IS_ERR_OR_NULL(s->ids[order[i]]))
			kiwi_cm_destroy_id(s->ids[order[i]]);
	for (i = 0; i < 2; i++)
		if (!IS_ERR_OR_NULL(s->qp[i]))
			kiwi_destroy_qp(s->qp[i]);
	if (!IS_ERR_OR_NULL(s->cq))
		sf_poll(s);
	for (i = 0; i < 2; i++)
		if (!IS_ERR_OR_NULL(s->mr[i]))
			kiwi_dereg_mr(s->mr[i]);
	if (!IS_ERR_OR_NULL(s->cq))
		kiwi_destroy_cq(s->cq);
	if (!IS_ERR_OR_NULL(s->pd))
		kiwi_dealloc_pd(s->pd);
}

/* What is alive, the leak check: of the core, of softiw, of softiw_lo. */
static const char *const sf_count_names[] = {
	"ids", "endpoints", "PDs", "CQs", "QPs", "MRs", "QP numbers", "STags",
};

#define SF_NCOUNT ARRAY_SIZE(sf_count_names)

static void sf_count(struct ib_device *dev, int *c)
{
	struct softiw_device *sdev = softiw_dev(dev);

	c[0] = kiwi_cm_live_ids();
	c[1] = kiwi_softiw_live_ceps();
	c[2] = kiwi_test_dev_list_len(dev, &dev->pds);
	c[3] = kiwi_test_dev_list_len(dev, &dev->cqs);
	c[4] = kiwi_test_dev_list_len(dev, &dev->qps);
	c[5] = kiwi_test_dev_list_len(dev, &dev->mrs);
	c[6] = kiwi_test_xa_len(&sdev->qps);
	c[7] = kiwi_test_xa_len(&sdev->mrs);
}

/*
 * Wait (5 s) until nothing is alive beyond @base; expect it. @base then
 * follows what is alive: down when what earlier suites left closing
 * went meanwhile, up past a leak, which the next runs do not report.
 */
static void sf_expect_freed(struct sf *s, int *base, int nth)
{
	int c[SF_NCOUNT], i, j, over = 0;
	char msg[160] = "";
	size_t len = 0;

	for (i = 0; i < 250; i++) {
		sf_count(s->dev, c);
		for (j = 0, over = 0; j < SF_NCOUNT; j++)
			over += c[j] > base[j];
		if (!over)
			break;
		msleep(20);
	}
	for (j = 0; j < SF_NCOUNT; j++) {
		if (c[j] > base[j])
			len += scnprintf(msg + len, sizeof(msg) - len, " %s +%d",
					 sf_count_names[j], c[j] - base[j]);
		base[j] = c[j];
	}
	if (over)
		KUNIT_FAIL(s->test, "n=%d (%pS): left%s", nth,
			   kiwi_fault_site(), msg);
}

static struct sf *sf_new(struct kunit *test, struct ib_device *dev)
{
	struct sf *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, s);
	s->test = test;
	s->dev = dev;
	spin_lock_init(&s->lock);
	init_waitqueue_head(&s->wq);
	for (i = 0; i < 2; i++) {
		s->buf[i] = kunit_kzalloc(test, SF_BUF, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, s->buf[i]);
	}
	return s;
}

/* A fresh run: nothing seen, nothing made, the buffers filled anew. */
static void sf_reset(struct sf *s)
{
	memset(&s->ids, 0, sizeof(*s) - offsetof(struct sf, ids));
	memset(s->buf[0], 0, SF_BUF);
	memset(s->buf[1], 0, SF_BUF);
	sf_fill(s);
}

/* Expectations of one run, failed at the n-th fault point or not. */
static void sf_expect_run(struct sf *s, int nth, int left)
{
	struct kunit *test = s->test;
	void *site = kiwi_fault_site();
	int i;

	KUNIT_EXPECT_FALSE_MSG(test, s->hang, "n=%d (%pS): no %s", nth, site,
			       s->hang);
	KUNIT_EXPECT_FALSE_MSG(test, s->odd,
			       "n=%d (%pS): a call returned what it may not, or the data is wrong",
			       nth, site);
	KUNIT_EXPECT_EQ_MSG(test, s->extra, 0, "n=%d (%pS)", nth, site);
	for (i = 0; i < 2; i++)
		KUNIT_EXPECT_EQ_MSG(test, s->completed[i], s->posted[i],
				    "n=%d (%pS): completions of QP %d", nth,
				    site, i);
	if (left > 0) {
		KUNIT_EXPECT_TRUE_MSG(test, s->done && !s->err && !s->errors &&
				      !s->wc_err,
				      "n=%d, no failure: err %d, %d events and %d completions with errors",
				      nth, s->err, s->errors, s->wc_err);
		return;
	}
	KUNIT_EXPECT_TRUE_MSG(test, s->err || s->errors || s->wc_err,
			      "n=%d: the failure at %pS went unnoticed", nth,
			      site);
}

/* Sweep the fault points of @scenario, whose path has @sites at least. */
static void sf_sweep(struct kunit *test, struct sf *s,
		     void (*scenario)(struct sf *s), int sites)
{
	int base[SF_NCOUNT];
	int nth, left = 0;

	sf_count(s->dev, base);
	for (nth = 1; nth <= SF_MAX_NTH; nth++) {
		sf_reset(s);
		kiwi_fault_fail_nth(nth);
		scenario(s);
		sf_release(s);
		left = kiwi_fault_remaining();
		kiwi_fault_fail_nth(0);
		sf_expect_run(s, nth, left);
		sf_expect_freed(s, base, nth);
		if (left > 0)
			break;	/* no n-th point on the path: all failed once */
	}
	kunit_info(test, "%d fault points failed in turn", nth - 1);
	KUNIT_EXPECT_GE(test, nth - 1, sites);
	KUNIT_EXPECT_GT(test, left, 0);
}

static void sf_disarm(struct kunit_resource *res)
{
	kiwi_fault_fail_nth(0);
}

static struct sf *sf_setup(struct kunit *test)
{
	struct cmt *t = cmt_setup(test, SF_PORT);

	/* the context only makes the result non-NULL on success */
	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test, NULL,
							 sf_disarm, GFP_KERNEL,
							 t));
	return sf_new(test, t->dev);
}

/*
 * The connection: PD (2 fault points: the op, softiw's allocation), CQ
 * (3), two QPs (6 each: the op, the QP, its two rings, its number, and
 * modify_qp for its rights), two MRs (4 each: the op, the MR, its STag's
 * index and entry): 25; the listener (4: its id, the op, softiw's
 * listener and socket), the active id (7: the id, the op, the socket,
 * the endpoint and its setup state, the private data, the Request),
 * the passive endpoint (2), the child and its private data (2), accept
 * (3: the op, the Read Request queue, the Reply), the active end's Read
 * Request queue and the Reply's private data (2), the transmit buffers
 * and kvecs of both ends (4), and the two disconnects (2): 26.
 */
static void fault_connection_every_site(struct kunit *test)
{
	struct sf *s = sf_setup(test);

	sf_sweep(test, s, sf_connection, SF_CONN_SITES);
}

#define SF_PAGE_OFF	100	/* the page array MR starts this far in */
#define SF_PAGE_TAIL	50	/* and takes this much of its second page */

/**
 * struct sf_mem - the memory of the verbs scenario
 * @pages: two pages for the page array MR and the rw contexts
 * @fr: the fast-registration MR
 * @page_mr: the page array MR
 * @ctx: the rw contexts of a READ and of a WRITE
 */
struct sf_mem {
	struct page *pages[2];
	struct ib_mr *fr;
	struct ib_mr *page_mr;
	struct rdma_rw_ctx ctx[2];
};

/* An rw context of @dir over @n entries at @sg; destroyed at once. */
static bool sf_rw(struct sf *s, struct rdma_rw_ctx *ctx,
		  struct scatterlist *sg, u32 n, enum dma_data_direction dir)
{
	int ret = rdma_rw_ctx_init(ctx, s->qp[0], 1, sg, n, 0, 0x1000, 0x1234,
				   dir);

	if (ret <= 0)
		return sf_ok(s, ret ? ret : -EPROTO);
	rdma_rw_ctx_destroy(ctx, s->qp[0], 1, sg, n, dir);
	return true;
}

/* Fast registration: an MR of two pages, mapped one page. */
static bool sf_fastreg(struct sf *s, struct sf_mem *m)
{
	struct scatterlist sg;
	int n;

	m->fr = ib_alloc_mr(s->pd, IB_MR_TYPE_MEM_REG, 2);
	if (!sf_made(s, m->fr))
		return false;
	sg_init_table(&sg, 1);
	sg_set_page(&sg, m->pages[0], PAGE_SIZE, 0);
	if (ib_dma_map_sg(s->dev, &sg, 1, DMA_BIDIRECTIONAL) != 1)
		return sf_ok(s, -EIO);
	n = ib_map_mr_sg(m->fr, &sg, 1, NULL, PAGE_SIZE);
	ib_dma_unmap_sg(s->dev, &sg, 1, DMA_BIDIRECTIONAL);
	if (n < 0)
		return sf_ok(s, n);
	if (n != 1)
		s->odd = true;
	return n == 1;
}

static void sf_verbs_only(struct sf *s)
{
	struct ib_qp_init_attr init = {
		KT_QP_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1,
			 .max_inline_data = 16, .max_rdma_ctxs = 1 },
	};
	struct ib_qp_attr attr = { .qp_access_flags = KIWI_QP_ACCESS_IWARP };
	struct scatterlist one, two[2];
	struct ib_qp_init_attr got;
	struct sf_mem *m = s->mem;

	s->pd = kiwi_alloc_pd(s->dev, 0);
	if (!sf_made(s, s->pd))
		return;
	s->cq = ib_alloc_cq(s->dev, NULL, 16, 0, IB_POLL_DIRECT);
	if (!sf_made(s, s->cq))
		return;
	init.send_cq = s->cq;
	init.recv_cq = s->cq;
	s->qp[0] = kiwi_create_qp(s->pd, &init);
	if (!sf_made(s, s->qp[0]) ||
	    !sf_ok(s, kiwi_modify_qp(s->qp[0], &attr, IB_QP_ACCESS_FLAGS)) ||
	    !sf_ok(s, kiwi_query_qp(s->qp[0], &attr, 0, &got)))
		return;
	m->page_mr = kiwi_reg_page_mr(s->pd, m->pages, 2, SF_PAGE_OFF,
				      PAGE_SIZE - SF_PAGE_OFF + SF_PAGE_TAIL,
				      0x10000, KIWI_ACCESS_ALL);
	if (!sf_made(s, m->page_mr) || !sf_fastreg(s, m))
		return;
	sg_init_table(&one, 1);
	sg_set_page(&one, m->pages[1], SF_MSG, 0);
	if (!sf_rw(s, &m->ctx[0], &one, 1, DMA_FROM_DEVICE))
		return;
	sg_init_table(two, 2);
	sg_set_page(&two[0], m->pages[0], SF_MSG, 0);
	sg_set_page(&two[1], m->pages[1], SF_MSG, SF_MSG);
	s->done = sf_rw(s, &m->ctx[1], two, 2, DMA_TO_DEVICE);
}

/* The verbs scenario's own objects go first, then sf_release()'s. */
static void sf_verbs_release(struct sf *s)
{
	struct sf_mem *m = s->mem;

	if (!IS_ERR_OR_NULL(m->fr))
		ib_dereg_mr(m->fr);
	if (!IS_ERR_OR_NULL(m->page_mr))
		ib_dereg_mr(m->page_mr);
	m->fr = NULL;
	m->page_mr = NULL;
	if (!IS_ERR_OR_NULL(s->qp[0]))
		kiwi_destroy_qp(s->qp[0]);
	s->qp[0] = NULL;
	if (!IS_ERR_OR_NULL(s->cq))
		ib_free_cq(s->cq);
	s->cq = NULL;
}

static void sf_verbs_scenario(struct sf *s)
{
	sf_verbs_only(s);
	sf_verbs_release(s);
}

static void sf_free_pages(struct kunit_resource *res)
{
	struct sf_mem *m = res->data;
	int i;

	for (i = 0; i < 2; i++)
		if (m->pages[i])
			__free_page(m->pages[i]);
}

/*
 * The verbs no connection needs: PD (2), the CQ library's CQ (4: its
 * batch, the op, softiw's CQ and ring), a QP with inline data and an rw
 * pool of one MR (12: the op, the QP, two rings, the inline buffers, its
 * number; the pool's MR: the op, the MR, its pieces and pages, its
 * STag's index and entry), modify_qp (1), query_qp (1), a page array MR
 * (6: the core's scatterlist, the op, the MR, its pieces, its STag's
 * index and entry), a fast-registration MR (6) and its map_mr_sg (1),
 * an rw READ (2: the registrations, map_mr_sg) and an rw WRITE of two
 * entries (2: its SGEs and WRs): 37.
 */
static void fault_verbs_every_site(struct kunit *test)
{
	struct sf *s = sf_setup(test);
	struct sf_mem *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, m);
	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test, NULL,
							 sf_free_pages,
							 GFP_KERNEL, m));
	m->pages[0] = alloc_page(GFP_KERNEL);
	m->pages[1] = alloc_page(GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, m->pages[0] && m->pages[1]);
	s->mem = m;
	sf_sweep(test, s, sf_verbs_scenario, SF_VERBS_SITES);
}

static struct kunit_case sf_cases[] = {
	KUNIT_CASE(fault_connection_every_site),
	KUNIT_CASE(fault_verbs_every_site),
	{}
};

static struct kunit_suite sf_suite = {
	.name = "kiwi_softiw_fault",
	.suite_init = cmt_suite_init,
	.suite_exit = cmt_suite_exit,
	.test_cases = sf_cases,
};

kunit_test_suite(sf_suite);
