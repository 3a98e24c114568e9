// SPDX-License-Identifier: GPL-2.0
/*
 * The fixture of rdmacm_test.h.
 */
#include <linux/inet.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <net/net_namespace.h>

#include "verbs_util.h"
#include "rdmacm_test.h"

static atomic_t kiwi_rt_seq = ATOMIC_INIT(0);

static void kiwi_rt_own(struct kiwi_rt *rt, struct rdma_cm_id *id)
{
	unsigned long flags;

	spin_lock_irqsave(&rt->lock, flags);
	if (rt->nowned < KIWI_RT_MAX_OWNED)
		rt->owned[rt->nowned++] = id;
	spin_unlock_irqrestore(&rt->lock, flags);
}

/**
 * kiwi_rt_forget() - stop owning an id
 * @rt: the fixture
 * @id: the id
 *
 * Return: true if it was owned.
 */
bool kiwi_rt_forget(struct kiwi_rt *rt, struct rdma_cm_id *id)
{
	unsigned long flags;
	bool found = false;
	int i;

	spin_lock_irqsave(&rt->lock, flags);
	for (i = 0; i < rt->nowned; i++) {
		if (rt->owned[i] == id) {
			rt->owned[i] = rt->owned[--rt->nowned];
			found = true;
			break;
		}
	}
	spin_unlock_irqrestore(&rt->lock, flags);
	return found;
}

/**
 * kiwi_rt_destroy_with_qp() - rdma_destroy_id(), then the id's QP
 * @id: the id
 *
 * The QP goes after the id, the order Linux's NVMe host uses:
 * rdma_destroy_id() leaves the QP to the ULP.
 */
void kiwi_rt_destroy_with_qp(struct rdma_cm_id *id)
{
	struct ib_qp *qp = id->qp;

	rdma_destroy_id(id);
	if (qp)
		ib_destroy_qp(qp);
}

/**
 * kiwi_rt_destroy() - destroy an owned id now, then its QP
 * @rt: the fixture
 * @id: the id
 */
void kiwi_rt_destroy(struct kiwi_rt *rt, struct rdma_cm_id *id)
{
	if (kiwi_rt_forget(rt, id))
		kiwi_rt_destroy_with_qp(id);
}

/*
 * Records after the hook ran: a test that saw the record also sees what
 * the hook did.
 */
static int kiwi_rt_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct kiwi_rt *rt = id->context;
	const u8 *pdata = ev->param.conn.private_data;
	unsigned long flags;
	int ret;

	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		kiwi_rt_own(rt, id);
	ret = rt->hook ? rt->hook(rt, id, ev) : rt->ret_on[ev->event];
	/* Giving the id up: its QP first, as a ULP must. */
	if (ret && kiwi_rt_forget(rt, id))
		rdma_destroy_qp(id);
	spin_lock_irqsave(&rt->lock, flags);
	if (rt->n < KIWI_RT_MAX_RECS) {
		rt->recs[rt->n++] = (struct kiwi_rt_rec){
			.id = id,
			.event = ev->event,
			.status = ev->status,
			.len = ev->param.conn.private_data_len,
			.pdata0 = ev->param.conn.private_data_len ? pdata[0] : 0,
			.ird = ev->param.conn.initiator_depth,
			.ord = ev->param.conn.responder_resources,
		};
	}
	spin_unlock_irqrestore(&rt->lock, flags);
	wake_up_all(&rt->wq);
	return ret;
}

/**
 * kiwi_rt_destroy_mock() - destroy the ids and the mock RNIC
 * @rt: the fixture; nothing happens if already done
 */
void kiwi_rt_destroy_mock(struct kiwi_rt *rt)
{
	struct kiwi_mock *m = rt->m;

	if (!m)
		return;
	while (rt->nowned)
		kiwi_rt_destroy(rt, rt->owned[0]);
	kiwi_destroy_cq(rt->cq);
	kiwi_dealloc_pd(rt->pd);
	rt->m = NULL;
	kiwi_mock_release_all(m);
	kiwi_unregister_device(&m->dev);
	KUNIT_EXPECT_EQ(rt->test, atomic_read(&m->qps_alive), 0);
	kfree(m);
}

