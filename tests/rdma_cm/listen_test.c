// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_rdmacm_listen: wildcard listen fans out to every kiwi device of the
 * namespace, present and future; a share that finds no memory is tried
 * again without holding up the others; a device going closes its share;
 * listen racing device add and removal on 2 CPUs; create_listen free to
 * take rtnl and the core's registry lock; rdma_set_option() reaching the
 * listener's iw_cm id.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/in.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/workqueue.h>
#include <net/net_namespace.h>

#include "rdmacm_test.h"

static int rt_fans(struct rdma_cm_id *id)
{
	return kiwi_rdma_fan_count(kiwi_rdma_priv(id));
}

/* Wait up to 5 s until the listener listens on @n devices. */
static bool rt_wait_fans(struct rdma_cm_id *id, int n)
{
	int i;

	for (i = 0; i < 250 && rt_fans(id) != n; i++)
		msleep(20);
	return rt_fans(id) == n;
}

static struct rdma_cm_id *rt_wild(struct kiwi_rt *rt, int family, u16 port,
				  int backlog)
{
	struct rdma_cm_id *id = kiwi_rt_id(rt);
	struct sockaddr_storage ss;

	kiwi_rt_addr(&ss, family, family == AF_INET ? "0.0.0.0" : "::", port);
	KUNIT_ASSERT_EQ(rt->test, rdma_bind_addr(id, (struct sockaddr *)&ss),
			0);
	KUNIT_ASSERT_EQ(rt->test, rdma_listen(id, backlog), 0);
	return id;
}

/* A request on the listener's share on @m: the new id, or NULL. */
static struct rdma_cm_id *rt_fan_request(struct kiwi_rt *rt,
					 struct rdma_cm_id *l,
					 struct kiwi_mock *m)
{
	struct kiwi_cm_event ev = { .event = KIWI_CM_EVENT_CONNECT_REQUEST,
				    .ird = 2, .ord = 2 };
	struct kiwi_cm_id *cm = kiwi_rdma_fan_cm(kiwi_rdma_priv(l), &m->dev);
	int n = kiwi_rt_count(rt);
	struct kiwi_rt_rec r;

	if (!cm)
		return NULL;
	kiwi_rt_addr(&ev.local_addr, AF_INET, "127.0.0.1", 7100);
	kiwi_rt_addr(&ev.remote_addr, AF_INET, "127.0.0.1", 40000);
	if (kiwi_mock_inject(m, cm, &ev, KIWI_MOCK_PROCESS) ||
	    !kiwi_rt_wait(rt, n + 1))
		return NULL;
	r = kiwi_rt_rec(rt, n);
	if (r.event != RDMA_CM_EVENT_CONNECT_REQUEST)
		return NULL;
	return r.id;
}

static const int families[] = { AF_INET, AF_INET6 };

