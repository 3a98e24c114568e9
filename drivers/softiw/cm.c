// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_softiw connection endpoints: the dispatcher that steps an
 * endpoint's state machine (connection setup in setup.c, the data path
 * of an established connection in established.c), the endpoint's work
 * and timeout, the creation and first step of passive endpoints, the
 * queries of a QP's endpoint, and the iw_cm ops connect, accept and
 * reject. The primitives every phase uses are in cep_core.c.
 *
 * Socket callbacks only queue @work, or, while a caller steps the
 * endpoint itself, note that it missed an event (softiw_cep_step_end()
 * queues the work for it); everything else runs in process
 * context under the endpoint's mutex: the work, the timer (a delayed
 * work), the iw_cm ops, and a passive endpoint's first step, which the
 * listener's work runs. An upcall is made with the mutex held: the
 * core never calls back into a provider from kiwi_cm_upcall().
 */
#include <kunit/visibility.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <net/sock.h>
#include <linux/tcp.h>

#include "cm.h"

/* Steps of endpoints awaiting their request: by the listener, by their work. */
static atomic_long_t softiw_request_steps_listener;
static atomic_long_t softiw_request_steps_work;
/* First steps the listener handed to the CPU the connection arrives on. */
static atomic_long_t softiw_request_handoffs;
/* Runs of an active endpoint's work before its Reply that changed nothing. */
static atomic_long_t softiw_idle_connect_steps;

static void softiw_cep_step(struct softiw_cep *cep)
{
	lockdep_assert_held(&cep->lock);
	switch (cep->state) {
	case SOFTIW_CEP_CONNECTING:
	case SOFTIW_CEP_AWAIT_REPLY:
		softiw_cep_step_active(cep);
		break;
	case SOFTIW_CEP_AWAIT_REQUEST:
		softiw_cep_step_request(cep);
		break;
	case SOFTIW_CEP_AWAIT_ACCEPT:
		softiw_cep_step_await_accept(cep);
		break;
	case SOFTIW_CEP_AWAIT_RTR:
		softiw_cep_step_rtr(cep);
		break;
	case SOFTIW_CEP_ESTABLISHED:
		softiw_cep_step_established(cep);
		break;
	case SOFTIW_CEP_CLOSED:
		break;
	}
}

/*
 * The caller steps @cep before it drops the mutex: socket events from now
 * on are noted rather than queue the work (which would wake a worker only
 * to wait for the mutex, and find nothing left to do).
 */
static void softiw_cep_step_begin(struct softiw_cep *cep)
{
	lockdep_assert_held(&cep->lock);
	set_bit(SOFTIW_CEP_STEPPING, &cep->flags);
}

/*
 * Step @cep in the caller. What the events noted so far reported is in
 * the socket, which the step reads after MISSED is cleared; an event
 * noted after that queues the work once the caller stops stepping.
 */
static void softiw_cep_step_end(struct softiw_cep *cep)
{
	lockdep_assert_held(&cep->lock);
	clear_bit(SOFTIW_CEP_MISSED, &cep->flags);
	smp_mb__after_atomic();	/* clear before the step reads the socket */
	softiw_cep_step(cep);
	clear_bit(SOFTIW_CEP_STEPPING, &cep->flags);
	smp_mb__after_atomic();	/* STEPPING clear before MISSED is read */
	if (test_and_clear_bit(SOFTIW_CEP_MISSED, &cep->flags))
		softiw_cep_kick(cep);
}

static void softiw_cep_work(struct work_struct *work)
{
	struct softiw_cep *cep = container_of(work, struct softiw_cep, work);
	enum softiw_cep_state was;

	mutex_lock(&cep->lock);
	was = cep->state;
	if (was == SOFTIW_CEP_AWAIT_REQUEST)
		atomic_long_inc(&softiw_request_steps_work);
	softiw_cep_step(cep);
	if (cep->state == was && (was == SOFTIW_CEP_CONNECTING ||
				  was == SOFTIW_CEP_AWAIT_REPLY))
		atomic_long_inc(&softiw_idle_connect_steps);
	mutex_unlock(&cep->lock);
	softiw_cep_put(cep);
}

