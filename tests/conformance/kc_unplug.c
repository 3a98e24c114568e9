// SPDX-License-Identifier: GPL-2.0
/*
 * kc_unregister_live: side b's device unregistered under a live
 * connection. The kit cannot remove another provider's device itself:
 * the module parameters unplug_b= and plug_b= name two executables (run
 * as usermode helpers) that unregister dev_b and register it again, by
 * whatever means its driver has (a sysfs write, a PCI unbind and bind).
 */
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/umh.h>
#include <linux/workqueue.h>

#include <kiwi/provider.h>

#include "kc.h"

static char *kc_unplug_b;
module_param_named(unplug_b, kc_unplug_b, charp, 0444);
MODULE_PARM_DESC(unplug_b, "executable that unregisters dev_b (kc_unregister_live)");

static char *kc_plug_b;
module_param_named(plug_b, kc_plug_b, charp, 0444);
MODULE_PARM_DESC(plug_b, "executable that registers dev_b again");

/* Longest an unplug may take: the core's unregister waits for the ULPs. */
#define KC_UNPLUG_MS	60000

/**
 * struct kc_umh - an executable run from a work item
 * @work: runs it
 * @path: the executable
 * @ret: call_usermodehelper()'s result
 * @done: completed once it returned
 */
struct kc_umh {
	struct work_struct work;
	const char *path;
	int ret;
	struct completion done;
};

static int kc_run(const char *path)
{
	char *argv[2], *envp[3];

	argv[0] = (char *)path;
	argv[1] = NULL;
	envp[0] = "HOME=/";
	envp[1] = "PATH=/sbin:/bin:/usr/sbin:/usr/bin";
	envp[2] = NULL;
	return call_usermodehelper(argv[0], argv, envp, UMH_WAIT_PROC);
}

static void kc_umh_work(struct work_struct *work)
{
	struct kc_umh *u = container_of(work, struct kc_umh, work);

	u->ret = kc_run(u->path);
	complete(&u->done);
}

/* Until the device is back under its name, or KC_UNPLUG_MS passed. */
static bool kc_wait_device(const char *name)
{
	unsigned long end = jiffies + msecs_to_jiffies(KC_UNPLUG_MS);
	struct ib_device *dev;

	while (!(dev = kiwi_device_get_by_name(name))) {
		if (time_after(jiffies, end))
			return false;
		msleep(20);
	}
	kiwi_device_put(dev);
	return true;
}

/**
 * kc_unregister_live() - unregister side b's device under a connection
 * @test: the case
 *
 * Every id on the device hears DEVICE_REMOVAL; once the case destroyed
 * what it had there, the unregistration finishes, the peer's connection
 * ends with a CLOSE of negative status, and the device registered again
 * takes a new connection. Skipped unless unplug_b= and plug_b= are set,
 * and when dev_a is dev_b. unplug_b must take away dev_b alone.
 */
void kc_unregister_live(struct kunit *test)
{
	struct kc *t = test->priv;
	struct kc_conn c = {}, again = {};
	struct ib_device *gone;
	const struct kc_ev *r;
	struct kc_umh u;

	if (!kc_unplug_b || !kc_plug_b)
		kunit_skip(test, "unplug_b= and plug_b= name no executables");
	if (t->a.dev == t->b.dev)
		kunit_skip(test, "dev_a is dev_b: nothing would stay to see it go");
	kc_connected(t, &c, NULL);
	t->unplugged = true;
	u.path = kc_unplug_b;
	init_completion(&u.done);
	INIT_WORK_ONSTACK(&u.work, kc_umh_work);
	queue_work(system_long_wq, &u.work);
	KUNIT_EXPECT_NOT_NULL(test, kc_wait(t, c.b,
					    KIWI_CM_EVENT_DEVICE_REMOVAL));
	KUNIT_EXPECT_NOT_NULL(test, kc_wait_nth(t, c.listener,
						KIWI_CM_EVENT_DEVICE_REMOVAL,
						0));
	/* As a ULP does on DEVICE_REMOVAL: let go of the device. */
	kc_release(t, t->b.dev);
	kc_side_put(t, &t->b);
	if (!wait_for_completion_timeout(&u.done,
					 msecs_to_jiffies(KC_UNPLUG_MS))) {
		KUNIT_FAIL(test, "%s did not return in %d ms", kc_unplug_b,
			   KC_UNPLUG_MS);
		wait_for_completion(&u.done);
	}
	destroy_work_on_stack(&u.work);
	KUNIT_EXPECT_EQ_MSG(test, u.ret, 0, "%s", kc_unplug_b);
	gone = kiwi_device_get_by_name(t->b.name);
	KUNIT_EXPECT_NULL_MSG(test, gone, "%s still registered", t->b.name);
	if (gone)
		kiwi_device_put(gone);
	r = kc_wait(t, c.a, KIWI_CM_EVENT_CLOSE);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_LT(test, r->status, 0);

	kc_replug(t);
	KUNIT_ASSERT_EQ(test, kc_side_get(test, &t->b), 0);
	kc_connected(t, &again, NULL);
}

/**
 * kc_replug() - register side b's device again if the case unplugged it
 * @t: the fixture
 *
 * Also at the case's end, so that a failed kc_unregister_live() leaves
 * the device to the cases after it.
 */
void kc_replug(struct kc *t)
{
	struct kunit *test = t->test;
	int ret;

	if (!t->unplugged)
		return;
	t->unplugged = false;
	ret = kc_run(kc_plug_b);
	KUNIT_EXPECT_EQ_MSG(test, ret, 0, "%s", kc_plug_b);
	if (!ret)
		KUNIT_EXPECT_TRUE_MSG(test, kc_wait_device(t->b.name),
				      "%s not registered again", t->b.name);
}
