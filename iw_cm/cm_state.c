// SPDX-License-Identifier: GPL-2.0
/*
 * The cm_id state machine as two tables: provider upcalls and ULP calls,
 * each indexed by state. Documentation/iw_cm.rst prints the same tables;
 * the tracepoints print the same names.
 */
#include <linux/errno.h>
#include <linux/lockdep.h>

#include "iwcm.h"
#include "trace.h"

#define S(x) KIWI_CM_STATE_##x
#define E(x) KIWI_CM_EVENT_##x
#define NONE KIWI_CM_NR_EVENTS
#define STAY KIWI_CM_NR_STATES
#define AS_NEXT 0xff	/* next_err: same as next */

/* Deliver the event and move to @n (@n_err when the status is non-zero). */
#define DELIVER(n, n_err) { KIWI_CM_ACT_DELIVER, n, n_err, 0, 0 }
/* A race the protocol allows: drop the event, keep the state. */
#define ABSORB { KIWI_CM_ACT_ABSORB, STAY, STAY, NONE, 0 }
/* A broken provider: drop the event, keep the state. */
#define BROKEN { KIWI_CM_ACT_VIOLATION, STAY, STAY, NONE, 0 }
/* A broken provider, but the event ends the connection: go to @n and
 * give the owner the terminal event it waits for, @ev with status @st.
 */
#define BROKEN_END(n, ev, st) { KIWI_CM_ACT_VIOLATION, n, AS_NEXT, ev, st }
/* The close the core finished for a gone owner ended: go to @n. */
#define FINISH(n) { KIWI_CM_ACT_FINISH, n, AS_NEXT, NONE, 0 }

struct kiwi_cm_row {
	u8 action;
	u8 next;
	u8 next_err;
	u8 deliver;
	s8 status;
};

/* Provider upcalls: [state][event]. DEVICE_REMOVAL never comes from one. */
static const struct kiwi_cm_row kiwi_cm_upcall_table[KIWI_CM_NR_STATES]
						  [KIWI_CM_NR_EVENTS] = {
	[S(IDLE)] = {
		BROKEN, BROKEN, BROKEN, BROKEN, BROKEN, BROKEN,
	},
	[S(LISTEN)] = {
		[E(CONNECT_REQUEST)] = DELIVER(STAY, STAY),
		[E(CONNECT_REPLY)] = BROKEN,
		[E(ESTABLISHED)] = BROKEN,
		[E(DISCONNECT)] = BROKEN,
		[E(CLOSE)] = BROKEN,
		[E(DEVICE_REMOVAL)] = BROKEN,
	},
	[S(CONN_RECV)] = {	/* after accept(); see kiwi_cm_upcall_step() */
		[E(CONNECT_REQUEST)] = BROKEN,
		[E(CONNECT_REPLY)] = BROKEN,
		[E(ESTABLISHED)] = DELIVER(S(ESTABLISHED), S(ESTABLISHED)),
		[E(DISCONNECT)] = BROKEN,
		[E(CLOSE)] = DELIVER(S(IDLE), S(IDLE)),
		[E(DEVICE_REMOVAL)] = BROKEN,
	},
	[S(CONN_SENT)] = {
		[E(CONNECT_REQUEST)] = BROKEN,
		[E(CONNECT_REPLY)] = DELIVER(S(ESTABLISHED), S(IDLE)),
		[E(ESTABLISHED)] = BROKEN,
		[E(DISCONNECT)] = BROKEN,
		[E(CLOSE)] = BROKEN_END(S(IDLE), E(CONNECT_REPLY), -ECONNRESET),
		[E(DEVICE_REMOVAL)] = BROKEN,
	},
	[S(ESTABLISHED)] = {
		[E(CONNECT_REQUEST)] = BROKEN,
		[E(CONNECT_REPLY)] = BROKEN,
		[E(ESTABLISHED)] = BROKEN,
		[E(DISCONNECT)] = DELIVER(S(CLOSING), S(CLOSING)),
		[E(CLOSE)] = DELIVER(S(IDLE), S(IDLE)),
		[E(DEVICE_REMOVAL)] = BROKEN,
	},
	[S(CLOSING)] = {
		[E(CONNECT_REQUEST)] = BROKEN,
		[E(CONNECT_REPLY)] = BROKEN,
		[E(ESTABLISHED)] = BROKEN,
		[E(DISCONNECT)] = ABSORB,	/* we started the close */
		[E(CLOSE)] = DELIVER(S(IDLE), S(IDLE)),
		[E(DEVICE_REMOVAL)] = BROKEN,
	},
	[S(DESTROYING)] = {	/* the provider may race with destroy */
		ABSORB, ABSORB, ABSORB, ABSORB, ABSORB, ABSORB,
	},
	[S(LINGER)] = {		/* the owner is gone, our close goes on */
		[E(CONNECT_REQUEST)] = BROKEN,
		[E(CONNECT_REPLY)] = BROKEN,
		[E(ESTABLISHED)] = BROKEN,
		[E(DISCONNECT)] = ABSORB,	/* the peer's half, after ours */
		[E(CLOSE)] = FINISH(S(DESTROYING)),
		[E(DEVICE_REMOVAL)] = BROKEN,
	},
};

