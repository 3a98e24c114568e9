// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_softiw connection endpoints, the primitives every phase uses: the
 * module parameters, the socket callbacks and the kick of an endpoint's
 * work, the timer, binding and moving the QP, reading and sending MPA
 * frames, and the end of an endpoint: its last upcall and its close.
 * setup.c, established.c and cm.c build on these; nothing here calls
 * them.
 *
 * Socket callbacks only queue @work; everything else runs in process
 * context under the endpoint's mutex: the work, the timer (a delayed
 * work), the iw_cm ops, and a passive endpoint's first step, which the
 * listener's work runs. An upcall is made with the mutex held: the
 * core never calls back into a provider from kiwi_cm_upcall().
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <net/sock.h>

#include "cm.h"

static unsigned int softiw_mpa_rev = SOFTIW_MPA_REV2;
module_param_named(mpa_rev, softiw_mpa_rev, uint, 0644);
MODULE_PARM_DESC(mpa_rev, "highest MPA revision offered and accepted, 1 or 2 (default 2)");

static bool softiw_mpa_crc;
module_param_named(mpa_crc, softiw_mpa_crc, bool, 0644);
MODULE_PARM_DESC(mpa_crc, "ask for CRC32c on FPDUs (default off; a peer's request is honoured)");

unsigned int softiw_mpa_timeout_ms = 10000;
module_param_named(mpa_timeout_ms, softiw_mpa_timeout_ms, uint, 0644);
MODULE_PARM_DESC(mpa_timeout_ms, "time for TCP connect plus MPA reply (active) or for the MPA request (passive), ms (default 10000)");

static bool softiw_mpa_p2p;
module_param_named(mpa_p2p, softiw_mpa_p2p, bool, 0644);
MODULE_PARM_DESC(mpa_p2p, "initiator: ask for the peer-to-peer model with an RTR message (needs mpa_rev 2; default off)");

static unsigned int softiw_mpa_rtr = SOFTIW_RTR_ALL;
module_param_named(mpa_rtr, softiw_mpa_rtr, uint, 0644);
MODULE_PARM_DESC(mpa_rtr, "RTR types offered (initiator) and accepted (responder): 1 WRITE, 2 READ, 4 SEND, or a sum (default 7)");

unsigned int softiw_rtr_timeout_ms = 10000;
module_param_named(rtr_timeout_ms, softiw_rtr_timeout_ms, uint, 0644);
MODULE_PARM_DESC(rtr_timeout_ms, "peer-to-peer: time for the RTR (responder) or the READ response (initiator) after the MPA reply, ms (default 10000)");

static unsigned int softiw_dead_peer_ms = 60000;
module_param_named(dead_peer_ms, softiw_dead_peer_ms, uint, 0644);
MODULE_PARM_DESC(dead_peer_ms, "an established connection whose peer answers nothing (keepalives, data, window probes) for this long is closed, ms; 0: never (default 60000)");

unsigned int softiw_max_pending = 32;
module_param_named(max_pending, softiw_max_pending, uint, 0644);
MODULE_PARM_DESC(max_pending, "connections per listener waiting for their MPA request; a new one drops the oldest (default 32)");

struct workqueue_struct *softiw_cm_wq;

/* Queue @cep's work on @cpu (WORK_CPU_UNBOUND: this one), with a reference. */
void softiw_cep_kick_on(struct softiw_cep *cep, int cpu)
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

void softiw_cep_sk_event(struct sock *sk)
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
void softiw_cep_settings(struct softiw_cep *cep,
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

void softiw_cep_arm_timer(struct softiw_cep *cep, unsigned int ms)
{
	refcount_inc(&cep->ref);
	if (!queue_delayed_work(softiw_cm_wq, &cep->timer,
				msecs_to_jiffies(ms)))
		softiw_cep_put(cep);
}

void softiw_cep_stop_timer(struct softiw_cep *cep)
{
	if (cancel_delayed_work(&cep->timer))
		softiw_cep_put(cep);
}

int softiw_cep_bind_qp(struct softiw_cep *cep, u32 qpn)
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
void softiw_cep_unbind_qp(struct softiw_cep *cep, bool error)
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

void softiw_cep_qp_move(struct softiw_cep *cep,
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
int softiw_cep_start_data(struct softiw_cep *cep,
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

void softiw_cep_leave_listener(struct softiw_cep *cep)
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
void softiw_cep_close(struct softiw_cep *cep, bool abort)
{
	lockdep_assert_held(&cep->lock);
	if (cep->state == SOFTIW_CEP_CLOSED)
		return;
	cep->state = SOFTIW_CEP_CLOSED;
	softiw_cep_stop_timer(cep);
	softiw_sock_detach(cep->sock, &cep->cbs);
	kiwi_softiw_sock_release(cep->sock, abort);
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
int softiw_cep_upcall(struct softiw_cep *cep,
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
void softiw_cep_dropped(struct softiw_cep *cep)
{
	if (cep->qp)
		softiw_qp_flush(cep->qp);
	softiw_cep_close(cep, true);
}

/* Active side: the attempt is over, unsuccessfully; RECVs are flushed. */
void softiw_cep_connect_failed(struct softiw_cep *cep, int status,
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
void softiw_cep_finish(struct softiw_cep *cep, int status, bool abort)
{
	if (cep->qp)
		softiw_qp_flush(cep->qp);
	softiw_cep_upcall(cep, KIWI_CM_EVENT_CLOSE, status, NULL);
	softiw_cep_close(cep, abort);
}

/* Established connection gone with an error: the terminal CLOSE. */
void softiw_cep_abort(struct softiw_cep *cep, int status)
{
	softiw_cep_finish(cep, status, true);
}

/*
 * Read the peer's MPA frame as far as it has arrived, never past its end.
 * Return: SOFTIW_MPA_RX_MORE, SOFTIW_MPA_RX_DONE, or a negative errno
 * (-ECONNRESET for a stream that ended).
 */
int softiw_cep_read_mpa(struct softiw_cep *cep,
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

int softiw_cep_send_mpa(struct softiw_cep *cep,
			enum softiw_mpa_kind kind,
			const struct kiwi_softiw_mpa_info *info)
{
	u8 *frame;
	int len;

	frame = kiwi_should_fail() ? NULL :
		kmalloc(SOFTIW_MPA_FRAME_MAX, GFP_KERNEL);
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
void softiw_cep_drain(struct softiw_cep *cep)
{
	u8 scratch[256];
	int ret, left = SOFTIW_DRAIN_MAX;

	do {
		ret = softiw_sock_recv(cep->sock, scratch, sizeof(scratch));
		left -= ret;
	} while (ret > 0 && left > 0);
}

/*
 * Connection setup failed after the MPA frames: the TERMINATE of LLP
 * error @ecode (none if 0) and a FIN, then CONNECT_REPLY(@status) on the
 * initiator, CLOSE(@status) on the responder. Without a TERMINATE, or if
 * it cannot be queued, the stream is reset.
 */
void softiw_cep_setup_failed(struct softiw_cep *cep, int status,
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
