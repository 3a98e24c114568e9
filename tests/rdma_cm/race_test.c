// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_rdmacm_race: rdma_accept() on a CONNECT_REQUEST id while another
 * task destroys that id, or its listener, and on an id being destroyed;
 * rdma_listen() the same; the ULP's handler never runs twice at once for
 * an id, nor after rdma_destroy_id() returned, though its events come
 * from two workers (rdma_cm's and the core's); rdma_connect_locked()
 * connects from the id's handler only; an id destroyed while its handler
 * runs and then returns non-zero is torn down once.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/in.h>
#include <linux/workqueue.h>

#include "verbs_util.h"
#include "rdmacm_test.h"

/*
 * The rows of the accept and listen races: the id destroyed from inside
 * the provider's op, once the call pinned it; its listener destroyed
 * there; the id already DESTROYING when the call starts.
 */
enum ra_victim { RA_CHILD, RA_LISTENER, RA_DOOMED };

/**
 * struct ra_race - one race, allocated with the test
 * @work: destroys @victim on another task
 * @rt: the fixture
 * @victim: the id destroyed
 * @v: the row
 * @op: the provider op inside which the destroy starts (not RA_DOOMED)
 * @doomed: the destroy got as far as the row needs before the call went
 *	on: @victim DESTROYING, or for RA_LISTENER destroyed
 */
struct ra_race {
	struct work_struct work;
	struct kiwi_rt *rt;
	struct rdma_cm_id *victim;
	enum ra_victim v;
	enum kiwi_mock_op op;
	bool doomed;
};

static void ra_destroy_work(struct work_struct *work)
{
	struct ra_race *r = container_of(work, struct ra_race, work);

	kiwi_rt_destroy(r->rt, r->victim);
}

/* Wait (5 s at most) for a destroy on another task to doom @id. */
static bool ra_wait_doomed(struct rdma_cm_id *id)
{
	int i;

	for (i = 0; i < 250 && kiwi_rt_state(id) != KIWI_RDMA_DESTROYING; i++)
		msleep(20);
	return kiwi_rt_state(id) == KIWI_RDMA_DESTROYING;
}

/*
 * Inside the provider's op, on the calling thread after rdma_accept() or
 * rdma_listen() pinned the id: the id's destroy starts on another task
 * and gets to DESTROYING (then it waits for the pin), or the listener's
 * runs to its end. (Destroying before the call starts, with nothing
 * holding the destroy, would be the caller's use after free.)
 */
static void ra_hook(struct kiwi_mock *m, enum kiwi_mock_op op,
		    struct kiwi_cm_id *id)
{
	struct ra_race *r = m->hook_data;

	if (!r || op != r->op)
		return;
	queue_work(system_unbound_wq, &r->work);
	if (r->v == RA_LISTENER) {
		flush_work(&r->work);
		r->doomed = true;
	} else {
		r->doomed = ra_wait_doomed(r->victim);
	}
}

/*
 * Arrange @victim's destroy for the call the test makes next: from inside
 * @op, or (RA_DOOMED) now, held in DESTROYING by @victim's handler, which
 * the test holds with rdma_lock_handler() (as a running handler would:
 * the destroy waits for it). No assertion until ra_finish().
 */
static void ra_arm(struct kiwi_rt *rt, struct ra_race *r, enum ra_victim v,
		   struct rdma_cm_id *victim, enum kiwi_mock_op op)
{
	r->rt = rt;
	r->v = v;
	r->victim = victim;
	r->op = op;
	INIT_WORK(&r->work, ra_destroy_work);
	if (v != RA_DOOMED) {
		rt->m->hook_data = r;
		rt->m->hook = ra_hook;
		return;
	}
	rdma_lock_handler(victim);
	queue_work(system_unbound_wq, &r->work);
	r->doomed = ra_wait_doomed(victim);
}

