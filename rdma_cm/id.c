// SPDX-License-Identifier: GPL-2.0
/*
 * rdma_cm_id objects: creation, the call table every state change of a ULP
 * call goes through, handler delivery, and destruction.
 */
#include <linux/errno.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/wait_bit.h>
#include <kunit/visibility.h>
#include <net/net_namespace.h>

#include "rdmacm.h"

/* Protects the id list, ports, and each id's device and iw_cm id pointers. */
DEFINE_MUTEX(kiwi_rdma_lock);
LIST_HEAD(kiwi_rdma_ids);

static const char *const kiwi_rdma_state_names[KIWI_RDMA_NR_STATES] = {
	[KIWI_RDMA_IDLE] = "IDLE",
	[KIWI_RDMA_ADDR_BOUND] = "ADDR_BOUND",
	[KIWI_RDMA_ADDR_QUERY] = "ADDR_QUERY",
	[KIWI_RDMA_ADDR_RESOLVED] = "ADDR_RESOLVED",
	[KIWI_RDMA_ROUTE_QUERY] = "ROUTE_QUERY",
	[KIWI_RDMA_ROUTE_RESOLVED] = "ROUTE_RESOLVED",
	[KIWI_RDMA_LISTEN] = "LISTEN",
	[KIWI_RDMA_REQUEST] = "REQUEST",
	[KIWI_RDMA_CONNECT] = "CONNECT",
	[KIWI_RDMA_ESTABLISHED] = "ESTABLISHED",
	[KIWI_RDMA_DISCONNECTED] = "DISCONNECTED",
	[KIWI_RDMA_DESTROYING] = "DESTROYING",
};

#define S(x) BIT(KIWI_RDMA_##x)

/*
 * The call table: the states each ULP call is legal in, and the state it
 * moves the id to before it acts. A call in any other state returns
 * -EINVAL and changes nothing. KIWI_RDMA_NR_STATES as target: unchanged.
 */
static const struct {
	u32 from;
	enum kiwi_rdma_state to;
} kiwi_rdma_calls[KIWI_RDMA_NR_CALLS] = {
	[KIWI_RDMA_CALL_BIND] = { S(IDLE), KIWI_RDMA_ADDR_BOUND },
	[KIWI_RDMA_CALL_RESOLVE_ADDR] = { S(IDLE) | S(ADDR_BOUND),
					  KIWI_RDMA_ADDR_QUERY },
	[KIWI_RDMA_CALL_RESOLVE_ROUTE] = { S(ADDR_RESOLVED),
					   KIWI_RDMA_ROUTE_QUERY },
	[KIWI_RDMA_CALL_LISTEN] = { S(ADDR_BOUND), KIWI_RDMA_LISTEN },
	[KIWI_RDMA_CALL_CONNECT] = { S(ROUTE_RESOLVED), KIWI_RDMA_CONNECT },
	[KIWI_RDMA_CALL_ACCEPT] = { S(REQUEST), KIWI_RDMA_CONNECT },
	[KIWI_RDMA_CALL_REJECT] = { S(REQUEST), KIWI_RDMA_DISCONNECTED },
	[KIWI_RDMA_CALL_DISCONNECT] = { S(CONNECT) | S(ESTABLISHED) |
					S(DISCONNECTED), KIWI_RDMA_NR_STATES },
};

#undef S

/**
 * kiwi_rdma_state_name() - name of a state, for messages and tests
 * @state: the state
 *
 * Return: its name, "?" if out of range.
 */
const char *kiwi_rdma_state_name(enum kiwi_rdma_state state)
{
	if (state >= KIWI_RDMA_NR_STATES)
		return "?";
	return kiwi_rdma_state_names[state];
}
EXPORT_SYMBOL_IF_KUNIT(kiwi_rdma_state_name);

/**
 * kiwi_rdma_state_of() - current state of an id
 * @priv: the id
 *
 * Return: its state.
 */
enum kiwi_rdma_state kiwi_rdma_state_of(struct kiwi_rdma_priv *priv)
{
	unsigned long flags;
	enum kiwi_rdma_state state;

	spin_lock_irqsave(&priv->lock, flags);
	state = priv->state;
	spin_unlock_irqrestore(&priv->lock, flags);
	return state;
}
EXPORT_SYMBOL_IF_KUNIT(kiwi_rdma_state_of);

/**
 * kiwi_rdma_live_ids() - number of rdma_cm ids not being freed, for tests
 *
 * Return: the number.
 */
