// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_conformance: module parameters name the two devices; the suites
 * run when the module loads, once the parameters are set, and their
 * results stay in /sys/kernel/debug/kunit/<suite>/results until it is
 * unloaded.
 *
 *	modprobe kiwi_conformance dev_a=rnic0 dev_b=rnic1
 *
 * Side a makes the active connections, side b listens. The two may be the
 * same device. A device's IPv4 address is the first of its net_device; a
 * device without one needs addr_a or addr_b.
 */
#include <linux/atomic.h>
#include <linux/inet.h>
#include <linux/inetdevice.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/slab.h>

#include <kiwi/provider.h>

#include "kc.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

static char *kc_dev_a;
module_param_named(dev_a, kc_dev_a, charp, 0444);
MODULE_PARM_DESC(dev_a, "the device that connects (active side)");

static char *kc_dev_b;
module_param_named(dev_b, kc_dev_b, charp, 0444);
MODULE_PARM_DESC(dev_b, "the device that listens (passive side)");

static char *kc_addr_a;
module_param_named(addr_a, kc_addr_a, charp, 0444);
MODULE_PARM_DESC(addr_a, "IPv4 address of dev_a, if its net_device has none");

static char *kc_addr_b;
module_param_named(addr_b, kc_addr_b, charp, 0444);
MODULE_PARM_DESC(addr_b, "IPv4 address of dev_b, if its net_device has none");

static ushort kc_port_base = 21000;
module_param_named(port, kc_port_base, ushort, 0444);
MODULE_PARM_DESC(port, "first TCP port the cases listen on (each case takes the next)");

static struct kc_side kc_sides[2];
static atomic_t kc_next_port = ATOMIC_INIT(0);

static int kc_netdev_addr(struct net_device *netdev, __be32 *addr)
{
	const struct in_ifaddr *ifa;
	struct in_device *in_dev;
	int ret = -EADDRNOTAVAIL;

	rcu_read_lock();
	in_dev = __in_dev_get_rcu(netdev);
	if (in_dev) {
		ifa = rcu_dereference(in_dev->ifa_list);
		if (ifa) {
			*addr = ifa->ifa_local;
			ret = 0;
		}
	}
	rcu_read_unlock();
	return ret;
}

/* Check that the device is there and find its address. */
static int kc_side_init(struct kc_side *s, const char *param,
			const char *name, const char *addr)
{
	struct ib_device *dev;
	__be32 ip;
	int ret;

	if (!name) {
		pr_err("kiwi_conformance: %s= names no device\n", param);
		return -EINVAL;
	}
	dev = kiwi_device_get_by_name(name);
	if (!dev) {
		pr_err("kiwi_conformance: no kiwi device %s\n", name);
		return -ENODEV;
	}
	if (addr)
		ret = in4_pton(addr, -1, (u8 *)&ip, -1, NULL) ? 0 : -EINVAL;
	else if (dev->netdev)
		ret = kc_netdev_addr(dev->netdev, &ip);
	else
		ret = -EADDRNOTAVAIL;
	kiwi_device_put(dev);
	if (ret) {
		pr_err("kiwi_conformance: no IPv4 address for %s (%d)\n",
		       name, ret);
		return ret;
	}
	s->name = name;
	s->addr.sin_family = AF_INET;
	s->addr.sin_addr.s_addr = ip;
	return 0;
}

/**
 * kc_side_get() - the case's reference on a side's device, and its PD
 * @test: the case
 * @s: the side
 *
 * Return: 0, -ENODEV if the device is not registered, or the error of
 * ib_alloc_pd().
 */
int kc_side_get(struct kunit *test, struct kc_side *s)
{
	s->dev = kiwi_device_get_by_name(s->name);
	if (!s->dev) {
		kunit_err(test, "no kiwi device %s\n", s->name);
		return -ENODEV;
	}
	s->violations = kiwi_device_counter(s->dev, KIWI_DEV_CNT_VIOLATIONS);
	s->live_ids = kiwi_device_live_ids(s->dev);
	s->pd = ib_alloc_pd(s->dev, 0);
	if (IS_ERR(s->pd)) {
		kunit_err(test, "%s: ib_alloc_pd: %ld\n", s->name,
			  PTR_ERR(s->pd));
		return PTR_ERR(s->pd);
	}
	return 0;
}

