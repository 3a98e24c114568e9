// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_iwcm_orphan_race: the last reference of an id goes while its
 * device, tired of waiting, orphans it. The race points of
 * <kiwi/fault.h> put the two on two CPUs in the one order that broke
 * (commit 88ab252): the orphaning has chosen the id and is about to take
 * its lock when the last put decides how to free it.
 */
#include <kunit/test.h>
#include <linux/cpumask.h>
#include <linux/ktime.h>
#include <linux/refcount.h>
#include <linux/workqueue.h>

#include <kiwi/fault.h>
#include <kiwi/iw_cm.h>

#include "mock_rnic.h"

/**
 * struct po_race - the orphaning and the last put, on two CPUs
 * @m: the mock RNIC, unregistered by @unregister
 * @id: the id: destroyed by its owner, pinned by the mock only
 * @unregister: kiwi_unregister_device(), on one CPU
 * @put: the mock's last reference on @id, on another CPU
 * @go: completed at the orphaning's race point: @put may go
 * @unregistered: completed when kiwi_unregister_device() returned
 * @at_orphan: the orphaning reached its race point with @id
 * @decided: the last put reached its race point, how to free @id decided
 * @in_window: @decided was seen before the orphaning went on
 * @orphan_cpu: the CPU of the orphaning
 * @put_cpu: the CPU of the last put
 */
struct po_race {
	struct kiwi_mock *m;
	struct kiwi_cm_id *id;
	struct work_struct unregister;
	struct work_struct put;
	struct completion go;
	struct completion unregistered;
	bool at_orphan;
	bool decided;
	bool in_window;
	int orphan_cpu;
	int put_cpu;
};

/*
 * The device's lock is held here, interrupts off. Lets the last put go
 * on the other CPU and waits (5 s at most) until it has decided how to
 * free the id; it then waits for this lock, or, before the fix, may
 * already have read the id's flags without it.
 */
static void po_at_orphan(void *obj, void *data)
{
	struct po_race *p = data;
	u64 end;

	if (!p || obj != p->id)
		return;
	p->at_orphan = true;
	p->orphan_cpu = smp_processor_id();
	complete(&p->go);
	end = ktime_get_ns() + 5 * NSEC_PER_SEC;
	for (;;) {
		/* pairs with the release in po_at_free() */
		p->in_window = smp_load_acquire(&p->decided);
		if (p->in_window || ktime_get_ns() >= end)
			break;
		cpu_relax();
	}
}

static void po_at_free(void *obj, void *data)
{
	struct po_race *p = data;

	if (!p || obj != p->id)
		return;
	p->put_cpu = raw_smp_processor_id();
	/* @put_cpu before @decided: po_at_orphan() may return at once */
	smp_store_release(&p->decided, true);
}

static void po_unregister_fn(struct work_struct *work)
{
	struct po_race *p = container_of(work, struct po_race, unregister);

	kiwi_unregister_device(&p->m->dev);
	complete(&p->unregistered);
}

/* Released at the orphaning's race point, or after 10 s regardless. */
static void po_put_fn(struct work_struct *work)
{
	struct po_race *p = container_of(work, struct po_race, put);

	wait_for_completion_timeout(&p->go, 10 * HZ);
	kiwi_mock_release(p->m, p->id);
}

static void po_disarm(struct kunit_resource *res)
{
	kiwi_race_hook(KIWI_RACE_CM_ORPHAN, NULL, NULL);
	kiwi_race_hook(KIWI_RACE_CM_FREE, NULL, NULL);
}

static int po_handler(struct kiwi_cm_id *id, const struct kiwi_cm_event *ev)
{
	return 0;
}

/*
 * An id its owner destroyed but the provider still pins (a leak)
 * keeps its device from unregistering: after drain_timeout_secs the
 * device orphans it. The provider lets go right then: its last put
 * decides how to free the id while the orphaning, having chosen the id,
 * is about to take its lock. Exactly one of them may drop the id's
 * device reference: the device's count ends at 0, not below (before the
 * fix both did: "refcount_t: underflow", and the count saturated), and
 * the id is freed.
 */
static void race_last_put_vs_orphan(struct kunit *test)
{
	struct po_race *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	int live = kiwi_cm_live_ids();
	int orphan_cpu, put_cpu;
	unsigned int old;
	bool done;

	KUNIT_ASSERT_NOT_NULL(test, p);
	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two online CPUs");
	orphan_cpu = cpumask_first(cpu_online_mask);
	put_cpu = cpumask_next(orphan_cpu, cpu_online_mask);
	p->m = kiwi_mock_create("orphan_race");
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p->m);
	p->id = kiwi_cm_create_id(&p->m->dev, po_handler, NULL);
	if (IS_ERR(p->id)) {
		kiwi_mock_destroy(p->m);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p->id);
	}
	kiwi_mock_pin(p->m, p->id);
	kiwi_cm_destroy_id(p->id);	/* the mock's pin is the last */
	init_completion(&p->go);
	init_completion(&p->unregistered);
	INIT_WORK(&p->unregister, po_unregister_fn);
	INIT_WORK(&p->put, po_put_fn);
	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test, NULL, po_disarm,
							 GFP_KERNEL, p));
	kiwi_race_hook(KIWI_RACE_CM_ORPHAN, po_at_orphan, p);
	kiwi_race_hook(KIWI_RACE_CM_FREE, po_at_free, p);

	/* per-CPU workers: the two stay on their CPUs */
	old = kiwi_device_set_drain_timeout(1);
	queue_work_on(put_cpu, system_long_wq, &p->put);
	queue_work_on(orphan_cpu, system_long_wq, &p->unregister);
	done = wait_for_completion_timeout(&p->unregistered, 20 * HZ);
	flush_work(&p->unregister);
	flush_work(&p->put);
	kiwi_device_set_drain_timeout(old);
	kiwi_race_hook(KIWI_RACE_CM_ORPHAN, NULL, NULL);
	kiwi_race_hook(KIWI_RACE_CM_FREE, NULL, NULL);

	KUNIT_EXPECT_TRUE(test, done);
	KUNIT_EXPECT_TRUE_MSG(test, p->at_orphan, "the device orphaned nothing");
	KUNIT_EXPECT_TRUE_MSG(test, p->in_window,
			      "the last put did not decide inside the window");
	KUNIT_EXPECT_EQ(test, p->orphan_cpu, orphan_cpu);
	KUNIT_EXPECT_EQ(test, p->put_cpu, put_cpu);
	KUNIT_EXPECT_EQ_MSG(test, refcount_read(&p->m->dev.ref), 0,
			    "the id's device reference was not dropped once");
	KUNIT_EXPECT_EQ(test, kiwi_cm_live_ids(), live);
	kfree(p->m);
}

static struct kunit_case po_cases[] = {
	KUNIT_CASE(race_last_put_vs_orphan),
	{}
};

static struct kunit_suite po_suite = {
	.name = "kiwi_iwcm_orphan_race",
	.test_cases = po_cases,
};

kunit_test_suite(po_suite);
