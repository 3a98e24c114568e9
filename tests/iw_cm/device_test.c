// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_iwcm_device: the device registry, unregistering with live
 * connections, the verbs object model, and what debugfs shows.
 */
#include <kunit/test.h>
#include <linux/bits.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/in.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/scatterlist.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include <kiwi/iw_cm.h>
#include <kiwi/provider.h>

#include "verbs_util.h"
#include "iwcm_test.h"
#include "kiwi_test.h"

static void device_registry(struct kunit *test)
{
	struct kiwi_ulp *u = kiwi_ulp_setup(test);
	struct ib_device_attr attr;
	struct ib_device *dev;
	struct kiwi_mock *dup;

	dup = kiwi_mock_create(u->dev->name);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(dup), -EEXIST);
	if (!IS_ERR(dup))
		kiwi_mock_destroy(dup);
	dev = kiwi_device_get_by_name(u->dev->name);
	KUNIT_EXPECT_PTR_EQ(test, dev, u->dev);
	if (dev)
		kiwi_device_put(dev);
	KUNIT_EXPECT_NULL(test, kiwi_device_get_by_name("no-such-dev"));
	KUNIT_EXPECT_EQ(test, kiwi_query_device(u->dev, &attr), 0);
	KUNIT_EXPECT_EQ(test, u->dev->iw_max_private_data,
			KIWI_CM_MAX_PRIVATE_DATA);
	KUNIT_EXPECT_EQ(test, attr.max_qp_rd_atom, KIWI_CM_MAX_IRD_ORD);
	KUNIT_EXPECT_EQ(test,
			PTR_ERR_OR_ZERO(kiwi_cm_create_id(u->dev, NULL, NULL)),
			-EINVAL);
}

struct client_log {
	struct ib_client client;
	struct ib_device *added[8];
	bool findable[8];	/* the added device, by name, in add */
	struct ib_device *removed[8];
	void *data[8];
	int nadded;
	int nremoved;
	int refuse;		/* add returns this */
	const char *lookup;	/* a device remove looks up */
	int lookups;		/* lookups that worked in remove */
};

/* Linux's callbacks carry no client pointer: one log at a time. */
static struct client_log *client_log;

static int client_add(struct ib_device *dev)
{
	struct client_log *log = client_log;
	struct ib_device *found;

	if (log->refuse)
		return log->refuse;
	if (log->nadded < ARRAY_SIZE(log->added)) {
		found = kiwi_device_get_by_name(dev->name);
		if (found)
			kiwi_device_put(found);
		log->findable[log->nadded] = found == dev;
		ib_set_client_data(dev, &log->client, &log->added[log->nadded]);
		log->added[log->nadded++] = dev;
	}
	return 0;
}

/*
 * A remove does what a ULP's does: it uses the registry (which address
 * resolution uses too) and may sleep.
 */
static void client_remove(struct ib_device *dev, void *data)
{
	struct client_log *log = client_log;
	struct ib_device *other = NULL;

	if (log->lookup)
		other = kiwi_device_get_by_name(log->lookup);
	if (other) {
		log->lookups++;
		kiwi_device_put(other);
	}
	usleep_range(1000, 2000);
	if (log->nremoved < ARRAY_SIZE(log->removed)) {
		log->data[log->nremoved] = data;
		log->removed[log->nremoved++] = dev;
	}
}

static int logged(struct ib_device **devs, int n, struct ib_device *dev)
{
	while (n--)
		if (devs[n] == dev)
			return n;
	return -1;
}

/*
 * Clients hear of devices present and future (a new one before lookups
 * find it), get their data back in remove, and may use the registry from
 * remove; lookup by net_device.
 */