/**
 * kc_case_init() - a case's fixture, as the suites' init
 * @test: the case
 *
 * Logs the rules the case checks, takes a reference on each side's device
 * and a PD there, and notes what kc_case_exit() compares against.
 *
 * Return: 0, -ENOMEM, -ENODEV if a device is gone, or ib_alloc_pd()'s
 * error.
 */
int kc_case_init(struct kunit *test)
{
	struct kc *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	int ret;

	if (!t)
		return -ENOMEM;
	t->evs = kunit_kcalloc(test, KC_MAX_EVS, sizeof(*t->evs), GFP_KERNEL);
	if (!t->evs)
		return -ENOMEM;
	/* To the console: KUnit 6.1 keeps 512 bytes of a case's log. */
	pr_info("kiwi_conformance: %s checks %s\n", test->name,
		kc_rules_of(test->name));
	t->test = test;
	spin_lock_init(&t->lock);
	init_waitqueue_head(&t->wq);
	init_completion(&t->release);
	t->a = kc_sides[0];
	t->b = kc_sides[1];
	t->port = kc_port_base + atomic_inc_return(&kc_next_port);
	test->priv = t;
	ret = kc_side_get(test, &t->a);
	if (!ret)
		ret = kc_side_get(test, &t->b);
	return ret;
}

/**
 * kc_side_put() - check that no protocol violation was counted on a
 *	side's device, and drop the case's reference on it
 * @t: the fixture
 * @s: the side; its objects are gone already
 */
void kc_side_put(struct kc *t, struct kc_side *s)
{
	if (!s->dev)
		return;
	KUNIT_EXPECT_EQ_MSG(t->test,
			    kiwi_device_counter(s->dev,
						KIWI_DEV_CNT_VIOLATIONS),
			    s->violations,
			    "%s: protocol violations counted", s->name);
	kiwi_device_put(s->dev);
	s->dev = NULL;
}

/**
 * kc_case_exit() - end a case: free what it made, then the checks every
 *	case ends with
 * @test: the case
 *
 * Once the case's ids are destroyed the provider must drop every cm_id
 * reference it took (rule ref-balance), and no protocol violation may
 * have been counted on either device.
 */
void kc_case_exit(struct kunit *test)
{
	struct kc *t = test->priv;
	int extra;

	if (!t)
		return;
	complete_all(&t->release);
	kc_release(t, NULL);
	kc_replug(t);
	extra = kc_wait_live(t, (int []){ t->a.live_ids, t->b.live_ids });
	KUNIT_EXPECT_LE_MSG(test, extra, 0,
			    "%d cm_ids still alive %d ms after they were destroyed: the provider did not drop its references (ref-balance)",
			    extra, KC_WAIT_MS);
	kc_side_put(t, &t->a);
	kc_side_put(t, &t->b);
	KUNIT_EXPECT_FALSE_MSG(test, t->overflow,
			       "more events or ids than the kit keeps: it lost some");
}

static struct kunit_suite *kc_suites[] = {
	&kc_cm_suite,
	&kc_verbs_suite,
	&kc_rules_suite,
};

static int __init kc_init(void)
{
	int ret = kiwi_iwcm_require();

	if (ret)
		return ret;
	ret = kc_side_init(&kc_sides[0], "dev_a", kc_dev_a, kc_addr_a);
	if (ret)
		return ret;
	ret = kc_side_init(&kc_sides[1], "dev_b", kc_dev_b, kc_addr_b);
	if (ret)
		return ret;
	pr_info("kiwi_conformance: %s (%pI4) connects to %s (%pI4)\n",
		kc_dev_a, &kc_sides[0].addr.sin_addr,
		kc_dev_b, &kc_sides[1].addr.sin_addr);
	return __kunit_test_suites_init(kc_suites, ARRAY_SIZE(kc_suites));
}

static void __exit kc_exit(void)
{
	__kunit_test_suites_exit(kc_suites, ARRAY_SIZE(kc_suites));
}

module_init(kc_init);
module_exit(kc_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kiwi provider conformance kit: the provider contract, run against two devices");
