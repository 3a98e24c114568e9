// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_softiw_flood: thousands of half-open peers against one softiw
 * listener on lo (issue 31). Raw kernel TCP clients connect and stay: one
 * in two sends nothing, the other the first 10 bytes of an MPA Request's
 * 20. All of them are held open while the flood goes on. The listener
 * keeps at most max_pending of them waiting and drops the oldest for
 * each new one, so:
 *
 * - once the listener has caught up, softiw's live endpoints are within
 *   max_pending (plus the ends of two legitimate connections), whatever
 *   the number of peers;
 * - exactly the peers the listener no longer keeps are closed (reset),
 *   the oldest first, and the newest max_pending are still connected;
 * - after every tenth of the flood a kiwi client connects, is accepted
 *   and carries a SEND, each step within 5 s;
 * - once the peers close, the endpoints go back to where they were and
 *   the listener still serves a client.
 *
 * Every connection setup object (struct softiw_setup) belongs to a live
 * endpoint, so the count of endpoints bounds both slab caches of
 * cep.c. Their slab statistics are no measure here: KASAN's quarantine
 * keeps freed objects counted for a while.
 *
 * kiwi_testlib's flood_peers sets the number of peers: make check holds
 * 1,000, make stress 10,000. The case runs once per chunk of FLOOD_CHUNK
 * peers, a KUnit parameter each, so that no run nears KUnit's 300 s per
 * case nor the hung-task time-out of the insmod that waits for it; the
 * listener and the peers live on from run to run in flood_state, and the
 * last run ("close all") closes them. A run that finds an earlier one
 * cut short skips; suite exit frees what is left.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/in.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <net/sock.h>
#include <net/tcp_states.h>

#include "cm.h"
#include "cm_fixture.h"
#include "hostile_peer.h"
#include "kiwi_test.h"

#define FLOOD_PORT	22700
#define FLOOD_CHUNK	500	/* peers per run of the case */
#define FLOOD_MAX_CHUNKS 40	/* 20,000 peers: lo has ~28,000 ports */
#define FLOOD_BACKLOG	256	/* room for the listener to fall behind */
#define FLOOD_CONNECT_S	10	/* a peer's connect, SYN resent at 1, 3, 7 s */
#define FLOOD_PART	10	/* bytes of the Request a peer sends */
/* Endpoints besides the waiting peers: two legitimate connections. */
#define FLOOD_SLACK	4
#define FLOOD_LEGIT_MS	5000	/* a legitimate client is served in this */
#define FLOOD_SETTLE_MS	15000	/* for the listener to catch up */
#define FLOOD_SAMPLES	4	/* dropped peers read from, per run */
#define FLOOD_LEGIT	"flood-legit"
#define FLOOD_MSG	"flood: still served"
#define FLOOD_MSG_ROOM	64
#define FLOOD_MAX_PENDING "/sys/module/kiwi_softiw/parameters/max_pending"

/**
 * struct flood - the flood, from the first run of the case to the last
 * @dev: softiw_lo, a reference held
 * @listener: the listening id, on 127.0.0.1:FLOOD_PORT
 * @peers: the raw clients, in the order they connected
 * @want: peers the flood opens in all
 * @n: peers opened so far
 * @held: peers the listener must still keep: the newest @held
 * @closed: the oldest @closed peers were seen dropped
 * @cap: softiw's max_pending
 * @ceps: softiw's live endpoints before the listener
 * @ids: kiwi_cm_live_ids() before the listener
 * @tcp: the kernel's TCP sockets before the listener
 * @peak: most live endpoints seen, after any peer (not asserted: evicted
 *	endpoints linger until their queued work has run)
 * @running: a run is under way; if a run finds it set, one was cut short
 * @lock: protects @child
 * @child: a legitimate client's request, kept for the test to accept
 * @req: completed when @child is set
 * @strays: other requests (none is expected), refused
 */
struct flood {
	struct ib_device *dev;
	struct kiwi_cm_id *listener;
	struct socket **peers;
	unsigned int want;
	unsigned int n;
	unsigned int held;
	unsigned int closed;
	unsigned int cap;
	unsigned int ceps;
	int ids;
	unsigned int tcp;
	unsigned int peak;
	bool running;
	spinlock_t lock;	/* protects child */
	struct kiwi_cm_id *child;
	struct completion req;
	atomic_t strays;
};

static struct flood *flood_state;

