// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_softiw connection endpoints: the MPA exchange over a kernel TCP
 * socket, for both ends, and the teardown of established connections.
 *
 * Socket callbacks only queue @work; everything else runs in process
 * context under the endpoint's mutex: the work, the timer (a delayed
 * work), the iw_cm ops, and a passive endpoint's first step, which the
 * listener's work runs. An upcall is made with the mutex held: the
 * core never calls back into a provider from kiwi_cm_upcall().
 */
#include <kunit/visibility.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <net/sock.h>
#include <linux/tcp.h>
#include <net/tcp_states.h>

#include "cm.h"

static unsigned int softiw_mpa_rev = SOFTIW_MPA_REV2;
module_param_named(mpa_rev, softiw_mpa_rev, uint, 0644);
MODULE_PARM_DESC(mpa_rev, "highest MPA revision offered and accepted, 1 or 2 (default 2)");

static bool softiw_mpa_crc;
module_param_named(mpa_crc, softiw_mpa_crc, bool, 0644);
MODULE_PARM_DESC(mpa_crc, "ask for CRC32c on FPDUs (default off; a peer's request is honoured)");

static unsigned int softiw_mpa_timeout_ms = 10000;
module_param_named(mpa_timeout_ms, softiw_mpa_timeout_ms, uint, 0644);
MODULE_PARM_DESC(mpa_timeout_ms, "time for TCP connect plus MPA reply (active) or for the MPA request (passive), ms (default 10000)");

static bool softiw_mpa_p2p;
module_param_named(mpa_p2p, softiw_mpa_p2p, bool, 0644);
MODULE_PARM_DESC(mpa_p2p, "initiator: ask for the peer-to-peer model with an RTR message (needs mpa_rev 2; default off)");

static unsigned int softiw_mpa_rtr = SOFTIW_RTR_ALL;
module_param_named(mpa_rtr, softiw_mpa_rtr, uint, 0644);
MODULE_PARM_DESC(mpa_rtr, "RTR types offered (initiator) and accepted (responder): 1 WRITE, 2 READ, 4 SEND, or a sum (default 7)");

static unsigned int softiw_rtr_timeout_ms = 10000;
module_param_named(rtr_timeout_ms, softiw_rtr_timeout_ms, uint, 0644);
MODULE_PARM_DESC(rtr_timeout_ms, "peer-to-peer: time for the RTR (responder) or the READ response (initiator) after the MPA reply, ms (default 10000)");

static unsigned int softiw_dead_peer_ms = 60000;
module_param_named(dead_peer_ms, softiw_dead_peer_ms, uint, 0644);
MODULE_PARM_DESC(dead_peer_ms, "an established connection whose peer answers nothing (keepalives, data, window probes) for this long is closed, ms; 0: never (default 60000)");

unsigned int softiw_max_pending = 32;
module_param_named(max_pending, softiw_max_pending, uint, 0644);
MODULE_PARM_DESC(max_pending, "connections per listener waiting for their MPA request; a new one drops the oldest (default 32)");

struct workqueue_struct *softiw_cm_wq;

/* Steps of endpoints awaiting their request: by the listener, by their work. */
static atomic_long_t softiw_request_steps_listener;
static atomic_long_t softiw_request_steps_work;
/* First steps the listener handed to the CPU the connection arrives on. */
static atomic_long_t softiw_request_handoffs;
/* Runs of an active endpoint's work before its Reply that changed nothing. */
static atomic_long_t softiw_idle_connect_steps;

/* Queue @cep's work on @cpu (WORK_CPU_UNBOUND: this one), with a reference. */
static void softiw_cep_kick_on(struct softiw_cep *cep, int cpu)
{
	refcount_inc(&cep->ref);
	if (!queue_work_on(cpu, softiw_cm_wq, &cep->work))
		softiw_cep_put(cep);
}

/**
 * softiw_cep_kick() - run the endpoint's state machine and data path soon
 * @cep: the endpoint
 *
 * Context: any context.
 */
void softiw_cep_kick(struct softiw_cep *cep)
{
	softiw_cep_kick_on(cep, WORK_CPU_UNBOUND);
}

/*
 * Leave a socket event to the task that is stepping @cep, if one is: it
 * looks at MISSED after it clears STEPPING, so either it sees the bit or
 * this sees STEPPING clear (both barriers are full).
 */