static const struct kiwi_cm_row kiwi_cm_duplicate = BROKEN;

/* Before accept() a CONN_RECV id has no provider endpoint bound to it. */
static const struct kiwi_cm_row kiwi_cm_unaccepted_table[KIWI_CM_NR_EVENTS] = {
	BROKEN, BROKEN, BROKEN, BROKEN, BROKEN_END(S(IDLE), NONE, 0), BROKEN,
};

/* ULP calls: [state][op] -> next state, or refused (-EINVAL) when 0. */
static const u8 kiwi_cm_op_table[KIWI_CM_NR_STATES][KIWI_CM_NR_OPS] = {
	[S(IDLE)] = {
		[KIWI_CM_OP_LISTEN] = S(LISTEN) + 1,
		[KIWI_CM_OP_CONNECT] = S(CONN_SENT) + 1,
		[KIWI_CM_OP_DESTROY] = S(DESTROYING) + 1,
	},
	[S(LISTEN)] = {
		[KIWI_CM_OP_DESTROY] = S(DESTROYING) + 1,
	},
	[S(CONN_RECV)] = {
		[KIWI_CM_OP_ACCEPT] = S(CONN_RECV) + 1,
		[KIWI_CM_OP_REJECT] = S(IDLE) + 1,
		[KIWI_CM_OP_DESTROY] = S(DESTROYING) + 1,
	},
	[S(CONN_SENT)] = {
		[KIWI_CM_OP_DESTROY] = S(DESTROYING) + 1,
	},
	[S(ESTABLISHED)] = {
		[KIWI_CM_OP_DISCONNECT] = S(CLOSING) + 1,
		[KIWI_CM_OP_DESTROY] = S(DESTROYING) + 1,
	},
	[S(CLOSING)] = {	/* destroy: see kiwi_cm_op_step() */
		[KIWI_CM_OP_DISCONNECT] = S(CLOSING) + 1,
		[KIWI_CM_OP_DESTROY] = S(LINGER) + 1,
	},
};

static const char *const kiwi_cm_state_names[KIWI_CM_NR_STATES] = {
	[S(IDLE)] = "IDLE",
	[S(LISTEN)] = "LISTEN",
	[S(CONN_RECV)] = "CONN_RECV",
	[S(CONN_SENT)] = "CONN_SENT",
	[S(ESTABLISHED)] = "ESTABLISHED",
	[S(CLOSING)] = "CLOSING",
	[S(DESTROYING)] = "DESTROYING",
	[S(LINGER)] = "LINGER",
};

static const char *const kiwi_cm_event_names[KIWI_CM_NR_EVENTS] = {
	[E(CONNECT_REQUEST)] = "CONNECT_REQUEST",
	[E(CONNECT_REPLY)] = "CONNECT_REPLY",
	[E(ESTABLISHED)] = "ESTABLISHED",
	[E(DISCONNECT)] = "DISCONNECT",
	[E(CLOSE)] = "CLOSE",
	[E(DEVICE_REMOVAL)] = "DEVICE_REMOVAL",
};

static const char *const kiwi_cm_op_names[KIWI_CM_NR_OPS] = {
	[KIWI_CM_OP_LISTEN] = "listen",
	[KIWI_CM_OP_CONNECT] = "connect",
	[KIWI_CM_OP_ACCEPT] = "accept",
	[KIWI_CM_OP_REJECT] = "reject",
	[KIWI_CM_OP_DISCONNECT] = "disconnect",
	[KIWI_CM_OP_DESTROY] = "destroy",
};

/**
 * kiwi_cm_state_name() - name of a state, as docs and traces spell it
 * @state: the state
 *
 * Context: any context.
 * Return: "IDLE", "LISTEN", ..., or "?" for a value out of range.
 */
const char *kiwi_cm_state_name(enum kiwi_cm_state state)
{
	return (unsigned int)state < KIWI_CM_NR_STATES ?
	       kiwi_cm_state_names[state] : "?";
}
EXPORT_SYMBOL_GPL(kiwi_cm_state_name);

/**
 * kiwi_cm_event_name() - name of an event type, as docs and traces spell it
 * @event: the event type
 *
 * Context: any context.
 * Return: "CONNECT_REQUEST", ..., or "?" for a value out of range.
 */