int kiwi_rdma_live_ids(void)
{
	struct kiwi_rdma_priv *priv;
	int n = 0;

	mutex_lock(&kiwi_rdma_lock);
	list_for_each_entry(priv, &kiwi_rdma_ids, node)
		n++;
	mutex_unlock(&kiwi_rdma_lock);
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(kiwi_rdma_live_ids);

/**
 * kiwi_rdma_enter() - start a ULP call: check and apply the call table
 * @priv: the id
 * @call: the call
 *
 * Remembers the state left in @priv->from for kiwi_rdma_undo().
 *
 * Return: 0, or -EINVAL if @call is not legal in the current state.
 */
int kiwi_rdma_enter(struct kiwi_rdma_priv *priv, enum kiwi_rdma_call call)
{
	enum kiwi_rdma_state to = kiwi_rdma_calls[call].to;
	unsigned long flags;
	int ret = -EINVAL;

	spin_lock_irqsave(&priv->lock, flags);
	if (kiwi_rdma_calls[call].from & BIT(priv->state)) {
		priv->from = priv->state;
		if (to != KIWI_RDMA_NR_STATES)
			priv->state = to;
		ret = 0;
	}
	spin_unlock_irqrestore(&priv->lock, flags);
	return ret;
}

/**
 * kiwi_rdma_pin() - keep an id from being torn down during a ULP call
 * @priv: the id
 *
 * A call that goes on to use the id's iw_cm id pins it first, so that an
 * rdma_destroy_id() racing it (on another CPU, or from a handler)
 * waits until the call is done rather than freeing what it uses.
 *
 * Context: any context.
 * Return: false if the id is being destroyed (the call fails).
 */
bool kiwi_rdma_pin(struct kiwi_rdma_priv *priv)
{
	unsigned long flags;
	bool ok;

	spin_lock_irqsave(&priv->lock, flags);
	ok = priv->state != KIWI_RDMA_DESTROYING;
	if (ok)
		atomic_inc(&priv->calls);
	spin_unlock_irqrestore(&priv->lock, flags);
	return ok;
}

/**
 * kiwi_rdma_unpin() - end what kiwi_rdma_pin() started
 * @priv: the id
 *
 * Context: any context.
 */
void kiwi_rdma_unpin(struct kiwi_rdma_priv *priv)
{
	/*
	 * wake_up_var() only hashes the address: the teardown it wakes may
	 * free @priv at once, and nothing here touches it afterwards.
	 */
	if (atomic_dec_and_test(&priv->calls))
		wake_up_var(&priv->calls);
}

/**
 * kiwi_rdma_move() - change state if the id is still where it was
 * @priv: the id
 * @from: the state expected
 * @to: the new state
 *
 * Return: true if the id was in @from and is now in @to.
 */
bool kiwi_rdma_move(struct kiwi_rdma_priv *priv, enum kiwi_rdma_state from,
		    enum kiwi_rdma_state to)
{
	unsigned long flags;
	bool moved = false;

	spin_lock_irqsave(&priv->lock, flags);
	if (priv->state == from) {
		priv->state = to;
		moved = true;
	}
	spin_unlock_irqrestore(&priv->lock, flags);
	return moved;
}

/**
 * kiwi_rdma_undo() - a call failed: go back to the state it left
 * @priv: the id
 * @to: the state the call moved the id to
 *
 * Nothing changes if an event or destroy moved the id on meanwhile.
 */
void kiwi_rdma_undo(struct kiwi_rdma_priv *priv, enum kiwi_rdma_state to)
{
	unsigned long flags;

	spin_lock_irqsave(&priv->lock, flags);
	if (priv->state == to)
		priv->state = priv->from;
	spin_unlock_irqrestore(&priv->lock, flags);
}

/**
 * kiwi_rdma_set_device() - record the device an id uses
 * @priv: the id, without a device yet
 * @dev: the device
 * @ref: the caller's reference on @dev passes to the id
 *
 * Context: process context; sleeps.
 */
void kiwi_rdma_set_device(struct kiwi_rdma_priv *priv,
			  struct kiwi_device *dev, bool ref)
{
	struct kiwi_device *again;

	mutex_lock(&kiwi_rdma_lock);
	priv->id.device = dev;
	priv->dev_ref = ref;
	mutex_unlock(&kiwi_rdma_lock);
	if (!ref)
		return;
	/*
	 * If unregistration started after the caller found @dev, the
	 * client's remove callback may have scanned the ids before this
	 * one had a device: tell the id here. The registry lock orders the
	 * two, so one of them always does.
	 */
	again = kiwi_device_get_by_name(dev->name);
	if (again)
		kiwi_device_put(again);
	if (again != dev)
		kiwi_rdma_kick(priv, KIWI_RDMA_TODO_REMOVE);
}

/**
 * kiwi_rdma_clear_device() - forget the id's device, dropping its reference
 * @priv: the id
 */
void kiwi_rdma_clear_device(struct kiwi_rdma_priv *priv)
{
	struct kiwi_device *dev;
	bool ref;

	mutex_lock(&kiwi_rdma_lock);
	dev = priv->id.device;
	ref = priv->dev_ref;
	priv->id.device = NULL;
	priv->dev_ref = false;
	mutex_unlock(&kiwi_rdma_lock);
	if (ref)
		kiwi_device_put(dev);
}

/**
 * kiwi_rdma_alloc() - allocate an id in state IDLE
 * @net: network namespace, a reference is taken
 * @handler: the ULP's handler
 * @context: the ULP's cookie
 * @ps: port space
 * @qp_type: QP type
 *
 * Return: the id, or NULL without memory.
 */
struct kiwi_rdma_priv *kiwi_rdma_alloc(struct net *net,
				       rdma_cm_event_handler handler,
				       void *context,
				       enum rdma_ucm_port_space ps,
				       enum ib_qp_type qp_type)
{
	struct kiwi_rdma_priv *priv = kzalloc(sizeof(*priv), GFP_KERNEL);

	if (!priv)
		return NULL;
	priv->id.event_handler = handler;
	priv->id.context = context;
	priv->id.ps = ps;
	priv->id.qp_type = qp_type;
	priv->id.port_num = 1;
	priv->net = get_net(net);
	spin_lock_init(&priv->lock);
	priv->state = KIWI_RDMA_IDLE;
	INIT_DELAYED_WORK(&priv->work, kiwi_rdma_work);
	mutex_lock(&kiwi_rdma_lock);
	list_add_tail(&priv->node, &kiwi_rdma_ids);
	mutex_unlock(&kiwi_rdma_lock);
	return priv;
}

/**
 * kiwi_rdma_kick() - have the id's work tell the ULP something now
 * @priv: the id
 * @todo: what
 *
 * A resolution waiting for its neighbour looks again early on the way.
 *
 * Context: any context.
 */
void kiwi_rdma_kick(struct kiwi_rdma_priv *priv, enum kiwi_rdma_todo todo)
{
	set_bit(todo, &priv->todo);
	mod_delayed_work(kiwi_rdma_id_wq, &priv->work, 0);
}

/**
 * kiwi_rdma_work() - the id's own events: removal, ADDR_CHANGE, resolution
 * @work: the id's work
 *
 * Context: a kiwi_rdma_id_wq worker.
 */
void kiwi_rdma_work(struct work_struct *work)
{
	struct kiwi_rdma_priv *priv = container_of(to_delayed_work(work),
						   struct kiwi_rdma_priv, work);

	if (test_and_clear_bit(KIWI_RDMA_TODO_REMOVE, &priv->todo) &&
	    kiwi_rdma_remove_step(priv))
		goto teardown;
	if (test_and_clear_bit(KIWI_RDMA_TODO_CHANGE, &priv->todo) &&
	    kiwi_rdma_change_step(priv))
		goto teardown;
	if (kiwi_rdma_resolve(priv))
		goto teardown;
	return;

teardown:
	kiwi_rdma_teardown(priv, work);
}

/**
 * kiwi_rdma_create_id() - create an rdma_cm_id
 * @net: the network namespace its addresses belong to
 * @event_handler: the ULP's handler
 * @context: the ULP's cookie, stored in the id
 * @ps: port space; only RDMA_PS_TCP
 * @qp_type: QP type; only IB_QPT_RC
 *
 * Context: process context; may sleep.
 * Return: the id in state IDLE, ERR_PTR(-EINVAL) without a handler or for
 * another port space or QP type, or ERR_PTR(-ENOMEM).
 */
struct rdma_cm_id *kiwi_rdma_create_id(struct net *net,
				       rdma_cm_event_handler event_handler,
				       void *context,
				       enum rdma_ucm_port_space ps,
				       enum ib_qp_type qp_type)
{
	struct kiwi_rdma_priv *priv;

	might_sleep();
	if (!event_handler || ps != RDMA_PS_TCP || qp_type != IB_QPT_RC)
		return ERR_PTR(-EINVAL);
	priv = kiwi_rdma_alloc(net, event_handler, context, ps, qp_type);
	if (!priv)
		return ERR_PTR(-ENOMEM);
	return &priv->id;
}
EXPORT_SYMBOL_GPL(kiwi_rdma_create_id);

/* Move the id to DESTROYING: no call or event acts on it any more. */
static void kiwi_rdma_doom(struct kiwi_rdma_priv *priv)
{
	unsigned long flags;

	spin_lock_irqsave(&priv->lock, flags);
	priv->state = KIWI_RDMA_DESTROYING;
	spin_unlock_irqrestore(&priv->lock, flags);
}

/**
 * kiwi_rdma_deliver() - call the ULP's handler
 * @priv: the id
 * @ev: the event
 *
 * Return: non-zero if the id is to be destroyed now: the handler asked,
 * or called rdma_destroy_id() on it.
 */
int kiwi_rdma_deliver(struct kiwi_rdma_priv *priv, struct rdma_cm_event *ev)
{
	int ret;

	WRITE_ONCE(priv->handler_task, current);
	ret = priv->id.event_handler(&priv->id, ev);
	WRITE_ONCE(priv->handler_task, NULL);
	if (ret)
		kiwi_rdma_doom(priv);
	return ret || READ_ONCE(priv->destroy_deferred);
}

/**
 * kiwi_rdma_teardown() - free an id in state DESTROYING
 * @priv: the id
 * @self: the id's work item the caller runs in, or NULL
 *
 * Waits for resolution and handlers in flight, destroys the iw_cm id, the
 * QP the ULP left, drops the port, the device and the namespace.
 */
void kiwi_rdma_teardown(struct kiwi_rdma_priv *priv, struct work_struct *self)
{
	/* DESTROYING: no new call pins the id; wait for those that did */
	wait_var_event(&priv->calls, !atomic_read(&priv->calls));
	/* off the list first: device removal and netdev events queue work */
	mutex_lock(&kiwi_rdma_lock);
	list_del(&priv->node);
	mutex_unlock(&kiwi_rdma_lock);
	if (self != &priv->work.work)
		cancel_delayed_work_sync(&priv->work);
	else
		cancel_delayed_work(&priv->work);	/* kicked while it ran */
	if (priv->cm)
		kiwi_cm_destroy_id(priv->cm);
	kiwi_rdma_fan_stop(priv);
	if (priv->id.qp)
		kiwi_destroy_qp(priv->id.qp);
	kiwi_rdma_port_put(priv);
	kiwi_rdma_clear_device(priv);
	put_net(priv->net);
	kfree(priv);
}

/**
 * kiwi_rdma_destroy_id() - destroy an rdma_cm_id
 * @id: the id
 *
 * Cancels address or route resolution in flight, ends a listener or a
 * connection, frees the QP the ULP did not destroy, and waits until no
 * call of the handler runs. Called from the id's own handler, it takes
 * effect when the handler returns (as if it had returned non-zero).
 *
 * Context: process context; sleeps. Not from the handler of another id
 * whose events are delivered through @id (a listener's children).
 */
void kiwi_rdma_destroy_id(struct rdma_cm_id *id)
{
	struct kiwi_rdma_priv *priv = kiwi_rdma_priv(id);

	might_sleep();
	kiwi_rdma_doom(priv);
	if (READ_ONCE(priv->handler_task) == current) {
		WRITE_ONCE(priv->destroy_deferred, true);
		return;
	}
	kiwi_rdma_teardown(priv, NULL);
}
EXPORT_SYMBOL_GPL(kiwi_rdma_destroy_id);

/**
 * kiwi_rdma_set_service_type() - set the type of service of an id
 * @id: the id
 * @tos: IPv4 TOS / IPv6 traffic class
 *
 * Takes effect at the next route resolution: set between
 * rdma_resolve_addr() and rdma_resolve_route(), the route is looked up
 * with it.
 *
 * Context: any context.
 */
void kiwi_rdma_set_service_type(struct rdma_cm_id *id, int tos)
{
	WRITE_ONCE(id->route.tos, (u8)tos);
}
EXPORT_SYMBOL_GPL(kiwi_rdma_set_service_type);

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
 * Return: its name without the RDMA_CM_EVENT_ prefix, "UNKNOWN" if out
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
