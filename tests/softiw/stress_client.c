// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_softiw_stress: the client threads. An attempt: the verbs and an id
 * of its own, a connect, its terminal event; once up, a SEND or an RDMA
 * WRITE and one of four ends; then everything destroyed, and what the id
 * heard checked against the iw_cm contract. See stress_test.c.
 */
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/string.h>

#include <kiwi/provider.h>

#include "verbs_util.h"
#include "stress.h"

/* Record an event of the attempt's id. */
static void stress_cli_record(struct stress_client *c,
			      const struct kiwi_cm_event *ev)
{
	u8 type = ev->event;

	lockdep_assert_held(&c->lock);
	if (type >= KIWI_CM_NR_EVENTS)
		return;
	if (c->ev[type] < U8_MAX)
		c->ev[type]++;
	if (type == KIWI_CM_EVENT_CLOSE) {
		c->close = ev->status;
		c->close_early |= c->ev[KIWI_CM_EVENT_CONNECT_REPLY] != 1 ||
				  c->reply;
	}
	if (type != KIWI_CM_EVENT_CONNECT_REPLY &&
	    type != KIWI_CM_EVENT_DEVICE_REMOVAL)
		return;
	if (c->first == KIWI_CM_NR_EVENTS)
		c->first = type;
	if (type != KIWI_CM_EVENT_CONNECT_REPLY)
		return;
	c->reply = ev->status;
	c->rej = ev->status == -ECONNREFUSED &&
		 ev->private_data_len == STRESS_REJ_LEN &&
		 !memcmp(ev->private_data, STRESS_REJ, STRESS_REJ_LEN);
	c->pd_bad = !ev->status && ev->private_data_len != sizeof(c->peer);
	if (!ev->status && !c->pd_bad)
		memcpy(&c->peer, ev->private_data, sizeof(c->peer));
}

static int stress_cli_handler(struct kiwi_cm_id *id,
			      const struct kiwi_cm_event *ev)
{
	struct stress_client *c = id->context;
	bool late;

	spin_lock(&c->lock);
	if (c->creating && !c->id)
		c->id = id;
	late = id != c->id;
	if (!late)
		stress_cli_record(c, ev);
	spin_unlock(&c->lock);
	if (late)
		stress_fail(c->th.s, "%s: %s for an id it had destroyed",
			    c->th.name, kiwi_cm_event_name(ev->event));
	wake_up(&c->wq);
	return 0;
}

static u8 stress_cli_heard(struct stress_client *c, u8 event)
{
	u8 n;

	spin_lock(&c->lock);
	n = c->ev[event];
	spin_unlock(&c->lock);
	return n;
}

static bool stress_cli_gone(struct stress_client *c)
{
	return stress_cli_heard(c, KIWI_CM_EVENT_DEVICE_REMOVAL) ||
	       stress_cli_heard(c, KIWI_CM_EVENT_CLOSE);
}

static const char *stress_cli_where(struct stress_client *c)
{
	return c->kv0 ? "softiw_kv0" : "softiw_lo";
}

/* A wait that ran out: name the thread, the attempt and the step. */
static void stress_cli_hang(struct stress_client *c, const char *what)
{
	stress_fail(c->th.s, "%s, attempt %u on %s, port %u: no %s within %u ms (id %s)",
		    c->th.name, c->attempt, stress_cli_where(c),
		    c->kv0 ? STRESS_PORT_KV1 : STRESS_PORT + c->port, what,
		    STRESS_STEP_MS, kiwi_cm_state_name(kiwi_cm_id_state(c->id)));
}

/* A call that failed: -ENODEV is no news on softiw_kv0, which comes and goes. */
static int stress_cli_err(struct stress_client *c, int ret, const char *what)
{
	if (!c->kv0 || ret != -ENODEV)
		stress_fail(c->th.s, "%s, attempt %u: %s on %s: %d", c->th.name,
			    c->attempt, what, stress_cli_where(c), ret);
	return ret;
}