static void kiwi_rt_free(struct kunit_resource *res)
{
	struct kiwi_rt *rt = res->data;

	kiwi_rt_destroy_mock(rt);
	while (rt->nowned)
		kiwi_rt_destroy(rt, rt->owned[0]);
	KUNIT_EXPECT_EQ(rt->test, kiwi_rdma_live_ids(), 0);
}

static int kiwi_rt_lo_up(void)
{
	struct net_device *lo = init_net.loopback_dev;
	int ret = 0;

	rtnl_lock();
	if (!(lo->flags & IFF_UP))
		ret = dev_change_flags(lo, lo->flags | IFF_UP, NULL);
	rtnl_unlock();
	return ret;
}

/* Address resolution on lo must find the mock, not another kiwi device. */
static void kiwi_rt_check_lo(struct kiwi_rt *rt)
{
	struct ib_device *dev;
	char name[32] = "";

	dev = kiwi_device_get_by_netdev(init_net.loopback_dev);
	if (dev) {
		strscpy(name, dev->name, sizeof(name));
		kiwi_device_put(dev);
	}
	KUNIT_ASSERT_TRUE_MSG(rt->test, dev == &rt->m->dev,
			      "lo already has kiwi device %s", name);
}

/**
 * kiwi_rt_setup() - a fixture, torn down at the end of the test
 * @test: the running test
 * @on_lo: bind the mock RNIC to lo (brought up), or to no net_device
 *
 * Return: the fixture.
 */
struct kiwi_rt *kiwi_rt_setup(struct kunit *test, bool on_lo)
{
	struct kiwi_rt *rt = kunit_kzalloc(test, sizeof(*rt), GFP_KERNEL);
	char name[16];

	KUNIT_ASSERT_NOT_NULL(test, rt);
	rt->test = test;
	spin_lock_init(&rt->lock);
	init_waitqueue_head(&rt->wq);
	KUNIT_ASSERT_EQ(test, kiwi_rt_lo_up(), 0);
	snprintf(name, sizeof(name), "rcm%d", kiwi_rt_seq_next());
	rt->m = kiwi_mock_create_on(name, on_lo ? init_net.loopback_dev : NULL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, rt->m);
	rt->cq = kt_cq(&rt->m->dev, 8, NULL, NULL);
	if (IS_ERR(rt->cq)) {
		kiwi_mock_destroy(rt->m);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, rt->cq);
	}
	rt->pd = kiwi_alloc_pd(&rt->m->dev, 0);
	if (IS_ERR(rt->pd)) {
		kiwi_destroy_cq(rt->cq);
		kiwi_mock_destroy(rt->m);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, rt->pd);
	}
	KUNIT_ASSERT_NOT_NULL(test,
			      kunit_alloc_resource(test, NULL, kiwi_rt_free,
						   GFP_KERNEL, rt));
	if (on_lo)
		kiwi_rt_check_lo(rt);
	return rt;
}

/**
 * kiwi_rt_seq_next() - a number for a unique device name
 *
 * Return: the number.
 */
int kiwi_rt_seq_next(void)
{
	return atomic_inc_return(&kiwi_rt_seq);
}

struct kiwi_rt_slot {
	struct kiwi_mock *m;	/* first: the slot the caller sees */
	struct kiwi_rt *rt;
};

/* The ids go first: one holding the device would block unregistration. */
static void kiwi_rt_mock_free(struct kunit_resource *res)
{
	struct kiwi_rt_slot *slot = res->data;

	while (slot->rt->nowned)
		kiwi_rt_destroy(slot->rt, slot->rt->owned[0]);
	if (slot->m)
		kiwi_mock_destroy(slot->m);
}

/**
 * kiwi_rt_mock() - another mock RNIC, in a slot
 * @rt: the fixture
 * @nd: its net_device, or NULL
 * @hook: its hook (set before it is registered), or NULL
 *
 * The mock is destroyed when the test ends, after the fixture's ids,
 * unless the test destroyed it and emptied the slot before.
 *
 * Return: the slot.
 */
