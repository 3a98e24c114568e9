// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_rdmacm_fault: every fault point an rdma_cm connection over softiw
 * on lo reaches (the allocations of kiwi_rdmacm, kiwi_iwcm and
 * kiwi_softiw, the provider ops the core calls: <kiwi/fault.h>) fails
 * once, in turn, for n = 1, 2, ... until the scenario no longer reaches
 * the n-th. The scenario: a wildcard listener, a client id with an iWARP
 * option, address and route resolution, a PD, a CQ of the CQ library and
 * the QP of each side, connect and accept with private data, one SEND,
 * graceful disconnects, destroy. Each time, every wait is bounded (a hang
 * fails the case), the ULP sees the failure as an error (a call's
 * negative errno, an event's status, a completion's), every work request
 * posted completes once, and once everything is destroyed no rdma_cm or
 * iw_cm id, endpoint, PD, CQ, QP or MR is left. The last run, which no
 * failure reached, must succeed with the message in place.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/in.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/wait.h>
#include <net/net_namespace.h>

#include "verbs_util.h"
#include "kiwi_test.h"
#include "rdmacm_test.h"
#include "cm.h"
#include "softiw.h"

#define RF_PORT		7541
#define RF_MAX_NTH	400	/* far more than the scenario reaches */
#define RF_WAIT_MS	5000
#define RF_MSG		64

/*
 * Fault points of the scenario's path: the listener (6: its id, the fan,
 * the fan's iw_cm id, the op, softiw's listener and socket), the client
 * id and its option (2), PD (2), CQ (4: the library's batch, the op,
 * softiw's CQ and ring), the client's QP (6: the op, the QP, its two
 * rings, its number, modify_qp for its rights), connect (7: the iw_cm
 * id, the op, the socket, the endpoint and its setup state, the private
 * data, the Request), the server (14: the endpoint and its setup state,
 * the iw_cm child and its private data, the rdma_cm child, its QP (6),
 * accept: the op, the Read Request queue, the Reply), the client's Read
 * Request queue and the Reply's private data (2), its transmit buffer
 * and kvecs (2), the two disconnects (2).
 */
#define RF_SITES	47

enum { RF_CLIENT, RF_SERVER, RF_SIDES };

/**
 * struct rf - the sweep, and what its run of the scenario saw
 * @test: the test
 * @dev: softiw_lo, referenced: the leak check counts its objects
 * @lock: protects @ids, @seen, @errors, @extra and @err
 * @wq: woken on every event
 * @buf: the SEND's source and the RECV's sink
 * @listener: everything from here on is a run's own: the listener
 * @ids: the client's id, and the server's of the connection
 * @seen: per side, BIT(enum rdma_cm_event_type) of the events it got
 * @errors: events with a non-zero status
 * @extra: requests beyond the one expected (refused)
 * @err: the first negative errno a call returned
 * @odd: a call returned something it may not, or the data is wrong
 * @hang: what did not come in time, or NULL
 * @done: the scenario ran to its end
 * @pd: the PD of both QPs
 * @cq: the CQ of both QPs, polled directly
 * @cqe: the completion callback of each side's work requests
 * @posted: work requests posted, per side
 * @completed: their completions, per side
 * @wc_err: completions with an error status
 * @recv_len: byte_len of the RECV's completion
 */
struct rf {
	struct kunit *test;
	struct ib_device *dev;
	spinlock_t lock;	/* protects ids, seen, errors, extra, err */
	wait_queue_head_t wq;
	u8 *buf[RF_SIDES];
	struct rdma_cm_id *listener;
	struct rdma_cm_id *ids[RF_SIDES];
	unsigned long seen[RF_SIDES];
	int errors;
	int extra;
	int err;
	bool odd;
	const char *hang;
	bool done;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_cqe cqe[RF_SIDES];
	int posted[RF_SIDES];
	int completed[RF_SIDES];
	int wc_err;
	u32 recv_len;
};

