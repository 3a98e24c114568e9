// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_softiw_dead_peer: the end of a connection whose peer is gone,
 * between two softiw QPs over loopback (dp_fixture.h) and over the veth
 * pair: a peer that stops reading, closed with CLOSE(-ETIMEDOUT) after
 * dead_peer_ms; an idle connection whose peer's link goes down, closed
 * the same way between dead_peer_ms and a second after it; the
 * keepalive schedule's bounds and spread, and the settings of real
 * sockets; and a graceful close whose segments are all lost, which TCP
 * must still end once softiw has released the socket.
 */
#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#include "cm_fixture.h"
#include "dp_fixture.h"
#include "kiwi_test.h"
#include "mpa_key.h"
#include "softiw.h"

/*
 * A peer that stops reading (a raw client that did MPA by hand): once
 * both windows are full, nothing it answers moves the data, and after
 * dead_peer_ms the connection ends with CLOSE(-ETIMEDOUT), sends flushed.
 */
static void dp_dead_peer(struct kunit *test)
{
	/* Revision 2: a revision 1 responder would wait for our first FPDU. */
	static const u8 req[24] =
		KEY_REQ "\x10\x02\x00\x04\x00\x01\x00\x01";
	struct kiwi_conn_param cp = { .ird = 1, .ord = 1 };
	const struct cmt_rec *r;
	struct dpt_side *b;
	struct socket *raw;
	struct ib_wc wc;
	struct dpt *d;
	int i, n = 0, bad = 0;
	u8 rep[24];

	cmt_param(test, "dead_peer_ms", "2000");
	d = dpt_setup(test, 23212, 64, 16, 4);
	b = &d->s[1];
	cmt_listen(d->t);
	raw = cmt_raw_connect(test, d->t->port);
	KUNIT_ASSERT_EQ(test, cmt_raw_send(raw, req, sizeof(req)), 24);
	r = cmt_wait(d->t, KIWI_CM_EVENT_CONNECT_REQUEST, NULL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	d->id[1] = r->id;
	cp.qpn = b->qp->qp_num;
	KUNIT_ASSERT_EQ(test, kiwi_cm_accept(d->id[1], &cp), 0);
	KUNIT_ASSERT_EQ(test, cmt_raw_recv(raw, rep, sizeof(rep), 3000), 24);
	for (i = 0; i < 16; i++)
		KUNIT_ASSERT_EQ(test, dpt_send(b, i, 0, SOFTIW_MAX_MSG, 0), 0);
	r = cmt_wait(d->t, KIWI_CM_EVENT_CLOSE, d->id[1]);
	if (!r)
		r = cmt_wait(d->t, KIWI_CM_EVENT_CLOSE, d->id[1]);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->status, -ETIMEDOUT);
	while (kiwi_poll_cq(b->cq, 1, &wc) == 1) {
		n++;
		bad += wc.status != IB_WC_WR_FLUSH_ERR;
	}
	KUNIT_EXPECT_GT(test, n, 0);
	KUNIT_EXPECT_EQ(test, bad, 0);
	cmt_raw_close(raw, true);
	cmt_teardown(d->t);
}

/* When the user timeout of @plan ends a connection with a silent peer, s. */
static unsigned int dpt_dead_peer_end(const struct softiw_dead_peer *plan)
{
	unsigned int t = plan->idle_s;

	/* A probe at idle_s, then a check at every interval after it. */
	do {
		t += plan->intvl_s;
	} while ((u64)t * 1000 < plan->timeout_ms);
	return t;
}

static const unsigned int dpt_dead_peer_ms[] = {
	1000, 1500, 2000, 3000, 10000, 60000, 60500, 600000,
};

static void dpt_dead_peer_ms_desc(const unsigned int *ms, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "dead_peer_ms=%u", *ms);
}

KUNIT_ARRAY_PARAM(dpt_dead_peer_ms, dpt_dead_peer_ms, dpt_dead_peer_ms_desc);

/*
 * Whatever the random draw, a silent peer ends the connection between
 * dead_peer_ms and a second after it, a live one is probed at most once
 * every third of dead_peer_ms, and the first probes of connections
 * opened together spread over at least a third of it (a burst of
 * probes overflows the receive backlog of a veth pair).
 */