/* The runs of the case: a chunk of peers each, then "close all". */
static const u8 flood_runs[FLOOD_MAX_CHUNKS + 1];

static unsigned int flood_want(void)
{
	return clamp_t(unsigned int, kiwi_test_flood_peers(), 1,
		       FLOOD_MAX_CHUNKS * FLOOD_CHUNK);
}

static const void *flood_gen(const void *prev, char *desc)
{
	const u8 *next = prev ? (const u8 *)prev + 1 : flood_runs;
	unsigned int i = next - flood_runs, want = flood_want();
	unsigned int chunks = DIV_ROUND_UP(want, FLOOD_CHUNK);

	if (i > chunks)
		return NULL;
	if (i == chunks)
		snprintf(desc, KUNIT_PARAM_DESC_SIZE, "close all");
	else
		snprintf(desc, KUNIT_PARAM_DESC_SIZE, "peers %u-%u",
			 i * FLOOD_CHUNK,
			 min(want, (i + 1) * FLOOD_CHUNK) - 1);
	return next;
}

/*
 * The listener's handler, and its children's: the legitimate client's
 * request is kept for the test; any other is refused (the core destroys
 * its id when the handler returns non-zero).
 */
static int flood_handler(struct kiwi_cm_id *id, const struct kiwi_cm_event *ev)
{
	struct flood *fl = id->context;
	bool legit;

	if (ev->event != KIWI_CM_EVENT_CONNECT_REQUEST)
		return 0;
	legit = ev->private_data_len == strlen(FLOOD_LEGIT) &&
		!memcmp(ev->private_data, FLOOD_LEGIT, strlen(FLOOD_LEGIT));
	spin_lock(&fl->lock);
	if (!legit || fl->child) {
		spin_unlock(&fl->lock);
		atomic_inc(&fl->strays);
		return 1;
	}
	fl->child = id;
	spin_unlock(&fl->lock);
	complete(&fl->req);
	return 0;
}

static void flood_addr(struct sockaddr_storage *ss)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	sin->sin_family = AF_INET;
	sin->sin_port = htons(FLOOD_PORT);
	sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
}

/* Close a peer: with a RST if @reset, else a FIN. */
static void flood_close(struct socket *s, bool reset)
{
	if (s)
		kiwi_softiw_sock_release(s, reset);
}

/* Close every peer still open, one in two with a RST. */
static void flood_close_peers(struct flood *fl)
{
	unsigned int i;

	for (i = 0; i < fl->n; i++) {
		flood_close(fl->peers[i], i % 2);
		fl->peers[i] = NULL;
	}
}

/*
 * Free the flood: the listener first (no request comes after it), then
 * a request kept and never taken, the peers, the device.
 */
static void flood_free(struct flood *fl)
{
	if (!IS_ERR_OR_NULL(fl->listener))
		kiwi_cm_destroy_id(fl->listener);
	if (fl->child)
		kiwi_cm_destroy_id(fl->child);
	if (fl->peers)
		flood_close_peers(fl);
	kvfree(fl->peers);
	if (fl->dev)
		kiwi_device_put(fl->dev);
	kfree(fl);
}

/* Wait up to @ms for softiw's live endpoints to be @want or fewer. */
static unsigned int flood_wait_ceps(unsigned int want, unsigned int ms)
{
	unsigned int live = kiwi_softiw_live_ceps();
	unsigned int i;

	for (i = 0; i < ms / 20 && live > want; i++) {
		msleep(20);
		live = kiwi_softiw_live_ceps();
	}
	return live;
}

static unsigned int flood_cap(struct kunit *test)
{
	unsigned int cap;
	char buf[16];

	KUNIT_ASSERT_GT(test, kiwi_test_read_file(FLOOD_MAX_PENDING, buf,
						  sizeof(buf)), (ssize_t)0);
	KUNIT_ASSERT_EQ(test, kstrtouint(buf, 10, &cap), 0);
	return cap;
}

static void flood_listen(struct kunit *test, struct flood *fl)
{
	u32 forever = KIWI_IWARP_TIMEOUT_MAX;
	struct kiwi_cm_id *l;

	rtnl_lock();
	dev_open(init_net.loopback_dev, NULL);
	rtnl_unlock();
	fl->dev = kiwi_device_get_by_name("softiw_lo");
	KUNIT_ASSERT_NOT_NULL(test, fl->dev);
	l = kiwi_cm_create_id(fl->dev, flood_handler, fl);
	KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(l));
	fl->listener = l;
	/* only the cap drops peers: none waits out its MPA timeout */
	KUNIT_ASSERT_EQ(test, kiwi_cm_set_option(l, KIWI_IWARP_OPT_MPA_TIMEOUT_MS,
						 &forever, sizeof(forever)),
			0);
	flood_addr(&l->local_addr);
	KUNIT_ASSERT_EQ(test, kiwi_cm_listen(l, FLOOD_BACKLOG), 0);
}