static void device_clients(struct kunit *test)
{
	struct client_log log = { .client = { .name = "kunit",
					      .add = client_add,
					      .remove = client_remove } };
	struct kiwi_ulp *u = kiwi_ulp_setup(test);
	struct ib_device *dev;
	struct net_device *nd;
	struct kiwi_mock *m2;
	int i;

	/* lookup compares pointers; a real netdev may have a real RNIC */
	nd = kunit_kzalloc(test, sizeof(*nd), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, nd);

	client_log = &log;
	log.lookup = u->dev->name;
	KUNIT_ASSERT_EQ(test, ib_register_client(&log.client), 0);
	i = logged(log.added, log.nadded, u->dev);
	KUNIT_EXPECT_GE(test, i, 0);
	if (i >= 0) {
		KUNIT_EXPECT_PTR_EQ(test,
				    ib_get_client_data(u->dev, &log.client),
				    (void *)&log.added[i]);
		KUNIT_EXPECT_TRUE(test, log.findable[i]);
	}
	m2 = kiwi_mock_create("kunit-client");
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, m2);
	i = logged(log.added, log.nadded, &m2->dev);
	KUNIT_EXPECT_GE(test, i, 0);
	if (i >= 0)
		KUNIT_EXPECT_FALSE(test, log.findable[i]);
	KUNIT_EXPECT_LT(test, logged(log.removed, log.nremoved, &m2->dev), 0);
	kiwi_mock_destroy(m2);
	KUNIT_EXPECT_EQ(test, log.lookups, 1);
	KUNIT_EXPECT_EQ(test, log.nremoved, 1);
	KUNIT_EXPECT_PTR_EQ(test, log.removed[0], &m2->dev);
	if (i >= 0)
		KUNIT_EXPECT_PTR_EQ(test, log.data[0], (void *)&log.added[i]);
	ib_unregister_client(&log.client);
	KUNIT_EXPECT_GE(test, logged(log.removed, log.nremoved, u->dev), 0);
	KUNIT_EXPECT_NULL(test, ib_get_client_data(u->dev, &log.client));

	dev = kiwi_device_get_by_netdev(nd);
	KUNIT_EXPECT_NULL(test, dev);
	if (dev)
		kiwi_device_put(dev);
	u->dev->netdev = nd;
	dev = kiwi_device_get_by_netdev(nd);
	u->dev->netdev = NULL;
	KUNIT_EXPECT_PTR_EQ(test, dev, u->dev);
	if (dev)
		kiwi_device_put(dev);
}

/* A client whose add refuses a device is never told it goes. */
static void device_client_refuses(struct kunit *test)
{
	struct client_log log = { .client = { .name = "kunit-refuse",
					      .add = client_add,
					      .remove = client_remove },
				  .refuse = -EOPNOTSUPP };
	struct kiwi_ulp *u = kiwi_ulp_setup(test);
	struct kiwi_mock *m2;

	client_log = &log;
	KUNIT_ASSERT_EQ(test, ib_register_client(&log.client), 0);
	m2 = kiwi_mock_create("kunit-refused");
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, m2);
	KUNIT_EXPECT_NULL(test, ib_get_client_data(&m2->dev, &log.client));
	kiwi_mock_destroy(m2);
	ib_unregister_client(&log.client);
	KUNIT_EXPECT_EQ(test, log.nadded, 0);
	KUNIT_EXPECT_EQ(test, log.nremoved, 0);
	KUNIT_EXPECT_NULL(test, ib_get_client_data(u->dev, &log.client));
}

/*
 * Out of memory for a client's record of a device: the client's
 * registration fails, after remove ran for the device its add accepted.
 */
static void device_client_register_no_memory(struct kunit *test)
{
	struct client_log log = { .client = { .name = "kunit-nomem",
					      .add = client_add,
					      .remove = client_remove } };
	struct kiwi_ulp *u = kiwi_ulp_setup(test);
	struct kiwi_mock *m2;
	int ret;

	client_log = &log;
	m2 = kiwi_mock_create("kunit-nomem-2");
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, m2);
	/* u->dev, then m2 at least: the second device's record fails */
	kiwi_fault_fail_nth(2);
	ret = ib_register_client(&log.client);
	kiwi_fault_fail_nth(0);
	KUNIT_EXPECT_EQ(test, ret, -ENOMEM);
	KUNIT_EXPECT_EQ(test, log.nadded, 1);
	KUNIT_EXPECT_EQ(test, log.nremoved, 1);
	KUNIT_EXPECT_PTR_EQ(test, log.removed[0], log.added[0]);
	KUNIT_EXPECT_NULL(test, ib_get_client_data(u->dev, &log.client));
	if (!ret)
		ib_unregister_client(&log.client);

	/* not half registered: it registers again, and unregisters */
	KUNIT_ASSERT_EQ(test, ib_register_client(&log.client), 0);
	KUNIT_EXPECT_GE(test, logged(log.added, log.nadded, &m2->dev), 1);
	ib_unregister_client(&log.client);
	kiwi_mock_destroy(m2);
}

