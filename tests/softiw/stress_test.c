// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_softiw_stress: SMP stress (issue 31). For kiwi_testlib's
 * stress_secs, these kernel threads run at once:
 *
 * - clients, two per CPU, each in a loop: a CQ, a PD, an MR and a QP of
 *   its own and an id, connecting to 127.0.0.1 on a port nobody listens
 *   on (every eighth attempt), on one that always listens or on one of
 *   two whose listeners come and go; or, one time in four, from
 *   softiw_kv0 to softiw_kv1 across the veth pair. Once up: a SEND or an
 *   RDMA WRITE, waited for; then a graceful close, an abort, a destroy,
 *   or a graceful close the destroy leaves to linger. Id and QP go in
 *   either order, then the rest;
 * - the server, in the listeners' handler: it accepts each request there
 *   with a QP of the connection's own (a RECV posted, the address and
 *   rkey of its MR as private data), rejects every eighth request on lo,
 *   answers DISCONNECT with its own and frees the connection at CLOSE;
 * - a listener thread that creates and destroys the two changing
 *   listeners;
 * - a device thread that attaches and detaches softiw on kv0 under the
 *   clients that use it: they hear DEVICE_REMOVAL.
 *
 * Every wait is bounded: one that runs out fails the case, naming the
 * thread, the attempt and the step. At the end: each attempt had exactly
 * one terminal outcome and each event an id heard fits the iw_cm contract;
 * the connections carried data (at least 10 per client); the clients saw
 * every rejection the server made; every accepted connection ended; ids,
 * endpoints, QPs and MRs are back to where they were. The counts go to
 * the log. The case runs once per round of at most STRESS_ROUND_S, a
 * KUnit parameter each, so that no run nears KUnit's 300 s per case.
 */
#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <kiwi/provider.h>

#include "cm.h"
#include "cm_fixture.h"
#include "kiwi_test.h"
#include "softiw.h"
#include "stress.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

#define STRESS_ROUND_S		120	/* a run of the case at most */
#define STRESS_MAX_ROUNDS	30
#define STRESS_JOIN_S		60	/* threads are done this long after the end */
#define STRESS_DRAIN_S		20	/* kiwi_unregister_device() gives up then */
#define STRESS_SETTLE_MS	15000	/* for the leftovers to go after the end */
#define STRESS_MIN_DATA		10	/* data operations per client and round */
#define STRESS_MAX_CLIENTS	16
#define STRESS_SEED		0x57e55

/* Case end: what the round still holds, unless a thread may still use it. */
static void stress_free(struct kunit_resource *res)
{
	struct stress *s = res->data;
	int i;

	if (s->drain_set)
		kiwi_device_set_drain_timeout(s->old_drain);
	if (s->stuck)
		return;
	stress_listeners_destroy(s);
	stress_children_destroy(s);
	for (i = 0; i < STRESS_NR_DEVS; i++) {
		if (!IS_ERR_OR_NULL(s->pd[i]))
			kiwi_dealloc_pd(s->pd[i]);
		if (s->dev[i])
			kiwi_device_put(s->dev[i]);
	}
	if (s->kv1_attached)
		kiwi_softiw_detach_in(s->peer, "kv1");
	for (i = 0; s->clients && i < s->nclients; i++)
		kfree(s->clients[i].buf);
	kfree(s->clients);
	kfree(s);
}

static void stress_objects(struct ib_device *dev, int *qps, int *mrs)
{
	*qps = kiwi_test_dev_list_len(dev, &dev->qps);
	*mrs = kiwi_test_dev_list_len(dev, &dev->mrs);
}

static long stress_live_ids(struct stress *s)
{
	return kiwi_cm_live_ids();
}

static long stress_live_ceps(struct stress *s)
{
	return kiwi_softiw_live_ceps();
}

static long stress_live_children(struct stress *s)
{
	struct stress_child *ch;
	long n = 0;

	spin_lock(&s->lock);
	list_for_each_entry(ch, &s->children, node)
		n++;
	spin_unlock(&s->lock);
	return n;
}

/* Wait up to STRESS_SETTLE_MS for @now to fall to @want. Return: its value. */
static long stress_settle(struct stress *s, long (*now)(struct stress *s),
			  long want)
{
	unsigned long end = jiffies + msecs_to_jiffies(STRESS_SETTLE_MS);
	long n;

	while ((n = now(s)) > want && time_before(jiffies, end))
		msleep(20);
	return n;
}

