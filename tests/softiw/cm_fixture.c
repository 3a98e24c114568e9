// SPDX-License-Identifier: GPL-2.0
/*
 * The connection suites' fixture: see cm_fixture.h.
 * Its raw client sockets are in cm_raw.c.
 */
#include <kunit/resource.h>
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/netdevice.h>
#include <linux/string.h>

#include "cm_fixture.h"
#include "softiw.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

#define CMT_WAIT_MS 5000

static int cmt_handler(struct kiwi_cm_id *id, const struct kiwi_cm_event *ev)
{
	struct cmt *t = id->context;
	struct cmt_rec *r;
	unsigned long flags;

	spin_lock_irqsave(&t->lock, flags);
	if (ev->event == KIWI_CM_EVENT_CLOSE && id == t->close_id)
		t->close_nwc = kiwi_poll_cq(t->close_cq,
					    ARRAY_SIZE(t->close_wc),
					    t->close_wc);
	if (t->n < CMT_MAX_RECS) {
		r = &t->recs[t->n++];
		r->id = id;
		r->event = ev->event;
		r->status = ev->status;
		r->len = ev->private_data_len;
		r->ird = ev->ird;
		r->ord = ev->ord;
		memcpy(r->pd, ev->private_data,
		       min_t(size_t, ev->private_data_len, sizeof(r->pd)));
	}
	/* A request's child id is the fixture's to destroy. */
	if (ev->event == KIWI_CM_EVENT_CONNECT_REQUEST && t->nids < CMT_MAX_IDS)
		t->ids[t->nids++] = id;
	spin_unlock_irqrestore(&t->lock, flags);
	wake_up(&t->wq);
	return 0;
}

static void cmt_lo_up(void)
{
	rtnl_lock();
	dev_open(init_net.loopback_dev, NULL);
	rtnl_unlock();
}

/**
 * cmt_suite_init() - attach loopback for a suite
 * @suite: the suite
 *
 * The module attaches nothing by default, so that other suites find lo
 * free for their own devices.
 *
 * Return: 0 or the error of kiwi_softiw_attach().
 */
int cmt_suite_init(struct kunit_suite *suite)
{
	int ret = kiwi_softiw_attach("lo");

	return ret == -EEXIST ? 0 : ret;
}

/**
 * cmt_suite_exit() - detach loopback after a suite
 * @suite: the suite
 */
void cmt_suite_exit(struct kunit_suite *suite)
{
	kiwi_softiw_detach("lo");
}

/**
 * cmt_release() - destroy ids, QPs, MRs, their memory, the CQ and the
 *	device reference
 * @t: the fixture
 *
 * Idempotent; runs by itself when the test case ends.
 */
void cmt_release(struct cmt *t)
{
	int i;

	for (i = 0; i < t->nids; i++)
		kiwi_cm_destroy_id(t->ids[i]);
	t->nids = 0;
	for (i = 0; i < t->nqps; i++)
		kiwi_destroy_qp(t->qps[i]);
	t->nqps = 0;
	for (i = 0; i < t->nmrs; i++)
		kiwi_dereg_mr(t->mrs[i]);
	t->nmrs = 0;
	for (i = 0; i < t->nbufs; i++)
		kfree(t->bufs[i]);
	t->nbufs = 0;
	if (t->cq && !IS_ERR(t->cq))
		kiwi_destroy_cq(t->cq);
	t->cq = NULL;
	if (t->dev)
		kiwi_device_put(t->dev);
	t->dev = NULL;
}

static void cmt_release_res(struct kunit_resource *res)
{
	cmt_release(res->data);
}

/*
 * The PD goes when the case ends, after cmt_release() and every resource
 * the case took after cmt_setup() (an MR of the PD among them), even if
 * the case called cmt_teardown() before.
 */
static void cmt_pd_res(struct kunit_resource *res)
{
	struct cmt *t = res->data;

	if (!IS_ERR_OR_NULL(t->pd))
		kiwi_dealloc_pd(t->pd);
	t->pd = NULL;
}