/* Note a call's outcome (any task). Return: it succeeded. */
static bool rf_ok(struct rf *s, int ret)
{
	unsigned long flags;

	spin_lock_irqsave(&s->lock, flags);
	if (ret > 0)
		s->odd = true;
	if (ret < 0 && !s->err)
		s->err = ret;
	spin_unlock_irqrestore(&s->lock, flags);
	return !ret;
}

static bool rf_made(struct rf *s, const void *obj)
{
	if (!obj)
		s->odd = true;
	return obj && rf_ok(s, PTR_ERR_OR_ZERO(obj));
}

static void rf_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rf *s = cq->cq_context;
	int side = wc->wr_cqe == &s->cqe[RF_SERVER];

	s->completed[side]++;
	if (wc->status != IB_WC_SUCCESS)
		s->wc_err++;
	else if (side == RF_SERVER)
		s->recv_len = wc->byte_len;
}

static int rf_qp(struct rf *s, struct rdma_cm_id *id)
{
	struct ib_qp_init_attr init = { KT_QP_RC, .cap = { 4, 4, 1, 1 } };

	init.send_cq = s->cq;
	init.recv_cq = s->cq;
	return rdma_create_qp(id, s->pd, &init);
}

/* The server's part of a request: a QP and the accept. */
static int rf_request(struct rf *s, struct rdma_cm_id *id)
{
	struct rdma_conn_param p = {
		.private_data = "rep", .private_data_len = 3,
		.responder_resources = 4, .initiator_depth = 4,
	};
	unsigned long flags;
	bool first;
	int ret;

	spin_lock_irqsave(&s->lock, flags);
	first = !s->ids[RF_SERVER];
	s->extra += !first;
	spin_unlock_irqrestore(&s->lock, flags);
	if (!first)
		return -EINVAL;		/* rdma_cm destroys it */
	ret = rf_qp(s, id);
	if (!ret) {
		ret = rdma_accept(id, &p);
		if (ret)
			rdma_destroy_qp(id);
	}
	if (!rf_ok(s, ret))
		return ret;		/* rdma_cm destroys it */
	spin_lock_irqsave(&s->lock, flags);
	s->ids[RF_SERVER] = id;
	spin_unlock_irqrestore(&s->lock, flags);
	return 0;
}

static int rf_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct rf *s = id->context;
	unsigned long flags;
	int side, ret = 0;

	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		ret = rf_request(s, id);
	spin_lock_irqsave(&s->lock, flags);
	side = id == s->ids[RF_CLIENT] ? RF_CLIENT : RF_SERVER;
	__set_bit(ev->event, &s->seen[side]);
	s->errors += ev->status != 0;
	spin_unlock_irqrestore(&s->lock, flags);
	wake_up_all(&s->wq);
	return ret;
}

static unsigned long rf_seen(struct rf *s, int side)
{
	unsigned long flags, seen;

	spin_lock_irqsave(&s->lock, flags);
	seen = s->seen[side];
	spin_unlock_irqrestore(&s->lock, flags);
	return seen;
}

/* Did an event come with an error? */
static bool rf_failed(struct rf *s)
{
	unsigned long flags;
	bool failed;

	spin_lock_irqsave(&s->lock, flags);
	failed = s->errors;
	spin_unlock_irqrestore(&s->lock, flags);
	return failed;
}

/*
 * Wait (RF_WAIT_MS) until @side saw one of @events, else note the hang.
 * Return: it saw @want.
 */
static bool rf_wait(struct rf *s, int side, int want, unsigned long events,
		    const char *what)
{
	events |= BIT(want);
	if (!wait_event_timeout(s->wq, rf_seen(s, side) & events,
				msecs_to_jiffies(RF_WAIT_MS))) {
		s->hang = what;
		return false;
	}
	return rf_seen(s, side) & BIT(want);
}