static void dp_dead_peer_plan(struct kunit *test)
{
	const unsigned int *ms = test->param_value;
	unsigned int secs = DIV_ROUND_UP(*ms, 1000);
	unsigned int lo = UINT_MAX, hi = 0, end;
	struct softiw_dead_peer plan;
	u32 i;

	for (i = 0; i < 256; i++) {
		kiwi_softiw_dead_peer_plan(*ms, i * 2654435761U, &plan);
		KUNIT_EXPECT_EQ(test, plan.timeout_ms, *ms);
		KUNIT_EXPECT_GE(test, plan.idle_s, max(secs / 3, 1U));
		KUNIT_EXPECT_GE(test, plan.intvl_s, 1U);
		end = dpt_dead_peer_end(&plan);
		KUNIT_EXPECT_LE(test, end, secs + 1);
		lo = min(lo, plan.idle_s);
		hi = max(hi, plan.idle_s);
	}
	KUNIT_EXPECT_GE(test, hi - lo, secs >= 6 ? secs / 3 : 0);
}

/*
 * Both ends of every connection probe on their own schedule: four
 * sockets with dead_peer_ms at 600 s (300 possible first probes) do not
 * all share one. dead_peer_ms=0 leaves keepalive off.
 */
static void dp_dead_peer_sockets(struct kunit *test)
{
	struct softiw_dead_peer plan[4], *p = plan;
	unsigned int conn, side, same = 0;
	struct ib_qp *qp;
	struct dpt *d;

	cmt_param(test, "dead_peer_ms", "600000");
	for (conn = 0; conn < 2; conn++) {
		d = dpt_setup(test, 23214 + conn, 16, 4, 4);
		dpt_connect(d);
		for (side = 0; side < 2; side++, p++) {
			qp = d->s[side].qp;
			KUNIT_ASSERT_TRUE(test, kiwi_softiw_qp_dead_peer(qp, p));
			KUNIT_EXPECT_EQ(test, p->timeout_ms, 600000U);
			KUNIT_EXPECT_GE(test, p->idle_s, 200U);
			KUNIT_EXPECT_LE(test, p->idle_s, 500U);
			KUNIT_EXPECT_LE(test, dpt_dead_peer_end(p), 601U);
			same += p->idle_s == plan[0].idle_s;
		}
	}
	KUNIT_EXPECT_LT(test, same, 4U);

	cmt_param(test, "dead_peer_ms", "0");
	d = dpt_setup(test, 23216, 16, 4, 4);
	dpt_connect(d);
	KUNIT_EXPECT_FALSE(test, kiwi_softiw_qp_dead_peer(d->s[0].qp, plan));
	KUNIT_EXPECT_FALSE(test, kiwi_softiw_qp_dead_peer(d->s[1].qp, plan));
}

static void dpt_link_up_res(struct kunit_resource *res)
{
	struct net_device *dev = res->data;

	rtnl_lock();
	dev_change_flags(dev, dev->flags | IFF_UP, NULL);
	rtnl_unlock();
	dev_put(dev);
}

/* Take @ifname of @net down, without telling kiwi; up again after @test. */
static void dpt_link_down(struct kunit *test, struct net *net,
			  const char *ifname)
{
	struct net_device *dev = dev_get_by_name(net, ifname);
	void *held;
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, dev);
	held = kunit_alloc_resource(test, NULL, dpt_link_up_res, GFP_KERNEL,
				    dev);
	if (!held)
		dev_put(dev);
	KUNIT_ASSERT_NOT_NULL(test, held);
	rtnl_lock();
	ret = dev_change_flags(dev, dev->flags & ~IFF_UP, NULL);
	rtnl_unlock();
	KUNIT_ASSERT_EQ(test, ret, 0);
}

/*
 * An idle connection whose peer goes silent (kv1's link down in the peer
 * namespace, nothing sent, kiwi not told) ends with CLOSE(-ETIMEDOUT)
 * through keepalive, between dead_peer_ms and a second after it: at
 * 3000 ms the schedule is fixed (probes at 1 s and 2 s, the end at 3 s).
 */
static void dp_dead_peer_idle(struct kunit *test)
{
	struct net *peer = kiwi_test_peer_net(test);
	const struct cmt_rec *r;
	struct ib_qp *qa, *qb;
	struct cmt *ta, *tb;
	struct kiwi_cm_id *a;
	ktime_t t0;
	s64 ms;

	cmt_param(test, "dead_peer_ms", "3000");
	ta = cmt_setup_in(test, &init_net, "kv0", "softiw_kv0", 24120);
	tb = cmt_setup_in(test, peer, "kv1", "softiw_kv1", 24120);
	cmt_qp(ta);
	qa = ta->qps[ta->nqps - 1];
	cmt_qp(tb);
	qb = tb->qps[tb->nqps - 1];
	a = cmt_connect_veth(ta, qa, tb, qb);

	dpt_link_down(test, peer, "kv1");
	t0 = ktime_get();
	r = cmt_wait(ta, KIWI_CM_EVENT_CLOSE, a);
	ms = ktime_ms_delta(ktime_get(), t0);
	kunit_info(test, "CLOSE: %lld ms after the link went down\n", ms);
	KUNIT_ASSERT_NOT_NULL_MSG(test, r, "no CLOSE %lld ms after link down",
				  ms);
	KUNIT_EXPECT_EQ(test, r->status, -ETIMEDOUT);
	KUNIT_EXPECT_GE(test, ms, 2500);
	KUNIT_EXPECT_LE(test, ms, 4500);
	KUNIT_EXPECT_EQ(test, cmt_count(ta, KIWI_CM_EVENT_DISCONNECT), 0);
	cmt_release(ta);
	cmt_teardown(tb);
}