/* The fixture's PD and CQ on its device. */
static void cmt_verbs_init(struct cmt *t)
{
	t->cq = cmt_cq(t, 16);
	t->pd = kiwi_alloc_pd(t->dev, 0);
	KUNIT_ASSERT_FALSE(t->test, IS_ERR(t->pd));
}

/**
 * cmt_cq() - a CQ polled by hand, destroyed with the fixture if it is
 *	the fixture's own
 * @t: the fixture
 * @cqe: entries
 *
 * Return: the CQ; the test is aborted on failure.
 */
struct ib_cq *cmt_cq(struct cmt *t, u32 cqe)
{
	struct ib_cq_init_attr attr = { .cqe = cqe };
	struct ib_cq *cq = kiwi_create_cq(t->dev, NULL, NULL, NULL, &attr);

	KUNIT_ASSERT_FALSE(t->test, IS_ERR(cq));
	return cq;
}

/**
 * cmt_setup() - a fixture on softiw_lo, loopback up
 * @test: the test
 * @port: the TCP port its listener uses
 *
 * Everything the fixture creates is released when the test case ends,
 * even if an assertion aborted it: no listener or connection outlives
 * its case.
 *
 * Return: the fixture; the test is aborted on failure.
 */
struct cmt *cmt_setup(struct kunit *test, u16 port)
{
	struct cmt *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, t);
	t->test = test;
	t->port = port;
	t->family = AF_INET;
	t->qp_access = KIWI_QP_ACCESS_IWARP;
	t->close_nwc = -1;
	spin_lock_init(&t->lock);
	init_waitqueue_head(&t->wq);
	t->live_ids = kiwi_cm_live_ids();
	/* Taken first, released last: after cmt_release(). */
	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test, NULL,
							 cmt_pd_res,
							 GFP_KERNEL, t));
	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test, NULL,
							 cmt_release_res,
							 GFP_KERNEL, t));
	cmt_lo_up();
	t->dev = kiwi_device_get_by_name("softiw_lo");
	KUNIT_ASSERT_NOT_NULL(test, t->dev);
	cmt_verbs_init(t);
	return t;
}

/**
 * cmt_teardown() - destroy ids and QPs now; check that no id leaked
 * @t: the fixture
 */
void cmt_teardown(struct cmt *t)
{
	int i, live = -1;

	cmt_release(t);
	for (i = 0; i < 100; i++) {
		live = kiwi_cm_live_ids();
		if (live == t->live_ids)
			break;
		msleep(20);
	}
	KUNIT_EXPECT_EQ(t->test, live, t->live_ids);
}

/**
 * cmt_id_on() - a recorded id on a device, destroyed with the fixture
 * @t: the fixture
 * @dev: the device
 *
 * Return: the id.
 */
struct kiwi_cm_id *cmt_id_on(struct cmt *t, struct ib_device *dev)
{
	struct kiwi_cm_id *id = kiwi_cm_create_id(dev, cmt_handler, t);
	unsigned long flags;

	KUNIT_ASSERT_FALSE(t->test, IS_ERR_OR_NULL(id));
	spin_lock_irqsave(&t->lock, flags);
	if (t->nids < CMT_MAX_IDS)
		t->ids[t->nids++] = id;
	spin_unlock_irqrestore(&t->lock, flags);
	return id;
}

static struct kiwi_cm_id *cmt_id(struct cmt *t)
{
	return cmt_id_on(t, t->dev);
}

static void cmt_addr4(struct sockaddr_storage *ss, u16 port, u32 addr)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	sin->sin_family = AF_INET;
	sin->sin_port = htons(port);
	sin->sin_addr.s_addr = htonl(addr);
}

/**
 * cmt_addr() - 127.0.0.1 with a port
 * @ss: filled in
 * @port: the port
 */
void cmt_addr(struct sockaddr_storage *ss, u16 port)
{
	cmt_addr4(ss, port, INADDR_LOOPBACK);
}