/* The call returned: let the destroy end. */
static void ra_finish(struct kiwi_rt *rt, struct ra_race *r)
{
	rt->m->hook = NULL;
	rt->m->hook_data = NULL;
	if (r->v == RA_DOOMED)
		rdma_unlock_handler(r->victim);
	flush_work(&r->work);
}

static void ra_unhook(struct kunit_resource *res)
{
	struct kiwi_rt *rt = res->data;

	if (rt->m) {
		rt->m->hook = NULL;
		rt->m->hook_data = NULL;
	}
}

static struct ra_race *ra_setup(struct kunit *test, struct kiwi_rt *rt)
{
	struct ra_race *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test, NULL, ra_unhook,
							 GFP_KERNEL, rt));
	return r;
}

static const char *const ra_names[] = {
	[RA_CHILD] = "the id, inside the op",
	[RA_LISTENER] = "its listener, inside the op",
	[RA_DOOMED] = "the id, destroying first",
};

static const enum ra_victim ra_victims[] = { RA_CHILD, RA_LISTENER,
					     RA_DOOMED };

static void ra_desc(const enum ra_victim *v, char *desc)
{
	strscpy(desc, ra_names[*v], KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ra, ra_victims, ra_desc);

static const enum ra_victim rl_victims[] = { RA_CHILD, RA_DOOMED };

KUNIT_ARRAY_PARAM(rl, rl_victims, ra_desc);

/* A CONNECT_REQUEST id with a QP; @cm: its iw_cm id. */
static struct rdma_cm_id *ra_request(struct kiwi_rt *rt, struct rdma_cm_id *l,
				     struct kiwi_cm_id **cm)
{
	struct ib_qp_init_attr init = { KT_QP_RC, .cap = { 1, 1, 1, 1 } };
	struct rdma_cm_id *child = kiwi_rt_request(rt, l);

	init.send_cq = rt->cq;
	init.recv_cq = rt->cq;
	KUNIT_ASSERT_EQ(rt->test, rdma_create_qp(child, rt->pd, &init), 0);
	*cm = kiwi_rdma_priv(child)->cm;
	return child;
}

/*
 * rdma_accept() on a request (with a QP) while another task destroys:
 * the id, from inside the provider's accept: the call pinned it, so it
 * returns 0 and the destroy then tears the id down, once; its listener,
 * from there too: the accept is unaffected (0, the id in CONNECT); the
 * id, already DESTROYING (its destroy held by its handler): -EINVAL, the
 * provider's accept is not called and the destroy rejects the request.
 * KASAN, lockdep and kmemleak judge the rest.
 */
static void rdmacm_accept_vs_destroy(struct kunit *test)
{
	enum ra_victim v = *(const enum ra_victim *)test->param_value;
	struct kiwi_rt *rt = kiwi_rt_setup(test, true);
	struct rdma_conn_param p = { .responder_resources = 1,
				     .initiator_depth = 1 };
	struct ra_race *r = ra_setup(test, rt);
	struct rdma_cm_id *l, *child, *gone, *left;
	struct kiwi_cm_id *cm;
	int ret;

	l = kiwi_rt_listener(rt, AF_INET, 7400);
	child = ra_request(rt, l, &cm);
	gone = v == RA_LISTENER ? l : child;
	left = v == RA_LISTENER ? child : l;
	ra_arm(rt, r, v, gone, KIWI_MOCK_ACCEPT);
	ret = rdma_accept(child, &p);
	ra_finish(rt, r);
	KUNIT_EXPECT_TRUE(test, r->doomed);
	KUNIT_EXPECT_EQ(test, ret, v == RA_DOOMED ? -EINVAL : 0);
	KUNIT_EXPECT_EQ(test, kiwi_mock_calls(rt->m, KIWI_MOCK_ACCEPT),
			v == RA_DOOMED ? 0 : 1);
	/* the race destroyed it: the fixture must not again */
	KUNIT_ASSERT_FALSE(test, kiwi_rt_forget(rt, gone));
	KUNIT_ASSERT_EQ(test, kiwi_rdma_live_ids(), 1);
	if (v == RA_LISTENER)
		KUNIT_EXPECT_EQ(test, kiwi_rt_state(child), KIWI_RDMA_CONNECT);
	kiwi_rt_destroy(rt, left);
	KUNIT_EXPECT_EQ(test, kiwi_mock_release(rt->m, cm), v != RA_DOOMED);
	/* the request never accepted is rejected by its destroy */
	KUNIT_EXPECT_EQ(test, kiwi_mock_calls(rt->m, KIWI_MOCK_REJECT),
			v == RA_DOOMED ? 1 : 0);
	KUNIT_EXPECT_EQ(test, kiwi_rdma_live_ids(), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&rt->m->qps_alive), 0);
}