static void family_desc(const int *f, char *desc)
{
	strscpy(desc, *f == AF_INET ? "IPv4" : "IPv6", KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(family, families, family_desc);

/* Every device of the namespace listens, with the backlog; not others. */
static void rdmacm_wild_present(struct kunit *test)
{
	int family = *(const int *)test->param_value;
	struct kiwi_rt *rt = kiwi_rt_setup(test, true);
	struct kiwi_mock *m2 = *kiwi_rt_mock(rt, init_net.loopback_dev, NULL);
	struct kiwi_mock *m3 = *kiwi_rt_mock(rt, NULL, NULL); /* no namespace */
	struct rdma_cm_id *l;

	l = rt_wild(rt, family, 7100, 5);
	KUNIT_EXPECT_EQ(test, kiwi_rt_state(l), KIWI_RDMA_LISTEN);
	KUNIT_EXPECT_EQ(test, rt_fans(l), 2);
	KUNIT_EXPECT_EQ(test, kiwi_mock_calls(rt->m, KIWI_MOCK_CREATE_LISTEN), 1);
	KUNIT_EXPECT_EQ(test, kiwi_mock_calls(m2, KIWI_MOCK_CREATE_LISTEN), 1);
	KUNIT_EXPECT_EQ(test, kiwi_mock_calls(m3, KIWI_MOCK_CREATE_LISTEN), 0);
	KUNIT_EXPECT_EQ(test, m2->last_backlog, 5);
	KUNIT_EXPECT_NULL(test, l->device);
	kiwi_rt_destroy(rt, l);
	KUNIT_EXPECT_EQ(test, kiwi_mock_calls(rt->m, KIWI_MOCK_DESTROY_LISTEN),
			1);
	KUNIT_EXPECT_EQ(test, kiwi_mock_calls(m2, KIWI_MOCK_DESTROY_LISTEN), 1);
}

/*
 * A device registered after listen() gets a listener; a request on it
 * reaches the ULP; its removal closes that share silently and the rest
 * keeps listening.
 */
static void rdmacm_wild_future(struct kunit *test)
{
	struct kiwi_rt *rt = kiwi_rt_setup(test, true);
	struct rdma_cm_id *l = rt_wild(rt, AF_INET, 7101, 0);
	struct rdma_cm_id *child;
	struct kiwi_mock **slot, *m2;
	int n;

	KUNIT_EXPECT_EQ(test, rt_fans(l), 1);
	slot = kiwi_rt_mock(rt, init_net.loopback_dev, NULL);
	m2 = *slot;
	KUNIT_ASSERT_TRUE(test, rt_wait_fans(l, 2));
	KUNIT_EXPECT_EQ(test, kiwi_mock_calls(m2, KIWI_MOCK_CREATE_LISTEN), 1);
	child = rt_fan_request(rt, l, m2);
	KUNIT_ASSERT_NOT_NULL(test, child);
	KUNIT_EXPECT_PTR_EQ(test, child->device, &m2->dev);
	KUNIT_EXPECT_PTR_EQ(test, child->context, (void *)rt);
	KUNIT_EXPECT_EQ(test, kiwi_rt_state(child), KIWI_RDMA_REQUEST);
	kiwi_rt_destroy(rt, child);
	n = kiwi_rt_count(rt);
	kiwi_mock_destroy(*slot);
	*slot = NULL;
	KUNIT_EXPECT_TRUE(test, rt_wait_fans(l, 1));
	KUNIT_EXPECT_EQ(test, kiwi_rt_count(rt), n);	/* listener not told */
	KUNIT_EXPECT_EQ(test, kiwi_rt_state(l), KIWI_RDMA_LISTEN);
	KUNIT_EXPECT_NOT_NULL(test, rt_fan_request(rt, l, rt->m));
}

/*
 * Out of memory while a device registered after listen() is added: the
 * device's registration fails, or it registers and the worker that opens
 * its share tries again until it listens there. Each fault point the
 * registration and the worker reach fails once, in turn.
 */
static void rdmacm_wild_future_no_memory(struct kunit *test)
{
	struct kiwi_rt *rt = kiwi_rt_setup(test, true);
	struct rdma_cm_id *l = rt_wild(rt, AF_INET, 7106, 0);
	int nth, left = 0, refused = 0, retried = 0;
	struct kiwi_mock *m;

	for (nth = 1; nth < 32 && !left; nth++) {
		kiwi_fault_fail_nth(nth);
		m = kiwi_mock_create_on("kunit-wild-nomem",
					init_net.loopback_dev);
		if (IS_ERR(m)) {
			left = kiwi_fault_remaining();
			kiwi_fault_fail_nth(0);
			KUNIT_EXPECT_EQ_MSG(test, PTR_ERR(m), -ENOMEM, "n=%d",
					    nth);
			KUNIT_EXPECT_EQ_MSG(test, rt_fans(l), 1, "n=%d", nth);
			refused++;
			continue;
		}
		KUNIT_EXPECT_TRUE_MSG(test, rt_wait_fans(l, 2),
				      "n=%d (%pS): no share on the new device",
				      nth, kiwi_fault_site());
		left = kiwi_fault_remaining();
		kiwi_fault_fail_nth(0);
		retried += !left;
		kiwi_mock_destroy(m);
		KUNIT_EXPECT_TRUE_MSG(test, rt_wait_fans(l, 1), "n=%d", nth);
	}
	kunit_info(test, "%d fault points: %d failed the registration, %d the worker",
		   nth - 2, refused, retried);
	KUNIT_EXPECT_GT(test, left, 0);
	/* query_device, the core's record of rdma_cm, rdma_cm's own */
	KUNIT_EXPECT_GE(test, refused, 3);
	/* the fan, its iw_cm id */
	KUNIT_EXPECT_GE(test, retried, 2);
}

/*
 * The ports of the two wildcard listeners of rdmacm_wild_one_no_memory:
 * the first one's share of the new device fails for want of memory
 * RT_SICK_FAILS times; the second one's goes through.
 */
#define RT_SICK_PORT	7107
#define RT_WELL_PORT	7108
#define RT_SICK_FAILS	3

static struct {
	atomic_t fails_left;
	atomic_t sick;		/* create_listen calls for the first */
	atomic_t well;		/* and for the second */
	atomic_t sick_at_well;	/* the first's calls when the second ran */
} rt_nomem;

static void rt_nomem_hook(struct kiwi_mock *m, enum kiwi_mock_op op,
			  struct kiwi_cm_id *id)
{
	u16 port = ntohs(((struct sockaddr_in *)&id->local_addr)->sin_port);

	if (op != KIWI_MOCK_CREATE_LISTEN)
		return;
	if (port == RT_WELL_PORT) {
		atomic_set(&rt_nomem.sick_at_well, atomic_read(&rt_nomem.sick));
		atomic_inc(&rt_nomem.well);
		return;
	}
	if (port != RT_SICK_PORT)
		return;
	atomic_inc(&rt_nomem.sick);
	if (atomic_dec_if_positive(&rt_nomem.fails_left) >= 0)
		kiwi_mock_fail(m, KIWI_MOCK_CREATE_LISTEN, -ENOMEM);
}

/*
 * Two wildcard listeners and a new device; one listener's share of it
 * keeps failing for want of memory. The pass that fails it goes on to
 * the other listener, whose share opens at once and is left alone by the
 * passes that follow; the worker tries the failing share again, once a
 * pass, until it listens.
 */
static void rdmacm_wild_one_no_memory(struct kunit *test)
{
	struct kiwi_rt *rt = kiwi_rt_setup(test, true);
	struct rdma_cm_id *sick = rt_wild(rt, AF_INET, RT_SICK_PORT, 0);
	struct rdma_cm_id *well = rt_wild(rt, AF_INET, RT_WELL_PORT, 0);
	int i;

	atomic_set(&rt_nomem.fails_left, RT_SICK_FAILS);
	atomic_set(&rt_nomem.sick, 0);
	atomic_set(&rt_nomem.well, 0);
	atomic_set(&rt_nomem.sick_at_well, -1);
	kiwi_rt_mock(rt, init_net.loopback_dev, rt_nomem_hook);
	KUNIT_ASSERT_TRUE(test, rt_wait_fans(well, 2));
	/* ids are walked in creation order: the failing share came first */
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&rt_nomem.sick_at_well), 1,
			    "the pass stopped at the share out of memory");
	/* one pass a second, RT_SICK_FAILS of them failing: wait 15 s */
	for (i = 0; i < 3; i++)
		if (rt_wait_fans(sick, 2))
			break;
	KUNIT_EXPECT_EQ(test, rt_fans(sick), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&rt_nomem.fails_left), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&rt_nomem.sick), RT_SICK_FAILS + 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&rt_nomem.well), 1);
	KUNIT_EXPECT_EQ(test, rt_fans(well), 2);
}