/*
 * Out of memory for a client's record of a new device: the device's
 * registration fails, wherever in the clients' order it happens, and
 * every client that heard of the device hears that it went. The n-th
 * fault point from query_device on fails, for each n the registration
 * reaches (another client's own allocations may fail without failing
 * it). A client registered after the logging one makes the log's add
 * run before a failure at least once.
 */
static void device_register_client_no_memory(struct kunit *test)
{
	struct client_log log = { .client = { .name = "kunit-nomem",
					      .add = client_add,
					      .remove = client_remove } };
	struct ib_client tail = { .name = "kunit-nomem-tail" };
	int nth, left = 0, failed = 0, undone = 0;
	struct ib_device *dev;
	struct kiwi_mock *m;

	client_log = &log;
	KUNIT_ASSERT_EQ(test, ib_register_client(&log.client), 0);
	KUNIT_ASSERT_EQ(test, ib_register_client(&tail), 0);
	for (nth = 1; nth < 16 && !left; nth++) {
		log.nadded = 0;
		log.nremoved = 0;
		kiwi_fault_fail_nth(nth);
		m = kiwi_mock_create("kunit-nomem-dev");
		left = kiwi_fault_remaining();
		kiwi_fault_fail_nth(0);
		if (IS_ERR(m)) {
			KUNIT_EXPECT_EQ_MSG(test, PTR_ERR(m), -ENOMEM,
					    "n=%d", nth);
			dev = kiwi_device_get_by_name("kunit-nomem-dev");
			KUNIT_EXPECT_NULL_MSG(test, dev, "n=%d", nth);
			if (dev)
				kiwi_device_put(dev);
			failed++;
			undone += log.nremoved;
		} else {
			KUNIT_EXPECT_TRUE_MSG(test, !left || log.nadded == 1,
					      "n=%d: no fault, %d adds", nth,
					      log.nadded);
			kiwi_mock_destroy(m);
		}
		KUNIT_EXPECT_EQ_MSG(test, log.nremoved, log.nadded, "n=%d",
				    nth);
	}
	KUNIT_EXPECT_GT(test, left, 0);
	/* query_device, the log's record, the tail's record at least */
	KUNIT_EXPECT_GE(test, failed, 3);
	KUNIT_EXPECT_GE(test, undone, 1);
	ib_unregister_client(&tail);
	ib_unregister_client(&log.client);
}

struct async_unregister {
	struct work_struct work;
	struct ib_device *dev;
	struct completion done;
};

static void async_unregister_fn(struct work_struct *work)
{
	struct async_unregister *au =
		container_of(work, struct async_unregister, work);

	kiwi_unregister_device(au->dev);
	complete(&au->done);
}

/*
 * Unregister with live ids: each gets DEVICE_REMOVAL once, new objects
 * are refused, and unregister returns once the owners destroyed their
 * ids and QPs and the provider dropped its endpoint references.
 */
