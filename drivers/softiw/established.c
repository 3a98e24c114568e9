// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_softiw established connections: the step that drives the data
 * path (rx.c, then tx.c) and ends the connection, gracefully with the
 * FINs or with a TERMINATE or a reset. Built on the endpoint primitives
 * of cep_core.c; cm.c's dispatcher runs the step.
 *
 * Socket callbacks, posts and QP changes only queue the endpoint's work;
 * the step runs in it, in process context under the endpoint's mutex. An
 * upcall is made with the mutex held: the core never calls back into a
 * provider from kiwi_cm_upcall().
 */
#include <net/sock.h>

#include "cm.h"

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
	case -EACCES:
		/* a local SGE's MR refused the access */
		kiwi_qp_event(&sqp->qp, IB_EVENT_QP_ACCESS_ERR);
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
	if (err == -EPROTO || err == -EACCES)
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

void softiw_cep_step_established(struct softiw_cep *cep)
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