/* One device refusing: listen() fails, listens nowhere, may be retried. */
static void rdmacm_wild_fails(struct kunit *test)
{
	struct kiwi_rt *rt = kiwi_rt_setup(test, true);
	struct rdma_cm_id *l = kiwi_rt_id(rt);
	struct kiwi_mock *m2 = *kiwi_rt_mock(rt, init_net.loopback_dev, NULL);
	struct sockaddr_storage ss;

	kiwi_mock_fail(m2, KIWI_MOCK_CREATE_LISTEN, -EADDRINUSE);
	kiwi_rt_addr(&ss, AF_INET6, "::", 7102);
	KUNIT_ASSERT_EQ(test, rdma_bind_addr(l, (struct sockaddr *)&ss), 0);
	KUNIT_EXPECT_EQ(test, rdma_listen(l, 0), -EADDRINUSE);
	KUNIT_EXPECT_EQ(test, kiwi_rt_state(l), KIWI_RDMA_ADDR_BOUND);
	KUNIT_EXPECT_EQ(test, rt_fans(l), 0);
	KUNIT_EXPECT_EQ(test, kiwi_mock_calls(rt->m, KIWI_MOCK_CREATE_LISTEN),
			kiwi_mock_calls(rt->m, KIWI_MOCK_DESTROY_LISTEN));
	KUNIT_EXPECT_EQ(test, rdma_listen(l, 0), 0);
	KUNIT_EXPECT_EQ(test, rt_fans(l), 2);
}