/*
 * rdma_listen() on a bound id while another task destroys it: from
 * inside the provider's create_listen, the call pinned it: 0, and the
 * destroy then ends the iw_cm listener with the id; already DESTROYING
 * (the destroy held by its handler): -EINVAL and no iw_cm listener is
 * made. Either way the id is destroyed once.
 */
static void rdmacm_listen_vs_destroy(struct kunit *test)
{
	enum ra_victim v = *(const enum ra_victim *)test->param_value;
	struct kiwi_rt *rt = kiwi_rt_setup(test, true);
	struct ra_race *r = ra_setup(test, rt);
	int ret, live = kiwi_cm_live_ids();
	struct sockaddr_storage src;
	struct rdma_cm_id *id;

	kiwi_rt_addr(&src, AF_INET, "127.0.0.1", 7410);
	id = kiwi_rt_id(rt);
	KUNIT_ASSERT_EQ(test, rdma_bind_addr(id, (struct sockaddr *)&src), 0);
	ra_arm(rt, r, v, id, KIWI_MOCK_CREATE_LISTEN);
	ret = rdma_listen(id, 0);
	ra_finish(rt, r);
	KUNIT_EXPECT_TRUE(test, r->doomed);
	KUNIT_EXPECT_EQ(test, ret, v == RA_DOOMED ? -EINVAL : 0);
	KUNIT_EXPECT_EQ(test, kiwi_mock_calls(rt->m, KIWI_MOCK_CREATE_LISTEN),
			v == RA_DOOMED ? 0 : 1);
	KUNIT_EXPECT_EQ(test, kiwi_mock_calls(rt->m, KIWI_MOCK_DESTROY_LISTEN),
			v == RA_DOOMED ? 0 : 1);
	KUNIT_ASSERT_FALSE(test, kiwi_rt_forget(rt, id));
	KUNIT_EXPECT_EQ(test, kiwi_rdma_live_ids(), 0);
	KUNIT_EXPECT_EQ(test, kiwi_cm_live_ids(), live);
}

/**
 * struct rh_state - what the handlers of the serialisation cases saw
 * @inside: handler calls in progress per id (0: the first id, 1: other)
 * @overlaps: calls that started while another ran for the same id
 * @x: the id whose handler blocks
 * @x_entered: completed when @x's DISCONNECTED handler started
 * @seen_inside: @x's handler was still running when destroy_id returned
 * @connect_ret: rdma_connect() from the ROUTE_RESOLVED handler
 * @locked: that handler calls rdma_connect_locked() instead
 */
struct rh_state {
	atomic_t inside[2];
	atomic_t overlaps;
	struct rdma_cm_id *x;
	struct completion x_entered;
	int seen_inside;
	int connect_ret;
	bool locked;
};

static struct rh_state *rh;	/* the running case's; one case at a time */

/* Called around every hook: counts handler calls overlapping per id. */
static int rh_enter(struct rdma_cm_id *id)
{
	int i = id != rh->x;

	if (atomic_inc_return(&rh->inside[i]) > 1)
		atomic_inc(&rh->overlaps);
	return i;
}