/* The first run: the flood's state and its listener. */
static void flood_start(struct kunit *test)
{
	struct flood *fl;

	KUNIT_ASSERT_NULL(test, flood_state);
	fl = kzalloc(sizeof(*fl), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, fl);
	spin_lock_init(&fl->lock);
	init_completion(&fl->req);
	fl->running = true;
	flood_state = fl;	/* freed by the last run or at suite exit */
	fl->want = flood_want();
	fl->cap = flood_cap(test);
	KUNIT_ASSERT_GT(test, fl->cap, 0U);
	KUNIT_ASSERT_GT_MSG(test, fl->want, 2 * fl->cap,
			    "flood_peers must be over twice max_pending");
	fl->peers = kvcalloc(fl->want, sizeof(*fl->peers), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, fl->peers);
	/* endpoints of earlier suites finish closing first */
	fl->ceps = flood_wait_ceps(0, FLOOD_SETTLE_MS);
	fl->ids = kiwi_cm_live_ids();
	fl->tcp = kiwi_test_tcp_sockets();
	flood_listen(test, fl);
}

/* One more peer: connected, and one in two sends part of a Request. */
static void flood_peer(struct kunit *test, struct flood *fl)
{
	struct sockaddr_storage ss;
	unsigned int i = fl->n;
	struct socket *s;

	KUNIT_ASSERT_EQ(test, sock_create_kern(&init_net, AF_INET, SOCK_STREAM,
					       IPPROTO_TCP, &s), 0);
	fl->peers[fl->n++] = s;
	/* a connect the listener never answers fails rather than hangs */
	sock_set_sndtimeo(s->sk, FLOOD_CONNECT_S);
	flood_addr(&ss);
	KUNIT_ASSERT_EQ_MSG(test, kernel_connect(s, (struct sockaddr *)&ss,
						 sizeof(ss), 0),
			    0, "peer %u", i);
	if (i % 2)
		KUNIT_ASSERT_EQ(test, cmt_raw_send(s, KEY_REQ, FLOOD_PART),
				FLOOD_PART);
	fl->held = min(fl->held + 1, fl->cap);
	fl->peak = max(fl->peak, kiwi_softiw_live_ceps());
}

/* Dropped by the listener: reset (or ended) from its side. */
static bool flood_dropped(struct socket *s)
{
	int state = READ_ONCE(s->sk->sk_state);

	return state == TCP_CLOSE || state == TCP_CLOSE_WAIT;
}

/*
 * Done: the peers the listener no longer keeps are closed, and its
 * endpoints of legitimate connections are gone. The closed peers are
 * the oldest: @fl->closed moves over them, each looked at once.
 */
static bool flood_settled(struct flood *fl)
{
	while (fl->closed < fl->n && flood_dropped(fl->peers[fl->closed]))
		fl->closed++;
	return fl->closed + fl->held >= fl->n &&
	       kiwi_softiw_live_ceps() <= fl->ceps + fl->held;
}

static unsigned int flood_count_held(struct flood *fl)
{
	unsigned int i, held = 0;

	for (i = fl->closed; i < fl->n; i++)
		held += READ_ONCE(fl->peers[i]->sk->sk_state) ==
			TCP_ESTABLISHED;
	return held;
}

/*
 * Once the listener caught up: its endpoints are bounded whatever the
 * number of peers, the oldest peers are closed, the newest @fl->held
 * still connected.
 */
static void flood_check_bound(struct kunit *test, struct flood *fl)
{
	unsigned int live, i;

	for (i = 0; i < FLOOD_SETTLE_MS / 20 && !flood_settled(fl); i++)
		msleep(20);
	live = kiwi_softiw_live_ceps();
	fl->peak = max(fl->peak, live);
	KUNIT_ASSERT_LE_MSG(test, live, fl->ceps + fl->cap + FLOOD_SLACK,
			    "%u peers: endpoints", fl->n);
	KUNIT_ASSERT_EQ_MSG(test, fl->closed, fl->n - fl->held,
			    "%u peers: closed", fl->n);
	KUNIT_ASSERT_EQ_MSG(test, flood_count_held(fl), fl->held,
			    "%u peers: connected", fl->n);
	KUNIT_ASSERT_EQ(test, atomic_read(&fl->strays), 0);
}

