// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_softiw_device: softiw devices come and go with attach, detach, the
 * module parameters in sysfs and the unregistration of their net_device;
 * they report the limits MPA allows; their QPs are numbered, found by
 * number, reference counted and follow the QP state rules.
 */
#include <kunit/test.h>
#include <linux/etherdevice.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>

#include <kiwi/iw_cm.h>
#include <kiwi/provider.h>
#include <rdma/ib_verbs.h>

#include "verbs_util.h"
#include "cm_fixture.h"
#include "iwarp.h"
#include "kiwi_test.h"
#include "softiw.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

#define PARAMS "/sys/module/kiwi_softiw/parameters/"

/* Is there a kiwi device named @name (and is it bound to @netdev)? */
static bool softiw_test_present(const char *name, struct net_device *netdev)
{
	struct ib_device *dev = kiwi_device_get_by_name(name);
	bool ok;

	if (!dev)
		return false;
	ok = !netdev || dev->netdev == netdev;
	kiwi_device_put(dev);
	return ok;
}

/* Leave loopback attached whatever a case did, as the suite began. */
static void softiw_test_exit(struct kunit *test)
{
	kiwi_softiw_attach("lo");
}

static void softiw_attached_lo(struct kunit *test)
{
	struct ib_device *dev = kiwi_device_get_by_name("softiw_lo");
	char buf[64];

	KUNIT_ASSERT_NOT_NULL(test, dev);
	KUNIT_EXPECT_PTR_EQ(test, dev->netdev, init_net.loopback_dev);
	KUNIT_EXPECT_EQ(test, dev->iw_max_private_data, SOFTIW_MPA_ULP_PD_MAX);
	KUNIT_EXPECT_EQ(test, dev->attrs.max_qp_rd_atom, SOFTIW_MAX_IRD_ORD);
	KUNIT_EXPECT_EQ(test, dev->attrs.max_qp_init_rd_atom,
			SOFTIW_MAX_IRD_ORD);
	KUNIT_EXPECT_EQ(test, dev->node_type, RDMA_NODE_RNIC);
	KUNIT_EXPECT_NE(test, be64_to_cpu(dev->node_guid), 0ULL);
	KUNIT_EXPECT_GE(test, dev->num_comp_vectors, 1);
	KUNIT_EXPECT_TRUE(test, ib_uses_virt_dma(dev));
	KUNIT_EXPECT_EQ(test, dev->attrs.max_qp, SOFTIW_MAX_QP);
	kiwi_device_put(dev);
	KUNIT_EXPECT_GT(test, kiwi_test_read_file(PARAMS "attach", buf,
						  sizeof(buf)), 0);
	KUNIT_EXPECT_STREQ(test, buf, "lo");
}

static void softiw_attach_errors(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, kiwi_softiw_attach("kiwinone0"), -ENODEV);
	KUNIT_EXPECT_EQ(test, kiwi_softiw_attach("lo"), -EEXIST);
	KUNIT_EXPECT_EQ(test, kiwi_softiw_detach("kiwinone0"), -ENODEV);
	KUNIT_EXPECT_TRUE(test, softiw_test_present("softiw_lo", NULL));
}

static void softiw_detach_reattach(struct kunit *test)
{
	KUNIT_ASSERT_EQ(test, kiwi_softiw_detach("lo"), 0);
	KUNIT_EXPECT_FALSE(test, softiw_test_present("softiw_lo", NULL));
	KUNIT_EXPECT_NULL(test, kiwi_device_get_by_netdev(init_net.loopback_dev));
	KUNIT_EXPECT_EQ(test, kiwi_softiw_detach("lo"), -ENODEV);
	KUNIT_ASSERT_EQ(test, kiwi_softiw_attach("lo"), 0);
	KUNIT_EXPECT_TRUE(test, softiw_test_present("softiw_lo",
						    init_net.loopback_dev));
}

static void softiw_sysfs_params(struct kunit *test)
{
	char buf[64];

	KUNIT_ASSERT_EQ(test, kiwi_test_write_file(PARAMS "detach", "lo\n"), 0);
	KUNIT_EXPECT_FALSE(test, softiw_test_present("softiw_lo", NULL));
	KUNIT_EXPECT_EQ(test, kiwi_test_read_file(PARAMS "attach", buf,
						  sizeof(buf)), 0);
	KUNIT_EXPECT_EQ(test, kiwi_test_write_file(PARAMS "detach", "lo"),
			-ENODEV);
	KUNIT_EXPECT_EQ(test, kiwi_test_write_file(PARAMS "attach", "\n"),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, kiwi_test_write_file(PARAMS "attach",
						   "a_name_longer_than_ifnamsiz"),
			-EINVAL);
	KUNIT_ASSERT_EQ(test, kiwi_test_write_file(PARAMS "attach", " lo\n"),
			0);
	KUNIT_EXPECT_TRUE(test, softiw_test_present("softiw_lo", NULL));
}

static netdev_tx_t softiw_test_xmit(struct sk_buff *skb,
				    struct net_device *netdev)
{
	dev_kfree_skb_any(skb);
	return NETDEV_TX_OK;
}

static const struct net_device_ops softiw_test_netdev_ops = {
	.ndo_start_xmit = softiw_test_xmit,
};

static void softiw_test_netdev_setup(struct net_device *netdev)
{
	ether_setup(netdev);
	netdev->netdev_ops = &softiw_test_netdev_ops;
}