struct kiwi_mock **kiwi_rt_mock(struct kiwi_rt *rt, struct net_device *nd,
				kiwi_mock_hook hook)
{
	struct kunit *test = rt->test;
	struct kiwi_rt_slot *slot = kunit_kzalloc(test, sizeof(*slot),
						  GFP_KERNEL);
	char name[16];

	KUNIT_ASSERT_NOT_NULL(test, slot);
	slot->rt = rt;
	snprintf(name, sizeof(name), "rcm%d", kiwi_rt_seq_next());
	slot->m = kiwi_mock_create_hooked(name, nd, hook, NULL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, slot->m);
	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test, NULL,
							 kiwi_rt_mock_free,
							 GFP_KERNEL, slot));
	return &slot->m;
}

/**
 * kiwi_rt_id_in() - an owned id in a namespace with the recording handler
 * @rt: the fixture
 * @net: the namespace
 *
 * Return: the id.
 */
struct rdma_cm_id *kiwi_rt_id_in(struct kiwi_rt *rt, struct net *net)
{
	struct rdma_cm_id *id = rdma_create_id(net, kiwi_rt_handler, rt,
					       RDMA_PS_TCP, IB_QPT_RC);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(rt->test, id);
	kiwi_rt_own(rt, id);
	return id;
}

/**
 * kiwi_rt_id() - an owned id in init_net with the recording handler
 * @rt: the fixture
 *
 * Return: the id.
 */
struct rdma_cm_id *kiwi_rt_id(struct kiwi_rt *rt)
{
	struct rdma_cm_id *id = rdma_create_id(&init_net, kiwi_rt_handler, rt,
					       RDMA_PS_TCP, IB_QPT_RC);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(rt->test, id);
	kiwi_rt_own(rt, id);
	return id;
}

/**
 * kiwi_rt_wait() - wait until @n events were recorded
 * @rt: the fixture
 * @n: number of events
 *
 * Return: true if they were, within 5 s.
 */
bool kiwi_rt_wait(struct kiwi_rt *rt, int n)
{
	return wait_event_timeout(rt->wq, kiwi_rt_count(rt) >= n, 5 * HZ) > 0;
}

/**
 * kiwi_rt_count() - number of recorded events
 * @rt: the fixture
 *
 * Return: the number.
 */
int kiwi_rt_count(struct kiwi_rt *rt)
{
	unsigned long flags;
	int n;

	spin_lock_irqsave(&rt->lock, flags);
	n = rt->n;
	spin_unlock_irqrestore(&rt->lock, flags);
	return n;
}

/**
 * kiwi_rt_rec() - a recorded event
 * @rt: the fixture
 * @i: its index
 *
 * Return: a copy.
 */
struct kiwi_rt_rec kiwi_rt_rec(struct kiwi_rt *rt, int i)
{
	struct kiwi_rt_rec r = {};
	unsigned long flags;

	spin_lock_irqsave(&rt->lock, flags);
	if (i < rt->n)
		r = rt->recs[i];
	spin_unlock_irqrestore(&rt->lock, flags);
	return r;
}

/**
 * kiwi_rt_addr() - fill a socket address
 * @ss: the address
 * @family: AF_INET or AF_INET6
 * @ip: the address as text
 * @port: port, host order
 */
void kiwi_rt_addr(struct sockaddr_storage *ss, int family, const char *ip,
		  u16 port)
{
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	ss->ss_family = family;
	if (family == AF_INET) {
		s4->sin_port = htons(port);
		s4->sin_addr.s_addr = in_aton(ip);
	} else {
		s6->sin6_port = htons(port);
		in6_pton(ip, -1, s6->sin6_addr.s6_addr, -1, NULL);
	}
}

/**
 * kiwi_rt_state() - the state of an id
 * @id: the id
 *
 * Return: the state.
 */
enum kiwi_rdma_state kiwi_rt_state(struct rdma_cm_id *id)
{
	return kiwi_rdma_state_of(kiwi_rdma_priv(id));
}

static bool kiwi_rt_expect(struct kiwi_rt *rt, int n, struct rdma_cm_id *id,
			   enum rdma_cm_event_type want)
{
	struct kiwi_rt_rec r;

	if (!kiwi_rt_wait(rt, n + 1))
		return false;
	r = kiwi_rt_rec(rt, n);
	return r.id == id && r.event == want && r.status == 0;
}