static bool softiw_cep_note_event(struct softiw_cep *cep)
{
	if (!test_bit(SOFTIW_CEP_STEPPING, &cep->flags))
		return false;
	set_bit(SOFTIW_CEP_MISSED, &cep->flags);
	smp_mb__after_atomic();	/* MISSED before STEPPING is read again */
	return test_bit(SOFTIW_CEP_STEPPING, &cep->flags);
}

static void softiw_cep_sk_event(struct sock *sk)
{
	struct softiw_cep *cep;

	read_lock_bh(&sk->sk_callback_lock);
	cep = sk->sk_user_data;
	if (cep && !softiw_cep_note_event(cep))
		softiw_cep_kick(cep);
	read_unlock_bh(&sk->sk_callback_lock);
}

/* Room in a send buffer that was full: the transmitter may go on. */
static void softiw_cep_sk_write_space(struct sock *sk)
{
	if (!sk->sk_socket || !sk_stream_is_writeable(sk))
		return;
	clear_bit(SOCK_NOSPACE, &sk->sk_socket->flags);
	softiw_cep_sk_event(sk);
}

/* KIWI_IWARP_OPT_RTR takes the bits of SOFTIW_RTR_*. */
static_assert(((SOFTIW_RTR_WRITE ^ KIWI_IWARP_RTR_WRITE) |
	       (SOFTIW_RTR_READ ^ KIWI_IWARP_RTR_READ) |
	       (SOFTIW_RTR_SEND ^ KIWI_IWARP_RTR_SEND)) == 0);

/*
 * This end's MPA settings: the options of @id (passive: the listener's id
 * until the request is delivered, then the child's, which inherited them),
 * else the module parameters.
 */
static void softiw_cep_settings(struct softiw_cep *cep,
				const struct kiwi_cm_id *id, u16 ird, u16 ord)
{
	u32 rev = kiwi_cm_option(id, KIWI_IWARP_OPT_MPA_REV,
			     READ_ONCE(softiw_mpa_rev));
	u8 rtr = kiwi_cm_option(id, KIWI_IWARP_OPT_RTR,
			    READ_ONCE(softiw_mpa_rtr)) & SOFTIW_RTR_ALL;
	bool p2p = kiwi_cm_option(id, KIWI_IWARP_OPT_P2P,
			      READ_ONCE(softiw_mpa_p2p));

	rev = rev == SOFTIW_MPA_REV1 ? SOFTIW_MPA_REV1 : SOFTIW_MPA_REV2;
	cep->setup->local = (struct kiwi_softiw_mpa_local) {
		.rev = rev,
		.crc = kiwi_cm_option(id, KIWI_IWARP_OPT_MPA_CRC,
				  READ_ONCE(softiw_mpa_crc)),
		.p2p = p2p && rev == SOFTIW_MPA_REV2 && rtr,
		.rtr = rtr,
		.ird = ird,
		.ord = ord,
	};
}

static void softiw_cep_arm_timer(struct softiw_cep *cep, unsigned int ms)
{
	refcount_inc(&cep->ref);
	if (!queue_delayed_work(softiw_cm_wq, &cep->timer,
				msecs_to_jiffies(ms)))
		softiw_cep_put(cep);
}

static void softiw_cep_stop_timer(struct softiw_cep *cep)
{
	if (cancel_delayed_work(&cep->timer))
		softiw_cep_put(cep);
}

static int softiw_cep_bind_qp(struct softiw_cep *cep, u32 qpn)
{
	struct ib_qp *qp = softiw_get_qp(&cep->sdev->kdev, qpn);
	struct softiw_qp *sqp;
	unsigned long flags;
	int ret = 0;

	if (!qp)
		return -EINVAL;
	sqp = softiw_qp(qp);
	spin_lock_irqsave(&sqp->lock, flags);
	if (sqp->cep || sqp->state != IB_QPS_INIT)
		ret = -EBUSY;
	else
		sqp->cep = cep;
	spin_unlock_irqrestore(&sqp->lock, flags);
	if (ret)
		return ret;
	refcount_inc(&sqp->ref);
	cep->qp = sqp;
	return 0;
}

/*
 * Unbind the QP; a connection that existed leaves it in ERROR, flushed
 * (normally done already, before the last upcall).
 */