static void softiw_cep_timeout(struct work_struct *work)
{
	struct softiw_cep *cep = container_of(to_delayed_work(work),
					      struct softiw_cep, timer);

	mutex_lock(&cep->lock);
	switch (cep->state) {
	case SOFTIW_CEP_CONNECTING:
	case SOFTIW_CEP_AWAIT_REPLY:
		softiw_cep_connect_failed(cep, -ETIMEDOUT, NULL);
		break;
	case SOFTIW_CEP_AWAIT_REQUEST:
		softiw_cep_close(cep, true);
		break;
	case SOFTIW_CEP_AWAIT_RTR:
		softiw_cep_setup_failed(cep, -ETIMEDOUT, SOFTIW_TERM_MPA_RTR,
					cep->active ? &cep->setup->rtr.rep :
						      NULL);
		break;
	default:
		break;
	}
	mutex_unlock(&cep->lock);
	softiw_cep_put(cep);
}

static struct softiw_cep *softiw_cep_alloc(struct softiw_device *sdev,
					   struct socket *sock,
					   enum softiw_cep_state state)
{
	struct softiw_cep *cep = softiw_cep_new(sdev, sock, state);

	if (!cep)
		return NULL;
	INIT_WORK(&cep->work, softiw_cep_work);
	INIT_DELAYED_WORK(&cep->timer, softiw_cep_timeout);
	return cep;
}

/**
 * softiw_cep_passive() - take over a connection a listener accepted
 * @lst: the listener, lock held, not dead
 * @sock: the new socket
 *
 * The endpoint's work is not queued: what arrives from now on queues it,
 * what arrived before is read by softiw_cep_first_step(), which the
 * caller runs once it dropped @lst's lock.
 *
 * Context: process context, may sleep.
 * Return: the endpoint, waiting for the MPA request, with a reference for
 * the caller; or NULL without memory (then the caller still owns @sock).
 */
struct softiw_cep *softiw_cep_passive(struct softiw_listener *lst,
				      struct socket *sock)
{
	struct softiw_cep *cep;

	lockdep_assert_held(&lst->lock);
	cep = softiw_cep_alloc(lst->sdev, sock, SOFTIW_CEP_AWAIT_REQUEST);
	if (!cep)
		return NULL;
	softiw_cep_settings(cep, lst->id, SOFTIW_MAX_IRD_ORD,
			    SOFTIW_MAX_IRD_ORD);
	kiwi_softiw_mpa_rx_init(&cep->setup->mpa_rx, SOFTIW_MPA_REQUEST);
	refcount_inc(&lst->ref);
	cep->listener = lst;
	list_add_tail(&cep->pending, &lst->pending);
	lst->npending++;
	tcp_sock_set_nodelay(sock->sk);
	/*
	 * The clone has the listener's TOS already, unless
	 * net.ipv4.tcp_reflect_tos gave it the SYN's: the id's wins.
	 */
	softiw_sock_set_tos(sock, lst->id);
	softiw_sock_attach(sock, cep, softiw_cep_sk_event, &cep->cbs);
	/* An accepted socket was cloned with the listener's callbacks. */
	cep->cbs = lst->cbs;
	softiw_cep_arm_timer(cep,
			     kiwi_cm_option(lst->id, KIWI_IWARP_OPT_MPA_TIMEOUT_MS,
					    READ_ONCE(softiw_mpa_timeout_ms)));
	refcount_inc(&cep->ref);
	return cep;
}

/*
 * The CPU @cep's packets last arrived on, if it is another online one
 * than this: the CPU its first step belongs on.
 */
static int softiw_cep_elsewhere(struct softiw_cep *cep)
{
	int cpu = READ_ONCE(cep->sock->sk->sk_incoming_cpu);

	lockdep_assert_held(&cep->lock);
	if (cpu < 0 || cpu >= nr_cpu_ids || cpu == raw_smp_processor_id() ||
	    !cpu_online(cpu))
		return -1;
	return cpu;
}

