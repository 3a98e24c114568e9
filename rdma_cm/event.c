// SPDX-License-Identifier: GPL-2.0
/*
 * Events: the one table that turns iw_cm upcalls into rdma_cm events,
 * connect requests, device removal, and the names ULPs print them by.
 */
#include <linux/errno.h>
#include <linux/minmax.h>
#include <linux/mutex.h>
#include <kunit/visibility.h>

#include "rdmacm.h"

/**
 * enum kiwi_rdma_status - how the status of an upcall is classified
 * @KIWI_RDMA_ST_ANY: any status
 * @KIWI_RDMA_ST_OK: 0
 * @KIWI_RDMA_ST_REFUSED: -ECONNREFUSED, -ECONNRESET
 * @KIWI_RDMA_ST_TIMEDOUT: -ETIMEDOUT, -EHOSTUNREACH, -ENETUNREACH
 * @KIWI_RDMA_ST_FAILED: any other error
 */
enum kiwi_rdma_status {
	KIWI_RDMA_ST_ANY,
	KIWI_RDMA_ST_OK,
	KIWI_RDMA_ST_REFUSED,
	KIWI_RDMA_ST_TIMEDOUT,
	KIWI_RDMA_ST_FAILED,
};

#define S(x) BIT(KIWI_RDMA_##x)
#define IW(x) KIWI_CM_EVENT_##x
#define EV(x) RDMA_CM_EVENT_##x
#define KEEP KIWI_RDMA_NR_STATES

/*
 * The iw_cm -> rdma_cm event table (Documentation/rdma_cm.rst has it too).
 * The first row matching the upcall, its status class and the id's state
 * wins: the id moves to @next (KEEP: unchanged) and the ULP gets @event.
 * An upcall no row matches is not shown to the ULP. One row is keyed by
 * rdma_cm itself, not by an upcall: CLOSING (KIWI_RDMA_EV_CLOSING), the
 * graceful close rdma_disconnect() started; the ULP is told DISCONNECTED
 * then, and the CLOSE that ends that close later matches no row.
 */
static const struct kiwi_rdma_map {
	enum kiwi_cm_event_type iw;
	enum kiwi_rdma_status st;
	u32 from;
	enum rdma_cm_event_type event;
	enum kiwi_rdma_state next;
} kiwi_rdma_map[] = {
	{ IW(CONNECT_REQUEST), KIWI_RDMA_ST_ANY, S(LISTEN),
	  EV(CONNECT_REQUEST), KIWI_RDMA_REQUEST },
	{ IW(CONNECT_REPLY), KIWI_RDMA_ST_OK, S(CONNECT),
	  EV(ESTABLISHED), KIWI_RDMA_ESTABLISHED },
	{ IW(CONNECT_REPLY), KIWI_RDMA_ST_REFUSED, S(CONNECT),
	  EV(REJECTED), KIWI_RDMA_DISCONNECTED },
	{ IW(CONNECT_REPLY), KIWI_RDMA_ST_TIMEDOUT, S(CONNECT),
	  EV(UNREACHABLE), KIWI_RDMA_DISCONNECTED },
	{ IW(CONNECT_REPLY), KIWI_RDMA_ST_FAILED, S(CONNECT),
	  EV(CONNECT_ERROR), KIWI_RDMA_DISCONNECTED },
	{ IW(ESTABLISHED), KIWI_RDMA_ST_ANY, S(CONNECT),
	  EV(ESTABLISHED), KIWI_RDMA_ESTABLISHED },
	{ KIWI_RDMA_EV_CLOSING, KIWI_RDMA_ST_OK, S(ESTABLISHED),
	  EV(DISCONNECTED), KIWI_RDMA_DISCONNECTED },
	{ IW(DISCONNECT), KIWI_RDMA_ST_ANY, S(ESTABLISHED),
	  EV(DISCONNECTED), KIWI_RDMA_DISCONNECTED },
	{ IW(CLOSE), KIWI_RDMA_ST_ANY, S(ESTABLISHED),
	  EV(DISCONNECTED), KIWI_RDMA_DISCONNECTED },
	{ IW(CLOSE), KIWI_RDMA_ST_ANY, S(CONNECT),
	  EV(CONNECT_ERROR), KIWI_RDMA_DISCONNECTED },
	{ IW(DEVICE_REMOVAL), KIWI_RDMA_ST_ANY,
	  (u32)~S(DESTROYING), EV(DEVICE_REMOVAL), KEEP },
};