/* Softiw on kv1 in the peer namespace, with the server's listener. */
static void stress_setup_kv1(struct kunit *test, struct stress *s)
{
	struct kiwi_cm_id *id;

	KUNIT_ASSERT_EQ(test, kiwi_softiw_attach_in(s->peer, "kv1"), 0);
	s->kv1_attached = true;
	s->dev[STRESS_KV1] = kiwi_device_get_by_name("softiw_kv1");
	KUNIT_ASSERT_NOT_NULL(test, s->dev[STRESS_KV1]);
	id = kiwi_cm_create_id(s->dev[STRESS_KV1], stress_srv_handler, s);
	KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(id));
	s->lst_kv1 = id;
	kiwi_test_addr(test, &id->local_addr, AF_INET, KIWI_TEST_ANY,
		       STRESS_PORT_KV1);
	KUNIT_ASSERT_EQ(test, kiwi_cm_listen(id, STRESS_BACKLOG), 0);
	kiwi_test_addr(test, &s->kv1, AF_INET, KIWI_TEST_KV1, STRESS_PORT_KV1);
}

static struct stress *stress_setup(struct kunit *test, unsigned int secs)
{
	struct net *peer = kiwi_test_peer_net(test);	/* put after stress_free */
	struct ib_device *kv0;
	struct stress *s;
	int i;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	if (!kunit_alloc_resource(test, NULL, stress_free, GFP_KERNEL, s)) {
		kfree(s);
		KUNIT_ASSERT_FAILURE(test, "no memory for a resource");
	}
	s->peer = peer;
	spin_lock_init(&s->lock);
	INIT_LIST_HEAD(&s->children);
	s->old_drain = kiwi_device_set_drain_timeout(STRESS_DRAIN_S);
	s->drain_set = true;
	s->base_ceps = stress_settle(s, stress_live_ceps, 0);
	s->base_ids = kiwi_cm_live_ids();
	kv0 = kiwi_device_get_by_name("softiw_kv0");
	if (kv0)
		kiwi_device_put(kv0);
	KUNIT_ASSERT_NULL_MSG(test, kv0, "softiw_kv0 there before the round");
	rtnl_lock();
	dev_open(init_net.loopback_dev, NULL);
	rtnl_unlock();
	s->dev[STRESS_LO] = kiwi_device_get_by_name("softiw_lo");
	KUNIT_ASSERT_NOT_NULL(test, s->dev[STRESS_LO]);
	stress_setup_kv1(test, s);
	for (i = 0; i < STRESS_NR_DEVS; i++) {
		s->pd[i] = kiwi_alloc_pd(s->dev[i], 0);
		KUNIT_ASSERT_FALSE(test, IS_ERR(s->pd[i]));
		stress_objects(s->dev[i], &s->base_qps[i], &s->base_mrs[i]);
	}
	for (i = 0; i < STRESS_LO_PORTS; i++)
		kiwi_test_addr(test, &s->lo[i], AF_INET, KIWI_TEST_LO,
			       STRESS_PORT + i);
	KUNIT_ASSERT_EQ(test, stress_listen(s, 0), 0);
	s->nclients = clamp(2 * (int)num_online_cpus(), 2, STRESS_MAX_CLIENTS);
	s->clients = kcalloc(s->nclients, sizeof(*s->clients), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s->clients);
	for (i = 0; i < s->nclients; i++) {
		struct stress_client *c = &s->clients[i];

		spin_lock_init(&c->lock);
		init_waitqueue_head(&c->wq);
		c->buf = kzalloc(STRESS_BUF, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, c->buf);
	}
	s->end = jiffies + secs * HZ;
	return s;
}

/* Start thread @i of the round, named in @th->name, as kiwi_stress/@i. */
static void stress_start(struct stress *s, struct stress_thread *th,
			 int (*fn)(void *), u64 seed, int i)
{
	th->s = s;
	th->step = "start";
	init_completion(&th->done);
	prandom_seed_state(&th->rnd, seed + i);
	th->task = kthread_run(fn, th, "kiwi_stress/%d", i);
	if (!IS_ERR(th->task))
		return;
	stress_fail(s, "%s did not start: %ld", th->name, PTR_ERR(th->task));
	th->task = NULL;
	WRITE_ONCE(s->stop, true);
}