/**
 * softiw_cep_first_step() - read what a new passive endpoint received
 *	before its socket callbacks were its own
 * @cep: the endpoint, from softiw_cep_passive(); the caller's reference
 *
 * Over lo or a veth the MPA Request is often in the socket by the time
 * the listener accepts it: this reads it, and delivers the request,
 * without waiting for the endpoint's work. An endpoint whose request is
 * not all there yet waits for its work, queued when more arrives; one
 * whose work ran meanwhile has moved on and is left alone.
 *
 * An endpoint whose packets arrive on another CPU gets its work queued
 * there instead. Each later hop of a connection runs where a packet or
 * an upcall came in, so the CPU of the first step is where the whole
 * connection goes on (the request's delivery, the ULP's accept, the
 * Reply, and over a veth the peer's processing of it); the listener's
 * work, one per listener, would otherwise gather every connection on
 * its own CPU while the others idle (Documentation/performance.rst).
 *
 * Context: process context, may sleep; not under the listener's lock (a
 * step takes it inside the endpoint's).
 */
void softiw_cep_first_step(struct softiw_cep *cep)
{
	int cpu;

	might_sleep();
	mutex_lock(&cep->lock);
	if (cep->state != SOFTIW_CEP_AWAIT_REQUEST)
		goto unlock;
	lockdep_assert_not_held(&cep->listener->lock);
	cpu = softiw_cep_elsewhere(cep);
	if (cpu >= 0) {
		atomic_long_inc(&softiw_request_handoffs);
		softiw_cep_kick_on(cep, cpu);
		goto unlock;
	}
	atomic_long_inc(&softiw_request_steps_listener);
	softiw_cep_step_request(cep);
unlock:
	mutex_unlock(&cep->lock);
}

/**
 * kiwi_softiw_request_steps() - steps of passive endpoints waiting for
 *	their MPA request, for tests
 * @listener: count those run by the listener's work rather than by the
 *	endpoint's own
 *
 * Context: any context.
 * Return: their number since the module loaded.
 */
unsigned long kiwi_softiw_request_steps(bool listener)
{
	return atomic_long_read(listener ? &softiw_request_steps_listener :
				&softiw_request_steps_work);
}
EXPORT_SYMBOL_IF_KUNIT(kiwi_softiw_request_steps);

/**
 * kiwi_softiw_request_handoffs() - first steps of passive endpoints the
 *	listener queued on the CPU their packets arrive on, for tests
 *
 * Context: any context.
 * Return: their number since the module loaded.
 */
unsigned long kiwi_softiw_request_handoffs(void)
{
	return atomic_long_read(&softiw_request_handoffs);
}
EXPORT_SYMBOL_IF_KUNIT(kiwi_softiw_request_handoffs);

/**
 * kiwi_softiw_idle_connect_steps() - runs of active endpoints' work, before
 *	their MPA Reply, that left the endpoint in the state they found it
 *	in (a step the connecting task had already done), for tests
 *
 * Context: any context.
 * Return: their number since the module loaded.
 */
unsigned long kiwi_softiw_idle_connect_steps(void)
{
	return atomic_long_read(&softiw_idle_connect_steps);
}
EXPORT_SYMBOL_IF_KUNIT(kiwi_softiw_idle_connect_steps);

/* The endpoint a QP is bound to, with a reference, or NULL. */
static struct softiw_cep *softiw_qp_get_cep(struct softiw_qp *sqp)
{
	struct softiw_cep *cep;
	unsigned long flags;

	spin_lock_irqsave(&sqp->lock, flags);
	cep = sqp->cep;
	if (cep)
		refcount_inc(&cep->ref);
	spin_unlock_irqrestore(&sqp->lock, flags);
	return cep;
}

/**
 * kiwi_softiw_qp_in_setup() - does a QP's connection still hold the
 *	state of connection setup? For tests
 * @qp: the QP
 *
 * Read under the endpoint's mutex: the upcall that reports a connection
 * up and the freeing of its setup state are one step, never seen apart.
 *
 * Context: process context, may sleep.
 * Return: true if the QP is bound to an endpoint that holds it.
 */
bool kiwi_softiw_qp_in_setup(struct ib_qp *qp)
{
	struct softiw_cep *cep = softiw_qp_get_cep(softiw_qp(qp));
	bool setup;

	might_sleep();
	if (!cep)
		return false;
	mutex_lock(&cep->lock);
	setup = cep->setup;
	mutex_unlock(&cep->lock);
	softiw_cep_put(cep);
	return setup;
}
EXPORT_SYMBOL_IF_KUNIT(kiwi_softiw_qp_in_setup);