static void softiw_cep_unbind_qp(struct softiw_cep *cep, bool error)
{
	struct softiw_qp *sqp = cep->qp;
	unsigned long flags;

	if (!sqp)
		return;
	lockdep_assert_held(&cep->lock);
	if (error)
		softiw_qp_flush(sqp);
	spin_lock_irqsave(&sqp->lock, flags);
	sqp->cep = NULL;
	spin_unlock_irqrestore(&sqp->lock, flags);
	cep->qp = NULL;
	softiw_qp_put(sqp);
}

static void softiw_cep_qp_move(struct softiw_cep *cep,
			       enum ib_qp_state state)
{
	unsigned long flags;

	spin_lock_irqsave(&cep->qp->lock, flags);
	if (cep->qp->state != IB_QPS_ERR)
		cep->qp->state = state;
	spin_unlock_irqrestore(&cep->qp->lock, flags);
}

/*
 * The QP goes live: IDLE to RTS. One the ULP moved meanwhile (to
 * CLOSING or ERROR) refuses: the connection is aborted instead.
 */
static int softiw_cep_qp_start(struct softiw_cep *cep)
{
	struct softiw_qp *sqp = cep->qp;
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(&sqp->lock, flags);
	if (sqp->state == IB_QPS_INIT && !cep->close_req)
		sqp->state = IB_QPS_RTS;
	else
		ret = -ECONNABORTED;
	spin_unlock_irqrestore(&sqp->lock, flags);
	return ret;
}

/*
 * MPA is done: the socket now carries FPDUs for the QP. Sets up both
 * directions; the QP goes to RTS.
 */
static int softiw_cep_start_data(struct softiw_cep *cep,
				 const struct kiwi_softiw_mpa_result *res)
{
	int ret;

	lockdep_assert_held(&cep->lock);
	cep->crc = res->crc;
	softiw_rx_start(cep);
	ret = softiw_tx_start(cep, res);
	if (ret)
		return ret;
	ret = softiw_cep_qp_start(cep);
	if (ret)
		return ret;
	softiw_sock_watch_space(cep->sock, softiw_cep_sk_write_space);
	softiw_sock_dead_peer(cep->sock, READ_ONCE(softiw_dead_peer_ms));
	return 0;
}

static void softiw_cep_leave_listener(struct softiw_cep *cep)
{
	struct softiw_listener *lst = cep->listener;

	if (!lst)
		return;
	mutex_lock(&lst->lock);
	if (!list_empty(&cep->pending)) {
		list_del_init(&cep->pending);
		lst->npending--;
	}
	mutex_unlock(&lst->lock);
	cep->listener = NULL;
	softiw_listener_put(lst);
}

/*
 * Tear the endpoint down: socket (reset if @abort), timer, QP, listener,
 * cm_id. The caller holds its own reference; the connection's is dropped.
 * Every upcall for the id must have been made before.
 */
static void softiw_cep_close(struct softiw_cep *cep, bool abort)
{
	lockdep_assert_held(&cep->lock);
	if (cep->state == SOFTIW_CEP_CLOSED)
		return;
	cep->state = SOFTIW_CEP_CLOSED;
	softiw_cep_stop_timer(cep);
	softiw_sock_detach(cep->sock, &cep->cbs);
	if (abort)
		sock_no_linger(cep->sock->sk);
	sock_release(cep->sock);
	cep->sock = NULL;
	softiw_tx_stop(cep);
	softiw_cep_unbind_qp(cep, true);
	softiw_cep_leave_listener(cep);
	if (cep->id) {
		kiwi_cm_id_rem_ref(cep->id);
		cep->id = NULL;
		if (cep->req_ref) {
			cep->req_ref = false;
			softiw_cep_put(cep);
		}
	}
	softiw_cep_put(cep);
}

/*
 * Return: kiwi_cm_upcall()'s answer; -ENOMEM after a non-terminal event
 * means the owner got CLOSE(-ENOMEM) already: see softiw_cep_dropped().
 */
