// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_softiw connection setup: the MPA exchange over a kernel TCP
 * socket, for both ends (the TCP connect, the Request, the Reply, the RTR
 * of peer-to-peer mode), up to the upcall that reports the connection up.
 * Built on the endpoint primitives of cep_core.c; cm.c runs the steps
 * (its dispatcher, a passive endpoint's first step) and, from accept,
 * the end of setup.
 *
 * Everything here runs in process context under the endpoint's mutex:
 * the work, the iw_cm ops, and a passive endpoint's first step, which the
 * listener's work runs. An upcall is made with the mutex held: the core
 * never calls back into a provider from kiwi_cm_upcall().
 */
#include <net/sock.h>
#include <net/tcp_states.h>

#include "cm.h"

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
void softiw_cep_established(struct softiw_cep *cep,
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
void softiw_cep_await_rtr(struct softiw_cep *cep)
{
	u32 ms = kiwi_cm_option(cep->id, KIWI_IWARP_OPT_RTR_TIMEOUT_MS,
				READ_ONCE(softiw_rtr_timeout_ms));

	lockdep_assert_held(&cep->lock);
	cep->state = SOFTIW_CEP_AWAIT_RTR;
	softiw_cep_arm_timer(cep, ms);
	softiw_cep_kick(cep);
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

void softiw_cep_step_request(struct softiw_cep *cep)
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
void softiw_cep_step_await_accept(struct softiw_cep *cep)
{
	struct sock *sk = cep->sock->sk;
	u8 byte;

	if (sk->sk_state == TCP_ESTABLISHED &&
	    softiw_sock_recv(cep->sock, &byte, 1) == -EAGAIN)
		return;
	softiw_cep_close(cep, true);
}

/* Peer-to-peer: the RTR (responder) or the READ response (initiator). */
void softiw_cep_step_rtr(struct softiw_cep *cep)
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
void softiw_cep_step_active(struct softiw_cep *cep)
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