/**
 * kiwi_softiw_qp_dead_peer() - the dead-peer settings of a QP's
 *	connection, for tests
 * @qp: the QP
 * @plan: set to the settings of its socket
 *
 * Context: process context, may sleep.
 * Return: true if the QP is bound to an endpoint with a socket that has
 * keepalive on.
 */
bool kiwi_softiw_qp_dead_peer(struct ib_qp *qp,
			      struct softiw_dead_peer *plan)
{
	struct softiw_cep *cep = softiw_qp_get_cep(softiw_qp(qp));
	bool on = false;

	might_sleep();
	if (!cep)
		return false;
	mutex_lock(&cep->lock);
	if (cep->sock)
		on = softiw_sock_dead_peer_of(cep->sock, plan);
	mutex_unlock(&cep->lock);
	softiw_cep_put(cep);
	return on;
}
EXPORT_SYMBOL_IF_KUNIT(kiwi_softiw_qp_dead_peer);

/**
 * kiwi_softiw_qp_tos() - the type of service of a QP's connection, for
 *	tests
 * @qp: the QP
 * @tos: set to what its socket sends with, and on the passive side what
 *	the peer's handshake came with (softiw_sock_tos_of())
 *
 * Context: process context, may sleep.
 * Return: true if the QP is bound to an endpoint with a socket.
 */
bool kiwi_softiw_qp_tos(struct ib_qp *qp, struct softiw_tos *tos)
{
	struct softiw_cep *cep = softiw_qp_get_cep(softiw_qp(qp));
	bool found = false;

	might_sleep();
	if (!cep)
		return false;
	mutex_lock(&cep->lock);
	if (cep->sock) {
		softiw_sock_tos_of(cep->sock, tos);
		found = true;
	}
	mutex_unlock(&cep->lock);
	softiw_cep_put(cep);
	return found;
}
EXPORT_SYMBOL_IF_KUNIT(kiwi_softiw_qp_tos);

/**
 * softiw_cep_close_pending() - drop a connection still waiting for its
 *	MPA request because its listener is going away
 * @cep: the endpoint; the caller holds a reference
 *
 * Context: process context, may sleep.
 */
void softiw_cep_close_pending(struct softiw_cep *cep)
{
	mutex_lock(&cep->lock);
	if (cep->state == SOFTIW_CEP_AWAIT_REQUEST)
		softiw_cep_close(cep, true);
	mutex_unlock(&cep->lock);
}

/**
 * softiw_cep_request_close() - the bound QP went to CLOSING or ERROR
 * @cep: the endpoint, whose close_req was just set
 *
 * Context: any context; the QP's lock is held.
 */
void softiw_cep_request_close(struct softiw_cep *cep)
{
	softiw_cep_kick(cep);
}

static int softiw_cep_start_connect(struct softiw_cep *cep,
				    struct kiwi_cm_id *id)
{
	int ret;

	softiw_sock_set_tos(cep->sock, id);	/* before the SYN */
	ret = softiw_sock_bind_local(cep->sock, &id->local_addr,
				     cep->sdev->kdev.netdev->ifindex);
	if (ret)
		return ret;
	kiwi_cm_id_add_ref(id);
	cep->id = id;
	softiw_sock_attach(cep->sock, cep, softiw_cep_sk_event,
			   &cep->cbs);
	ret = kernel_connect(cep->sock, (struct sockaddr *)&id->remote_addr,
			     sizeof(id->remote_addr), O_NONBLOCK);
	if (ret && ret != -EINPROGRESS) {
		softiw_sock_detach(cep->sock, &cep->cbs);
		cep->id = NULL;
		kiwi_cm_id_rem_ref(id);
		return ret;
	}
	id->provider_data = cep;
	softiw_cep_arm_timer(cep,
			     kiwi_cm_option(id, KIWI_IWARP_OPT_MPA_TIMEOUT_MS,
					    READ_ONCE(softiw_mpa_timeout_ms)));
	return 0;
}