static int softiw_cep_upcall(struct softiw_cep *cep,
			     enum kiwi_cm_event_type type, int status,
			     const struct kiwi_softiw_mpa_info *info)
{
	struct kiwi_cm_event ev = { .event = type, .status = status };

	if (info) {
		ev.private_data = info->pdata;
		ev.private_data_len = info->pd_len;
		ev.ird = info->enhanced ? info->ird : cep->setup->local.ird;
		ev.ord = info->enhanced ? info->ord : cep->setup->local.ord;
	}
	return kiwi_cm_upcall(cep->id, &ev);
}

/*
 * The core could not queue an event and ended the connection for its
 * owner: flush the QP and reset the stream, with no further upcall.
 */
static void softiw_cep_dropped(struct softiw_cep *cep)
{
	if (cep->qp)
		softiw_qp_flush(cep->qp);
	softiw_cep_close(cep, true);
}

/* Active side: the attempt is over, unsuccessfully; RECVs are flushed. */
static void softiw_cep_connect_failed(struct softiw_cep *cep, int status,
				      const struct kiwi_softiw_mpa_info *rep)
{
	if (cep->qp)
		softiw_qp_flush(cep->qp);
	softiw_cep_upcall(cep, KIWI_CM_EVENT_CONNECT_REPLY, status, rep);
	softiw_cep_close(cep, true);
}

/*
 * The connection is over: the QP goes to ERROR with its queues flushed
 * before the terminal CLOSE reaches the core; then the stream is closed
 * (reset if @abort).
 */
static void softiw_cep_finish(struct softiw_cep *cep, int status, bool abort)
{
	if (cep->qp)
		softiw_qp_flush(cep->qp);
	softiw_cep_upcall(cep, KIWI_CM_EVENT_CLOSE, status, NULL);
	softiw_cep_close(cep, abort);
}

/* Established connection gone with an error: the terminal CLOSE. */
static void softiw_cep_abort(struct softiw_cep *cep, int status)
{
	softiw_cep_finish(cep, status, true);
}

/*
 * Read the peer's MPA frame as far as it has arrived, never past its end.
 * Return: SOFTIW_MPA_RX_MORE, SOFTIW_MPA_RX_DONE, or a negative errno
 * (-ECONNRESET for a stream that ended).
 */
static int softiw_cep_read_mpa(struct softiw_cep *cep,
			       struct kiwi_softiw_mpa_info *info)
{
	u8 buf[64];
	int ret;

	for (;;) {
		size_t want = kiwi_softiw_mpa_rx_missing(&cep->setup->mpa_rx);

		ret = softiw_sock_recv(cep->sock, buf,
				       clamp_t(size_t, want, 1, sizeof(buf)));
		if (ret == -EAGAIN)
			return SOFTIW_MPA_RX_MORE;
		if (!ret)
			return -ECONNRESET;
		if (ret < 0)
			return ret;
		ret = kiwi_softiw_mpa_rx_feed(&cep->setup->mpa_rx, buf, ret,
					      info);
		if (ret)
			return ret;
	}
}

static int softiw_cep_send_mpa(struct softiw_cep *cep,
			       enum softiw_mpa_kind kind,
			       const struct kiwi_softiw_mpa_info *info)
{
	u8 *frame;
	int len;

	frame = kmalloc(SOFTIW_MPA_FRAME_MAX, GFP_KERNEL);
	if (!frame)
		return -ENOMEM;
	len = kiwi_softiw_mpa_build(kind, info, frame, SOFTIW_MPA_FRAME_MAX);
	if (len > 0)
		len = softiw_sock_send(cep->sock, frame, len);
	kfree(frame);
	return len < 0 ? len : 0;
}

/* Bytes of a refused stream discarded before the FIN, at most. */
#define SOFTIW_DRAIN_MAX	(64 * 1024)

/*
 * Discard what the peer sent that is still unread (the rest of a refused
 * FPDU, say): releasing a socket with unread data resets the stream and
 * drops the TERMINATE still queued. Bounded: beyond it the stream resets.
 */
static void softiw_cep_drain(struct softiw_cep *cep)
{
	u8 scratch[256];
	int ret, left = SOFTIW_DRAIN_MAX;

	do {
		ret = softiw_sock_recv(cep->sock, scratch, sizeof(scratch));
		left -= ret;
	} while (ret > 0 && left > 0);
}

/*
 * The event of a connection that is up reports the depths in force, seen
 * from the peer as in a CONNECT_REQUEST: @ird the Read Requests the peer
 * serves (this end's ORD), @ord the ones it may send (this end's IRD).
 */
