// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_softiw_stress: the server, in the handler of every listener; the
 * listener thread, whose listeners come and go; the device thread, which
 * attaches and detaches softiw on kv0. See stress_test.c.
 */
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/slab.h>
#include <net/net_namespace.h>

#include "verbs_util.h"
#include "softiw.h"
#include "stress.h"

/**
 * stress_fail() - report a failure from a thread of the round
 * @s: the round
 * @fmt: what failed, naming the thread, the attempt and the step
 *
 * The case reports the first STRESS_MSGS and fails when the threads are
 * done: a thread never asserts.
 *
 * Context: process context, no spinlock held.
 */
void stress_fail(struct stress *s, const char *fmt, ...)
{
	va_list ap;

	spin_lock(&s->lock);
	if (s->fails < STRESS_MSGS) {
		va_start(ap, fmt);
		vsnprintf(s->msgs[s->fails], STRESS_MSG_LEN, fmt, ap);
		va_end(ap);
	}
	s->fails++;
	spin_unlock(&s->lock);
}

/* Sleep @min_ms to @max_ms, less if the round ends. */
static void stress_nap(struct stress_thread *th, u32 min_ms, u32 max_ms)
{
	unsigned long end = jiffies +
		msecs_to_jiffies(min_ms + stress_rand(th, max_ms - min_ms));

	while (!stress_over(th->s) && time_before(jiffies, end))
		msleep(20);
}

/* The server's QPs, MRs and CQs are made per connection, in the handler. */
static void stress_child_free(struct stress_child *ch)
{
	if (ch->qp)
		kiwi_destroy_qp(ch->qp);
	if (ch->mr)
		kiwi_dereg_mr(ch->mr);
	if (ch->cq)
		kiwi_destroy_cq(ch->cq);
	kfree(ch->buf);
	kfree(ch);
}