static atomic_t rt_hook_runs;

/* create_listen of a provider that takes rtnl and the registry lock. */
static void rt_locking_hook(struct kiwi_mock *m, enum kiwi_mock_op op,
			    struct kiwi_cm_id *id)
{
	struct ib_device *dev;

	if (op != KIWI_MOCK_CREATE_LISTEN)
		return;
	rtnl_lock();
	dev = kiwi_device_get_by_netdev(init_net.loopback_dev);
	if (dev)
		kiwi_device_put(dev);
	rtnl_unlock();
	atomic_inc(&rt_hook_runs);
}

/*
 * A device registered under rtnl (as from a netdev notifier) while a
 * wildcard listener exists; its create_listen takes rtnl and the core's
 * registry lock. Lockdep or a hang would catch create_listen called under
 * either (or under a lock taken inside them).
 */
static void rdmacm_wild_lock_free(struct kunit *test)
{
	struct kiwi_rt *rt = kiwi_rt_setup(test, true);
	struct rdma_cm_id *l = rt_wild(rt, AF_INET, 7103, 0);
	struct kiwi_mock *m2;
	char name[16];

	atomic_set(&rt_hook_runs, 0);
	snprintf(name, sizeof(name), "rcmx%d", kiwi_rt_seq_next());
	rtnl_lock();
	m2 = kiwi_mock_create_hooked(name, init_net.loopback_dev,
				     rt_locking_hook, NULL);
	rtnl_unlock();
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, m2);
	KUNIT_EXPECT_TRUE(test, rt_wait_fans(l, 2));
	KUNIT_EXPECT_EQ(test, atomic_read(&rt_hook_runs), 1);
	rt_wild(rt, AF_INET6, 7105, 0);		/* listen() itself */
	KUNIT_EXPECT_EQ(test, atomic_read(&rt_hook_runs), 2);
	kiwi_rt_destroy(rt, l);
	kiwi_mock_destroy(m2);
}

enum rt_race_kind { RACE_LISTEN_ADD, RACE_LISTEN_REMOVE, RACE_DESTROY_ADD };

struct rt_race {
	struct work_struct work;
	struct kiwi_mock *m;
	bool add;
	char name[16];
	struct sockaddr_storage ss;
};

static void rt_race_work(struct work_struct *work)
{
	struct rt_race *r = container_of(work, struct rt_race, work);

	if (r->add) {
		r->m = kiwi_mock_create_on(r->name, init_net.loopback_dev);
	} else {
		kiwi_mock_destroy(r->m);
		r->m = NULL;
	}
}

static const enum rt_race_kind race_kinds[] = {
	RACE_LISTEN_ADD, RACE_LISTEN_REMOVE, RACE_DESTROY_ADD };