/* A wildcard listener, and the client's id resolved up to its route. */
static bool rf_prepare(struct rf *s)
{
	struct sockaddr_storage ss;
	struct rdma_cm_id *id;
	unsigned long flags;
	u32 rev = 2;

	s->listener = rdma_create_id(&init_net, rf_handler, s, RDMA_PS_TCP,
				     IB_QPT_RC);
	if (!rf_made(s, s->listener))
		return false;
	kiwi_rt_addr(&ss, AF_INET, "0.0.0.0", RF_PORT);
	if (!rf_ok(s, rdma_bind_addr(s->listener, (struct sockaddr *)&ss)) ||
	    !rf_ok(s, rdma_listen(s->listener, 8)))
		return false;
	id = rdma_create_id(&init_net, rf_handler, s, RDMA_PS_TCP, IB_QPT_RC);
	if (!rf_made(s, id))
		return false;
	spin_lock_irqsave(&s->lock, flags);
	s->ids[RF_CLIENT] = id;
	spin_unlock_irqrestore(&s->lock, flags);
	if (!rf_ok(s, rdma_set_option(id, KIWI_RDMA_OPTION_IWARP,
				      KIWI_IWARP_OPT_MPA_REV, &rev,
				      sizeof(rev))))
		return false;
	kiwi_rt_addr(&ss, AF_INET, "127.0.0.1", RF_PORT);
	if (!rf_ok(s, rdma_resolve_addr(id, NULL, (struct sockaddr *)&ss,
					2000)) ||
	    !rf_wait(s, RF_CLIENT, RDMA_CM_EVENT_ADDR_RESOLVED,
		     BIT(RDMA_CM_EVENT_ADDR_ERROR), "ADDR_RESOLVED"))
		return false;
	return rf_ok(s, rdma_resolve_route(id, 2000)) &&
	       rf_wait(s, RF_CLIENT, RDMA_CM_EVENT_ROUTE_RESOLVED,
		       BIT(RDMA_CM_EVENT_ROUTE_ERROR), "ROUTE_RESOLVED");
}

/* The client's PD, CQ and QP, then connect; both sides up. */
static bool rf_connect(struct rf *s)
{
	struct rdma_conn_param p = {
		.private_data = "req", .private_data_len = 3,
		.responder_resources = 4, .initiator_depth = 4,
	};
	struct rdma_cm_id *id = s->ids[RF_CLIENT];
	const unsigned long failed = BIT(RDMA_CM_EVENT_REJECTED) |
				     BIT(RDMA_CM_EVENT_UNREACHABLE) |
				     BIT(RDMA_CM_EVENT_CONNECT_ERROR) |
				     BIT(RDMA_CM_EVENT_DISCONNECTED);

	s->pd = ib_alloc_pd(id->device, 0);
	if (!rf_made(s, s->pd))
		return false;
	s->cq = ib_alloc_cq(id->device, s, 16, 0, IB_POLL_DIRECT);
	if (!rf_made(s, s->cq) || !rf_ok(s, rf_qp(s, id)) ||
	    !rf_ok(s, rdma_connect(id, &p)))
		return false;
	return rf_wait(s, RF_CLIENT, RDMA_CM_EVENT_ESTABLISHED, failed,
		       "the client's ESTABLISHED or its failure") &&
	       rf_wait(s, RF_SERVER, RDMA_CM_EVENT_ESTABLISHED, failed,
		       "the server's ESTABLISHED or its failure") &&
	       !rf_failed(s);
}