static int softiw_cep_upcall_up(struct softiw_cep *cep,
				enum kiwi_cm_event_type type,
				const struct kiwi_softiw_mpa_info *rep)
{
	struct kiwi_cm_event ev = {
		.event = type,
		.ird = cep->tx.ord,
		.ord = cep->tx.ird,
	};

	if (rep) {
		ev.private_data = rep->pdata;
		ev.private_data_len = rep->pd_len;
	}
	/* the addresses the stream has: the core keeps the local one */
	if (cep->active &&
	    softiw_sock_addrs(cep->sock, &ev.local_addr, &ev.remote_addr))
		ev.local_addr.ss_family = AF_UNSPEC;
	return kiwi_cm_upcall(cep->id, &ev);
}

/*
 * Is there work for the data path as it starts: bytes, a FIN or an error
 * that reached the socket, or sends posted while the setup ended (held
 * back until the RTR in peer-to-peer mode)? What comes later kicks the
 * work itself: the socket callbacks are in place since the connection
 * began, and a post kicks it.
 */
static bool softiw_cep_dp_pending(struct softiw_cep *cep)
{
	struct sock *sk = cep->sock->sk;

	return !skb_queue_empty_lockless(&sk->sk_receive_queue) ||
	       READ_ONCE(sk->sk_state) != TCP_ESTABLISHED ||
	       READ_ONCE(sk->sk_err) ||
	       softiw_wq_peek(cep->qp, &cep->qp->sq);
}

/*
 * Connection setup is over: ESTABLISHED, or CONNECT_REPLY(0) with @rep
 * (which may be in the setup state, freed after the upcall).
 */
static void softiw_cep_established(struct softiw_cep *cep,
				   const struct kiwi_softiw_mpa_info *rep)
{
	enum kiwi_cm_event_type type = cep->active ?
		KIWI_CM_EVENT_CONNECT_REPLY : KIWI_CM_EVENT_ESTABLISHED;
	int ret;

	lockdep_assert_held(&cep->lock);
	cep->state = SOFTIW_CEP_ESTABLISHED;
	ret = softiw_cep_upcall_up(cep, type, rep);
	softiw_cep_setup_free(cep);
	if (ret == -ENOMEM) {
		softiw_cep_dropped(cep);
		return;
	}
	/* FPDUs may have followed already, or the peer closed. */
	if (softiw_cep_dp_pending(cep))
		softiw_cep_kick(cep);
}

/* Peer-to-peer: wait for the RTR, or the READ response, in time. */
static void softiw_cep_await_rtr(struct softiw_cep *cep)
{
	u32 ms = kiwi_cm_option(cep->id, KIWI_IWARP_OPT_RTR_TIMEOUT_MS,
				READ_ONCE(softiw_rtr_timeout_ms));

	lockdep_assert_held(&cep->lock);
	cep->state = SOFTIW_CEP_AWAIT_RTR;
	softiw_cep_arm_timer(cep, ms);
	softiw_cep_kick(cep);
}

/*
 * Connection setup failed after the MPA frames: the TERMINATE of LLP
 * error @ecode (none if 0) and a FIN, then CONNECT_REPLY(@status) on the
 * initiator, CLOSE(@status) on the responder. Without a TERMINATE, or if
 * it cannot be queued, the stream is reset.
 */
static void softiw_cep_setup_failed(struct softiw_cep *cep, int status,
				    u8 ecode,
				    const struct kiwi_softiw_mpa_info *rep)
{
	enum kiwi_cm_event_type type = cep->active ?
		KIWI_CM_EVENT_CONNECT_REPLY : KIWI_CM_EVENT_CLOSE;
	bool abort = true;

	lockdep_assert_held(&cep->lock);
	if (ecode && cep->qp)
		softiw_cep_qp_move(cep, IB_QPS_SQE);
	if (ecode && !softiw_rtr_terminate(cep, ecode)) {
		kernel_sock_shutdown(cep->sock, SHUT_WR);
		softiw_cep_drain(cep);
		abort = false;
	}
	if (cep->qp)
		softiw_qp_flush(cep->qp);
	softiw_cep_upcall(cep, type, status, rep);
	softiw_cep_close(cep, abort);
}