/* Inside iw_connect: the peer answers at once, from the provider. */
static void rh_reply_hook(struct kiwi_mock *m, enum kiwi_mock_op op,
			  struct kiwi_cm_id *id)
{
	struct kiwi_cm_event ev = { .event = KIWI_CM_EVENT_CONNECT_REPLY };

	if (op == KIWI_MOCK_CONNECT)
		kiwi_cm_upcall(id, &ev);
}

/*
 * ROUTE_RESOLVED: create the QP, connect, and stay in the handler for a
 * while; the ESTABLISHED the provider reported meanwhile must wait.
 */
static int rh_connect_hook(struct kiwi_rt *rt, struct rdma_cm_id *id,
			   struct rdma_cm_event *ev)
{
	struct ib_qp_init_attr init = { KT_QP_RC, .cap = { 1, 1, 1, 1 } };
	struct rdma_conn_param p = { .responder_resources = 1,
				     .initiator_depth = 1 };
	int i = rh_enter(id);

	if (ev->event == RDMA_CM_EVENT_ROUTE_RESOLVED) {
		init.send_cq = rt->cq;
		init.recv_cq = rt->cq;
		rh->connect_ret = rdma_create_qp(id, rt->pd, &init) ?:
				  (rh->locked ? rdma_connect_locked(id, &p) :
				   rdma_connect(id, &p));
		msleep(200);
	}
	atomic_dec(&rh->inside[i]);
	return 0;
}

static void rh_reset(struct kunit_resource *res)
{
	struct kiwi_rt *rt = res->data;

	rt->hook = NULL;
	if (rt->m)
		rt->m->hook = NULL;
	rh = NULL;
}

static struct rh_state *rh_setup(struct kunit *test, struct kiwi_rt *rt)
{
	struct rh_state *st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, st);
	init_completion(&st->x_entered);
	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test, NULL, rh_reset,
							 GFP_KERNEL, rt));
	rh = st;
	return st;
}

/*
 * One connection through rh_connect_hook, the fixture's events counted
 * from 0: resolve the address and the route; the ROUTE_RESOLVED handler
 * connects, and ROUTE_RESOLVED then ESTABLISHED are the events.
 */
static struct rdma_cm_id *rh_connect_once(struct kunit *test,
					  struct kiwi_rt *rt,
					  struct sockaddr_storage *dst)
{
	struct rdma_cm_id *id;
	struct kiwi_rt_rec r;
	unsigned long flags;

	spin_lock_irqsave(&rt->lock, flags);
	rt->n = 0;
	spin_unlock_irqrestore(&rt->lock, flags);
	id = kiwi_rt_id(rt);
	KUNIT_ASSERT_EQ(test, rdma_resolve_addr(id, NULL,
						(struct sockaddr *)dst, 1000),
			0);
	KUNIT_ASSERT_TRUE(test, kiwi_rt_wait(rt, 1));
	KUNIT_ASSERT_EQ(test, rdma_resolve_route(id, 1000), 0);
	KUNIT_ASSERT_TRUE(test, kiwi_rt_wait(rt, 3));
	KUNIT_EXPECT_EQ(test, rh->connect_ret, 0);
	r = kiwi_rt_rec(rt, 1);
	KUNIT_EXPECT_EQ(test, r.event, RDMA_CM_EVENT_ROUTE_RESOLVED);
	r = kiwi_rt_rec(rt, 2);
	KUNIT_EXPECT_EQ(test, r.event, RDMA_CM_EVENT_ESTABLISHED);
	return id;
}

/*
 * A ROUTE_RESOLVED handler (run by rdma_cm's worker) connects, and the
 * provider reports the connection up at once (the core's worker): the
 * ULP's handler never runs twice at once for the id, ESTABLISHED comes
 * after the ROUTE_RESOLVED handler returned. 20 rounds.
 */