static void device_removal_live(struct kunit *test)
{
	struct kiwi_ulp *u = kiwi_ulp_setup(test);
	struct kiwi_cm_id *ids[4];
	struct async_unregister au;
	struct kiwi_mock *m = u->m;
	struct kiwi_cm_id *id;
	char got[8];
	int i, n;

	ids[0] = kiwi_ulp_listen(u, 0);
	ids[1] = kiwi_ulp_established(u);
	ids[2] = kiwi_t_passive(u);
	ids[3] = kiwi_ulp_connect(u);
	n = kiwi_ulp_count(u);
	u->ret_on[KIWI_CM_EVENT_DEVICE_REMOVAL] = 1;

	INIT_WORK_ONSTACK(&au.work, async_unregister_fn);
	init_completion(&au.done);
	au.dev = u->dev;
	u->m = NULL; /* the test unregisters, not the fixture */
	queue_work(system_unbound_wq, &au.work);
	KUNIT_ASSERT_TRUE(test,
			  kiwi_ulp_wait(u, n + 5)); /* + passive listener */
	for (i = 0; i < 4; i++) {
		kiwi_t_events(u, ids[i], n, got, sizeof(got));
		KUNIT_EXPECT_STREQ(test, got, "X");
	}
	id = kiwi_cm_create_id(au.dev, kiwi_ulp_handler, u);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(id), -ENODEV);
	KUNIT_EXPECT_EQ(test,
			PTR_ERR_OR_ZERO(kt_cq(au.dev, 1, NULL, NULL)),
			-ENODEV);
	msleep(50);
	KUNIT_EXPECT_FALSE(test, completion_done(&au.done));

	while (u->nqps)
		kiwi_destroy_qp(u->qps[--u->nqps]);
	kiwi_destroy_cq(u->cq);
	kiwi_dealloc_pd(u->pd);
	kiwi_mock_release_all(m);
	KUNIT_EXPECT_TRUE(test, wait_for_completion_timeout(&au.done, 5 * HZ));
	flush_work(&au.work);
	destroy_work_on_stack(&au.work);
	KUNIT_EXPECT_EQ(test, atomic_read(&m->qps_alive), 0);
	KUNIT_EXPECT_EQ(test, kiwi_cm_live_ids(), u->live_ids);
	kfree(m);
}

struct unregister_in_request {
	struct kiwi_ulp *u;
	struct async_unregister au;
	int n;
	bool told;
};

/* Starts unregistering; returns once the listener got DEVICE_REMOVAL. */
static void unregister_in_request_hook(void *data)
{
	struct unregister_in_request *r = data;

	queue_work(system_unbound_wq, &r->au.work);
	/* DEVICE_REMOVAL is queued on every listed id in one pass */
	r->told = kiwi_ulp_wait(r->u, r->n + 1);
}

/*
 * A CONNECT_REQUEST races with unregister: the device starts going
 * between the child's allocation and its request being queued. The
 * child must never be seen half made (no DEVICE_REMOVAL to a child that
 * has no handler yet, or before its request): the upcall is refused with
 * -ENODEV, which is not an allocation failure.
 */
static void device_request_while_unregistering(struct kunit *test)
{
	struct kiwi_ulp *u = kiwi_ulp_setup(test);
	struct kiwi_cm_event ev = { .event = T_REQUEST, .private_data = "r",
				    .private_data_len = 1 };
	struct kiwi_cm_id *l = kiwi_ulp_listen(u, 0);
	struct unregister_in_request r = { .u = u };
	int live = kiwi_cm_live_ids();
	struct kiwi_mock *m = u->m;
	char got[8];

	INIT_WORK_ONSTACK(&r.au.work, async_unregister_fn);
	init_completion(&r.au.done);
	r.au.dev = u->dev;
	r.n = kiwi_ulp_count(u);
	u->m = NULL; /* the test unregisters, not the fixture */
	/* allocation point 1: the child; 2: its private data */
	kiwi_fault_hook_nth(2, unregister_in_request_hook, &r);
	KUNIT_EXPECT_EQ(test, kiwi_mock_inject(m, l, &ev, KIWI_MOCK_PROCESS),
			-ENODEV);
	kiwi_fault_hook_nth(0, NULL, NULL);
	KUNIT_EXPECT_TRUE(test, r.told);
	msleep(100);
	kiwi_t_events(u, l, r.n, got, sizeof(got));
	KUNIT_EXPECT_STREQ(test, got, "X");
	KUNIT_EXPECT_EQ(test, kiwi_ulp_count(u), r.n + 1);
	KUNIT_EXPECT_EQ(test, kiwi_cm_live_ids(), live);
	KUNIT_EXPECT_EQ(test, kiwi_ulp_cnt(u, KIWI_DEV_CNT_ALLOC_DROPS), 0);
	/* the listener lives on, its device is dying: refused, not a drop */
	KUNIT_EXPECT_EQ(test, kiwi_mock_inject(m, l, &ev, KIWI_MOCK_PROCESS),
			-ENODEV);
	KUNIT_EXPECT_EQ(test, kiwi_ulp_cnt(u, KIWI_DEV_CNT_ALLOC_DROPS), 0);

	kiwi_ulp_destroy(u, l);
	while (u->nqps)
		kiwi_destroy_qp(u->qps[--u->nqps]);
	kiwi_destroy_cq(u->cq);
	kiwi_dealloc_pd(u->pd);
	kiwi_mock_release_all(m);
	KUNIT_EXPECT_TRUE(test,
			  wait_for_completion_timeout(&r.au.done, 5 * HZ));
	flush_work(&r.au.work);
	destroy_work_on_stack(&r.au.work);
	KUNIT_EXPECT_EQ(test, kiwi_cm_live_ids(), u->live_ids);
	kfree(m);
}