/*
 * The initiator refuses a Reply. Insufficient IRD and no matching RTR
 * are told to the responder with a TERMINATE (RFC 6581), in
 * the framing the Reply agreed; other refusals reset the stream.
 */
static void softiw_cep_reply_refused(struct softiw_cep *cep, int err,
				     const struct kiwi_softiw_mpa_info *rep)
{
	u8 ecode;

	if (err == -ENOSPC) {
		ecode = SOFTIW_TERM_MPA_IRD;
	} else if (err == -ENOPROTOOPT) {
		ecode = SOFTIW_TERM_MPA_RTR;
	} else {
		softiw_cep_connect_failed(cep, err, rep);
		return;
	}
	cep->crc = cep->setup->req.crc || rep->crc;
	softiw_cep_setup_failed(cep, err, ecode, rep);
}

static void softiw_cep_step_connecting(struct softiw_cep *cep)
{
	struct sock *sk = cep->sock->sk;
	int ret;

	if (sk->sk_state == TCP_SYN_SENT)
		return;
	if (sk->sk_state != TCP_ESTABLISHED) {
		softiw_cep_connect_failed(cep, -ECONNREFUSED, NULL);
		return;
	}
	ret = softiw_cep_send_mpa(cep, SOFTIW_MPA_REQUEST, &cep->setup->req);
	if (ret) {
		softiw_cep_connect_failed(cep, ret, NULL);
		return;
	}
	cep->state = SOFTIW_CEP_AWAIT_REPLY;
}

static void softiw_cep_step_reply(struct softiw_cep *cep)
{
	struct kiwi_softiw_mpa_result res;
	struct kiwi_softiw_mpa_info rep;
	int ret;

	ret = softiw_cep_read_mpa(cep, &rep);
	if (ret == SOFTIW_MPA_RX_MORE)
		return;
	if (ret < 0) {
		softiw_cep_connect_failed(cep, ret, NULL);
		return;
	}
	ret = kiwi_softiw_mpa_connected(&cep->setup->local, &cep->setup->req,
					&rep, &res);
	if (ret) {
		softiw_cep_reply_refused(cep, ret, &rep);
		return;
	}
	softiw_cep_stop_timer(cep);
	softiw_rtr_start(cep, &res);
	ret = softiw_cep_start_data(cep, &res);
	if (!ret)
		ret = softiw_rtr_send(cep);
	if (ret) {
		softiw_cep_connect_failed(cep, ret, NULL);
		return;
	}
	if (softiw_rtr_awaited(cep)) {
		cep->setup->rtr.rep = rep;
		softiw_cep_await_rtr(cep);
		return;
	}
	softiw_cep_established(cep, &rep);
}

/* Refuse a request this end cannot serve, without bothering the ULP. */
static void softiw_cep_refuse(struct softiw_cep *cep)
{
	struct kiwi_softiw_mpa_info rep;

	if (!kiwi_softiw_mpa_reject(&cep->setup->local, &cep->setup->req,
				    NULL, 0, &rep))
		softiw_cep_send_mpa(cep, SOFTIW_MPA_REPLY, &rep);
	softiw_cep_close(cep, false);
}

static int softiw_cep_deliver(struct softiw_cep *cep)
{
	const struct softiw_setup *setup = cep->setup;
	struct softiw_listener *lst = cep->listener;
	struct kiwi_cm_event ev = {
		.event = KIWI_CM_EVENT_CONNECT_REQUEST,
		.provider_data = cep,
		.private_data = setup->req.pdata,
		.private_data_len = setup->req.pd_len,
		.ird = setup->req.enhanced ? setup->req.ird : setup->local.ird,
		.ord = setup->req.enhanced ? setup->req.ord : setup->local.ord,
	};
	int ret;

	ret = softiw_sock_addrs(cep->sock, &ev.local_addr, &ev.remote_addr);
	if (ret)
		return ret;
	mutex_lock(&lst->lock);
	/* off the list: the listener dropped it for a newer connection */
	if (lst->dead || list_empty(&cep->pending)) {
		ret = -ECONNREFUSED;
		goto unlock;
	}
	list_del_init(&cep->pending);
	lst->npending--;
	refcount_inc(&cep->ref);
	cep->req_ref = true;
	cep->state = SOFTIW_CEP_AWAIT_ACCEPT;
	ret = kiwi_cm_upcall(lst->id, &ev);
	if (ret) {
		cep->req_ref = false;
		refcount_dec(&cep->ref);
	}
unlock:
	mutex_unlock(&lst->lock);
	return ret;
}