static int stress_cli_verbs(struct stress_client *c)
{
	struct ib_qp_init_attr init = {
		KT_QP_RC,
		.cap = { .max_send_wr = 2, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	void *p;

	stress_step(&c->th, "create CQ, PD, MR and QP");
	p = kt_cq(c->dev, 8, NULL, NULL);
	if (IS_ERR(p))
		return stress_cli_err(c, PTR_ERR(p), "create a CQ");
	c->cq = p;
	p = kiwi_alloc_pd(c->dev, 0);
	if (IS_ERR(p))
		return stress_cli_err(c, PTR_ERR(p), "allocate a PD");
	c->pd = p;
	p = kiwi_reg_kernel_mr(c->pd, c->buf, STRESS_BUF,
			       IB_ACCESS_LOCAL_WRITE);
	if (IS_ERR(p))
		return stress_cli_err(c, PTR_ERR(p), "register an MR");
	c->mr = p;
	init.send_cq = c->cq;
	init.recv_cq = c->cq;
	p = kiwi_create_qp(c->pd, &init);
	if (IS_ERR(p))
		return stress_cli_err(c, PTR_ERR(p), "create a QP");
	c->qp = p;
	return 0;
}

/* The attempt's verbs, its id and its connect. */
static int stress_cli_open(struct stress_client *c)
{
	struct stress *s = c->th.s;
	struct kiwi_conn_param p = { .ird = 4, .ord = 4 };
	struct kiwi_cm_id *id;
	bool late;
	int ret;

	spin_lock(&c->lock);
	memset(c->ev, 0, sizeof(c->ev));
	c->first = KIWI_CM_NR_EVENTS;
	c->reply = 0;
	c->close = 0;
	c->close_early = false;
	c->rej = false;
	c->pd_bad = false;
	spin_unlock(&c->lock);
	ret = stress_cli_verbs(c);
	if (ret)
		return ret;
	stress_step(&c->th, "create id");
	spin_lock(&c->lock);
	c->creating = true;
	spin_unlock(&c->lock);
	id = kiwi_cm_create_id(c->dev, stress_cli_handler, c);
	spin_lock(&c->lock);
	c->creating = false;
	late = c->id && c->id != id;
	c->id = IS_ERR_OR_NULL(id) ? NULL : id;
	spin_unlock(&c->lock);
	if (late)
		stress_fail(s, "%s: an event for an id it had destroyed",
			    c->th.name);
	if (IS_ERR_OR_NULL(id))
		return stress_cli_err(c, PTR_ERR_OR_ZERO(id) ?: -ENOMEM,
				      "create an id");
	id->remote_addr = c->kv0 ? s->kv1 : s->lo[c->port];
	p.qpn = c->qp->qp_num;
	stress_step(&c->th, "connect");
	ret = kiwi_cm_connect(id, &p);
	return ret ? stress_cli_err(c, ret, "connect") : 0;
}

/* Wait for the attempt's terminal event. Return: its outcome. */
static enum stress_count stress_cli_reply(struct stress_client *c)
{
	u8 first;
	bool rej;
	int reply;

	stress_step(&c->th, "wait for CONNECT_REPLY");
	if (!wait_event_timeout(c->wq, READ_ONCE(c->first) != KIWI_CM_NR_EVENTS,
				msecs_to_jiffies(STRESS_STEP_MS))) {
		stress_cli_hang(c, "CONNECT_REPLY");
		return SC_HUNG;
	}
	spin_lock(&c->lock);
	first = c->first;
	reply = c->reply;
	rej = c->rej;
	if (c->pd_bad)
		stress_fail(c->th.s, "%s, attempt %u: CONNECT_REPLY(0) without pdata",
			    c->th.name, c->attempt);
	spin_unlock(&c->lock);
	if (first == KIWI_CM_EVENT_DEVICE_REMOVAL)
		return SC_REMOVED;
	if (!reply)
		return SC_UP;
	if (reply == -ECONNREFUSED)
		return rej ? SC_REJECTED : SC_REFUSED;
	return SC_FAILED;
}

/* Poll for the data operation's completion. Return: 1, 0, -ENOTCONN. */
static int stress_cli_poll(struct stress_client *c, struct ib_wc *wc)
{
	unsigned long end = jiffies + msecs_to_jiffies(STRESS_STEP_MS);
	int n;

	do {
		n = kiwi_poll_cq(c->cq, 1, wc);
		if (n)
			return n;
		if (stress_cli_gone(c))
			return -ENOTCONN;
		usleep_range(200, 1000);
	} while (time_before(jiffies, end));
	return 0;
}

/* A SEND to the RECV the server posted, or a WRITE to its MR. */
static void stress_cli_data(struct stress_client *c, bool write)
{
	u32 len = 1 + stress_rand(&c->th, STRESS_BUF);
	struct ib_sge sge = {
		.addr = c->mr->iova, .length = len, .lkey = c->mr->lkey,
	};
	struct ib_rdma_wr wr = {
		.wr = { .wr_id = c->attempt, .sg_list = &sge, .num_sge = 1,
			.opcode = write ? IB_WR_RDMA_WRITE : IB_WR_SEND,
			.send_flags = IB_SEND_SIGNALED },
		.remote_addr = be64_to_cpu(c->peer.addr),
		.rkey = be32_to_cpu(c->peer.rkey),
	};
	const char *op = write ? "RDMA WRITE" : "SEND";
	const struct ib_send_wr *bad = NULL;
	struct ib_wc wc = {};
	int ret;

	memset(c->buf, c->attempt, len);
	stress_step(&c->th, op);
	ret = kiwi_post_send(c->qp, &wr.wr, &bad) ?: stress_cli_poll(c, &wc);
	if (ret == 1 && wc.status == IB_WC_SUCCESS) {
		stress_inc(c->th.s, write ? SC_WRITE : SC_SEND);
		c->data++;
		return;
	}
	stress_inc(c->th.s, SC_DATA_LOST);
	if (!c->kv0)	/* lo never goes, nor does the server abort */
		stress_fail(c->th.s, "%s, attempt %u: %s of %u bytes: %d, %s",
			    c->th.name, c->attempt, op, len, ret,
			    ret == 1 ? ib_wc_status_msg(wc.status) :
				       "no completion");
}

/* Disconnect; unless the destroy follows at once, wait for CLOSE. */
static void stress_cli_disconnect(struct stress_client *c, bool graceful,
				  bool wait)
{
	int ret, status;

	stress_step(&c->th, "disconnect");
	ret = kiwi_cm_disconnect(c->id, graceful ? KIWI_CM_DISCONNECT_GRACEFUL :
						   KIWI_CM_DISCONNECT_ABORTIVE);
	if (ret && !c->kv0)
		stress_fail(c->th.s, "%s, attempt %u: disconnect: %d",
			    c->th.name, c->attempt, ret);
	if (ret || !wait)
		return;
	stress_step(&c->th, "wait for CLOSE");
	if (!wait_event_timeout(c->wq, stress_cli_gone(c),
				msecs_to_jiffies(STRESS_STEP_MS))) {
		stress_cli_hang(c, "CLOSE");
		return;
	}
	spin_lock(&c->lock);
	status = c->close;
	spin_unlock(&c->lock);
	/* Graceful: CLOSE(0) on both sides; abortive: the provider's error. */
	if (!c->kv0 && graceful != !status)
		stress_fail(c->th.s, "%s, attempt %u: %s close ended in CLOSE(%d)",
			    c->th.name, c->attempt,
			    graceful ? "a graceful" : "an abortive", status);
}

/* Up: carry data, then end it one of four ways. */
static void stress_cli_up(struct stress_client *c)
{
	static const enum stress_count ends[] = {
		SC_END_GRACEFUL, SC_END_ABORT, SC_END_DESTROY, SC_END_LINGER,
	};
	u32 r = stress_rand(&c->th, 2 * ARRAY_SIZE(ends));

	stress_cli_data(c, r & 1);
	if (stress_cli_heard(c, KIWI_CM_EVENT_DEVICE_REMOVAL)) {
		stress_inc(c->th.s, SC_END_REMOVED);
		return;
	}
	r >>= 1;
	stress_inc(c->th.s, ends[r]);
	if (ends[r] != SC_END_DESTROY)
		stress_cli_disconnect(c, ends[r] != SC_END_ABORT,
				      ends[r] != SC_END_LINGER);
}

/* Destroy the attempt's id and QP in either order, then the rest. */
static void stress_cli_close(struct stress_client *c)
{
	bool qp_first = stress_rand(&c->th, 2);

	stress_step(&c->th, "destroy id and QP");
	if (qp_first && c->qp)
		kiwi_destroy_qp(c->qp);
	if (c->id)
		kiwi_cm_destroy_id(c->id);
	spin_lock(&c->lock);
	c->id = NULL;
	spin_unlock(&c->lock);
	if (!qp_first && c->qp)
		kiwi_destroy_qp(c->qp);
	stress_step(&c->th, "deregister MR, PD and CQ");
	if (c->mr)
		kiwi_dereg_mr(c->mr);
	if (c->pd)
		kiwi_dealloc_pd(c->pd);
	if (c->cq)
		kiwi_destroy_cq(c->cq);
	if (c->kv0)
		kiwi_device_put(c->dev);
	c->qp = NULL;
	c->mr = NULL;
	c->pd = NULL;
	c->cq = NULL;
	c->dev = NULL;
}

/* What the attempt's id heard, now that it is destroyed, against the contract. */
static void stress_cli_check(struct stress_client *c, int connect_ret,
			     enum stress_count outcome)
{
	struct stress *s = c->th.s;
	bool early;
	u8 ev[KIWI_CM_NR_EVENTS];
	int i;

	spin_lock(&c->lock);
	memcpy(ev, c->ev, sizeof(ev));
	early = c->close_early;
	spin_unlock(&c->lock);
	for (i = 0; i < KIWI_CM_NR_EVENTS; i++)
		if (ev[i] > 1)
			stress_fail(s, "%s, attempt %u: %s %u times", c->th.name,
				    c->attempt, kiwi_cm_event_name(i), ev[i]);
	if (ev[KIWI_CM_EVENT_CONNECT_REQUEST] || ev[KIWI_CM_EVENT_ESTABLISHED])
		stress_fail(s, "%s, attempt %u: a passive side's event on an active id",
			    c->th.name, c->attempt);
	if (connect_ret && (ev[KIWI_CM_EVENT_CONNECT_REPLY] ||
			    ev[KIWI_CM_EVENT_CLOSE]))
		stress_fail(s, "%s, attempt %u: events after a failed connect",
			    c->th.name, c->attempt);
	if (early)
		stress_fail(s, "%s, attempt %u: CLOSE before CONNECT_REPLY(0)",
			    c->th.name, c->attempt);
	if (ev[KIWI_CM_EVENT_DEVICE_REMOVAL] && !c->kv0)
		stress_fail(s, "%s, attempt %u: DEVICE_REMOVAL on softiw_lo",
			    c->th.name, c->attempt);
	if (!c->kv0 && c->port == STRESS_DEAD && outcome != SC_REFUSED)
		stress_fail(s, "%s, attempt %u: no listener, yet outcome %d (%d)",
			    c->th.name, c->attempt, outcome, c->reply);
}

/* Where the next attempt goes. */
static void stress_cli_pick(struct stress_client *c)
{
	struct stress *s = c->th.s;
	u32 r = stress_rand(&c->th, 16);

	c->attempt++;
	c->kv0 = false;
	c->dev = s->dev[STRESS_LO];
	/* Half to the listener that stays, half to those that come and go. */
	c->port = r & 1 ? 0 : 1 + ((r >> 1) & 1);
	if (c->attempt % 8 == 0) {
		c->port = STRESS_DEAD;
	} else if (r < 4) {
		c->dev = kiwi_device_get_by_name("softiw_kv0");
		c->kv0 = !!c->dev;
		stress_inc(s, c->kv0 ? SC_KV0 : SC_KV0_ABSENT);
		if (!c->kv0)
			c->dev = s->dev[STRESS_LO];
	}
}

static void stress_attempt(struct stress_client *c)
{
	enum stress_count outcome;
	int ret;

	stress_cli_pick(c);
	stress_inc(c->th.s, SC_ATTEMPTS);
	ret = stress_cli_open(c);
	outcome = ret ? SC_SETUP_ERR : stress_cli_reply(c);
	if (outcome == SC_UP)
		stress_cli_up(c);
	stress_cli_close(c);
	stress_cli_check(c, ret, outcome);
	stress_inc(c->th.s, outcome);
}

/**
 * stress_client_fn() - a client thread
 * @arg: the &stress_client.th of its client
 *
 * Attempts, one after the other, until the round ends.
 *
 * Context: a kthread.
 * Return: never; it completes &stress_thread.done as it exits.
 */
int stress_client_fn(void *arg)
{
	struct stress_client *c = container_of(arg, struct stress_client, th);

	while (!stress_over(c->th.s))
		stress_attempt(c);
	stress_step(&c->th, "exit");
	kthread_complete_and_exit(&c->th.done, 0);
}