static void rdmacm_handler_never_concurrent(struct kunit *test)
{
	struct kiwi_rt *rt = kiwi_rt_setup(test, true);
	struct rh_state *st = rh_setup(test, rt);
	struct sockaddr_storage dst;
	int i;

	rt->m->hook = rh_reply_hook;
	rt->hook = rh_connect_hook;
	kiwi_rt_addr(&dst, AF_INET, "127.0.0.1", 7471);
	for (i = 0; i < 20; i++)
		kiwi_rt_destroy(rt, rh_connect_once(test, rt, &dst));
	KUNIT_EXPECT_EQ(test, atomic_read(&st->overlaps), 0);
}

/*
 * rdma_connect_locked(), Linux's name for connecting from the id's own
 * handler: from the ROUTE_RESOLVED handler it connects (ESTABLISHED
 * follows); from the test's thread, outside any handler, it refuses
 * with -EINVAL and leaves the id as it was, and rdma_connect() then
 * connects.
 */
static void rdmacm_connect_locked_only_in_handler(struct kunit *test)
{
	struct rdma_conn_param p = { .responder_resources = 1,
				     .initiator_depth = 1 };
	struct kiwi_rt *rt = kiwi_rt_setup(test, true);
	struct rh_state *st = rh_setup(test, rt);
	struct sockaddr_storage dst;
	struct rdma_cm_id *id;
	struct kiwi_rt_rec r;
	int n;

	rt->m->hook = rh_reply_hook;
	rt->hook = rh_connect_hook;
	st->locked = true;
	st->connect_ret = -EIO;	/* stays if the handler does not connect */
	kiwi_rt_addr(&dst, AF_INET, "127.0.0.1", 7471);
	kiwi_rt_destroy(rt, rh_connect_once(test, rt, &dst));

	rt->hook = NULL;
	id = kiwi_rt_resolved(rt, AF_INET);
	KUNIT_EXPECT_EQ(test, rdma_connect_locked(id, &p), -EINVAL);
	KUNIT_EXPECT_EQ(test, kiwi_rt_state(id), KIWI_RDMA_ROUTE_RESOLVED);
	n = kiwi_rt_count(rt);
	KUNIT_EXPECT_EQ(test, rdma_connect(id, &p), 0);
	KUNIT_ASSERT_TRUE(test, kiwi_rt_wait(rt, n + 1));
	r = kiwi_rt_rec(rt, n);
	KUNIT_EXPECT_PTR_EQ(test, r.id, id);
	KUNIT_EXPECT_EQ(test, r.event, RDMA_CM_EVENT_ESTABLISHED);
	kiwi_rt_destroy(rt, id);
}

/*
 * X's DISCONNECTED handler runs for a while; meanwhile Y's handler, on
 * another worker, destroys X. rdma_destroy_id() must return only once
 * X's handler is done: no handler of X runs after it returned (and X is
 * not freed under its running handler: KASAN).
 */
static int rh_destroy_hook(struct kiwi_rt *rt, struct rdma_cm_id *id,
			   struct rdma_cm_event *ev)
{
	int i = rh_enter(id);

	if (ev->event == RDMA_CM_EVENT_DISCONNECTED && id == rh->x) {
		complete_all(&rh->x_entered);	/* the test and Y wait */
		msleep(300);
	} else if (ev->event == RDMA_CM_EVENT_DISCONNECTED) {
		if (wait_for_completion_timeout(&rh->x_entered, 5 * HZ) &&
		    kiwi_rt_forget(rt, rh->x))
			kiwi_rt_destroy_with_qp(rh->x);
		rh->seen_inside = atomic_read(&rh->inside[0]);
	}
	atomic_dec(&rh->inside[i]);
	return 0;
}