/*
 * A leak does not hang unregister: after drain_timeout_secs the leaked id
 * and QP are orphaned and unregister returns; the orphan answers -ENODEV,
 * can still be destroyed, and is freed when its last holder lets go.
 */
static void device_leak_gives_up(struct kunit *test)
{
	struct kiwi_ulp *u = kiwi_ulp_setup(test);
	struct ib_qp_init_attr init = { KT_QP_RC, .send_cq = u->cq,
					.recv_cq = u->cq };
	const struct kiwi_provider_ops *ops = u->dev->ops;
	struct kiwi_cm_id *id = kiwi_ulp_established(u);
	struct ib_qp *pinned = u->qps[0], *leaked;
	struct kiwi_conn_param p = {};
	struct kiwi_mock *m = u->m;
	unsigned int old;
	unsigned long t0;

	leaked = kiwi_create_qp(u->pd, &init);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, leaked);
	kiwi_ulp_forget(u, id);		/* the "ULP" leaks the id... */
	while (u->nqps)
		kiwi_destroy_qp(u->qps[--u->nqps]);
	u->m = NULL;			/* ...and the mock keeps its pin */

	old = kiwi_device_set_drain_timeout(1);
	t0 = jiffies;
	kiwi_unregister_device(&m->dev);
	kiwi_device_set_drain_timeout(old);
	KUNIT_EXPECT_LT(test, jiffies - t0, 10UL * HZ);
	KUNIT_EXPECT_NULL(test, READ_ONCE(leaked->device));
	KUNIT_EXPECT_EQ(test, kiwi_cm_id_state(id), KIWI_CM_STATE_ESTABLISHED);
	KUNIT_EXPECT_EQ(test, kiwi_cm_connect(id, &p), -ENODEV);
	KUNIT_EXPECT_EQ(test, kiwi_cm_disconnect(id, KIWI_CM_DISCONNECT_ABORTIVE),
			-ENODEV);
	kiwi_destroy_qp(leaked);	/* a no-op on an orphan */
	kiwi_cm_destroy_id(id);
	KUNIT_EXPECT_EQ(test, kiwi_mock_calls(m, KIWI_MOCK_MODIFY_QP), 0);
	KUNIT_EXPECT_EQ(test, kiwi_cm_live_ids(), u->live_ids + 1);
	KUNIT_EXPECT_TRUE(test, kiwi_mock_release(m, id));
	KUNIT_EXPECT_EQ(test, kiwi_cm_live_ids(), u->live_ids);

	/* the provider frees what the core forgot */
	ops->iw_rem_ref(pinned);
	ops->destroy_qp(leaked);
	ops->destroy_cq(u->cq);		/* the leaked QP's CQ and PD */
	ops->dealloc_pd(u->pd);
	KUNIT_EXPECT_EQ(test, atomic_read(&m->qps_alive), 0);
	kfree(m);
}