/* A RECV on the server, a SEND from the client. */
static bool rf_transfer(struct rf *s)
{
	struct ib_sge sge[RF_SIDES] = {
		{ (uintptr_t)s->buf[RF_CLIENT], RF_MSG, s->pd->local_dma_lkey },
		{ (uintptr_t)s->buf[RF_SERVER], RF_MSG, s->pd->local_dma_lkey },
	};
	struct ib_recv_wr rwr = {
		.wr_cqe = &s->cqe[RF_SERVER], .sg_list = &sge[RF_SERVER],
		.num_sge = 1,
	};
	struct ib_send_wr swr = {
		.wr_cqe = &s->cqe[RF_CLIENT], .sg_list = &sge[RF_CLIENT],
		.num_sge = 1, .opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};
	int i;

	if (!rf_ok(s, ib_post_recv(s->ids[RF_SERVER]->qp, &rwr, NULL)))
		return false;
	s->posted[RF_SERVER]++;
	if (!rf_ok(s, ib_post_send(s->ids[RF_CLIENT]->qp, &swr, NULL)))
		return false;
	s->posted[RF_CLIENT]++;
	for (i = 0; i < RF_WAIT_MS / 20; i++) {
		ib_process_cq_direct(s->cq, -1);
		if (s->wc_err || rf_failed(s) ||
		    (s->completed[RF_CLIENT] && s->completed[RF_SERVER]))
			break;
		msleep(20);
	}
	if (s->wc_err || rf_failed(s))
		return false;
	if (i == RF_WAIT_MS / 20) {
		s->hang = "the completions";
		return false;
	}
	if (s->recv_len != RF_MSG ||
	    memcmp(s->buf[RF_SERVER], s->buf[RF_CLIENT], RF_MSG))
		s->odd = true;
	return !s->odd;
}

/* Graceful disconnects, the client first: DISCONNECTED on both sides. */
static bool rf_disconnect(struct rf *s)
{
	const int ev = RDMA_CM_EVENT_DISCONNECTED;

	if (!rf_ok(s, rdma_disconnect(s->ids[RF_CLIENT])) ||
	    !rf_wait(s, RF_CLIENT, ev, 0, "the client's DISCONNECTED") ||
	    !rf_wait(s, RF_SERVER, ev, 0, "the server's DISCONNECTED") ||
	    rf_failed(s))
		return false;
	return rf_ok(s, rdma_disconnect(s->ids[RF_SERVER]));
}

static void rf_scenario(struct rf *s)
{
	if (rf_prepare(s) && rf_connect(s) && rf_transfer(s))
		s->done = rf_disconnect(s);
}

/* An id and its QP; the QP first, so that its work requests complete. */
static void rf_destroy(struct rdma_cm_id *id)
{
	if (IS_ERR_OR_NULL(id))
		return;
	rdma_destroy_qp(id);
	rdma_destroy_id(id);
}

/* Destroy what the run made: the listener first (no request comes after). */
static void rf_release(struct rf *s)
{
	if (!IS_ERR_OR_NULL(s->listener))
		rdma_destroy_id(s->listener);
	rf_destroy(s->ids[RF_SERVER]);
	rf_destroy(s->ids[RF_CLIENT]);
	if (!IS_ERR_OR_NULL(s->cq)) {
		ib_process_cq_direct(s->cq, -1);
		ib_free_cq(s->cq);
	}
	if (!IS_ERR_OR_NULL(s->pd))
		ib_dealloc_pd(s->pd);
}

/* What is alive, the leak check: of the modules, of softiw_lo. */
static const char *const rf_count_names[] = {
	"rdma_cm ids", "iw_cm ids", "endpoints", "PDs", "CQs", "QPs", "MRs",
	"QP numbers", "STags",
};

#define RF_NCOUNT ARRAY_SIZE(rf_count_names)

static void rf_count(struct ib_device *dev, int *c)
{
	c[0] = kiwi_rdma_live_ids();
	c[1] = kiwi_cm_live_ids();
	c[2] = kiwi_softiw_live_ceps();
	c[3] = kiwi_test_dev_list_len(dev, &dev->pds);
	c[4] = kiwi_test_dev_list_len(dev, &dev->cqs);
	c[5] = kiwi_test_dev_list_len(dev, &dev->qps);
	c[6] = kiwi_test_dev_list_len(dev, &dev->mrs);
	c[7] = kiwi_test_xa_len(&softiw_dev(dev)->qps);
	c[8] = kiwi_test_xa_len(&softiw_dev(dev)->mrs);
}

/*
 * Wait (5 s) until nothing is alive beyond @base; expect it. @base then
 * follows what is alive: down when what earlier suites left closing
 * went meanwhile, up past a leak, which the next runs do not report.
 */
