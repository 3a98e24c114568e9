// SPDX-License-Identifier: GPL-2.0
/*
 * The kit's fixture: a case's ids, QPs, CQs, MRs and memory on the two
 * devices, the events its handler recorded, and the checks every case
 * ends with (no id left alive, no protocol violation counted).
 */
#include <linux/delay.h>
#include <linux/dma-direction.h>
#include <linux/slab.h>

#include <kiwi/provider.h>

#include "kc.h"

/* Time a wrong event (or completion) has to show up before a case says
 * there was none.
 */
#define KC_SETTLE_MS	300

static void kc_watch_poll(struct kc *t, struct kiwi_cm_id *id,
			  struct kc_ev *r)
{
	struct ib_wc wc[16];
	int i, n;

	lockdep_assert_held(&t->lock);
	r->flushed = -1;
	for (i = 0; i < t->nwatch; i++) {
		if (t->watch[i].id != id)
			continue;
		n = ib_poll_cq(t->watch[i].cq, ARRAY_SIZE(wc), wc);
		r->flushed = max(n, 0);
		while (--n >= 0)
			r->flush_ok += wc[n].status == IB_WC_WR_FLUSH_ERR;
	}
}

static int kc_handler(struct kiwi_cm_id *id, const struct kiwi_cm_event *ev)
{
	struct kc *t = id->context;
	unsigned long flags;
	struct kc_ev *r;
	int ret = 0;

	/* Hold requests in the handler: they count against the backlog. */
	if (ev->event == KIWI_CM_EVENT_CONNECT_REQUEST && READ_ONCE(t->gate))
		wait_for_completion_timeout(&t->release,
					    msecs_to_jiffies(2 * KC_WAIT_MS));
	spin_lock_irqsave(&t->lock, flags);
	t->overflow |= t->nev == KC_MAX_EVS;
	if (t->nev < KC_MAX_EVS) {
		r = &t->evs[t->nev++];
		r->id = id;
		r->event = ev->event;
		r->status = ev->status;
		r->len = ev->private_data_len;
		r->ird = ev->ird;
		r->ord = ev->ord;
		memcpy(r->pdata, ev->private_data,
		       min_t(size_t, r->len, sizeof(r->pdata)));
		memcpy(&r->local, &id->local_addr, sizeof(r->local));
		memcpy(&r->remote, &id->remote_addr, sizeof(r->remote));
		if (ev->event == KIWI_CM_EVENT_CLOSE)
			kc_watch_poll(t, id, r);
	}
	/*
	 * A request's child id is the case's to destroy; with no room left
	 * for it, the core destroys it (and rejects the connection).
	 */
	if (ev->event == KIWI_CM_EVENT_CONNECT_REQUEST) {
		if (t->nids < KC_MAX_IDS) {
			t->ids[t->nids++] = id;
		} else {
			t->overflow = true;
			ret = -ENOSPC;
		}
	}
	spin_unlock_irqrestore(&t->lock, flags);
	wake_up_all(&t->wq);
	return ret;
}

/**
 * kc_id() - a new id on a side's device, destroyed when the case ends
 * @t: the fixture
 * @s: the side
 *
 * Return: the id; the case is aborted on failure.
 */
struct kiwi_cm_id *kc_id(struct kc *t, struct kc_side *s)
{
	struct kiwi_cm_id *id;

	KUNIT_ASSERT_LT(t->test, t->nids, KC_MAX_IDS);
	id = kiwi_cm_create_id(s->dev, kc_handler, t);
	KUNIT_ASSERT_FALSE(t->test, IS_ERR_OR_NULL(id));
	spin_lock_irq(&t->lock);
	t->ids[t->nids++] = id;
	spin_unlock_irq(&t->lock);
	return id;
}

/**
 * kc_destroy_id() - destroy an id now instead of when the case ends
 * @t: the fixture
 * @id: the id
 */