/* The legitimate client's request, registered with @t to be destroyed. */
static struct kiwi_cm_id *flood_take_child(struct flood *fl, struct cmt *t)
{
	struct kiwi_cm_id *child;
	unsigned long flags;

	KUNIT_ASSERT_LT(t->test, t->nids, CMT_MAX_IDS);
	if (!wait_for_completion_timeout(&fl->req,
					 msecs_to_jiffies(FLOOD_LEGIT_MS)))
		return NULL;
	spin_lock(&fl->lock);
	child = fl->child;
	fl->child = NULL;
	spin_unlock(&fl->lock);
	reinit_completion(&fl->req);
	spin_lock_irqsave(&t->lock, flags);
	t->ids[t->nids++] = child;
	spin_unlock_irqrestore(&t->lock, flags);
	return child;
}

static struct ib_qp *flood_qp(struct cmt *t)
{
	cmt_qp(t);
	return t->qps[t->nqps - 1];
}

/* A SEND from @qa lands, whole, in the RECV posted on its peer. */
static void flood_send(struct cmt *t, struct ib_qp *qa, struct ib_mr *mr,
		       const u8 *buf)
{
	struct ib_sge sge = { .addr = mr->iova, .length = sizeof(FLOOD_MSG),
			      .lkey = mr->lkey };
	struct ib_send_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1,
				 .opcode = IB_WR_SEND };
	unsigned long end = jiffies + msecs_to_jiffies(FLOOD_LEGIT_MS);
	struct kunit *test = t->test;
	struct ib_wc wc = {};
	int n;

	KUNIT_ASSERT_EQ(test, kiwi_post_send(qa, &wr, NULL), 0);
	while (!(n = kiwi_poll_cq(t->cq, 1, &wc)) && time_before(jiffies, end))
		usleep_range(1000, 2000);
	KUNIT_ASSERT_EQ_MSG(test, n, 1, "no RECV completion");
	KUNIT_EXPECT_EQ(test, wc.wr_id, 2ULL);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.byte_len, (u32)sizeof(FLOOD_MSG));
	CMT_EXPECT_MEM(test, buf + FLOOD_MSG_ROOM, FLOOD_MSG,
		       sizeof(FLOOD_MSG));
}

/*
 * A kiwi client connects while the peers are held: its request reaches
 * the listener, it is accepted, and a SEND goes through, within
 * FLOOD_LEGIT_MS each. Then both ends go.
 */
static void flood_legit(struct kunit *test, struct flood *fl)
{
	struct kiwi_conn_param cp = { .ird = 1, .ord = 1 };
	struct cmt *t = cmt_setup(test, FLOOD_PORT);
	struct ib_sge sge;
	struct ib_recv_wr rwr = { .wr_id = 2, .sg_list = &sge, .num_sge = 1 };
	struct kiwi_cm_id *a, *child;
	const struct cmt_rec *r;
	struct ib_qp *qa, *qb;
	struct ib_mr *mr;
	u8 *buf;

	buf = cmt_buf(t, 2 * FLOOD_MSG_ROOM);
	memcpy(buf, FLOOD_MSG, sizeof(FLOOD_MSG));
	mr = cmt_mr(t, buf, 2 * FLOOD_MSG_ROOM, IB_ACCESS_LOCAL_WRITE);
	qa = flood_qp(t);
	qb = flood_qp(t);
	sge = (struct ib_sge) { .addr = mr->iova + FLOOD_MSG_ROOM,
				.length = FLOOD_MSG_ROOM, .lkey = mr->lkey };
	KUNIT_ASSERT_EQ(test, kiwi_post_recv(qb, &rwr, NULL), 0);
	a = cmt_connect_qp(t, FLOOD_LEGIT, FLOOD_PORT, qa->qp_num);
	child = flood_take_child(fl, t);
	KUNIT_ASSERT_NOT_NULL_MSG(test, child, "%u peers: no request", fl->n);
	cp.qpn = qb->qp_num;
	KUNIT_ASSERT_EQ(test, kiwi_cm_accept(child, &cp), 0);
	r = cmt_wait(t, KIWI_CM_EVENT_CONNECT_REPLY, a);
	KUNIT_ASSERT_NOT_NULL_MSG(test, r, "%u peers: no reply", fl->n);
	KUNIT_ASSERT_EQ(test, r->status, 0);
	flood_send(t, qa, mr, buf);
	cmt_teardown(t);
	/* it took the place of the oldest waiting peer, if all were there */
	fl->held = min(fl->held, fl->cap - 1);
}