static void softiw_cep_step_request(struct softiw_cep *cep)
{
	int ret;

	ret = softiw_cep_read_mpa(cep, &cep->setup->req);
	if (ret == SOFTIW_MPA_RX_MORE)
		return;
	if (ret < 0) {
		softiw_cep_close(cep, true);
		return;
	}
	softiw_cep_stop_timer(cep);
	if (cep->setup->req.markers) {
		softiw_cep_refuse(cep);
		return;
	}
	ret = softiw_cep_deliver(cep);
	if (ret) {
		softiw_cep_refuse(cep);
		return;
	}
	softiw_cep_leave_listener(cep);
}

/* Before accept or reject the peer may send nothing, nor go away. */
static void softiw_cep_step_await_accept(struct softiw_cep *cep)
{
	struct sock *sk = cep->sock->sk;
	u8 byte;

	if (sk->sk_state == TCP_ESTABLISHED &&
	    softiw_sock_recv(cep->sock, &byte, 1) == -EAGAIN)
		return;
	softiw_cep_close(cep, true);
}

/*
 * A protocol error, or a CQ overflow: send a TERMINATE, QP to TERMINATE
 * then ERROR, CLOSE(@status). The FIN follows the TERMINATE; if the
 * TERMINATE cannot be queued the stream is reset.
 */
static void softiw_cep_terminate(struct softiw_cep *cep, int status)
{
	int ret;

	softiw_cep_qp_move(cep, IB_QPS_SQE);
	ret = softiw_tx_terminate(cep);
	if (!ret) {
		kernel_sock_shutdown(cep->sock, SHUT_WR);
		softiw_cep_drain(cep);
	}
	softiw_cep_finish(cep, status, ret != 0);
}

/* A completion did not fit its CQ: a local catastrophic error. */
static void softiw_cep_overflow(struct softiw_cep *cep)
{
	cep->rx.hdr_ok = false;
	cep->rx.cause = (struct kiwi_softiw_term_cause) {
		.layer = SOFTIW_TERM_LAYER_RDMAP,
		.etype = SOFTIW_TERM_RDMAP_CATASTROPHIC,
	};
	softiw_cep_terminate(cep, -EOVERFLOW);
}

/*
 * The asynchronous event the QP's owner hears when the data path stops
 * with @err: a TERMINATE sent for the peer's bad access or request, a
 * local failure, or a TERMINATE from the peer. A plain reset or timeout
 * is the connection manager's to report.
 */
static void softiw_cep_qp_event(struct softiw_cep *cep, int err)
{
	const struct kiwi_softiw_term_cause *cause = &cep->rx.cause;
	struct softiw_qp *sqp = cep->qp;
	bool access;

	switch (err) {
	case -EPROTO:
		access = (cause->layer == SOFTIW_TERM_LAYER_RDMAP &&
			  cause->etype == SOFTIW_TERM_RDMAP_PROTECTION) ||
			 (cause->layer == SOFTIW_TERM_LAYER_DDP &&
			  cause->etype == SOFTIW_TERM_DDP_TAGGED);
		kiwi_qp_event(&sqp->qp, access ? IB_EVENT_QP_ACCESS_ERR :
						 IB_EVENT_QP_REQ_ERR);
		break;
	case -EOVERFLOW:
		kiwi_qp_event(&sqp->qp, IB_EVENT_QP_FATAL);
		break;
	case -ECONNRESET:
		if (READ_ONCE(sqp->term_rcvd))
			kiwi_qp_event(&sqp->qp, IB_EVENT_QP_FATAL);
		break;
	}
}

/* The data path stopped with @err: end the connection accordingly. */
static void softiw_cep_dp_failed(struct softiw_cep *cep, int err)
{
	softiw_cep_qp_event(cep, err);
	if (err == -EPROTO)
		softiw_cep_terminate(cep, -EPROTO);
	else if (err == -EOVERFLOW)
		softiw_cep_overflow(cep);
	else if (err == -ETIMEDOUT || err == -ECONNABORTED)
		softiw_cep_abort(cep, err);
	else
		softiw_cep_abort(cep, -ECONNRESET);
}