void kc_destroy_id(struct kc *t, struct kiwi_cm_id *id)
{
	int i;

	spin_lock_irq(&t->lock);
	for (i = 0; i < t->nids; i++)
		if (t->ids[i] == id)
			t->ids[i] = t->ids[--t->nids];
	spin_unlock_irq(&t->lock);
	kiwi_cm_destroy_id(id);
}

/**
 * kc_listen() - listen on side b's address and the case's port
 * @t: the fixture
 * @backlog: the backlog
 *
 * Return: the listener.
 */
struct kiwi_cm_id *kc_listen(struct kc *t, int backlog)
{
	struct kiwi_cm_id *l = kc_id(t, &t->b);
	struct sockaddr_in *sin = (struct sockaddr_in *)&l->local_addr;

	*sin = t->b.addr;
	sin->sin_port = htons(t->port);
	KUNIT_ASSERT_EQ(t->test, kiwi_cm_listen(l, backlog), 0);
	return l;
}

/**
 * kc_try_connect() - connect an id of side a to side b's @port
 * @t: the fixture
 * @id: a fresh id of side a
 * @qa: its QP
 * @port: the port
 * @pdata: private data
 * @len: its length
 *
 * IRD and ORD are kc_depth()'s.
 *
 * Return: kiwi_cm_connect()'s result.
 */
int kc_try_connect(struct kc *t, struct kiwi_cm_id *id, struct ib_qp *qa,
		   u16 port, const void *pdata, u16 len)
{
	struct kiwi_conn_param p = {
		.private_data = pdata, .private_data_len = len,
		.ird = kc_depth(&t->a), .ord = kc_depth(&t->a),
		.qpn = qa->qp_num,
	};
	struct sockaddr_in *sin = (struct sockaddr_in *)&id->remote_addr;

	*sin = t->b.addr;
	sin->sin_port = htons(port);
	return kiwi_cm_connect(id, &p);
}

/**
 * kc_connect() - a new id of side a, connecting to side b's @port
 * @t: the fixture
 * @qa: its QP
 * @port: the port
 * @pdata: private data
 * @len: its length
 *
 * Return: the id; the case is aborted if kiwi_cm_connect() fails.
 */
struct kiwi_cm_id *kc_connect(struct kc *t, struct ib_qp *qa, u16 port,
			      const void *pdata, u16 len)
{
	struct kiwi_cm_id *id = kc_id(t, &t->a);

	KUNIT_ASSERT_EQ(t->test, kc_try_connect(t, id, qa, port, pdata, len),
			0);
	return id;
}

/* The kit polls its CQs; a provider may still call the handler. */
static void kc_comp(struct ib_cq *cq, void *context)
{
}

static void kc_cq_event(struct ib_event *ev, void *context)
{
	struct kc *t = context;
	unsigned long flags;

	spin_lock_irqsave(&t->lock, flags);
	if (ev->event == IB_EVENT_CQ_ERR && t->ncqev < ARRAY_SIZE(t->cqev))
		t->cqev[t->ncqev++] = ev->element.cq;
	spin_unlock_irqrestore(&t->lock, flags);
	wake_up_all(&t->wq);
}

/* IB_EVENT_CQ_ERR events @cq heard. */
static int kc_cq_errs(struct kc *t, struct ib_cq *cq)
{
	unsigned long flags;
	int i, n = 0;

	spin_lock_irqsave(&t->lock, flags);
	for (i = 0; i < t->ncqev; i++)
		n += t->cqev[i] == cq;
	spin_unlock_irqrestore(&t->lock, flags);
	return n;
}

/**
 * kc_wait_cq_errs() - wait up to KC_WAIT_MS for a CQ's IB_EVENT_CQ_ERR
 * @t: the fixture
 * @cq: a CQ of kc_qp() made without the CQ library
 *
 * Return: the IB_EVENT_CQ_ERR events @cq heard, 0 if none came in time.
 */