/* A netdev that goes away takes its device with it; twice, to see reuse. */
static void softiw_netdev_unregister(struct kunit *test)
{
	struct net_device *netdev;
	char name[32];
	int round;

	for (round = 0; round < 2; round++) {
		netdev = alloc_netdev(0, "kiwitst%d", NET_NAME_ENUM,
				      softiw_test_netdev_setup);
		KUNIT_ASSERT_NOT_NULL(test, netdev);
		if (register_netdev(netdev)) {
			free_netdev(netdev);
			KUNIT_FAIL(test, "register_netdev failed");
			return;
		}
		snprintf(name, sizeof(name), "softiw_%s", netdev->name);
		KUNIT_EXPECT_EQ(test, kiwi_softiw_attach(netdev->name), 0);
		KUNIT_EXPECT_TRUE(test, softiw_test_present(name, netdev));
		unregister_netdev(netdev);
		kiwi_softiw_flush_detach();
		KUNIT_EXPECT_FALSE(test, softiw_test_present(name, NULL));
		free_netdev(netdev);
	}
	KUNIT_EXPECT_TRUE(test, softiw_test_present("softiw_lo", NULL));
}

struct softiw_test_qp {
	struct ib_device *dev;
	struct ib_cq *cq;
	struct ib_pd *pd;
	struct ib_qp *qp;
};

static void softiw_test_qp_create(struct kunit *test, struct softiw_test_qp *t)
{
	struct ib_qp_init_attr init = {
		KT_QP_RC,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	t->dev = kiwi_device_get_by_name("softiw_lo");
	KUNIT_ASSERT_NOT_NULL(test, t->dev);
	t->cq = kt_cq(t->dev, 16, NULL, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(t->cq));
	t->pd = kiwi_alloc_pd(t->dev, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(t->pd));
	init.send_cq = t->cq;
	init.recv_cq = t->cq;
	t->qp = kiwi_create_qp(t->pd, &init);
	KUNIT_ASSERT_FALSE(test, IS_ERR(t->qp));
}

static void softiw_test_qp_destroy(struct softiw_test_qp *t)
{
	kiwi_destroy_qp(t->qp);
	kiwi_destroy_cq(t->cq);
	kiwi_dealloc_pd(t->pd);
	kiwi_device_put(t->dev);
}

static int softiw_test_move(struct ib_qp *qp, enum ib_qp_state state)
{
	struct ib_qp_attr attr = { .qp_state = state };

	return kiwi_modify_qp(qp, &attr, IB_QP_STATE);
}

static void softiw_qp_lifecycle(struct kunit *test)
{
	const struct kiwi_provider_ops *ops;
	struct softiw_test_qp t, u;
	struct ib_wc wc;

	softiw_test_qp_create(test, &t);
	softiw_test_qp_create(test, &u);
	ops = t.dev->ops;
	KUNIT_EXPECT_NE(test, t.qp->qp_num, 0);
	KUNIT_EXPECT_NE(test, t.qp->qp_num, u.qp->qp_num);
	KUNIT_EXPECT_PTR_EQ(test, ops->iw_get_qp(t.dev, t.qp->qp_num), t.qp);
	KUNIT_EXPECT_PTR_EQ(test, ops->iw_get_qp(t.dev, u.qp->qp_num), u.qp);
	KUNIT_EXPECT_NULL(test, ops->iw_get_qp(t.dev, 0));
	/* Only the endpoint moves a QP to RTS or TERMINATE. */
	KUNIT_EXPECT_EQ(test, softiw_test_move(t.qp, IB_QPS_RTS), -EINVAL);
	KUNIT_EXPECT_EQ(test, softiw_test_move(t.qp, IB_QPS_SQE),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, softiw_test_move(t.qp, IB_QPS_INIT), -EINVAL);
	/* CLOSING needs a connection. */
	KUNIT_EXPECT_EQ(test, softiw_test_move(t.qp, IB_QPS_SQD),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, kiwi_softiw_qp_state(t.qp), IB_QPS_INIT);
	KUNIT_EXPECT_EQ(test, softiw_test_move(t.qp, IB_QPS_ERR), 0);
	KUNIT_EXPECT_EQ(test, softiw_test_move(t.qp, IB_QPS_RTS), -EINVAL);
	KUNIT_EXPECT_EQ(test, softiw_test_move(t.qp, IB_QPS_SQD),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, softiw_test_move(t.qp, IB_QPS_ERR), 0);
	KUNIT_EXPECT_EQ(test, kiwi_poll_cq(t.cq, 1, &wc), 0);

	/* A pinned QP outlives destroy_qp but is no longer found. */
	ops->iw_add_ref(u.qp);
	softiw_test_qp_destroy(&u);
	KUNIT_EXPECT_NULL(test, ops->iw_get_qp(t.dev, u.qp->qp_num));
	ops->iw_rem_ref(u.qp);
	softiw_test_qp_destroy(&t);
}

static struct kunit_case softiw_device_cases[] = {
	KUNIT_CASE(softiw_attached_lo),
	KUNIT_CASE(softiw_attach_errors),
	KUNIT_CASE(softiw_detach_reattach),
	KUNIT_CASE(softiw_sysfs_params),
	KUNIT_CASE(softiw_netdev_unregister),
	KUNIT_CASE(softiw_qp_lifecycle),
	{}
};

static struct kunit_suite softiw_device_suite = {
	.suite_init = cmt_suite_init,
	.suite_exit = cmt_suite_exit,
	.name = "kiwi_softiw_device",
	.exit = softiw_test_exit,
	.test_cases = softiw_device_cases,
};

kunit_test_suite(softiw_device_suite);