static void rdmacm_destroy_waits_for_handler(struct kunit *test)
{
	struct kiwi_rt *rt = kiwi_rt_setup(test, true);
	struct rh_state *st = rh_setup(test, rt);
	struct rdma_cm_id *y;
	int n;

	st->x = kiwi_rt_established(rt, AF_INET);
	y = kiwi_rt_established(rt, AF_INET);
	n = kiwi_rt_count(rt);
	rt->hook = rh_destroy_hook;
	KUNIT_ASSERT_EQ(test, kiwi_rt_inject(rt, st->x,
					     KIWI_CM_EVENT_DISCONNECT, 0, NULL),
			0);
	KUNIT_ASSERT_TRUE(test, wait_for_completion_timeout(&st->x_entered,
							    5 * HZ));
	KUNIT_ASSERT_EQ(test, kiwi_rt_inject(rt, y, KIWI_CM_EVENT_DISCONNECT,
					     0, NULL), 0);
	KUNIT_ASSERT_TRUE(test, kiwi_rt_wait(rt, n + 2));
	/* Y destroyed X: the fixture must not (nor leak it if Y did not) */
	if (kiwi_rt_forget(rt, st->x)) {
		KUNIT_FAIL(test, "Y's handler did not destroy X");
		kiwi_rt_destroy_with_qp(st->x);
	}
	KUNIT_EXPECT_EQ(test, st->seen_inside, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&st->overlaps), 0);
}

/**
 * struct rx_state - the case where X's handler destroys a victim whose
 *	upcall the core has started to deliver
 * @x: the id whose DISCONNECTED handler destroys @victim
 * @victim: an established id, or a listener
 * @cm: @victim's iw_cm id
 * @held_ev: the upcall held: DISCONNECT, or the listener's CONNECT_REQUEST
 * @held: completed when the core holds it, registered but before
 *	rdma_cm's handler
 * @release: the held delivery waits for it (at most 10 s)
 * @entered: completed when X's handler is about to destroy @victim
 * @done: completed when rdma_destroy_id(@victim) returned
 */
struct rx_state {
	struct rdma_cm_id *x;
	struct rdma_cm_id *victim;
	struct kiwi_cm_id *cm;
	u8 held_ev;
	struct completion held;
	struct completion release;
	struct completion entered;
	struct completion done;
};

static struct rx_state *rx;	/* the running case's; one case at a time */

static void rx_hold(struct kiwi_cm_id *id, const struct kiwi_cm_event *ev,
		    void *data)
{
	struct rx_state *st = data;

	if (!st || ev->event != st->held_ev ||
	    (st->held_ev != KIWI_CM_EVENT_CONNECT_REQUEST && id != st->cm))
		return;
	complete(&st->held);
	wait_for_completion_timeout(&st->release, 10 * HZ);
}

static int rx_destroy_hook(struct kiwi_rt *rt, struct rdma_cm_id *id,
			   struct rdma_cm_event *ev)
{
	if (id != rx->x || ev->event != RDMA_CM_EVENT_DISCONNECTED)
		return 0;
	complete(&rx->entered);
	if (kiwi_rt_forget(rt, rx->victim))
		kiwi_rt_destroy_with_qp(rx->victim);
	complete(&rx->done);
	return 0;
}

static void rx_reset(struct kunit_resource *res)
{
	struct kiwi_rt *rt = res->data;

	kiwi_fault_hook_deliver(NULL, NULL);
	complete_all(&rx->release);
	rt->hook = NULL;
}

static const enum ra_victim rx_victims[] = { RA_CHILD, RA_LISTENER };