/* Wait for a thread, in slices the hung-task detector does not mind. */
static bool stress_join_one(struct stress_thread *th, unsigned long deadline)
{
	if (!th->task)
		return true;
	while (!wait_for_completion_timeout(&th->done, 5 * HZ))
		if (time_after(jiffies, deadline))
			return false;
	return true;
}

static void stress_join(struct kunit *test, struct stress *s)
{
	unsigned long deadline = s->end + STRESS_JOIN_S * HZ;
	struct stress_thread *th;
	int i;

	for (i = 0; i < s->nclients + 2; i++) {
		th = i < s->nclients ? &s->clients[i].th :
		     i == s->nclients ? &s->listener : &s->device;
		if (stress_join_one(th, deadline))
			continue;
		KUNIT_FAIL(test, "%s still at '%s' %d s after the end",
			   th->name, READ_ONCE(th->step), STRESS_JOIN_S);
		s->stuck = true;
	}
}

/*
 * The counts go to the console only: KUnit 6.1 keeps 512 bytes of a case's
 * log in debugfs, and these lines would push its verdict out of them.
 */
static void stress_report(struct kunit *test, struct stress *s, const int *n,
			  unsigned int secs)
{
	pr_info("kiwi_softiw_stress: %u s, %d clients: %d attempts: %d up, %d refused, %d rejected, %d failed, %d removed, %d setup errors, %d hung",
		secs, s->nclients, n[SC_ATTEMPTS], n[SC_UP], n[SC_REFUSED],
		n[SC_REJECTED], n[SC_FAILED], n[SC_REMOVED],
		n[SC_SETUP_ERR], n[SC_HUNG]);
	pr_info("kiwi_softiw_stress: data: %d SEND, %d RDMA WRITE, %d lost; ends: %d graceful, %d abortive, %d destroyed, %d lingering, %d removed",
		n[SC_SEND], n[SC_WRITE], n[SC_DATA_LOST], n[SC_END_GRACEFUL],
		n[SC_END_ABORT], n[SC_END_DESTROY], n[SC_END_LINGER],
		n[SC_END_REMOVED]);
	pr_info("kiwi_softiw_stress: server: %d requests, %d accepted, %d rejected, %d answers failed, %d up, %d closed; listeners: %d created, %d destroyed",
		n[SC_SRV_REQUESTS], n[SC_SRV_ACCEPTED], n[SC_SRV_REJECTED],
		n[SC_SRV_ANSWER_ERR], n[SC_SRV_UP], n[SC_SRV_CLOSED],
		n[SC_LISTENS], n[SC_UNLISTENS]);
	pr_info("kiwi_softiw_stress: softiw_kv0: %d attaches, %d detaches; %d attempts on it, %d found it gone",
		n[SC_ATTACHES], n[SC_DETACHES], n[SC_KV0], n[SC_KV0_ABSENT]);
}

/* The threads' counts against what they must be. */
static void stress_check_counts(struct kunit *test, struct stress *s,
				const int *n, unsigned int secs)
{
	int i, ended = 0;

	for (i = 0; i < min(s->fails, STRESS_MSGS); i++)
		KUNIT_FAIL(test, "%s", s->msgs[i]);
	KUNIT_EXPECT_EQ_MSG(test, s->fails, 0, "failures the threads saw");
	for (i = SC_SETUP_ERR; i <= SC_HUNG; i++)
		ended += n[i];
	KUNIT_EXPECT_EQ_MSG(test, ended, n[SC_ATTEMPTS],
			    "attempts with one terminal outcome");
	KUNIT_EXPECT_EQ(test, n[SC_HUNG], 0);
	KUNIT_EXPECT_GE_MSG(test, n[SC_SEND] + n[SC_WRITE],
			    s->nclients * (int)min_t(unsigned int, secs,
						     STRESS_MIN_DATA),
			    "data operations completed");
	for (i = 0; i < s->nclients; i++)
		KUNIT_EXPECT_GT_MSG(test, s->clients[i].data, 0U,
				    "client %d carried no data", i);
	KUNIT_EXPECT_GT(test, n[SC_REFUSED], 0);
	KUNIT_EXPECT_EQ_MSG(test, n[SC_REJECTED], n[SC_SRV_REJECTED],
			    "rejections the clients saw, the server made");
	KUNIT_EXPECT_GT(test, n[SC_LISTENS], 1);
	KUNIT_EXPECT_GT(test, n[SC_ATTACHES], 0);
	KUNIT_EXPECT_EQ(test, n[SC_DETACHES], n[SC_ATTACHES]);
	KUNIT_EXPECT_GT(test, n[SC_KV0], 0);
}