static void rf_expect_freed(struct rf *s, int *base, int nth)
{
	int c[RF_NCOUNT], i, j, over = 0;
	char msg[160] = "";
	size_t len = 0;

	for (i = 0; i < 250; i++) {
		rf_count(s->dev, c);
		for (j = 0, over = 0; j < RF_NCOUNT; j++)
			over += c[j] > base[j];
		if (!over)
			break;
		msleep(20);
	}
	for (j = 0; j < RF_NCOUNT; j++) {
		if (c[j] > base[j])
			len += scnprintf(msg + len, sizeof(msg) - len, " %s +%d",
					 rf_count_names[j], c[j] - base[j]);
		base[j] = c[j];
	}
	if (over)
		KUNIT_FAIL(s->test, "n=%d (%pS): left%s", nth,
			   kiwi_fault_site(), msg);
}

/* A fresh run: nothing seen, nothing made, the buffers filled anew. */
static void rf_reset(struct rf *s)
{
	int i;

	memset(&s->listener, 0, sizeof(*s) - offsetof(struct rf, listener));
	for (i = 0; i < RF_SIDES; i++)
		s->cqe[i].done = rf_done;
	for (i = 0; i < RF_MSG; i++) {
		s->buf[RF_CLIENT][i] = i + 1;
		s->buf[RF_SERVER][i] = 0;
	}
}

/* Expectations of one run, failed at the n-th fault point or not. */
static void rf_expect_run(struct rf *s, int nth, int left)
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
	for (i = 0; i < RF_SIDES; i++)
		KUNIT_EXPECT_EQ_MSG(test, s->completed[i], s->posted[i],
				    "n=%d (%pS): completions of side %d", nth,
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

static void rf_free(struct kunit_resource *res)
{
	struct rf *s = res->data;

	kiwi_fault_fail_nth(0);
	kiwi_device_put(s->dev);
}

static struct rf *rf_setup(struct kunit *test)
{
	struct rf *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, s);
	s->test = test;
	spin_lock_init(&s->lock);
	init_waitqueue_head(&s->wq);
	for (i = 0; i < RF_SIDES; i++) {
		s->buf[i] = kunit_kzalloc(test, RF_MSG, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, s->buf[i]);
	}
	s->dev = kiwi_device_get_by_name("softiw_lo");
	KUNIT_ASSERT_NOT_NULL(test, s->dev);
	if (!kunit_alloc_resource(test, NULL, rf_free, GFP_KERNEL, s)) {
		kiwi_device_put(s->dev);
		KUNIT_ASSERT_FAILURE(test, "no memory for a resource");
	}
	return s;
}

static void fault_rdmacm_every_site(struct kunit *test)
{
	struct rf *s = rf_setup(test);
	int base[RF_NCOUNT];
	int nth, left = 0;

	rf_count(s->dev, base);
	for (nth = 1; nth <= RF_MAX_NTH; nth++) {
		rf_reset(s);
		kiwi_fault_fail_nth(nth);
		rf_scenario(s);
		rf_release(s);
		left = kiwi_fault_remaining();
		kiwi_fault_fail_nth(0);
		rf_expect_run(s, nth, left);
		rf_expect_freed(s, base, nth);
		if (left > 0)
			break;	/* no n-th point on the path: all failed once */
	}
	kunit_info(test, "%d fault points failed in turn", nth - 1);
	KUNIT_EXPECT_GE(test, nth - 1, RF_SITES);
	KUNIT_EXPECT_GT(test, left, 0);
}

static int rf_suite_init(struct kunit_suite *suite)
{
	int ret = kiwi_softiw_attach("lo");

	return ret == -EEXIST ? 0 : ret;
}

static void rf_suite_exit(struct kunit_suite *suite)
{
	kiwi_softiw_detach("lo");
	kiwi_softiw_flush_detach();
}

static struct kunit_case rf_cases[] = {
	KUNIT_CASE(fault_rdmacm_every_site),
	{}
};

static struct kunit_suite rf_suite = {
	.name = "kiwi_rdmacm_fault",
	.suite_init = rf_suite_init,
	.suite_exit = rf_suite_exit,
	.test_cases = rf_cases,
};

kunit_test_suite(rf_suite);