/* Receive, then transmit. Return: the peer's FIN was read, or -errno. */
static int softiw_cep_data(struct softiw_cep *cep)
{
	bool eof = false;
	int ret;

	if (!cep->fin_rcvd) {
		ret = softiw_rx_step(cep);
		if (ret < 0)
			return ret;
		eof = ret == SOFTIW_DP_EOF;
		if (ret == SOFTIW_DP_BUSY)
			softiw_cep_kick(cep);
	}
	ret = READ_ONCE(cep->sock->sk->sk_err);
	if (ret)
		return ret == ETIMEDOUT ? -ETIMEDOUT : -ECONNRESET;
	if (softiw_rtr_tx_held(cep))
		return eof;
	ret = softiw_tx_step(cep);
	if (ret < 0)
		return ret;
	if (ret == SOFTIW_DP_BUSY)
		softiw_cep_kick(cep);
	return eof;
}

/*
 * Graceful close: the FIN goes once every posted send work request is
 * done (a READ: answered) and every Read Response sent.
 */
static bool softiw_cep_sq_drained(struct softiw_cep *cep)
{
	return !cep->tx.len && !cep->tx.irq_count &&
	       !softiw_wq_peek(cep->qp, &cep->qp->sq);
}

static void softiw_cep_step_established(struct softiw_cep *cep)
{
	int req = READ_ONCE(cep->close_req);
	int ret;

	if (req == IB_QPS_ERR) {
		softiw_cep_abort(cep, -ECONNABORTED);
		return;
	}
	ret = softiw_cep_data(cep);
	if (ret < 0) {
		softiw_cep_dp_failed(cep, ret);
		return;
	}
	/* No Read Response can come after the peer's FIN. */
	if ((ret || cep->fin_rcvd) && softiw_sq_has_read(cep->qp)) {
		softiw_cep_abort(cep, -ECONNRESET);
		return;
	}
	if (req == IB_QPS_SQD && !cep->fin_sent &&
	    softiw_cep_sq_drained(cep)) {
		kernel_sock_shutdown(cep->sock, SHUT_WR);
		cep->fin_sent = true;
	}
	if (ret && !cep->fin_rcvd) {
		cep->fin_rcvd = true;
		if (!cep->fin_sent &&
		    softiw_cep_upcall(cep, KIWI_CM_EVENT_DISCONNECT, 0,
				      NULL) == -ENOMEM) {
			softiw_cep_dropped(cep);
			return;
		}
	}
	if (cep->fin_sent && cep->fin_rcvd)
		softiw_cep_finish(cep, 0, false);
}

/* Peer-to-peer: the RTR (responder) or the READ response (initiator). */
static void softiw_cep_step_rtr(struct softiw_cep *cep)
{
	const struct kiwi_softiw_mpa_info *rep =
		cep->active ? &cep->setup->rtr.rep : NULL;
	int ret;

	if (READ_ONCE(cep->close_req)) {
		softiw_cep_setup_failed(cep, -ECONNABORTED, 0, rep);
		return;
	}
	ret = softiw_rtr_recv(cep);
	if (!ret)
		return;
	if (ret == -EPROTO) {
		softiw_cep_setup_failed(cep, ret, cep->rx.cause.ecode, rep);
		return;
	}
	if (ret < 0) {
		softiw_cep_setup_failed(cep, -ECONNRESET, 0, rep);
		return;
	}
	softiw_cep_stop_timer(cep);
	softiw_cep_established(cep, rep);
}

/* Active side, before the connection exists. */
static void softiw_cep_step_active(struct softiw_cep *cep)
{
	/* The ULP gave up on its QP: the connect fails. */
	if (READ_ONCE(cep->close_req)) {
		softiw_cep_connect_failed(cep, -ECONNABORTED, NULL);
		return;
	}
	if (cep->state == SOFTIW_CEP_CONNECTING)
		softiw_cep_step_connecting(cep);
	if (cep->state == SOFTIW_CEP_AWAIT_REPLY)
		softiw_cep_step_reply(cep);
}

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
		setup->pdata = kmemdup(param->private_data,
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
	sock_release(sock);
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