int kc_wait_cq_errs(struct kc *t, struct ib_cq *cq)
{
	wait_event_timeout(t->wq, kc_cq_errs(t, cq),
			   msecs_to_jiffies(KC_WAIT_MS));
	return kc_cq_errs(t, cq);
}

static struct ib_cq *kc_cq(struct kc *t, struct kc_side *s, int cqe,
			   bool lib)
{
	struct ib_cq_init_attr attr = { .cqe = cqe };
	struct ib_cq *cq;

	KUNIT_ASSERT_LT(t->test, t->ncqs, KC_MAX_OBJS);
	if (lib)
		cq = ib_alloc_cq(s->dev, t, cqe, 0, IB_POLL_DIRECT);
	else
		cq = kiwi_create_cq(s->dev, kc_comp, kc_cq_event, t, &attr);
	KUNIT_ASSERT_FALSE(t->test, IS_ERR(cq));
	t->cq_lib[t->ncqs] = lib;
	t->cqs[t->ncqs++] = cq;
	return cq;
}

/**
 * kc_destroy_cq() - destroy a CQ of the case now
 * @t: the fixture
 * @cq: the CQ (no QP uses it any more)
 */
void kc_destroy_cq(struct kc *t, struct ib_cq *cq)
{
	int i;

	for (i = 0; i < t->ncqs; i++) {
		if (t->cqs[i] != cq)
			continue;
		if (t->cq_lib[i])
			ib_free_cq(cq);
		else
			kiwi_destroy_cq(cq);
		t->ncqs--;
		t->cqs[i] = t->cqs[t->ncqs];
		t->cq_lib[i] = t->cq_lib[t->ncqs];
		return;
	}
}

static void kc_qp_event(struct ib_event *ev, void *context)
{
	struct kc *t = context;
	unsigned long flags;

	spin_lock_irqsave(&t->lock, flags);
	if (t->nqpev < ARRAY_SIZE(t->qpev)) {
		t->qpev[t->nqpev].qp = ev->element.qp;
		t->qpev[t->nqpev].type = ev->event;
		t->nqpev++;
	}
	spin_unlock_irqrestore(&t->lock, flags);
	wake_up_all(&t->wq);
}

static bool kc_has_qp_event(struct kc *t, struct ib_qp *qp,
			    enum ib_event_type type)
{
	bool found = false;
	int i;

	spin_lock_irq(&t->lock);
	for (i = 0; i < t->nqpev; i++)
		found |= t->qpev[i].qp == qp && t->qpev[i].type == type;
	spin_unlock_irq(&t->lock);
	return found;
}

/**
 * kc_wait_qp_event() - wait for an asynchronous event of a QP
 * @t: the fixture
 * @qp: a QP of kc_qp()
 * @type: the event
 *
 * Return: whether it came within KC_WAIT_MS.
 */
bool kc_wait_qp_event(struct kc *t, struct ib_qp *qp,
		      enum ib_event_type type)
{
	return wait_event_timeout(t->wq, kc_has_qp_event(t, qp, type),
				  msecs_to_jiffies(KC_WAIT_MS));
}

/**
 * kc_qp() - a QP on a side's device, with a CQ of its own for both queues
 * @t: the fixture
 * @s: the side
 * @o: options, or NULL for the defaults
 *
 * The QP gets the remote access rights rdma_create_qp() would give it.
 *
 * Return: the QP, destroyed when the case ends.
 */