/**
 * cmt_any_addr() - the IPv4 wildcard address with a port
 * @ss: filled in
 * @port: the port
 */
void cmt_any_addr(struct sockaddr_storage *ss, u16 port)
{
	cmt_addr4(ss, port, INADDR_ANY);
}

/**
 * cmt_destroy() - destroy an id now instead of at teardown
 * @t: the fixture
 * @id: the id
 */
void cmt_destroy(struct cmt *t, struct kiwi_cm_id *id)
{
	unsigned long flags;
	int i;

	spin_lock_irqsave(&t->lock, flags);
	for (i = 0; i < t->nids; i++)
		if (t->ids[i] == id)
			t->ids[i] = t->ids[--t->nids];
	spin_unlock_irqrestore(&t->lock, flags);
	kiwi_cm_destroy_id(id);
}

/**
 * cmt_listen() - a listening id on the loopback address of the fixture's
 *	family (127.0.0.1 or ::1) and the fixture's port
 * @t: the fixture
 *
 * Return: the id.
 */
struct kiwi_cm_id *cmt_listen(struct cmt *t)
{
	struct kiwi_cm_id *id = cmt_id(t);

	kiwi_test_addr(t->test, &id->local_addr, t->family, KIWI_TEST_LO,
		       t->port);
	KUNIT_ASSERT_EQ(t->test, kiwi_cm_listen(id, 8), 0);
	return id;
}

static void cmt_qp_event(struct ib_event *ev, void *context)
{
	struct cmt *t = context;
	unsigned long flags;

	spin_lock_irqsave(&t->lock, flags);
	t->qp_events |= BIT(ev->event);
	t->qp_event_qp = ev->element.qp;
	spin_unlock_irqrestore(&t->lock, flags);
	wake_up_all(&t->wq);
}

/**
 * cmt_wait_qp_event() - wait for an asynchronous event on a fixture QP
 * @t: the fixture
 * @type: the event
 *
 * Return: the QP of the last event heard, or NULL if @type was not heard
 * within CMT_WAIT_MS.
 */
struct ib_qp *cmt_wait_qp_event(struct cmt *t, enum ib_event_type type)
{
	if (!wait_event_timeout(t->wq, READ_ONCE(t->qp_events) & BIT(type),
				msecs_to_jiffies(CMT_WAIT_MS)))
		return NULL;
	return READ_ONCE(t->qp_event_qp);
}

/**
 * cmt_qp_init() - a new QP with the caller's attributes
 * @t: the fixture
 * @init: CQs, queue sizes and cookie
 *
 * The QP gets the access rights @t->qp_access says (by default those
 * rdma_create_qp() gives), and its asynchronous events are recorded for
 * cmt_wait_qp_event() unless @init names a handler. It is destroyed with
 * the fixture.
 *
 * Return: the QP.
 */
struct ib_qp *cmt_qp_init(struct cmt *t, const struct ib_qp_init_attr *init)
{
	struct ib_qp_attr attr = { .qp_access_flags = t->qp_access };
	struct ib_qp_init_attr a = *init;
	struct ib_qp *qp;

	KUNIT_ASSERT_LT(t->test, t->nqps, CMT_MAX_IDS);
	/* Signalled sends only unless the test asks for all of them. */
	a.qp_type = IB_QPT_RC;
	a.sq_sig_type = t->sig_all ? IB_SIGNAL_ALL_WR : IB_SIGNAL_REQ_WR;
	/* Asynchronous events are recorded unless the test hears them. */
	if (!a.event_handler && !a.qp_context) {
		a.event_handler = cmt_qp_event;
		a.qp_context = t;
	}
	qp = kiwi_create_qp(t->pd, &a);
	KUNIT_ASSERT_FALSE(t->test, IS_ERR(qp));
	t->qps[t->nqps++] = qp;
	if (t->qp_access != CMT_QP_AS_CREATED)
		KUNIT_ASSERT_EQ(t->test, kiwi_modify_qp(qp, &attr,
							IB_QP_ACCESS_FLAGS),
				0);
	return qp;
}