/**
 * kiwi_rt_resolved() - an owned id to the loopback address, route resolved,
 * with a QP
 * @rt: the fixture
 * @family: AF_INET (127.0.0.1) or AF_INET6 (::1)
 *
 * Return: the id.
 */
struct rdma_cm_id *kiwi_rt_resolved(struct kiwi_rt *rt, int family)
{
	struct ib_qp_init_attr init = { KT_QP_RC, .cap = { 4, 4, 1, 1 } };
	struct rdma_cm_id *id = kiwi_rt_id(rt);
	struct sockaddr_storage dst;
	int n = kiwi_rt_count(rt);

	kiwi_rt_addr(&dst, family, family == AF_INET ? "127.0.0.1" : "::1",
		     7471);
	KUNIT_ASSERT_EQ(rt->test,
			rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst,
					  1000), 0);
	KUNIT_ASSERT_TRUE(rt->test,
			  kiwi_rt_expect(rt, n, id,
					 RDMA_CM_EVENT_ADDR_RESOLVED));
	KUNIT_ASSERT_EQ(rt->test, rdma_resolve_route(id, 1000), 0);
	KUNIT_ASSERT_TRUE(rt->test,
			  kiwi_rt_expect(rt, n + 1, id,
					 RDMA_CM_EVENT_ROUTE_RESOLVED));
	init.send_cq = rt->cq;
	init.recv_cq = rt->cq;
	KUNIT_ASSERT_EQ(rt->test, rdma_create_qp(id, rt->pd, &init), 0);
	return id;
}

/**
 * kiwi_rt_listener() - an owned id listening on the loopback address
 * @rt: the fixture
 * @family: AF_INET or AF_INET6
 * @port: the port
 *
 * Return: the id.
 */
struct rdma_cm_id *kiwi_rt_listener(struct kiwi_rt *rt, int family,
				    u16 port)
{
	struct rdma_cm_id *id = kiwi_rt_id(rt);
	struct sockaddr_storage src;

	kiwi_rt_addr(&src, family, family == AF_INET ? "127.0.0.1" : "::1",
		     port);
	KUNIT_ASSERT_EQ(rt->test, rdma_bind_addr(id, (struct sockaddr *)&src),
			0);
	KUNIT_ASSERT_EQ(rt->test, rdma_listen(id, 0), 0);
	return id;
}

/**
 * kiwi_rt_inject() - have the mock report an upcall on an id's iw_cm id
 * @rt: the fixture
 * @id: the id
 * @event: KIWI_CM_EVENT_*
 * @status: its status
 * @pdata: private data string, or NULL
 *
 * For CONNECT_REQUEST the addresses are the listener's and a peer's on
 * the same loopback address, IRD 3, ORD 5.
 *
 * Return: what kiwi_cm_upcall() returned.
 */
int kiwi_rt_inject(struct kiwi_rt *rt, struct rdma_cm_id *id, u8 event,
		   int status, const char *pdata)
{
	struct kiwi_cm_event ev = { .event = event, .status = status };
	struct kiwi_cm_id *cm = kiwi_rdma_priv(id)->cm;

	if (pdata) {
		ev.private_data = pdata;
		ev.private_data_len = strlen(pdata);
	}
	if (event == KIWI_CM_EVENT_CONNECT_REQUEST) {
		ev.ird = 3;
		ev.ord = 5;
		ev.local_addr = id->route.addr.src_addr;
		ev.remote_addr = id->route.addr.src_addr;
		if (ev.remote_addr.ss_family == AF_INET)
			((struct sockaddr_in *)&ev.remote_addr)->sin_port =
				htons(40000);
		else
			((struct sockaddr_in6 *)&ev.remote_addr)->sin6_port =
				htons(40000);
	}
	return kiwi_mock_inject(rt->m, cm, &ev, KIWI_MOCK_PROCESS);
}

/**
 * kiwi_rt_request() - a CONNECT_REQUEST on a listener
 * @rt: the fixture
 * @listener: the listener
 *
 * Return: the new (owned) id.
 */
struct rdma_cm_id *kiwi_rt_request(struct kiwi_rt *rt,
				   struct rdma_cm_id *listener)
{
	int n = kiwi_rt_count(rt);
	struct kiwi_rt_rec r;