static int softiw_cep_prepare_connect(struct softiw_cep *cep,
				      const struct kiwi_cm_id *id,
				      const struct kiwi_conn_param *param)
{
	struct softiw_setup *setup = cep->setup;
	int ret;

	if (param->private_data_len) {
		setup->pdata = kiwi_should_fail() ? NULL :
			       kmemdup(param->private_data,
				       param->private_data_len, GFP_KERNEL);
		if (!setup->pdata)
			return -ENOMEM;
	}
	softiw_cep_settings(cep, id, param->ird, param->ord);
	cep->active = true;
	ret = kiwi_softiw_mpa_request(&setup->local, setup->pdata,
				      param->private_data_len, &setup->req);
	if (ret)
		return ret;
	kiwi_softiw_mpa_rx_init(&setup->mpa_rx, SOFTIW_MPA_REPLY);
	return softiw_cep_bind_qp(cep, param->qpn);
}

/**
 * softiw_connect() - iw_connect: start a connection, never waiting on TCP
 * @id: the active id, remote_addr set
 * @param: QP, IRD/ORD and private data
 *
 * Context: process context, may sleep.
 * Return: 0 if the attempt started (a CONNECT_REPLY follows), or a
 * negative errno if it did not.
 */
int softiw_connect(struct kiwi_cm_id *id, const struct kiwi_conn_param *param)
{
	struct softiw_device *sdev = softiw_dev(id->device);
	struct softiw_cep *cep;
	struct socket *sock;
	int ret;

	might_sleep();
	if (param->private_data_len > SOFTIW_MPA_ULP_PD_MAX)
		return -EMSGSIZE;
	ret = softiw_sock_create(sdev, id->remote_addr.ss_family, &sock);
	if (ret)
		return ret;
	ret = -ENOMEM;
	cep = softiw_cep_alloc(sdev, sock, SOFTIW_CEP_CONNECTING);
	if (!cep)
		goto release_sock;
	mutex_lock(&cep->lock);
	ret = softiw_cep_prepare_connect(cep, id, param);
	if (ret)
		goto put_cep;
	softiw_cep_step_begin(cep);
	ret = softiw_cep_start_connect(cep, id);
	if (ret)
		goto unbind_qp;
	/*
	 * Over lo or a veth the handshake is done within kernel_connect():
	 * send the Request now, in the caller, rather than in a worker woken
	 * to wait for this mutex. The step may close @cep: it is pinned.
	 */
	refcount_inc(&cep->ref);
	softiw_cep_step_end(cep);
	mutex_unlock(&cep->lock);
	softiw_cep_put(cep);
	return 0;

unbind_qp:
	clear_bit(SOFTIW_CEP_STEPPING, &cep->flags);
	/*
	 * The QP was findable through the endpoint: a modify_qp(ERROR) or
	 * destroy_qp may hold a reference and wait for the mutex, or have
	 * queued the work. Leave it closed for them; the last put frees it.
	 */
	cep->state = SOFTIW_CEP_CLOSED;
	softiw_cep_unbind_qp(cep, false);
put_cep:
	mutex_unlock(&cep->lock);
	softiw_cep_put(cep);
release_sock:
	kiwi_softiw_sock_release(sock, false);
	return ret;
}

/* Negotiate, prepare the data path, then send the Reply. */
static int softiw_cep_send_accept(struct softiw_cep *cep,
				  const struct kiwi_conn_param *param)
{
	struct kiwi_softiw_mpa_result res;
	struct kiwi_softiw_mpa_info rep;
	int ret;

	softiw_cep_settings(cep, cep->id, param->ird, param->ord);
	ret = kiwi_softiw_mpa_accept(&cep->setup->local, &cep->setup->req,
				     param->private_data,
				     param->private_data_len, &rep, &res);
	if (ret)
		return ret;
	softiw_rtr_start(cep, &res);
	ret = softiw_cep_start_data(cep, &res);
	if (ret)
		return ret;
	return softiw_cep_send_mpa(cep, SOFTIW_MPA_REPLY, &rep);
}

/*
 * An accept that failed ends the request: the core leaves the child id
 * IDLE, and its destroy will not reject it. Reset the stream if the peer
 * is still there, and drop the child id's reference, without which the
 * endpoint would outlive its connection.
 */