/**
 * cmt_destroy_qp() - destroy a QP now instead of at teardown
 * @t: the fixture
 * @qp: a QP made by cmt_qp_init() or cmt_qp()
 */
void cmt_destroy_qp(struct cmt *t, struct ib_qp *qp)
{
	int i;

	for (i = 0; i < t->nqps; i++)
		if (t->qps[i] == qp)
			t->qps[i] = t->qps[--t->nqps];
	kiwi_destroy_qp(qp);
}

/**
 * cmt_buf() - zeroed memory for MRs, freed with the fixture
 * @t: the fixture
 * @len: its length
 *
 * Freed after the QPs and MRs over it are gone, even when an assertion
 * ends the case early (kunit_kzalloc() memory taken after cmt_setup()
 * would be freed before them).
 *
 * Return: the memory; the test is aborted on failure.
 */
void *cmt_buf(struct cmt *t, size_t len)
{
	void *buf;

	KUNIT_ASSERT_LT(t->test, t->nbufs, CMT_MAX_IDS);
	buf = kzalloc(len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(t->test, buf);
	t->bufs[t->nbufs++] = buf;
	return buf;
}

/**
 * cmt_mr() - register memory for the test, deregistered with the fixture
 * @t: the fixture
 * @buf: the memory, alive until the test case ends
 * @len: its length
 * @access: IB_ACCESS_* bits
 *
 * Return: the MR.
 */
struct ib_mr *cmt_mr(struct cmt *t, void *buf, size_t len, u32 access)
{
	struct ib_mr *mr;

	KUNIT_ASSERT_LT(t->test, t->nmrs, CMT_MAX_IDS);
	mr = kiwi_reg_kernel_mr(t->pd, buf, len, access);
	KUNIT_ASSERT_FALSE(t->test, IS_ERR(mr));
	t->mrs[t->nmrs++] = mr;
	return mr;
}

/**
 * cmt_qp() - a new QP
 * @t: the fixture
 *
 * Return: its number.
 */
u32 cmt_qp(struct cmt *t)
{
	struct ib_qp_init_attr init = {
		.send_cq = t->cq, .recv_cq = t->cq,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	return cmt_qp_init(t, &init)->qp_num;
}

/**
 * cmt_connect_qp() - connect a new id over the given QP
 * @t: the fixture
 * @pd: private data (a string) or NULL
 * @port: the port on the fixture's loopback address
 * @qpn: the QP's number
 *
 * Return: the id; kiwi_cm_connect() returned 0.
 */
struct kiwi_cm_id *cmt_connect_qp(struct cmt *t, const char *pd, u16 port,
				  u32 qpn)
{
	struct kiwi_conn_param p = {
		.private_data = pd, .private_data_len = pd ? strlen(pd) : 0,
		.ird = 4, .ord = 4, .qpn = qpn,
	};

	return cmt_connect_param(t, port, &p);
}

/**
 * cmt_connect_param() - connect a new id with the given parameters
 * @t: the fixture
 * @port: the port on the fixture's loopback address (see cmt_listen())
 * @p: QP, IRD/ORD and private data
 *
 * Return: the id; kiwi_cm_connect() returned 0.
 */
struct kiwi_cm_id *cmt_connect_param(struct cmt *t, u16 port,
				     const struct kiwi_conn_param *p)
{
	struct kiwi_cm_id *id = cmt_id(t);

	kiwi_test_addr(t->test, &id->remote_addr, t->family, KIWI_TEST_LO,
		       port);
	KUNIT_ASSERT_EQ(t->test, kiwi_cm_connect(id, p), 0);
	return id;
}

/**
 * cmt_connect() - connect a new id to @port on the fixture's loopback
 *	address
 * @t: the fixture
 * @pd: private data (a string) or NULL
 * @port: the port
 *
 * Return: the id; kiwi_cm_connect() returned 0.
 */
struct kiwi_cm_id *cmt_connect(struct cmt *t, const char *pd, u16 port)
{
	return cmt_connect_qp(t, pd, port, cmt_qp(t));
}

static const struct cmt_rec *cmt_find(struct cmt *t, u8 event,
				      struct kiwi_cm_id *id)
{
	const struct cmt_rec *found = NULL;
	unsigned long flags;
	int i;

	spin_lock_irqsave(&t->lock, flags);
	for (i = 0; i < t->n && !found; i++)
		if (t->recs[i].event == event && (!id || t->recs[i].id == id))
			found = &t->recs[i];
	spin_unlock_irqrestore(&t->lock, flags);
	return found;
}

/**
 * struct cmt_detach - an interface attached by a test, detached after it
 * @net: its namespace
 * @ifname: its name
 */
struct cmt_detach {
	struct net *net;
	const char *ifname;
};

static void cmt_detach_res(struct kunit_resource *res)
{
	struct cmt_detach *d = res->data;

	kiwi_softiw_detach_in(d->net, d->ifname);
}

/**
 * cmt_setup_in() - a fixture on the softiw device of a netdev of the
 *	test network (kv0 or kv1)
 * @test: the test
 * @net: the netdev's namespace, pinned for the whole case
 * @ifname: the netdev; softiw is attached to it here and detached after
 *	the fixture is released
 * @devname: the softiw device's name
 * @port: TCP port of the fixture's listener
 *
 * Return: the fixture.
 */
struct cmt *cmt_setup_in(struct kunit *test, struct net *net,
			 const char *ifname, const char *devname, u16 port)
{
	struct cmt_detach *d = kunit_kzalloc(test, sizeof(*d), GFP_KERNEL);
	struct cmt *t;

	KUNIT_ASSERT_NOT_NULL(test, d);
	d->net = net;
	d->ifname = ifname;
	KUNIT_ASSERT_EQ(test, kiwi_softiw_attach_in(net, ifname), 0);
	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test, NULL,
							 cmt_detach_res,
							 GFP_KERNEL, d));
	t = cmt_setup(test, port);
	kiwi_destroy_cq(t->cq);
	kiwi_dealloc_pd(t->pd);
	kiwi_device_put(t->dev);
	t->cq = NULL;
	t->pd = NULL;
	t->dev = kiwi_device_get_by_name(devname);
	KUNIT_ASSERT_NOT_NULL(test, t->dev);
	cmt_verbs_init(t);
	return t;
}