struct ib_qp *kc_qp(struct kc *t, struct kc_side *s,
		    const struct kc_qp_opts *o)
{
	static const struct kc_qp_opts none;
	struct ib_qp_attr attr = { .qp_access_flags = KIWI_QP_ACCESS_IWARP };
	struct ib_qp_init_attr init = { .qp_type = IB_QPT_RC };
	struct ib_qp *qp;
	int wr;

	o = o ?: &none;
	wr = min(o->wr ?: 16, s->dev->attrs.max_qp_wr);
	init.send_cq = kc_cq(t, s, o->cqe ?: 64, o->lib_cq);
	init.event_handler = kc_qp_event;
	init.qp_context = t;
	init.recv_cq = init.send_cq;
	init.sq_sig_type = o->sig_all ? IB_SIGNAL_ALL_WR : IB_SIGNAL_REQ_WR;
	init.cap.max_send_wr = wr;
	init.cap.max_recv_wr = wr;
	init.cap.max_send_sge = min(2, s->dev->attrs.max_send_sge);
	init.cap.max_recv_sge = min(2, s->dev->attrs.max_recv_sge);
	KUNIT_ASSERT_LT(t->test, t->nqps, KC_MAX_OBJS);
	qp = ib_create_qp(o->pd ?: s->pd, &init);
	KUNIT_ASSERT_FALSE(t->test, IS_ERR(qp));
	t->qps[t->nqps++] = qp;
	KUNIT_ASSERT_EQ(t->test, ib_modify_qp(qp, &attr, IB_QP_ACCESS_FLAGS),
			0);
	return qp;
}

/**
 * kc_destroy_qp() - destroy a QP of kc_qp() and its CQ now
 * @t: the fixture
 * @qp: the QP
 */
void kc_destroy_qp(struct kc *t, struct ib_qp *qp)
{
	struct ib_cq *cq = qp->send_cq;
	int i;

	for (i = 0; i < t->nqps; i++)
		if (t->qps[i] == qp)
			t->qps[i] = t->qps[--t->nqps];
	spin_lock_irq(&t->lock);
	for (i = 0; i < t->nwatch; i++)
		if (t->watch[i].cq == cq)
			t->watch[i] = t->watch[--t->nwatch];
	spin_unlock_irq(&t->lock);
	ib_destroy_qp(qp);
	kc_destroy_cq(t, cq);
}

/**
 * kc_watch_close() - poll a QP's CQ when CLOSE reaches @id
 * @t: the fixture
 * @id: the id
 * @qp: its QP
 *
 * What the CQ held at that moment lands in the CLOSE event's flushed and
 * flush_ok: a provider must have flushed every outstanding work request
 * before its CLOSE upcall.
 */
void kc_watch_close(struct kc *t, struct kiwi_cm_id *id, struct ib_qp *qp)
{
	spin_lock_irq(&t->lock);
	if (t->nwatch < KC_MAX_IDS)
		t->watch[t->nwatch++] = (struct kc_watch){ id, qp->send_cq };
	spin_unlock_irq(&t->lock);
}

/**
 * kc_connected() - a connection from side a to side b, up on both sides
 * @t: the fixture
 * @c: filled with its ids and QPs; its listener is made unless
 *	@c->listener names one already (zero @c first)
 * @o: QP options for both QPs, or NULL
 */
void kc_connected(struct kc *t, struct kc_conn *c, const struct kc_qp_opts *o)
{
	struct kiwi_conn_param p = {
		.ird = kc_depth(&t->b), .ord = kc_depth(&t->b),
	};
	const struct kc_ev *r;
	int n = kc_nevents(t, NULL, KIWI_CM_EVENT_CONNECT_REQUEST);

	c->qa = kc_qp(t, &t->a, o);
	c->qb = kc_qp(t, &t->b, o);
	if (!c->listener)
		c->listener = kc_listen(t, 8);
	c->a = kc_connect(t, c->qa, t->port, NULL, 0);
	r = kc_wait_nth(t, NULL, KIWI_CM_EVENT_CONNECT_REQUEST, n);
	KUNIT_ASSERT_NOT_NULL(t->test, r);
	c->b = r->id;
	p.qpn = c->qb->qp_num;
	KUNIT_ASSERT_EQ(t->test, kiwi_cm_accept(c->b, &p), 0);
	KUNIT_ASSERT_NOT_NULL(t->test,
			      kc_wait(t, c->b, KIWI_CM_EVENT_ESTABLISHED));
	r = kc_wait(t, c->a, KIWI_CM_EVENT_CONNECT_REPLY);
	KUNIT_ASSERT_NOT_NULL(t->test, r);
	KUNIT_ASSERT_EQ(t->test, r->status, 0);
}