static void rx_desc(const enum ra_victim *v, char *desc)
{
	strscpy(desc, *v == RA_CHILD ? "connection" : "listener",
		KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(rx, rx_victims, rx_desc);

/*
 * X's DISCONNECTED handler destroys Y (a connection, or a listener) while
 * a kiwi_cm worker has started delivering an upcall of Y's iw_cm id (a
 * DISCONNECT; a child's CONNECT_REQUEST for the listener) but has not
 * entered rdma_cm's handler yet: rdma_destroy_id() must wait for that
 * call, which then finds Y being destroyed and tells the ULP nothing
 * (the request is rejected). Before the fix it returned at once and freed
 * Y under the call (KASAN: use after free in kiwi_rdma_cm_handler).
 */
static void rdmacm_destroy_vs_core_delivery(struct kunit *test)
{
	enum ra_victim v = *(const enum ra_victim *)test->param_value;
	struct rx_state *st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);
	struct kiwi_rt *rt;
	int i, n, rejects;

	KUNIT_ASSERT_NOT_NULL(test, st);
	init_completion(&st->held);
	init_completion(&st->release);
	init_completion(&st->entered);
	init_completion(&st->done);
	rt = kiwi_rt_setup(test, true);
	st->x = kiwi_rt_established(rt, AF_INET);
	if (v == RA_CHILD) {
		st->victim = kiwi_rt_established(rt, AF_INET);
		st->held_ev = KIWI_CM_EVENT_DISCONNECT;
	} else {
		st->victim = kiwi_rt_listener(rt, AF_INET, 7481);
		st->held_ev = KIWI_CM_EVENT_CONNECT_REQUEST;
	}
	st->cm = kiwi_rdma_priv(st->victim)->cm;
	rx = st;
	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test, NULL, rx_reset,
							 GFP_KERNEL, rt));
	kiwi_fault_hook_deliver(rx_hold, st);
	rejects = kiwi_mock_calls(rt->m, KIWI_MOCK_REJECT);
	n = kiwi_rt_count(rt);
	KUNIT_ASSERT_EQ(test, kiwi_rt_inject(rt, st->victim, st->held_ev, 0,
					     NULL), 0);
	KUNIT_ASSERT_TRUE(test, wait_for_completion_timeout(&st->held, 5 * HZ));
	rt->hook = rx_destroy_hook;
	KUNIT_ASSERT_EQ(test, kiwi_rt_inject(rt, st->x,
					     KIWI_CM_EVENT_DISCONNECT, 0, NULL),
			0);
	KUNIT_ASSERT_TRUE(test,
			  wait_for_completion_timeout(&st->entered, 5 * HZ));
	msleep(100);
	KUNIT_ASSERT_FALSE_MSG(test, completion_done(&st->done),
			       "destroy returned under the core's delivery");
	complete_all(&st->release);
	KUNIT_ASSERT_TRUE(test, wait_for_completion_timeout(&st->done, 5 * HZ));
	kiwi_fault_hook_deliver(NULL, NULL);
	/* only X's DISCONNECTED reached the ULP */
	KUNIT_ASSERT_TRUE(test, kiwi_rt_wait(rt, n + 1));
	msleep(50);
	KUNIT_EXPECT_EQ(test, kiwi_rt_count(rt), n + 1);
	KUNIT_EXPECT_PTR_EQ(test, kiwi_rt_rec(rt, n).id, st->x);
	if (v == RA_LISTENER) {
		for (i = 0; i < 250; i++) {
			if (kiwi_mock_calls(rt->m, KIWI_MOCK_REJECT) > rejects)
				break;
			msleep(20);
		}
		KUNIT_EXPECT_EQ(test, kiwi_mock_calls(rt->m, KIWI_MOCK_REJECT),
				rejects + 1);
	}
	KUNIT_EXPECT_EQ(test, kiwi_rdma_live_ids(), 1);
}

/**
 * struct rr_state - a handler returns non-zero while another task
 *	destroys its id
 * @x: the id
 * @work: destroys @x
 * @entered: X's DISCONNECTED handler runs
 * @release: X's handler waits for it, then returns non-zero
 * @destroyed: rdma_destroy_id(@x) returned
 */
struct rr_state {
	struct rdma_cm_id *x;
	struct work_struct work;
	struct completion entered;
	struct completion release;
	struct completion destroyed;
};

static struct rr_state *rr;	/* the running case's; one case at a time */