#undef S
#undef IW
#undef EV

static enum kiwi_rdma_status kiwi_rdma_classify(int status)
{
	switch (status) {
	case 0:
		return KIWI_RDMA_ST_OK;
	case -ECONNREFUSED:
	case -ECONNRESET:
		return KIWI_RDMA_ST_REFUSED;
	case -ETIMEDOUT:
	case -EHOSTUNREACH:
	case -ENETUNREACH:
		return KIWI_RDMA_ST_TIMEDOUT;
	default:
		return KIWI_RDMA_ST_FAILED;
	}
}

static const struct kiwi_rdma_map *
kiwi_rdma_map_find(enum kiwi_cm_event_type iw, int status,
		   enum kiwi_rdma_state state)
{
	enum kiwi_rdma_status st = kiwi_rdma_classify(status);
	size_t i;

	for (i = 0; i < ARRAY_SIZE(kiwi_rdma_map); i++) {
		const struct kiwi_rdma_map *row = &kiwi_rdma_map[i];

		if (row->iw == iw && (row->from & BIT(state)) &&
		    (row->st == KIWI_RDMA_ST_ANY || row->st == st))
			return row;
	}
	return NULL;
}

/**
 * kiwi_rdma_map_event() - the rdma_cm event an upcall maps to, for tests
 * @iw: the upcall
 * @status: its status
 * @state: the id's state
 *
 * Return: the event, or RDMA_CM_NR_EVENTS if the ULP is not told.
 */
enum rdma_cm_event_type kiwi_rdma_map_event(enum kiwi_cm_event_type iw,
					    int status,
					    enum kiwi_rdma_state state)
{
	const struct kiwi_rdma_map *row = kiwi_rdma_map_find(iw, status, state);

	return row ? row->event : RDMA_CM_NR_EVENTS;
}
EXPORT_SYMBOL_IF_KUNIT(kiwi_rdma_map_event);

/*
 * Apply the table to the id's state. DEVICE_REMOVAL is told once, whether
 * the core or the client callback says it first. Return: the row, or NULL.
 */
static const struct kiwi_rdma_map *
kiwi_rdma_apply(struct kiwi_rdma_priv *priv, enum kiwi_cm_event_type iw,
		int status)
{
	const struct kiwi_rdma_map *row;
	unsigned long flags;

	spin_lock_irqsave(&priv->lock, flags);
	row = kiwi_rdma_map_find(iw, status, priv->state);
	if (row && row->event == RDMA_CM_EVENT_DEVICE_REMOVAL) {
		if (priv->removal_told)
			row = NULL;
		priv->removal_told = true;
	}
	if (row && row->next != KEEP)
		priv->state = row->next;
	spin_unlock_irqrestore(&priv->lock, flags);
	return row;
}

#undef KEEP

/* The event a ULP sees: private data and IRD/ORD as the peer sent them. */
static void kiwi_rdma_fill(struct rdma_cm_event *rev,
			   const struct kiwi_cm_event *ev,
			   enum rdma_cm_event_type type)
{
	rev->event = type;
	rev->status = type == RDMA_CM_EVENT_REJECTED ? -ECONNREFUSED :
						       ev->status;
	rev->param.conn.private_data = ev->private_data;
	rev->param.conn.private_data_len = min_t(u16, ev->private_data_len,
						 U8_MAX);
	rev->param.conn.initiator_depth = min_t(u16, ev->ird, U8_MAX);
	rev->param.conn.responder_resources = min_t(u16, ev->ord, U8_MAX);
}

/* A CONNECT_REQUEST on a listener: a new id the ULP owns from now on. */
static int kiwi_rdma_request(struct kiwi_rdma_priv *listener,
			     struct kiwi_cm_id *cm,
			     const struct kiwi_cm_event *ev)
{
	const struct kiwi_rdma_map *row;
	struct kiwi_rdma_priv *child;
	struct rdma_cm_event rev = {};

	row = kiwi_rdma_map_find(ev->event, ev->status,
				 kiwi_rdma_state_of(listener));
	if (!row)
		return -ECONNREFUSED;	/* the core rejects and destroys cm */
	child = kiwi_rdma_alloc(listener->net, listener->id.event_handler,
				listener->id.context, listener->id.ps,
				listener->id.qp_type);
	if (!child)
		return -ENOMEM;
	child->state = row->next;
	child->cm = cm;
	cm->context = child;
	kiwi_rdma_set_device(child, cm->device, false);
	child->id.route.addr.src_addr = cm->local_addr;
	child->id.route.addr.dst_addr = cm->remote_addr;
	child->id.route.tos = listener->id.route.tos;
	child->id.route.tos_set = listener->id.route.tos_set;
	kiwi_rdma_fill(&rev, ev, row->event);
	if (kiwi_rdma_deliver(child, &rev, NULL))
		kiwi_rdma_teardown(child, NULL);
	return 0;
}