const char *kiwi_cm_event_name(enum kiwi_cm_event_type event)
{
	return (unsigned int)event < KIWI_CM_NR_EVENTS ?
	       kiwi_cm_event_names[event] : "?";
}
EXPORT_SYMBOL_GPL(kiwi_cm_event_name);

/**
 * kiwi_cm_op_name() - name of a ULP call
 * @op: the call
 *
 * Context: any context.
 * Return: "listen", ..., or "?" for a value out of range.
 */
const char *kiwi_cm_op_name(enum kiwi_cm_op op)
{
	return (unsigned int)op < KIWI_CM_NR_OPS ? kiwi_cm_op_names[op] : "?";
}

/**
 * kiwi_cm_set_state() - move an id to a state, tracing the transition
 * @priv: the id
 * @state: the new state
 *
 * Context: any context; @priv->lock held.
 */
void kiwi_cm_set_state(struct kiwi_cm_priv *priv, enum kiwi_cm_state state)
{
	lockdep_assert_held(&priv->lock);
	if (priv->state == state)
		return;
	trace_kiwi_cm_state(&priv->id, priv->state, state);
	priv->state = state;
}

/**
 * kiwi_cm_upcall_step() - look up what a provider event does to an id
 * @priv: the id
 * @event: the event type
 * @status: the event's status
 *
 * The table lookup plus the two rules a table cell cannot express: each
 * event type reaches an id at most once, and a CONN_RECV id only takes
 * events once accept() bound it to a provider endpoint.
 *
 * Context: any context; @priv->lock held.
 * Return: the step; @next is the resulting state (never "stay").
 */
struct kiwi_cm_step kiwi_cm_upcall_step(struct kiwi_cm_priv *priv,
					enum kiwi_cm_event_type event,
					int status)
{
	const struct kiwi_cm_row *row;
	struct kiwi_cm_step step;

	lockdep_assert_held(&priv->lock);
	if ((unsigned int)event >= KIWI_CM_NR_EVENTS)
		event = KIWI_CM_EVENT_DEVICE_REMOVAL;	/* any BROKEN cell */
	row = &kiwi_cm_upcall_table[priv->state][event];
	if (priv->state == S(CONN_RECV) && !(priv->flags & KIWI_CM_F_ACCEPTED))
		row = &kiwi_cm_unaccepted_table[event];
	if (row->action != KIWI_CM_ACT_VIOLATION &&
	    priv->state != S(DESTROYING) && event != E(CONNECT_REQUEST) &&
	    (priv->seen & BIT(event)))
		row = &kiwi_cm_duplicate;

	step.action = row->action;
	step.next = status && row->next_err != AS_NEXT ? row->next_err :
							 row->next;
	if (step.next == STAY)
		step.next = priv->state;
	step.deliver = row->action == KIWI_CM_ACT_DELIVER ? event : row->deliver;
	step.status = row->status;
	return step;
}

/**
 * kiwi_cm_op_step() - apply a ULP call to an id's state, if it is legal
 * @priv: the id
 * @op: the call
 *
 * The table decides, plus: listen and connect need a fresh id (an id
 * carries one connection), accept and reject a request not yet accepted,
 * and destroy in CLOSING lingers only while the owner's own graceful
 * disconnect() is in flight (after the peer's DISCONNECT alone, or an
 * abortive disconnect(), there is no close of ours to finish) and the
 * device is still there (an orphan has no provider to finish it).
 *
 * Context: any context; @priv->lock held.
 * Return: true if the call is legal (the state has moved), false if not.
 */
bool kiwi_cm_op_step(struct kiwi_cm_priv *priv, enum kiwi_cm_op op)
{
	u8 next;

	lockdep_assert_held(&priv->lock);
	next = kiwi_cm_op_table[priv->state][op];
	if (!next)
		return false;
	if ((op == KIWI_CM_OP_LISTEN || op == KIWI_CM_OP_CONNECT) &&
	    (priv->flags & KIWI_CM_F_USED))
		return false;
	if ((op == KIWI_CM_OP_ACCEPT || op == KIWI_CM_OP_REJECT) &&
	    (priv->flags & KIWI_CM_F_ACCEPTED))
		return false;
	if (next == S(LINGER) + 1 &&
	    (priv->flags & (KIWI_CM_F_GRACEFUL | KIWI_CM_F_ORPHAN)) !=
	    KIWI_CM_F_GRACEFUL)
		next = S(DESTROYING) + 1;
	trace_kiwi_cm_op(&priv->id, op, priv->state);
	kiwi_cm_set_state(priv, next - 1);
	return true;
}