static void dpt_orphan_retries_res(struct kunit_resource *res)
{
	const u8 *was = res->data;

	WRITE_ONCE(init_net.ipv4.sysctl_tcp_orphan_retries, *was);
}

/* net.ipv4.tcp_orphan_retries of the initial namespace, until @test ends. */
static void dpt_orphan_retries(struct kunit *test, u8 retries)
{
	u8 *was = kunit_kzalloc(test, sizeof(*was), GFP_KERNEL);
	void *held;

	KUNIT_ASSERT_NOT_NULL(test, was);
	*was = READ_ONCE(init_net.ipv4.sysctl_tcp_orphan_retries);
	held = kunit_alloc_resource(test, NULL, dpt_orphan_retries_res,
				    GFP_KERNEL, was);
	KUNIT_ASSERT_NOT_NULL(test, held);
	WRITE_ONCE(init_net.ipv4.sysctl_tcp_orphan_retries, retries);
}

/*
 * A graceful close that reaches nobody: a raw client in the peer
 * namespace sends a Request to a softiw listener on kv0, kv1's link goes
 * down, and the request is rejected: the Reply and the FIN after it are
 * lost, and softiw has released the socket. TCP must finish the close
 * alone: the orphan retransmits and, after tcp_orphan_retries (1 here:
 * about a second), gives up. A kernel socket's orphan would have no
 * timer left and stay in FIN_WAIT1, with its port, until reboot.
 */
static void dp_lost_close(struct kunit *test)
{
	static const u8 req[24] =
		KEY_REQ "\x10\x02\x00\x04\x00\x01\x00\x01";
	struct net *peer = kiwi_test_peer_net(test);
	unsigned int base = kiwi_test_tcp_sockets();
	struct sockaddr_storage ss;
	const struct cmt_rec *r;
	struct kiwi_cm_id *lst;
	struct socket *raw;
	struct cmt *t;

	dpt_orphan_retries(test, 1);
	t = cmt_setup_in(test, &init_net, "kv0", "softiw_kv0", 24130);
	lst = cmt_id_on(t, t->dev);
	kiwi_test_addr(test, &lst->local_addr, AF_INET, KIWI_TEST_KV0, t->port);
	KUNIT_ASSERT_EQ(test, kiwi_cm_listen(lst, 8), 0);

	KUNIT_ASSERT_EQ(test, sock_create_kern(peer, AF_INET, SOCK_STREAM,
					       IPPROTO_TCP, &raw), 0);
	cmt_raw_adopt(test, raw);
	kiwi_test_addr(test, &ss, AF_INET, KIWI_TEST_KV0, t->port);
	KUNIT_ASSERT_EQ(test, kernel_connect(raw, (struct sockaddr *)&ss,
					     sizeof(ss), 0), 0);
	KUNIT_ASSERT_EQ(test, cmt_raw_send(raw, req, sizeof(req)), 24);
	r = cmt_wait(t, KIWI_CM_EVENT_CONNECT_REQUEST, NULL);
	KUNIT_ASSERT_NOT_NULL(test, r);

	dpt_link_down(test, peer, "kv1");
	KUNIT_EXPECT_EQ(test, kiwi_cm_reject(r->id, NULL, 0), 0);
	/* the client's own close is a reset, lost too: its socket ends now */
	cmt_raw_close(raw, true);
	cmt_teardown(t);
	kiwi_test_tcp_settled(test, base);
}

static struct kunit_case dead_peer_cases[] = {
	KUNIT_CASE(dp_dead_peer),
	KUNIT_CASE_PARAM(dp_dead_peer_plan, dpt_dead_peer_ms_gen_params),
	KUNIT_CASE(dp_dead_peer_sockets),
	KUNIT_CASE(dp_dead_peer_idle),
	KUNIT_CASE(dp_lost_close),
	{}
};

static struct kunit_suite dead_peer_suite = {
	.suite_init = cmt_suite_init,
	.suite_exit = cmt_suite_exit,
	.name = "kiwi_softiw_dead_peer",
	.exit = dpt_exit,
	.test_cases = dead_peer_cases,
};

kunit_test_suite(dead_peer_suite);