/**
 * kc_depth() - the IRD and ORD the kit's connections ask for
 * @s: the side
 *
 * Return: 4, or less if the device offers less.
 */
u32 kc_depth(struct kc_side *s)
{
	return min3(4, s->dev->attrs.max_qp_rd_atom,
		    s->dev->attrs.max_qp_init_rd_atom);
}

/* The @n-th (from 0) event of @id (any id if NULL) of type @event. */
static const struct kc_ev *kc_find(struct kc *t, struct kiwi_cm_id *id,
				   u8 event, int n)
{
	const struct kc_ev *r = NULL;
	int i;

	spin_lock_irq(&t->lock);
	for (i = 0; i < t->nev && !r; i++)
		if ((!id || t->evs[i].id == id) && t->evs[i].event == event &&
		    !n--)
			r = &t->evs[i];
	spin_unlock_irq(&t->lock);
	return r;
}

/**
 * kc_wait_nth() - wait for the @n-th (from 0) event of a type
 * @t: the fixture
 * @id: the id, or NULL for any
 * @event: the type
 * @n: which
 *
 * A listener's CONNECT_REQUEST is recorded under the child's id: to wait
 * for one, name NULL.
 *
 * Return: the event, or NULL if none came within KC_WAIT_MS.
 */
const struct kc_ev *kc_wait_nth(struct kc *t, struct kiwi_cm_id *id,
				u8 event, int n)
{
	const struct kc_ev *r = NULL;

	wait_event_timeout(t->wq, (r = kc_find(t, id, event, n)),
			   msecs_to_jiffies(KC_WAIT_MS));
	return r;
}

/**
 * kc_wait() - wait for the first event of a type on an id
 * @t: the fixture
 * @id: the id, or NULL for any (a listener stands for any: its
 *	CONNECT_REQUESTs are recorded under their children)
 * @event: the type
 *
 * Return: the event, or NULL if none came within KC_WAIT_MS.
 */
const struct kc_ev *kc_wait(struct kc *t, struct kiwi_cm_id *id, u8 event)
{
	if (event == KIWI_CM_EVENT_CONNECT_REQUEST)
		id = NULL;
	return kc_wait_nth(t, id, event, 0);
}

/**
 * kc_nevents() - how many events of a type an id (or any) got so far
 * @t: the fixture
 * @id: the id, or NULL for any
 * @event: the type
 *
 * Return: the number.
 */
int kc_nevents(struct kc *t, struct kiwi_cm_id *id, u8 event)
{
	int i, n = 0;

	spin_lock_irq(&t->lock);
	for (i = 0; i < t->nev; i++)
		n += (!id || t->evs[i].id == id) && t->evs[i].event == event;
	spin_unlock_irq(&t->lock);
	return n;
}

/**
 * kc_events() - the events an id got, as letters in delivery order
 * @t: the fixture
 * @id: the id
 * @buf: the string: Q(request) R(reply) E(stablished) D(isconnect)
 *	C(lose) X (device removal)
 * @len: its size
 */
void kc_events(struct kc *t, struct kiwi_cm_id *id, char *buf, size_t len)
{
	static const char letters[] = "QREDCX";
	size_t k = 0;
	int i;

	spin_lock_irq(&t->lock);
	for (i = 0; i < t->nev && k + 1 < len; i++)
		if (t->evs[i].id == id && t->evs[i].event < KIWI_CM_NR_EVENTS)
			buf[k++] = letters[t->evs[i].event];
	spin_unlock_irq(&t->lock);
	buf[k] = '\0';
}