static void comp_handler(struct ib_cq *cq, void *ctx)
{
	atomic_inc(ctx);
}

static void verbs_objects(struct kunit *test)
{
	struct kiwi_ulp *u = kiwi_ulp_setup(test);
	struct ib_qp_init_attr init = { KT_QP_RC, .cap = { .max_send_wr = 4,
						   .max_send_sge = 1 } };
	struct ib_sge sge = { .length = 8 };
	struct ib_send_wr wr = { .wr_id = 42,
				   .sg_list = &sge,
				   .num_sge = 1,
				   .send_flags = IB_SEND_SIGNALED };
	struct ib_recv_wr rwr = { .wr_id = 7, .num_sge = 1, .sg_list = &sge };
	const struct ib_send_wr *bad = NULL;
	const struct ib_recv_wr *rbad = NULL;
	atomic_t notified = ATOMIC_INIT(0);
	struct ib_wc wc[2];
	struct ib_cq *cq;
	struct ib_qp *qp;
	struct scatterlist sg;
	struct ib_mr *mr;
	struct page *page;
	void *buf;

	KUNIT_EXPECT_EQ(test,
			PTR_ERR_OR_ZERO(kt_cq(u->dev, 0, NULL, NULL)),
			-EINVAL);
	cq = kt_cq(u->dev, 4, comp_handler, &notified);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, cq);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(kiwi_create_qp(u->pd, &init)),
			-EINVAL); /* no CQs */
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(kiwi_create_qp(NULL, &init)),
			-EINVAL); /* no PD */
	init.send_cq = cq;
	init.recv_cq = cq;
	init.cap.max_send_wr = 65;
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(kiwi_create_qp(u->pd, &init)),
			-EINVAL); /* beyond max_qp_wr */
	init.cap.max_send_wr = 4;
	kiwi_mock_fail(u->m, KIWI_MOCK_CREATE_QP, -EIO);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(kiwi_create_qp(u->pd, &init)),
			-EIO);
	qp = kiwi_create_qp(u->pd, &init);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, qp);
	KUNIT_EXPECT_PTR_EQ(test, qp->device, u->dev);
	KUNIT_EXPECT_PTR_EQ(test, qp->pd, u->pd);
	KUNIT_EXPECT_PTR_EQ(test, qp->send_cq, cq);
	KUNIT_EXPECT_EQ(test, qp->qp_type, IB_QPT_RC);
	KUNIT_EXPECT_EQ(test, qp->port, 1);

	buf = kunit_kzalloc(test, 64, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	page = virt_to_page(buf);
	mr = kiwi_reg_kernel_mr(u->pd, NULL, 64, 0);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(mr), -EINVAL);
	/* Remote write needs local write; unknown bits are refused. */
	mr = kiwi_reg_kernel_mr(u->pd, buf, 64, IB_ACCESS_REMOTE_WRITE);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(mr), -EINVAL);
	mr = kiwi_reg_kernel_mr(u->pd, buf, 64, BIT(7));
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(mr), -EINVAL);
	/* reg_sg_mr is optional: the mock has none. */
	sg_init_one(&sg, buf, 64);
	mr = kiwi_reg_sg_mr(u->pd, &sg, 1, 0, IB_ACCESS_LOCAL_WRITE);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(mr), -EOPNOTSUPP);
	mr = kiwi_reg_page_mr(u->pd, &page, 1, 0, 64, 0, 0);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(mr), -EOPNOTSUPP);
	mr = kiwi_reg_kernel_mr(u->pd, buf, 64, IB_ACCESS_LOCAL_WRITE);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	KUNIT_EXPECT_EQ(test, mr->length, 64);
	KUNIT_EXPECT_PTR_EQ(test, mr->pd, u->pd);
	sge.lkey = mr->lkey;
	sge.addr = mr->iova;

	KUNIT_EXPECT_EQ(test, kiwi_req_notify_cq(cq, IB_CQ_NEXT_COMP), 0);
	KUNIT_EXPECT_EQ(test, kiwi_post_send(qp, &wr, &bad), 0);
	KUNIT_EXPECT_EQ(test, kiwi_post_recv(qp, &rwr, &rbad), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&notified), 1);
	KUNIT_EXPECT_EQ(test, kiwi_poll_cq(cq, 2, wc), 1);
	KUNIT_EXPECT_EQ(test, wc[0].wr_id, 42);
	KUNIT_EXPECT_PTR_EQ(test, wc[0].qp, qp);
	KUNIT_EXPECT_EQ(test, kiwi_poll_cq(cq, 2, wc), 0);
	wr.num_sge = 5;
	KUNIT_EXPECT_NE(test, kiwi_post_send(qp, &wr, &bad), 0);
	KUNIT_EXPECT_PTR_EQ(test, bad, (const struct ib_send_wr *)&wr);

	kiwi_dereg_mr(mr);
	kiwi_destroy_qp(qp);
	kiwi_destroy_cq(cq);
	KUNIT_EXPECT_EQ(test, atomic_read(&u->m->qps_alive), 0);
}