/**
 * cmt_connect_veth() - connect across the veth pair
 * @ta: the fixture on kv0, the active side
 * @qa: its QP
 * @tb: the fixture on kv1, which listens on its port, on the wildcard
 *	address of its family
 * @qb: the QP its side accepts with
 *
 * @ta connects to kv1's address of @tb's family (198.18.0.2 or
 * fd00:198:18::2).
 *
 * Return: the active id; the passive one is @tb's CONNECT_REQUEST.
 */
struct kiwi_cm_id *cmt_connect_veth(struct cmt *ta, struct ib_qp *qa,
				    struct cmt *tb, struct ib_qp *qb)
{
	struct kiwi_conn_param cp = { .ird = 4, .ord = 4, .qpn = qa->qp_num };
	struct kunit *test = ta->test;
	struct kiwi_cm_id *l, *a;

	l = cmt_id_on(tb, tb->dev);
	kiwi_test_addr(test, &l->local_addr, tb->family, KIWI_TEST_ANY,
		       tb->port);
	KUNIT_ASSERT_EQ(test, kiwi_cm_listen(l, 8), 0);
	a = cmt_id_on(ta, ta->dev);
	kiwi_test_addr(test, &a->remote_addr, tb->family, KIWI_TEST_KV1,
		       tb->port);
	KUNIT_ASSERT_EQ(test, kiwi_cm_connect(a, &cp), 0);
	cmt_accept(ta, a, tb, qb);
	return a;
}