/**
 * kc_settle() - give a wrong event or completion time to show up
 * @t: the fixture
 *
 * Before a case checks that something did *not* happen.
 */
void kc_settle(struct kc *t)
{
	msleep(KC_SETTLE_MS);
}

/**
 * kc_live() - the ids alive on the case's devices
 * @t: the fixture
 * @live: filled: side a's device's, side b's (0 if it is side a's, or
 *	if the case holds no reference on it)
 */
void kc_live(struct kc *t, int live[2])
{
	live[0] = t->a.dev ? kiwi_device_live_ids(t->a.dev) : 0;
	live[1] = t->b.dev && t->b.dev != t->a.dev ?
		  kiwi_device_live_ids(t->b.dev) : 0;
}

static int kc_live_extra(struct kc *t, const int base[2])
{
	int now[2];

	kc_live(t, now);
	return max(now[0] - base[0], 0) + max(now[1] - base[1], 0);
}

/**
 * kc_wait_live() - wait until no more ids live on the devices than @base
 * @t: the fixture
 * @base: a kc_live() taken earlier
 *
 * Ids are freed when the provider drops its last reference: no event
 * tells, so this polls, for up to KC_WAIT_MS.
 *
 * Return: how many more are alive than @base then (0: none).
 */
int kc_wait_live(struct kc *t, const int base[2])
{
	unsigned long end = jiffies + msecs_to_jiffies(KC_WAIT_MS);
	int extra;

	while ((extra = kc_live_extra(t, base)) > 0 &&
	       time_before(jiffies, end))
		msleep(20);
	return extra;
}

/* Take the newest id of the case on @dev (any if NULL) off its list. */
static struct kiwi_cm_id *kc_last_id(struct kc *t, struct ib_device *dev)
{
	struct kiwi_cm_id *id = NULL;
	int i;

	spin_lock_irq(&t->lock);
	for (i = t->nids - 1; i >= 0 && !id; i--) {
		if (dev && t->ids[i]->device != dev)
			continue;
		id = t->ids[i];
		memmove(&t->ids[i], &t->ids[i + 1],
			(t->nids - i - 1) * sizeof(t->ids[0]));
		t->nids--;
	}
	spin_unlock_irq(&t->lock);
	return id;
}

/**
 * kc_release() - destroy the case's objects, on one device or all
 * @t: the fixture
 * @dev: the device, or NULL for every object of the case
 *
 * Ids first, then QPs, MRs, CQs, PDs and the memory under them.
 */
void kc_release(struct kc *t, struct ib_device *dev)
{
	struct kiwi_cm_id *id;
	int i;

	/* The newest first; a request's child may still be added meanwhile. */
	while ((id = kc_last_id(t, dev)))
		kiwi_cm_destroy_id(id);
	for (i = t->nqps - 1; i >= 0; i--)
		if (!dev || t->qps[i]->device == dev)
			kc_destroy_qp(t, t->qps[i]);
	for (i = t->nmrs - 1; i >= 0; i--) {
		if (dev && t->mrs[i]->device != dev)
			continue;
		ib_dereg_mr(t->mrs[i]);
		t->mrs[i] = t->mrs[--t->nmrs];
	}
	for (i = t->ncqs - 1; i >= 0; i--)
		if (!dev || t->cqs[i]->device == dev)
			kc_destroy_cq(t, t->cqs[i]);
	for (i = t->npds - 1; i >= 0; i--) {
		if (dev && t->pds[i]->device != dev)
			continue;
		ib_dealloc_pd(t->pds[i]);
		t->pds[i] = t->pds[--t->npds];
	}
	for (i = 0; i < 2; i++) {
		struct kc_side *s = i ? &t->b : &t->a;

		if (IS_ERR_OR_NULL(s->pd) || (dev && s->dev != dev))
			continue;
		ib_dealloc_pd(s->pd);
		s->pd = NULL;
	}
	kc_free_bufs(t, dev);
}