/* The verbs ops a row of ops_groups may leave out, by bit. */
static const size_t verbs_op_offsets[] = {
	offsetof(struct kiwi_provider_ops, create_qp),
	offsetof(struct kiwi_provider_ops, destroy_qp),
	offsetof(struct kiwi_provider_ops, post_send),
	offsetof(struct kiwi_provider_ops, post_recv),
	offsetof(struct kiwi_provider_ops, create_cq),
	offsetof(struct kiwi_provider_ops, destroy_cq),
	offsetof(struct kiwi_provider_ops, poll_cq),
	offsetof(struct kiwi_provider_ops, req_notify_cq),
	offsetof(struct kiwi_provider_ops, reg_kernel_mr),
	offsetof(struct kiwi_provider_ops, dereg_mr),
	offsetof(struct kiwi_provider_ops, alloc_pd),
	offsetof(struct kiwi_provider_ops, dealloc_pd),
};

#define OPS_QP	0xc0f
#define OPS_CQ	0x0f0
#define OPS_MR	0x300

struct ops_case {
	const char *name;
	unsigned int missing;	/* bits of verbs_op_offsets */
	int ret;
};

static const struct ops_case ops_cases[] = {
	{ "all ops", 0, 0 },
	{ "no create_qp", BIT(0), -EINVAL },
	{ "no destroy_qp", BIT(1), -EINVAL },
	{ "no post_send", BIT(2), -EINVAL },
	{ "no post_recv", BIT(3), -EINVAL },
	{ "no create_cq", BIT(4), -EINVAL },
	{ "no destroy_cq", BIT(5), -EINVAL },
	{ "no poll_cq", BIT(6), -EINVAL },
	{ "no req_notify_cq", BIT(7), -EINVAL },
	{ "no reg_kernel_mr", BIT(8), -EINVAL },
	{ "no dereg_mr", BIT(9), -EINVAL },
	{ "no alloc_pd", BIT(10), -EINVAL },
	{ "no dealloc_pd", BIT(11), -EINVAL },
	{ "QPs without CQs", OPS_CQ, -EINVAL },
	{ "no QP group", OPS_QP, 0 },
	{ "no QP, CQ, MR groups", OPS_QP | OPS_CQ | OPS_MR, 0 },
	{ "no MR group", OPS_MR, 0 },
};

static void ops_case_desc(const struct ops_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ops_groups, ops_cases, ops_case_desc);