	KUNIT_ASSERT_EQ(rt->test,
			kiwi_rt_inject(rt, listener,
				       KIWI_CM_EVENT_CONNECT_REQUEST, 0, "hi"),
			0);
	KUNIT_ASSERT_TRUE(rt->test, kiwi_rt_wait(rt, n + 1));
	r = kiwi_rt_rec(rt, n);
	KUNIT_ASSERT_EQ(rt->test, r.event, RDMA_CM_EVENT_CONNECT_REQUEST);
	return r.id;
}

/**
 * kiwi_rt_established() - an owned active id, connected
 * @rt: the fixture
 * @family: AF_INET or AF_INET6
 *
 * Return: the id.
 */
struct rdma_cm_id *kiwi_rt_established(struct kiwi_rt *rt, int family)
{
	struct rdma_cm_id *id = kiwi_rt_resolved(rt, family);
	struct rdma_conn_param p = { .responder_resources = 4,
				     .initiator_depth = 4 };
	int n;

	KUNIT_ASSERT_EQ(rt->test, rdma_connect(id, &p), 0);
	n = kiwi_rt_count(rt);
	KUNIT_ASSERT_EQ(rt->test,
			kiwi_rt_inject(rt, id, KIWI_CM_EVENT_CONNECT_REPLY, 0,
				       NULL), 0);
	KUNIT_ASSERT_TRUE(rt->test,
			  kiwi_rt_expect(rt, n, id, RDMA_CM_EVENT_ESTABLISHED));
	return id;
}

/**
 * kiwi_rt_sides_init() - no event seen on either side
 * @s: the recorder
 */
void kiwi_rt_sides_init(struct kiwi_rt_sides *s)
{
	spin_lock_init(&s->lock);
	init_waitqueue_head(&s->wq);
	memset(s->events, 0xff, sizeof(s->events));
	memset(s->status, 0, sizeof(s->status));
	memset(s->count, 0, sizeof(s->count));
}

/**
 * kiwi_rt_sides_note() - record an event of @side, from its handler
 * @s: the recorder
 * @side: 0 client, 1 server
 * @ev: the event
 */
void kiwi_rt_sides_note(struct kiwi_rt_sides *s, int side,
			const struct rdma_cm_event *ev)
{
	unsigned long flags;

	spin_lock_irqsave(&s->lock, flags);
	s->events[side] = ev->event;
	s->status[side] = ev->status;
	s->count[side]++;
	spin_unlock_irqrestore(&s->lock, flags);
	wake_up_all(&s->wq);
}

/**
 * kiwi_rt_sides_forget() - forget both sides' last events (not the counts)
 * @s: the recorder
 */
void kiwi_rt_sides_forget(struct kiwi_rt_sides *s)
{
	unsigned long flags;

	spin_lock_irqsave(&s->lock, flags);
	memset(s->events, 0xff, sizeof(s->events));
	spin_unlock_irqrestore(&s->lock, flags);
}

/**
 * kiwi_rt_sides_wait() - wait (5 s) for @side's last event to be @event
 * @s: the recorder
 * @side: 0 client, 1 server
 * @event: the event
 *
 * Return: its status, or 1 if @side's last event is another one.
 */
int kiwi_rt_sides_wait(struct kiwi_rt_sides *s, int side, int event)
{
	unsigned long flags;
	int status = 1;

	wait_event_timeout(s->wq, READ_ONCE(s->events[side]) == event, 5 * HZ);
	spin_lock_irqsave(&s->lock, flags);
	if (s->events[side] == event)
		status = s->status[side];
	spin_unlock_irqrestore(&s->lock, flags);
	return status;
}

/**
 * kiwi_rt_sides_count() - events seen on @side
 * @s: the recorder
 * @side: 0 client, 1 server
 *
 * Return: their number.
 */
int kiwi_rt_sides_count(struct kiwi_rt_sides *s, int side)
{
	unsigned long flags;
	int n;

	spin_lock_irqsave(&s->lock, flags);
	n = s->count[side];
	spin_unlock_irqrestore(&s->lock, flags);
	return n;
}