/**
 * kiwi_rdma_cm_handler() - the iw_cm handler of every id the module makes
 * @cm: the iw_cm id; its context is the rdma_cm id (the listener's, for a
 *	CONNECT_REQUEST)
 * @ev: the upcall
 *
 * Context: a kiwi_cm worker (process context).
 * Return: 0, or non-zero to have the core refuse a request.
 */
int kiwi_rdma_cm_handler(struct kiwi_cm_id *cm, const struct kiwi_cm_event *ev)
{
	struct kiwi_rdma_priv *priv = cm->context;
	const struct kiwi_rdma_map *row;
	struct rdma_cm_event rev = {};

	if (ev->event == KIWI_CM_EVENT_CONNECT_REQUEST)
		return kiwi_rdma_request(priv, cm, ev);
	/* a wildcard listener's fan: its device's removal closes it */
	if (cm != READ_ONCE(priv->cm))
		return 0;
	row = kiwi_rdma_apply(priv, ev->event, ev->status);
	if (!row)
		return 0;
	if (ev->event == KIWI_CM_EVENT_CONNECT_REPLY &&
	    row->event == RDMA_CM_EVENT_ESTABLISHED)
		kiwi_rdma_port_move(priv, &cm->local_addr);
	kiwi_rdma_fill(&rev, ev, row->event);
	if (kiwi_rdma_deliver(priv, &rev, NULL))
		kiwi_rdma_teardown(priv, NULL);
	return 0;
}

/**
 * kiwi_rdma_closing() - rdma_disconnect() started the id's graceful close
 * @priv: the id; the core accepted the close (its QP is in CLOSING)
 *
 * The CLOSING row of the table: an ESTABLISHED id moves to DISCONNECTED
 * now and its work tells the ULP, without waiting for the peer's half of
 * the close, which the core finishes on its own. If a DISCONNECT or CLOSE
 * moved the id first, that one is the ULP's DISCONNECTED and this does
 * nothing: the state changes under the id's lock, so exactly one of them
 * is shown.
 *
 * Context: process context.
 */
void kiwi_rdma_closing(struct kiwi_rdma_priv *priv)
{
	if (kiwi_rdma_apply(priv, KIWI_RDMA_EV_CLOSING, 0))
		kiwi_rdma_kick(priv, KIWI_RDMA_TODO_CLOSING);
}

/**
 * kiwi_rdma_closing_step() - tell the ULP DISCONNECTED for its own close
 * @priv: the id, moved to DISCONNECTED by kiwi_rdma_closing()
 *
 * Context: the id's work.
 * Return: non-zero if the id is to be torn down now.
 */
int kiwi_rdma_closing_step(struct kiwi_rdma_priv *priv)
{
	struct kiwi_cm_event ev = { .event = KIWI_RDMA_EV_CLOSING };
	struct rdma_cm_event rev = {};

	/* the CLOSING row, applied in ESTABLISHED, names the event */
	kiwi_rdma_fill(&rev, &ev,
		       kiwi_rdma_map_event(ev.event, 0, KIWI_RDMA_ESTABLISHED));
	return kiwi_rdma_deliver(priv, &rev, NULL);
}

/**
 * kiwi_rdma_remove_step() - tell an id without an iw_cm id its device goes
 * @priv: the id
 *
 * Context: the id's work.
 * Return: non-zero if the id is to be torn down now.
 */
int kiwi_rdma_remove_step(struct kiwi_rdma_priv *priv)
{
	struct kiwi_cm_event ev = { .event = KIWI_CM_EVENT_DEVICE_REMOVAL };
	const struct kiwi_rdma_map *row;
	struct rdma_cm_event rev = {};

	row = kiwi_rdma_apply(priv, ev.event, 0);
	if (!row)
		return 0;
	kiwi_rdma_fill(&rev, &ev, row->event);
	return kiwi_rdma_deliver(priv, &rev, NULL);
}