static void softiw_cep_drop_request(struct softiw_cep *cep,
				    struct kiwi_cm_id *id)
{
	lockdep_assert_held(&cep->lock);
	if (cep->state == SOFTIW_CEP_AWAIT_ACCEPT)
		softiw_cep_close(cep, true);
	id->provider_data = NULL;
	if (cep->req_ref) {
		cep->req_ref = false;
		softiw_cep_put(cep);
	}
}

/**
 * softiw_accept() - iw_accept: send the MPA reply and establish
 * @id: the child id; provider_data is the endpoint
 * @param: QP, IRD/ORD and private data
 *
 * If the reply cannot be sent, accept still returns 0 and the id gets
 * CLOSE with the error (Documentation/softiw.rst). If accept fails, the
 * request is over: the stream is reset, the endpoint let go.
 *
 * Context: process context, may sleep.
 * Return: 0 (ESTABLISHED or CLOSE follows), -ECONNRESET if the peer went
 * away before, -EBUSY or -EINVAL for an unusable QP.
 */
int softiw_accept(struct kiwi_cm_id *id, const struct kiwi_conn_param *param)
{
	struct softiw_cep *cep = id->provider_data;
	int ret;

	might_sleep();
	refcount_inc(&cep->ref);
	mutex_lock(&cep->lock);
	ret = -ECONNRESET;
	if (cep->state != SOFTIW_CEP_AWAIT_ACCEPT)
		goto drop_request;
	ret = softiw_cep_bind_qp(cep, param->qpn);
	if (ret)
		goto drop_request;
	kiwi_cm_id_add_ref(id);
	cep->id = id;
	ret = softiw_cep_send_accept(cep, param);
	if (ret) {
		softiw_cep_abort(cep, ret);
		ret = 0;
		goto unlock;
	}
	if (softiw_rtr_awaited(cep))
		softiw_cep_await_rtr(cep);
	else
		softiw_cep_established(cep, NULL);
	goto unlock;

drop_request:
	softiw_cep_drop_request(cep, id);
unlock:
	mutex_unlock(&cep->lock);
	softiw_cep_put(cep);
	return ret;
}

/**
 * softiw_reject() - iw_reject: refuse a delivered request
 * @id: the child id; provider_data is the endpoint
 * @pdata: private data for the reject reply
 * @len: its length
 *
 * Context: process context, may sleep.
 * Return: 0.
 */
int softiw_reject(struct kiwi_cm_id *id, const void *pdata, u16 len)
{
	struct softiw_cep *cep = id->provider_data;
	struct kiwi_softiw_mpa_info rep;

	might_sleep();
	mutex_lock(&cep->lock);
	if (cep->state == SOFTIW_CEP_AWAIT_ACCEPT) {
		if (!kiwi_softiw_mpa_reject(&cep->setup->local,
					    &cep->setup->req, pdata, len,
					    &rep))
			softiw_cep_send_mpa(cep, SOFTIW_MPA_REPLY, &rep);
		softiw_cep_close(cep, false);
	}
	/* The child id's reference, which kept @cep alive up to here. */
	cep->req_ref = false;
	mutex_unlock(&cep->lock);
	softiw_cep_put(cep);
	return 0;
}

/**
 * softiw_cm_init() - create the connection manager's workqueue and the
 *	endpoints' caches
 *
 * Return: 0 or -ENOMEM.
 */
int softiw_cm_init(void)
{
	int ret = softiw_cep_init();

	if (ret)
		return ret;
	/*
	 * Per-CPU: an endpoint's work runs where its socket callback or
	 * the op that kicked it ran, and hands its upcall to the core's
	 * queue on the same CPU (as kiwi_iwcm's queue).
	 */
	softiw_cm_wq = alloc_workqueue("kiwi_softiw_cm", 0, 0);
	if (!softiw_cm_wq) {
		softiw_cep_exit();
		return -ENOMEM;
	}
	return 0;
}

/**
 * softiw_cm_exit() - wait for the last endpoint work, free the queue and,
 *	unless endpoints leaked, their caches
 */
void softiw_cm_exit(void)
{
	destroy_workqueue(softiw_cm_wq);
	softiw_cep_exit();
}