/**
 * cmt_expect_ends() - expect the addresses the CM reports for both ends
 *	of a connection that is up
 * @t: the passive side's fixture: its family and its listener's port
 * @a: the active id, after its CONNECT_REPLY(0)
 * @ha: where @a is (KIWI_TEST_LO, or KIWI_TEST_KV0 across the veth pair)
 * @b: the passive id, the request's child
 * @hb: where @b is
 *
 * In @t's family, the active id is at @ha on the port TCP chose and
 * reaches @hb on @t's port; the passive id is at @hb on @t's port and
 * reaches @ha on the active id's port.
 */
void cmt_expect_ends(struct cmt *t, struct kiwi_cm_id *a,
		     enum kiwi_test_host ha, struct kiwi_cm_id *b,
		     enum kiwi_test_host hb)
{
	struct kunit *test = t->test;
	u16 port;

	port = kiwi_test_expect_addr(test, &a->local_addr, t->family, ha, 0);
	kiwi_test_expect_addr(test, &a->remote_addr, t->family, hb, t->port);
	kiwi_test_expect_addr(test, &b->local_addr, t->family, hb, t->port);
	kiwi_test_expect_addr(test, &b->remote_addr, t->family, ha, port);
}

/**
 * cmt_accept() - accept the request of @a and wait for both ends to be up
 * @ta: the active side's fixture
 * @a: the active id, whose connect was called
 * @tb: the passive side's fixture, which got the request
 * @qb: the QP the passive side accepts with (IRD and ORD 4)
 *
 * Return: @a's CONNECT_REPLY, status 0.
 */
const struct cmt_rec *cmt_accept(struct cmt *ta, struct kiwi_cm_id *a,
				 struct cmt *tb, struct ib_qp *qb)
{
	struct kiwi_conn_param cp = { .ird = 4, .ord = 4, .qpn = qb->qp_num };
	struct kunit *test = ta->test;
	const struct cmt_rec *r;

	r = cmt_wait(tb, KIWI_CM_EVENT_CONNECT_REQUEST, NULL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_ASSERT_EQ(test, kiwi_cm_accept(r->id, &cp), 0);
	KUNIT_ASSERT_NOT_NULL(test, cmt_wait(tb, KIWI_CM_EVENT_ESTABLISHED,
					     r->id));
	r = cmt_wait(ta, KIWI_CM_EVENT_CONNECT_REPLY, a);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_ASSERT_EQ(test, r->status, 0);
	return r;
}

/**
 * cmt_wait() - wait for an event
 * @t: the fixture
 * @event: its type
 * @id: the id it must be for, or NULL for any
 *
 * Return: the record, or NULL after a few seconds.
 */
const struct cmt_rec *cmt_wait(struct cmt *t, u8 event, struct kiwi_cm_id *id)
{
	const struct cmt_rec *r = NULL;

	wait_event_timeout(t->wq, (r = cmt_find(t, event, id)) != NULL,
			   msecs_to_jiffies(CMT_WAIT_MS));
	return r;
}

/**
 * cmt_count() - events of a type seen so far
 * @t: the fixture
 * @event: the type
 *
 * Return: their number.
 */
int cmt_count(struct cmt *t, u8 event)
{
	unsigned long flags;
	int i, n = 0;

	spin_lock_irqsave(&t->lock, flags);
	for (i = 0; i < t->n; i++)
		n += t->recs[i].event == event;
	spin_unlock_irqrestore(&t->lock, flags);
	return n;
}

/**
 * cmt_param() - write a kiwi_softiw module parameter
 * @test: the test
 * @name: the parameter
 * @value: its new value
 */
void cmt_param(struct kunit *test, const char *name, const char *value)
{
	char path[96];

	snprintf(path, sizeof(path), "/sys/module/kiwi_softiw/parameters/%s",
		 name);
	KUNIT_EXPECT_EQ_MSG(test, kiwi_test_write_file(path, value), 0,
			    "%s = %s", name, value);
}