static int rr_hook(struct kiwi_rt *rt, struct rdma_cm_id *id,
		   struct rdma_cm_event *ev)
{
	if (ev->event != RDMA_CM_EVENT_DISCONNECTED || id != rr->x)
		return 0;
	complete(&rr->entered);
	wait_for_completion_timeout(&rr->release, 10 * HZ);
	return 1;	/* rdma_cm is to destroy X */
}

static void rr_destroy_work(struct work_struct *work)
{
	struct rr_state *st = container_of(work, struct rr_state, work);

	kiwi_rt_destroy_with_qp(st->x);
	complete(&st->destroyed);
}

static void rr_reset(struct kunit_resource *res)
{
	struct kiwi_rt *rt = res->data;

	rt->hook = NULL;
	rr = NULL;
}

/*
 * X's handler runs; another task destroys X and waits for the handler;
 * then the handler returns non-zero. X is torn down once (twice would be
 * a double free: KASAN), and the destroy returns.
 */
static void rdmacm_destroy_vs_handler_return(struct kunit *test)
{
	struct kiwi_rt *rt = kiwi_rt_setup(test, true);
	struct rr_state *st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);
	int i, live;

	KUNIT_ASSERT_NOT_NULL(test, st);
	init_completion(&st->entered);
	init_completion(&st->release);
	init_completion(&st->destroyed);
	INIT_WORK(&st->work, rr_destroy_work);
	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test, NULL, rr_reset,
							 GFP_KERNEL, rt));
	rr = st;
	st->x = kiwi_rt_established(rt, AF_INET);
	KUNIT_ASSERT_TRUE(test, kiwi_rt_forget(rt, st->x));
	live = kiwi_rdma_live_ids();
	rt->hook = rr_hook;
	KUNIT_ASSERT_EQ(test, kiwi_rt_inject(rt, st->x,
					     KIWI_CM_EVENT_DISCONNECT, 0, NULL),
			0);
	KUNIT_ASSERT_TRUE(test, wait_for_completion_timeout(&st->entered,
							    5 * HZ));
	queue_work(system_unbound_wq, &st->work);
	/* X's handler runs: X is not freed, its state can be read */
	for (i = 0; i < 25 && kiwi_rt_state(st->x) != KIWI_RDMA_DESTROYING;
	     i++)
		msleep(20);
	KUNIT_EXPECT_EQ(test, kiwi_rt_state(st->x), KIWI_RDMA_DESTROYING);
	msleep(50);	/* the destroy now waits for the handler */
	KUNIT_EXPECT_FALSE(test, completion_done(&st->destroyed));
	complete(&st->release);
	KUNIT_EXPECT_TRUE(test, wait_for_completion_timeout(&st->destroyed,
							    5 * HZ));
	for (i = 0; i < 50 && kiwi_rdma_live_ids() != live - 1; i++)
		msleep(20);
	KUNIT_EXPECT_EQ(test, kiwi_rdma_live_ids(), live - 1);
}

static struct kunit_case rdmacm_race_cases[] = {
	KUNIT_CASE_PARAM(rdmacm_accept_vs_destroy, ra_gen_params),
	KUNIT_CASE_PARAM(rdmacm_listen_vs_destroy, rl_gen_params),
	KUNIT_CASE(rdmacm_handler_never_concurrent),
	KUNIT_CASE(rdmacm_connect_locked_only_in_handler),
	KUNIT_CASE(rdmacm_destroy_waits_for_handler),
	KUNIT_CASE(rdmacm_destroy_vs_handler_return),
	KUNIT_CASE_PARAM(rdmacm_destroy_vs_core_delivery, rx_gen_params),
	{}
};

static struct kunit_suite rdmacm_race_suite = {
	.name = "kiwi_rdmacm_race",
	.test_cases = rdmacm_race_cases,
};

kunit_test_suite(rdmacm_race_suite);