/**
 * kiwi_rdma_device_remove() - client callback: a kiwi device goes away
 * @dev: the device
 * @client_data: unused
 *
 * Ids with an iw_cm id hear it from the core; the others (bound or
 * resolved, with a device reference) hear it from here. Wildcard
 * listeners stop listening on the device and are not told.
 *
 * Context: process context, the core's client lock held.
 */
void kiwi_rdma_device_remove(struct ib_device *dev, void *client_data)
{
	struct kiwi_rdma_priv *priv;

	mutex_lock(&kiwi_rdma_lock);
	list_for_each_entry(priv, &kiwi_rdma_ids, node) {
		if (priv->id.device == dev && priv->dev_ref && !priv->cm)
			kiwi_rdma_kick(priv, KIWI_RDMA_TODO_REMOVE);
	}
	mutex_unlock(&kiwi_rdma_lock);
	kiwi_rdma_dev_forget(dev);
}

static const char *const kiwi_rdma_event_names[RDMA_CM_NR_EVENTS] = {
	[RDMA_CM_EVENT_ADDR_RESOLVED] = "ADDR_RESOLVED",
	[RDMA_CM_EVENT_ADDR_ERROR] = "ADDR_ERROR",
	[RDMA_CM_EVENT_ROUTE_RESOLVED] = "ROUTE_RESOLVED",
	[RDMA_CM_EVENT_ROUTE_ERROR] = "ROUTE_ERROR",
	[RDMA_CM_EVENT_CONNECT_REQUEST] = "CONNECT_REQUEST",
	[RDMA_CM_EVENT_CONNECT_RESPONSE] = "CONNECT_RESPONSE",
	[RDMA_CM_EVENT_CONNECT_ERROR] = "CONNECT_ERROR",
	[RDMA_CM_EVENT_UNREACHABLE] = "UNREACHABLE",
	[RDMA_CM_EVENT_REJECTED] = "REJECTED",
	[RDMA_CM_EVENT_ESTABLISHED] = "ESTABLISHED",
	[RDMA_CM_EVENT_DISCONNECTED] = "DISCONNECTED",
	[RDMA_CM_EVENT_DEVICE_REMOVAL] = "DEVICE_REMOVAL",
	[RDMA_CM_EVENT_MULTICAST_JOIN] = "MULTICAST_JOIN",
	[RDMA_CM_EVENT_MULTICAST_ERROR] = "MULTICAST_ERROR",
	[RDMA_CM_EVENT_ADDR_CHANGE] = "ADDR_CHANGE",
	[RDMA_CM_EVENT_TIMEWAIT_EXIT] = "TIMEWAIT_EXIT",
};

/**
 * kiwi_rdma_event_msg() - name of an event
 * @event: the event type
 *
 * Context: any context.
 * Return: its name without the ``RDMA_CM_EVENT_`` prefix, "UNKNOWN" if out
 * of range.
 */
const char *kiwi_rdma_event_msg(enum rdma_cm_event_type event)
{
	if ((unsigned int)event >= RDMA_CM_NR_EVENTS)
		return "UNKNOWN";
	return kiwi_rdma_event_names[event];
}
EXPORT_SYMBOL_GPL(kiwi_rdma_event_msg);

/**
 * kiwi_rdma_reject_msg() - describe the status of a REJECTED event
 * @id: the id
 * @reason: the event's status
 *
 * Context: any context.
 * Return: a description; every provider's refusal has the same status.
 */
const char *kiwi_rdma_reject_msg(struct rdma_cm_id *id, int reason)
{
	if (reason == -ECONNREFUSED)
		return "consumer or peer refused the connection";
	return "unrecognized reason";
}
EXPORT_SYMBOL_GPL(kiwi_rdma_reject_msg);

/**
 * kiwi_rdma_consumer_reject_data() - the private data a peer rejected with
 * @id: the id
 * @ev: a REJECTED event
 * @data_len: set to the length
 *
 * Context: the id's handler, during @ev.
 * Return: the data (valid during the handler), or NULL for another event
 * or none.
 */
const void *kiwi_rdma_consumer_reject_data(struct rdma_cm_id *id,
					   struct rdma_cm_event *ev,
					   u8 *data_len)
{
	if (ev->event != RDMA_CM_EVENT_REJECTED ||
	    !ev->param.conn.private_data_len) {
		*data_len = 0;
		return NULL;
	}
	*data_len = ev->param.conn.private_data_len;
	return ev->param.conn.private_data;
}
EXPORT_SYMBOL_GPL(kiwi_rdma_consumer_reject_data);