/* Registration refuses an op table with part of a verbs group. */
static void device_ops_groups(struct kunit *test)
{
	const struct ops_case *c = test->param_value;
	struct kiwi_provider_ops *ops;
	struct kiwi_mock *m, *ref;
	int i, ret;

	m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	ops = kunit_kzalloc(test, sizeof(*ops), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m);
	KUNIT_ASSERT_NOT_NULL(test, ops);
	spin_lock_init(&m->lock);
	INIT_LIST_HEAD(&m->qps);
	strscpy(m->dev.name, "kiwi-ops-test", sizeof(m->dev.name));
	ref = kiwi_mock_create("kiwi-ops-ref");
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ref);
	*ops = *ref->dev.ops;	/* the mock's full table */
	kiwi_mock_destroy(ref);
	for (i = 0; i < ARRAY_SIZE(verbs_op_offsets); i++)
		if (c->missing & BIT(i))
			memset((char *)ops + verbs_op_offsets[i], 0,
			       sizeof(void *));
	m->dev.ops = ops;
	ret = kiwi_register_device(&m->dev);
	KUNIT_EXPECT_EQ(test, ret, c->ret);
	if (!ret)
		kiwi_unregister_device(&m->dev);
}

static void cm_init_qp_attr(struct kunit *test)
{
	struct kiwi_ulp *u = kiwi_ulp_setup(test);
	struct kiwi_cm_id *id = kiwi_ulp_established(u);
	struct ib_qp_attr attr = {};
	int mask = 0;

	KUNIT_EXPECT_EQ(test, kiwi_cm_init_qp_attr(id, &attr, &mask), 0);
	KUNIT_EXPECT_EQ(test, mask, IB_QP_ACCESS_FLAGS);
	KUNIT_EXPECT_TRUE(test, attr.qp_access_flags & IB_ACCESS_REMOTE_READ);
	KUNIT_EXPECT_EQ(test,
			kiwi_cm_init_qp_attr(kiwi_ulp_id(u), &attr, &mask),
			-EINVAL);
}

static void debugfs_shows_ids(struct kunit *test)
{
	struct kiwi_ulp *u = kiwi_ulp_setup(test);
	struct seq_file m = { .size = 2048 };
	struct sockaddr_in *sin;
	struct kiwi_cm_id *l;
	char path[96];

	m.buf = kunit_kzalloc(test, m.size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m.buf);
	snprintf(path, sizeof(path), "/sys/kernel/debug/kiwi_iwcm/%s/ids",
		 u->dev->name);
	KUNIT_EXPECT_TRUE(test, kiwi_test_path_exists(path));
	kiwi_t_passive(u);
	l = kiwi_ulp_id(u);
	sin = (struct sockaddr_in *)&l->local_addr;
	sin->sin_family = AF_INET;
	sin->sin_port = htons(4791);
	sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	KUNIT_ASSERT_EQ(test, kiwi_cm_listen(l, 0), 0);
	kiwi_debugfs_show_ids(&m, u->dev);
	KUNIT_EXPECT_NOT_NULL(test, strstr(m.buf, "local 127.0.0.1:4791 "));
	KUNIT_EXPECT_NOT_NULL(test, strstr(m.buf, "remote -"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(m.buf, "state ESTABLISHED"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(m.buf, "state LISTEN"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(m.buf, "provider_refs 1"));
	m.count = 0;
	memset(m.buf, 0, m.size);
	kiwi_debugfs_show_counters(&m, u->dev);
	KUNIT_EXPECT_NOT_NULL(test, strstr(m.buf, "requests 1\n"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(m.buf, "accepts 1\n"));
}

static struct kunit_case device_cases[] = {
	KUNIT_CASE(device_registry),
	KUNIT_CASE(device_clients),
	KUNIT_CASE(device_client_refuses),
	KUNIT_CASE(device_client_register_no_memory),
	KUNIT_CASE(device_register_client_no_memory),
	KUNIT_CASE(device_removal_live),
	KUNIT_CASE(device_request_while_unregistering),
	KUNIT_CASE(device_leak_gives_up),
	KUNIT_CASE_PARAM(device_ops_groups, ops_groups_gen_params),
	KUNIT_CASE(verbs_objects),
	KUNIT_CASE(cm_init_qp_attr),
	KUNIT_CASE(debugfs_shows_ids),
	{}
};

static struct kunit_suite device_suite = {
	.name = "kiwi_iwcm_device",
	.test_cases = device_cases,
};

kunit_test_suite(device_suite);