/* Dropped peers read an end of stream or a reset; the newest one waits. */
static void flood_sample(struct kunit *test, struct flood *fl)
{
	unsigned int k, i;
	u8 byte;
	int ret;

	for (k = 0; fl->closed && k < FLOOD_SAMPLES; k++) {
		i = k * fl->closed / FLOOD_SAMPLES;
		ret = cmt_raw_recv(fl->peers[i], &byte, 1, 100);
		KUNIT_ASSERT_TRUE_MSG(test, ret == 0 || ret == -ECONNRESET,
				      "peer %u: recv %d", i, ret);
	}
	if (fl->held)
		KUNIT_ASSERT_EQ(test, cmt_raw_recv(fl->peers[fl->n - 1], &byte,
						   1, 20), -EAGAIN);
}

/* A run of FLOOD_CHUNK more peers, checked every tenth of the flood. */
static void flood_chunk(struct kunit *test, unsigned int chunk)
{
	unsigned long t0 = jiffies;
	unsigned int end, every;
	struct flood *fl;

	if (!chunk)
		flood_start(test);
	else if (!flood_state || flood_state->running)
		kunit_skip(test, "an earlier run was cut short");
	fl = flood_state;
	fl->running = true;
	KUNIT_ASSERT_EQ(test, fl->n, chunk * FLOOD_CHUNK);
	end = min(fl->want, fl->n + FLOOD_CHUNK);
	every = max(fl->want / 10, 1U);
	while (fl->n < end) {
		flood_peer(test, fl);
		if (fl->n % every && fl->n != end)
			continue;
		flood_check_bound(test, fl);
		flood_legit(test, fl);
	}
	flood_sample(test, fl);
	kunit_info(test, "%u peers, %u closed, peak %u endpoints, %u s",
		   fl->n, fl->closed, fl->peak,
		   jiffies_to_msecs(jiffies - t0) / 1000);
	fl->running = false;
}

/*
 * The last run: every peer closes; the endpoints go back to where they
 * were and the listener still serves a client; then the listener goes.
 */
static void flood_end(struct kunit *test)
{
	struct flood *fl = flood_state;
	bool cut = !fl || fl->running;
	unsigned int ceps, tcp;
	int i, ids;

	if (!fl)
		kunit_skip(test, "no flood ran");
	ceps = fl->ceps;
	ids = fl->ids;
	tcp = fl->tcp;
	flood_close_peers(fl);
	if (!cut) {
		fl->held = 0;
		KUNIT_EXPECT_LE(test, flood_wait_ceps(ceps, FLOOD_SETTLE_MS),
				ceps);
		flood_legit(test, fl);
	}
	flood_state = NULL;
	flood_free(fl);
	KUNIT_EXPECT_LE(test, flood_wait_ceps(ceps, FLOOD_SETTLE_MS), ceps);
	for (i = 0; i < 100 && kiwi_cm_live_ids() > ids; i++)
		msleep(20);
	KUNIT_EXPECT_LE(test, kiwi_cm_live_ids(), ids);
	kiwi_test_tcp_settled(test, tcp);
	if (cut)
		kunit_skip(test, "an earlier run was cut short");
}

static void flood_half_open(struct kunit *test)
{
	unsigned int run = (const u8 *)test->param_value - flood_runs;

	if (run < DIV_ROUND_UP(flood_want(), FLOOD_CHUNK))
		flood_chunk(test, run);
	else
		flood_end(test);
}

static void flood_suite_exit(struct kunit_suite *suite)
{
	if (flood_state)
		flood_free(flood_state);
	flood_state = NULL;
	cmt_suite_exit(suite);
}

static struct kunit_case flood_cases[] = {
	KUNIT_CASE_PARAM(flood_half_open, flood_gen),
	{}
};

static struct kunit_suite flood_suite = {
	.suite_init = cmt_suite_init,
	.suite_exit = flood_suite_exit,
	.name = "kiwi_softiw_flood",
	.test_cases = flood_cases,
};

kunit_test_suite(flood_suite);