static void race_desc(const enum rt_race_kind *k, char *desc)
{
	static const char *const names[] = {
		"listen vs device add", "listen vs device removal",
		"destroy vs device add" };

	strscpy(desc, names[*k], KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(race, race_kinds, race_desc);

/* The other CPU adds or removes a device while this one calls @call. */
static int rt_race_once(struct kiwi_rt *rt, struct rt_race *r, int i,
			struct rdma_cm_id *l, bool listen)
{
	int ret = 0;

	queue_work(system_unbound_wq, &r->work);
	udelay((i % 8) * 50);
	if (listen)
		ret = rdma_listen(l, 0);
	else
		kiwi_rt_destroy(rt, l);
	flush_work(&r->work);
	return ret;
}

/*
 * listen() racing a device being added or removed, and a wildcard
 * listener destroyed while a device is added, on 2 CPUs: the listener
 * ends up on exactly the devices present, nothing leaks (the fixture
 * counts ids, the mocks count their QPs, kmemleak the rest).
 */
static void rdmacm_wild_race(struct kunit *test)
{
	enum rt_race_kind kind = *(const enum rt_race_kind *)test->param_value;
	struct kiwi_rt *rt = kiwi_rt_setup(test, true);
	struct rt_race r = { .add = kind != RACE_LISTEN_REMOVE };
	int i, ret;

	INIT_WORK_ONSTACK(&r.work, rt_race_work);
	for (i = 0; i < 40; i++) {
		struct rdma_cm_id *l;

		snprintf(r.name, sizeof(r.name), "rcmx%d",
			 kiwi_rt_seq_next());
		if (!r.add) {
			r.m = kiwi_mock_create_on(r.name,
						  init_net.loopback_dev);
			KUNIT_ASSERT_NOT_ERR_OR_NULL(test, r.m);
		}
		if (kind == RACE_DESTROY_ADD) {
			l = rt_wild(rt, AF_INET, 7104, 0);
			rt_race_once(rt, &r, i, l, false);
			KUNIT_ASSERT_NOT_ERR_OR_NULL(test, r.m);
			kiwi_mock_destroy(r.m);
			continue;
		}
		l = kiwi_rt_id(rt);
		kiwi_rt_addr(&r.ss, AF_INET, "0.0.0.0", 7104);
		KUNIT_EXPECT_EQ(test, rdma_bind_addr(l, (struct sockaddr *)&r.ss),
				0);
		ret = rt_race_once(rt, &r, i, l, true);
		KUNIT_ASSERT_EQ(test, ret, 0);
		if (r.add)
			KUNIT_ASSERT_NOT_ERR_OR_NULL(test, r.m);
		KUNIT_EXPECT_TRUE(test, rt_wait_fans(l, r.add ? 2 : 1));
		kiwi_rt_destroy(rt, l);
		if (r.add)
			kiwi_mock_destroy(r.m);
	}
	destroy_work_on_stack(&r.work);
}

static int rt_set(struct rdma_cm_id *id, int level, int opt, u32 v)
{
	return rdma_set_option(id, level, opt, &v, sizeof(v));
}

/*
 * rdma_set_option(): kiwi's iWARP level only, values checked, only before
 * listen; the iw_cm id the listener makes carries the options.
 */
static void rdmacm_set_option(struct kunit *test)
{
	struct kiwi_rt *rt = kiwi_rt_setup(test, true);
	struct rdma_cm_id *id = kiwi_rt_id(rt);
	const int lvl = KIWI_RDMA_OPTION_IWARP;
	struct sockaddr_storage src;
	struct kiwi_cm_id *cm;
	u32 v = 2;

	KUNIT_EXPECT_EQ(test, rt_set(id, 0, KIWI_IWARP_OPT_RTR, 2),
			-ENOPROTOOPT);
	KUNIT_EXPECT_EQ(test, rt_set(id, lvl, KIWI_IWARP_NR_OPTS, 2),
			-ENOPROTOOPT);
	KUNIT_EXPECT_EQ(test, rdma_set_option(id, lvl, KIWI_IWARP_OPT_RTR, &v,
					      2), -EINVAL);
	KUNIT_EXPECT_EQ(test, rt_set(id, lvl, KIWI_IWARP_OPT_RTR, 9), -EINVAL);
	KUNIT_EXPECT_EQ(test, rt_set(id, lvl, KIWI_IWARP_OPT_RTR, 2), 0);
	KUNIT_EXPECT_EQ(test, rt_set(id, lvl, KIWI_IWARP_OPT_MPA_TIMEOUT_MS,
				     500), 0);
	kiwi_rt_addr(&src, AF_INET, "127.0.0.1", 7480);
	KUNIT_ASSERT_EQ(test, rdma_bind_addr(id, (struct sockaddr *)&src), 0);
	KUNIT_EXPECT_EQ(test, rt_set(id, lvl, KIWI_IWARP_OPT_P2P, 1), 0);
	KUNIT_ASSERT_EQ(test, rdma_listen(id, 0), 0);
	KUNIT_EXPECT_EQ(test, rt_set(id, lvl, KIWI_IWARP_OPT_MPA_REV, 1),
			-EISCONN);
	cm = kiwi_rdma_priv(id)->cm;
	KUNIT_ASSERT_NOT_NULL(test, cm);
	KUNIT_EXPECT_EQ(test, kiwi_cm_option(cm, KIWI_IWARP_OPT_RTR, 0), 2U);
	KUNIT_EXPECT_EQ(test, kiwi_cm_option(cm, KIWI_IWARP_OPT_MPA_TIMEOUT_MS,
					     0), 500U);
	KUNIT_EXPECT_EQ(test, kiwi_cm_option(cm, KIWI_IWARP_OPT_P2P, 0), 1U);
	KUNIT_EXPECT_EQ(test, kiwi_cm_option(cm, KIWI_IWARP_OPT_MPA_REV, 7),
			7U);
}

/**
 * struct rt_gone - a device's removal closing fans while a wildcard
 *	listener is destroyed
 * @m: the device going, freed by @unreg
 * @y: the listener destroyed meanwhile
 * @unreg: destroys @m
 * @destroy: destroys @y
 * @held: the removal's first fan close is held in destroy_listen
 * @release: lets it go on
 * @unregistered: @m is gone
 * @destroyed: rdma_destroy_id(@y) returned
 */
struct rt_gone {
	struct kiwi_mock *m;
	struct rdma_cm_id *y;
	struct work_struct unreg;
	struct work_struct destroy;
	struct completion held;
	struct completion release;
	struct completion unregistered;
	struct completion destroyed;
};

static struct rt_gone *rt_gone;	/* the running case's; one at a time */

static void rt_gone_hook(struct kiwi_mock *m, enum kiwi_mock_op op,
			 struct kiwi_cm_id *id)
{
	if (op != KIWI_MOCK_DESTROY_LISTEN || !rt_gone ||
	    completion_done(&rt_gone->held))
		return;
	/* both stay done once done: only the first close is held */
	complete_all(&rt_gone->held);
	wait_for_completion_timeout(&rt_gone->release, 10 * HZ);
}

static void rt_gone_unreg(struct work_struct *work)
{
	struct rt_gone *g = container_of(work, struct rt_gone, unreg);

	kiwi_mock_destroy(g->m);
	complete_all(&g->unregistered);	/* stays done: see the kfree() */
}

static void rt_gone_destroy(struct work_struct *work)
{
	struct rt_gone *g = container_of(work, struct rt_gone, destroy);

	kiwi_rt_destroy_with_qp(g->y);
	complete_all(&g->destroyed);
}

/*
 * Two wildcard listeners X and Y share a device that goes. Its removal
 * holds X's fan there in destroy_listen while Y's waits its turn, off
 * the fan list; Y is destroyed meanwhile. Y's teardown must wait for its
 * fan, which can still deliver a request to Y until it is closed (a
 * freed Y: KASAN); a request on it now is refused, Y being destroyed.
 */
static void rdmacm_wild_removal_vs_destroy(struct kunit *test)
{
	struct kiwi_cm_event ev = { .event = KIWI_CM_EVENT_CONNECT_REQUEST };
	struct kiwi_rt *rt = kiwi_rt_setup(test, true);
	struct kiwi_mock **slot;
	struct kiwi_cm_id *ycm;
	struct rdma_cm_id *x;
	struct rt_gone *g;
	int n;

	g = kzalloc(sizeof(*g), GFP_KERNEL);	/* outlives a hung case */
	KUNIT_ASSERT_NOT_NULL(test, g);
	init_completion(&g->held);
	init_completion(&g->release);
	init_completion(&g->unregistered);
	init_completion(&g->destroyed);
	INIT_WORK(&g->unreg, rt_gone_unreg);
	INIT_WORK(&g->destroy, rt_gone_destroy);
	slot = kiwi_rt_mock(rt, init_net.loopback_dev, rt_gone_hook);
	g->m = *slot;
	x = rt_wild(rt, AF_INET, 7110, 0);
	g->y = rt_wild(rt, AF_INET, 7111, 0);
	KUNIT_ASSERT_TRUE(test, kiwi_rt_forget(rt, g->y));
	ycm = kiwi_rdma_fan_cm(kiwi_rdma_priv(g->y), &g->m->dev);
	KUNIT_ASSERT_NOT_NULL(test, ycm);
	rt_gone = g;
	*slot = NULL;
	queue_work(system_unbound_wq, &g->unreg);
	KUNIT_ASSERT_TRUE(test, wait_for_completion_timeout(&g->held, 5 * HZ));
	queue_work(system_unbound_wq, &g->destroy);
	/* Y's fan is still open: its teardown waits for it */
	KUNIT_EXPECT_FALSE(test, wait_for_completion_timeout(&g->destroyed,
							     HZ / 2));
	n = kiwi_rt_count(rt);
	kiwi_rt_addr(&ev.local_addr, AF_INET, "0.0.0.0", 7111);
	kiwi_rt_addr(&ev.remote_addr, AF_INET, "127.0.0.1", 40000);
	kiwi_mock_inject(g->m, ycm, &ev, KIWI_MOCK_PROCESS);
	msleep(100);	/* a request reaching the ULP would be recorded now */
	KUNIT_EXPECT_EQ(test, kiwi_rt_count(rt), n);
	complete_all(&g->release);
	KUNIT_EXPECT_TRUE(test, wait_for_completion_timeout(&g->destroyed,
							    5 * HZ));
	KUNIT_EXPECT_TRUE(test, wait_for_completion_timeout(&g->unregistered,
							    10 * HZ));
	rt_gone = NULL;
	KUNIT_EXPECT_EQ(test, kiwi_rt_state(x), KIWI_RDMA_LISTEN);
	if (completion_done(&g->unregistered) &&
	    completion_done(&g->destroyed))
		kfree(g);
}

static struct kunit_case rdmacm_listen_cases[] = {
	KUNIT_CASE_PARAM(rdmacm_wild_present, family_gen_params),
	KUNIT_CASE(rdmacm_wild_future),
	KUNIT_CASE(rdmacm_wild_future_no_memory),
	KUNIT_CASE(rdmacm_wild_one_no_memory),
	KUNIT_CASE(rdmacm_wild_fails),
	KUNIT_CASE(rdmacm_wild_removal_vs_destroy),
	KUNIT_CASE(rdmacm_wild_lock_free),
	KUNIT_CASE_PARAM(rdmacm_wild_race, race_gen_params),
	KUNIT_CASE(rdmacm_set_option),
	{}
};

static struct kunit_suite rdmacm_listen_suite = {
	.name = "kiwi_rdmacm_listen",
	.test_cases = rdmacm_listen_cases,
};

kunit_test_suite(rdmacm_listen_suite);