static int stress_child_verbs(struct stress_child *ch, struct ib_pd *pd)
{
	struct ib_qp_init_attr init = {
		KT_QP_RC,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ib_qp_attr attr = { .qp_access_flags = KIWI_QP_ACCESS_IWARP };
	const struct ib_recv_wr *bad = NULL;
	struct ib_recv_wr wr = { .num_sge = 1 };
	struct ib_sge sge;
	void *p;

	p = kt_cq(ch->id->device, 8, NULL, NULL);
	if (IS_ERR(p))
		return PTR_ERR(p);
	ch->cq = p;
	p = kiwi_reg_kernel_mr(pd, ch->buf, STRESS_BUF, KIWI_ACCESS_ALL);
	if (IS_ERR(p))
		return PTR_ERR(p);
	ch->mr = p;
	init.send_cq = ch->cq;
	init.recv_cq = ch->cq;
	p = kiwi_create_qp(pd, &init);
	if (IS_ERR(p))
		return PTR_ERR(p);
	ch->qp = p;
	sge = (struct ib_sge) { .addr = ch->mr->iova, .length = STRESS_BUF,
				.lkey = ch->mr->lkey };
	wr.sg_list = &sge;
	return kiwi_modify_qp(ch->qp, &attr, IB_QP_ACCESS_FLAGS) ?:
	       kiwi_post_recv(ch->qp, &wr, &bad);
}

/* Accept in the handler, or reject every eighth request on lo. */
static int stress_srv_request(struct stress *s, struct kiwi_cm_id *id)
{
	int n = atomic_inc_return(&s->count[SC_SRV_REQUESTS]);
	enum stress_dev d = id->device == s->dev[STRESS_LO] ? STRESS_LO :
							      STRESS_KV1;
	struct kiwi_conn_param p = { .ird = 4, .ord = 4 };
	struct stress_pdata pdata;
	struct stress_child *ch;
	int ret;

	if (d == STRESS_LO && n % STRESS_REJECT_EVERY == 0) {
		ret = kiwi_cm_reject(id, STRESS_REJ, STRESS_REJ_LEN);
		stress_inc(s, ret ? SC_SRV_ANSWER_ERR : SC_SRV_REJECTED);
		return 1;
	}
	ch = kzalloc(sizeof(*ch), GFP_KERNEL);
	if (!ch) {
		stress_fail(s, "server: no memory for a connection");
		return 1;
	}
	ch->id = id;
	ch->buf = kzalloc(STRESS_BUF, GFP_KERNEL);
	ret = ch->buf ? stress_child_verbs(ch, s->pd[d]) : -ENOMEM;
	if (ret) {
		stress_fail(s, "server: a QP for a request on %s: %d",
			    id->device->name, ret);
		goto free_child;
	}
	pdata.addr = cpu_to_be64(ch->mr->iova);
	pdata.rkey = cpu_to_be32(ch->mr->rkey);
	p.private_data = &pdata;
	p.private_data_len = sizeof(pdata);
	p.qpn = ch->qp->qp_num;
	/* A client whose MPA timeout ran out is gone: the accept fails. */
	if (kiwi_cm_accept(id, &p)) {
		stress_inc(s, SC_SRV_ANSWER_ERR);
		goto free_child;
	}
	spin_lock(&s->lock);
	list_add_tail(&ch->node, &s->children);
	spin_unlock(&s->lock);
	stress_inc(s, SC_SRV_ACCEPTED);
	return 0;

free_child:
	stress_child_free(ch);
	return 1;
}

static struct stress_child *stress_child_find(struct stress *s,
					      struct kiwi_cm_id *id)
{
	struct stress_child *ch;

	lockdep_assert_held(&s->lock);
	list_for_each_entry(ch, &s->children, node)
		if (ch->id == id)
			return ch;
	return NULL;
}

/*
 * ESTABLISHED, DISCONNECT and CLOSE of an accepted connection, each at
 * most once. CLOSE ends it: the handler frees it and returns non-zero to
 * have the core destroy the id.
 */
static int stress_srv_conn_event(struct stress *s, struct kiwi_cm_id *id,
				 u8 event)
{
	const char *name = kiwi_cm_event_name(event);
	struct stress_child *ch;
	bool twice = false;

	spin_lock(&s->lock);
	ch = stress_child_find(s, id);
	if (ch && event == KIWI_CM_EVENT_CLOSE)
		list_del(&ch->node);
	else if (ch)
		twice = ch->ev[event]++;
	spin_unlock(&s->lock);
	if (!ch) {
		if (!READ_ONCE(s->cleaning))
			stress_fail(s, "server: %s on a connection it does not hold",
				    name);
		return 0;
	}
	if (twice)
		stress_fail(s, "server: %s twice on a connection", name);
	if (event == KIWI_CM_EVENT_ESTABLISHED)
		stress_inc(s, SC_SRV_UP);
	if (event == KIWI_CM_EVENT_DISCONNECT)
		kiwi_cm_disconnect(id, KIWI_CM_DISCONNECT_GRACEFUL);
	if (event != KIWI_CM_EVENT_CLOSE)
		return 0;
	stress_inc(s, SC_SRV_CLOSED);
	stress_child_free(ch);
	return 1;
}

/**
 * stress_srv_handler() - the server: the handler of every listener
 * @id: a listener's child
 * @ev: the event
 *
 * Context: a kiwi_cm worker.
 * Return: non-zero to have the core destroy @id (a request rejected or
 * not accepted, a connection closed), else 0.
 */
int stress_srv_handler(struct kiwi_cm_id *id, const struct kiwi_cm_event *ev)
{
	struct stress *s = id->context;

	switch (ev->event) {
	case KIWI_CM_EVENT_CONNECT_REQUEST:
		return stress_srv_request(s, id);
	case KIWI_CM_EVENT_ESTABLISHED:
	case KIWI_CM_EVENT_DISCONNECT:
	case KIWI_CM_EVENT_CLOSE:
		return stress_srv_conn_event(s, id, ev->event);
	default:
		stress_fail(s, "server: %s on an id in %s",
			    kiwi_cm_event_name(ev->event),
			    kiwi_cm_state_name(kiwi_cm_id_state(id)));
		return 0;
	}
}

/**
 * stress_listen() - a listener of the server on 127.0.0.1
 * @s: the round
 * @port: at STRESS_PORT + @port; &stress.lst[@port] is set to it
 *
 * Context: process context; the caller owns &stress.lst[@port].
 * Return: 0 or the error of kiwi_cm_create_id() or kiwi_cm_listen().
 */
int stress_listen(struct stress *s, int port)
{
	struct kiwi_cm_id *id;
	int ret;

	id = kiwi_cm_create_id(s->dev[STRESS_LO], stress_srv_handler, s);
	if (IS_ERR_OR_NULL(id))
		return PTR_ERR_OR_ZERO(id) ?: -ENOMEM;
	id->local_addr = s->lo[port];
	ret = kiwi_cm_listen(id, STRESS_BACKLOG);
	if (ret) {
		kiwi_cm_destroy_id(id);
		return ret;
	}
	s->lst[port] = id;
	stress_inc(s, SC_LISTENS);
	return 0;
}

static void stress_unlisten(struct stress *s, int port)
{
	kiwi_cm_destroy_id(s->lst[port]);
	s->lst[port] = NULL;
	stress_inc(s, SC_UNLISTENS);
}

/**
 * stress_listener_fn() - the listener thread
 * @arg: its &struct stress_thread
 *
 * Ports 1 and 2 in turn: a listener created or destroyed every 20 to
 * 300 ms, until the round ends.
 *
 * Context: a kthread.
 * Return: never; it completes &stress_thread.done as it exits.
 */
int stress_listener_fn(void *arg)
{
	struct stress_thread *th = arg;
	struct stress *s = th->s;
	unsigned int i;
	int ret;

	for (i = 0; !stress_over(s); i++) {
		int port = 1 + i % 2;

		stress_step(th, s->lst[port] ? "destroy listener" : "listen");
		if (s->lst[port]) {
			stress_unlisten(s, port);
		} else {
			ret = stress_listen(s, port);
			if (ret)
				stress_fail(s, "listener thread: listen on port %u: %d",
					    STRESS_PORT + port, ret);
		}
		stress_nap(th, 20, 300);
	}
	kthread_complete_and_exit(&th->done, 0);
}

/**
 * stress_device_fn() - the device thread
 * @arg: its &struct stress_thread
 *
 * Softiw on kv0 for 0.3 to 1.2 s, then gone for 0.1 to 0.6 s, until the
 * round ends; a detach that takes longer than STRESS_DETACH_MS fails.
 *
 * Context: a kthread.
 * Return: never; it completes &stress_thread.done as it exits.
 */
int stress_device_fn(void *arg)
{
	struct stress_thread *th = arg;
	struct stress *s = th->s;
	unsigned long t0;
	int ret;

	while (!stress_over(s)) {
		stress_step(th, "attach kv0");
		ret = kiwi_softiw_attach_in(&init_net, "kv0");
		if (ret) {
			stress_fail(s, "device thread: attach kv0: %d", ret);
			break;
		}
		stress_inc(s, SC_ATTACHES);
		stress_nap(th, 300, 1200);
		stress_step(th, "detach kv0");
		t0 = jiffies;
		ret = kiwi_softiw_detach_in(&init_net, "kv0");
		if (ret)
			stress_fail(s, "device thread: detach kv0: %d", ret);
		else
			stress_inc(s, SC_DETACHES);
		if (time_after(jiffies, t0 + msecs_to_jiffies(STRESS_DETACH_MS)))
			stress_fail(s, "device thread: detaching kv0 took %u ms",
				    jiffies_to_msecs(jiffies - t0));
		stress_nap(th, 100, 600);
	}
	kthread_complete_and_exit(&th->done, 0);
}

/**
 * stress_children_destroy() - destroy the server's connections left
 * @s: the round
 *
 * What never heard CLOSE is destroyed by the test; the handler lets go of
 * a connection it no longer finds from now on.
 *
 * Context: process context; the listeners are gone.
 */
void stress_children_destroy(struct stress *s)
{
	struct stress_child *ch, *next;
	LIST_HEAD(left);

	WRITE_ONCE(s->cleaning, true);
	spin_lock(&s->lock);
	list_splice_init(&s->children, &left);
	spin_unlock(&s->lock);
	list_for_each_entry_safe(ch, next, &left, node) {
		kiwi_cm_destroy_id(ch->id);
		stress_child_free(ch);
	}
}

/**
 * stress_listeners_destroy() - destroy the server's listeners
 * @s: the round
 *
 * Their destroy waits for the request handlers they started.
 *
 * Context: process context; the listener thread is done.
 */
void stress_listeners_destroy(struct stress *s)
{
	int i;

	for (i = 0; i < STRESS_LO_PORTS; i++)
		if (s->lst[i])
			stress_unlisten(s, i);
	if (s->lst_kv1)
		kiwi_cm_destroy_id(s->lst_kv1);
	s->lst_kv1 = NULL;
}