/* Every connection ended, and nothing is left of the round. */
static void stress_check_left(struct kunit *test, struct stress *s)
{
	struct ib_device *kv0;
	int i, qps, mrs;

	KUNIT_EXPECT_EQ_MSG(test, stress_settle(s, stress_live_children, 0), 0,
			    "accepted connections that never heard CLOSE");
	stress_children_destroy(s);
	KUNIT_EXPECT_LE(test, stress_settle(s, stress_live_ids, s->base_ids),
			(long)s->base_ids);
	KUNIT_EXPECT_LE(test, stress_settle(s, stress_live_ceps, s->base_ceps),
			(long)s->base_ceps);
	for (i = 0; i < STRESS_NR_DEVS; i++) {
		stress_objects(s->dev[i], &qps, &mrs);
		KUNIT_EXPECT_EQ_MSG(test, qps, s->base_qps[i], "QPs on %s",
				    s->dev[i]->name);
		KUNIT_EXPECT_EQ_MSG(test, mrs, s->base_mrs[i], "MRs on %s",
				    s->dev[i]->name);
	}
	kv0 = kiwi_device_get_by_name("softiw_kv0");
	KUNIT_EXPECT_NULL(test, kv0);
	if (kv0)
		kiwi_device_put(kv0);
}

/* The runs of the case: a round of up to STRESS_ROUND_S each. */
static const u8 stress_rounds[STRESS_MAX_ROUNDS];

static unsigned int stress_round_secs(unsigned int round)
{
	unsigned int secs = max(kiwi_test_stress_secs(), 1U);

	if (round >= STRESS_MAX_ROUNDS || round * STRESS_ROUND_S >= secs)
		return 0;
	return min(secs - round * STRESS_ROUND_S, (unsigned int)STRESS_ROUND_S);
}

static const void *stress_round_gen(const void *prev, char *desc)
{
	const u8 *next = prev ? (const u8 *)prev + 1 : stress_rounds;
	unsigned int i = next - stress_rounds;
	unsigned int secs = stress_round_secs(i);

	if (!secs)
		return NULL;
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "round %u: %u s", i + 1, secs);
	return next;
}

static void stress_smp(struct kunit *test)
{
	unsigned int round = (const u8 *)test->param_value - stress_rounds;
	unsigned int secs = stress_round_secs(round);
	u64 seed = STRESS_SEED + 1000 * round;
	int i, n[SC_NR];
	struct stress *s;

	s = stress_setup(test, secs);
	/* No assertion from here on: the threads use the round. */
	for (i = 0; i < s->nclients; i++) {
		snprintf(s->clients[i].th.name, sizeof(s->clients[i].th.name),
			 "client %d", i);
		stress_start(s, &s->clients[i].th, stress_client_fn, seed, i);
	}
	strscpy(s->listener.name, "listener", sizeof(s->listener.name));
	stress_start(s, &s->listener, stress_listener_fn, seed, i++);
	strscpy(s->device.name, "device", sizeof(s->device.name));
	stress_start(s, &s->device, stress_device_fn, seed, i);
	stress_join(test, s);
	/* Their destroy waits for the request handlers: the server is done. */
	if (!s->stuck)
		stress_listeners_destroy(s);
	for (i = 0; i < SC_NR; i++)
		n[i] = atomic_read(&s->count[i]);
	stress_report(test, s, n, secs);
	if (s->stuck)
		return;
	stress_check_left(test, s);
	stress_check_counts(test, s, n, secs);
}

static struct kunit_case stress_cases[] = {
	KUNIT_CASE_PARAM(stress_smp, stress_round_gen),
	{}
};

static struct kunit_suite stress_suite = {
	.suite_init = cmt_suite_init,
	.suite_exit = cmt_suite_exit,
	.name = "kiwi_softiw_stress",
	.test_cases = stress_cases,
};

kunit_test_suite(stress_suite);
