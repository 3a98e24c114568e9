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
	[KIWI_RDMA_REMOVED] = "REMOVED",
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
 * kiwi_rdma_enter_set() - start a ULP call: apply the call table, pin the
 *	id, and set what the new state stands for
 * @priv: the id
 * @call: the call
 * @set: if not NULL, called under the id's lock once the call is legal,
 *	before the id moves: whoever sees the new state sees what @set wrote
 * @arg: @set's argument
 *
 * As kiwi_rdma_enter().
 *
 * Context: any context; @set must not sleep.
 * Return: 0, or -EINVAL if @call is not legal in the current state.
 */
int kiwi_rdma_enter_set(struct kiwi_rdma_priv *priv, enum kiwi_rdma_call call,
			void (*set)(struct kiwi_rdma_priv *priv,
				    const void *arg),
			const void *arg)
{
	enum kiwi_rdma_state to = kiwi_rdma_calls[call].to;
	unsigned long flags;
	int ret = -EINVAL;

	spin_lock_irqsave(&priv->lock, flags);
	if (kiwi_rdma_calls[call].from & BIT(priv->state)) {
		if (set)
			set(priv, arg);
		priv->from = priv->state;
		if (to != KIWI_RDMA_NR_STATES)
			priv->state = to;
		atomic_inc(&priv->calls);
		ret = 0;
	}
	spin_unlock_irqrestore(&priv->lock, flags);
	return ret;
}

/**
 * kiwi_rdma_enter() - start a ULP call: apply the call table, pin the id
 * @priv: the id
 * @call: the call
 *
 * Remembers the state left in @priv->from for kiwi_rdma_leave(). A call
 * that entered pins the id until it leaves, so that an rdma_destroy_id()
 * racing it (on another CPU, or from a handler) waits until the call is
 * done rather than freeing what it uses. An id being destroyed is in no
 * state of the table: the call fails.
 *
 * Context: any context.
 * Return: 0, or -EINVAL if @call is not legal in the current state.
 */
int kiwi_rdma_enter(struct kiwi_rdma_priv *priv, enum kiwi_rdma_call call)
{
	return kiwi_rdma_enter_set(priv, call, NULL, NULL);
}

/**
 * kiwi_rdma_unpin() - drop a pin: of a call, of kiwi_rdma_pin(), of a fan
 *	a device's removal closes
 * @priv: the id
 *
 * The last one wakes the teardown or cut that waits for none. Only the
 * address is hashed after the count drops: the teardown woken may free
 * @priv at once.
 *
 * Context: any context.
 */
void kiwi_rdma_unpin(struct kiwi_rdma_priv *priv)
{
	if (atomic_dec_and_test(&priv->calls))
		wake_up_var(&priv->calls);
}

/**
 * kiwi_rdma_leave() - end a ULP call kiwi_rdma_enter() started
 * @priv: the id
 * @call: the call
 * @ret: its outcome
 *
 * A call that failed goes back to the state it left, unless an event or
 * destroy moved the id on meanwhile. Then the pin is dropped.
 *
 * Context: any context.
 * Return: @ret.
 */
int kiwi_rdma_leave(struct kiwi_rdma_priv *priv, enum kiwi_rdma_call call,
		    int ret)
{
	enum kiwi_rdma_state to = kiwi_rdma_calls[call].to;
	unsigned long flags;

	if (ret && to != KIWI_RDMA_NR_STATES) {
		spin_lock_irqsave(&priv->lock, flags);
		if (priv->state == to)
			priv->state = priv->from;
		spin_unlock_irqrestore(&priv->lock, flags);
	}
	kiwi_rdma_unpin(priv);
	return ret;
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
 * kiwi_rdma_set_device() - record the device an id uses
 * @priv: the id, without a device yet
 * @dev: the device
 * @ref: the caller's reference on @dev passes to the id
 *
 * Context: process context; sleeps.
 */
void kiwi_rdma_set_device(struct kiwi_rdma_priv *priv,
			  struct ib_device *dev, bool ref)
{
	struct ib_device *again;

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
	struct ib_device *dev;
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
	struct kiwi_rdma_priv *priv;

	priv = kiwi_should_fail() ? NULL : kzalloc(sizeof(*priv), GFP_KERNEL);
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
EXPORT_SYMBOL_IF_KUNIT(kiwi_rdma_kick);

/**
 * kiwi_rdma_work() - the id's own events: removal, ADDR_CHANGE, the
 *	DISCONNECTED of its own close, resolution
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
	if (test_and_clear_bit(KIWI_RDMA_TODO_CLOSING, &priv->todo) &&
	    kiwi_rdma_closing_step(priv))
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

/*
 * Claim the id's handler for the current task, or find the id being
 * destroyed (*@ok false). Return: false while another task runs it.
 */
static bool kiwi_rdma_claim(struct kiwi_rdma_priv *priv, bool *ok)
{
	unsigned long flags;
	bool gone, busy;

	spin_lock_irqsave(&priv->lock, flags);
	gone = priv->state == KIWI_RDMA_DESTROYING;	/* the event is dropped */
	busy = !gone && priv->handler_task;
	*ok = !gone && !busy;
	if (*ok)
		priv->handler_task = current;
	spin_unlock_irqrestore(&priv->lock, flags);
	return !busy;
}

static void kiwi_rdma_unclaim(struct kiwi_rdma_priv *priv)
{
	unsigned long flags;

	spin_lock_irqsave(&priv->lock, flags);
	priv->handler_task = NULL;
	spin_unlock_irqrestore(&priv->lock, flags);
	/* only hashes the address: a teardown woken may free @priv */
	wake_up_var(&priv->handler_task);
}

/**
 * kiwi_rdma_handler_idle() - is no handler call of the id in flight
 * @priv: the id
 *
 * Context: any context.
 * Return: true if no thread is in the id's event handler.
 */
bool kiwi_rdma_handler_idle(struct kiwi_rdma_priv *priv)
{
	unsigned long flags;
	bool idle;

	spin_lock_irqsave(&priv->lock, flags);
	idle = !priv->handler_task;
	spin_unlock_irqrestore(&priv->lock, flags);
	return idle;
}

/* Take on the id's teardown. Return: true for exactly one caller. */
static bool kiwi_rdma_take_teardown(struct kiwi_rdma_priv *priv)
{
	unsigned long flags;
	bool mine;

	spin_lock_irqsave(&priv->lock, flags);
	mine = !priv->torn;
	priv->torn = true;
	spin_unlock_irqrestore(&priv->lock, flags);
	return mine;
}

/**
 * kiwi_rdma_pin() - pin an id for a ULP call outside the call table
 * @priv: the id
 *
 * For the calls that use the id's iw_cm id or device without moving it:
 * while pinned, neither the teardown nor the cut of a removed device
 * (kiwi_rdma_cut_loose()) takes them away.
 *
 * Context: any context.
 * Return: true if pinned (unpin with kiwi_rdma_unpin()), false for an id
 * being destroyed or cut loose.
 */
bool kiwi_rdma_pin(struct kiwi_rdma_priv *priv)
{
	unsigned long flags;
	bool ok;

	spin_lock_irqsave(&priv->lock, flags);
	ok = priv->state != KIWI_RDMA_DESTROYING &&
	     priv->state != KIWI_RDMA_REMOVED;
	if (ok)
		atomic_inc(&priv->calls);
	spin_unlock_irqrestore(&priv->lock, flags);
	return ok;
}

/**
 * kiwi_rdma_deliver() - call the ULP's handler, one call at a time per id
 * @priv: the id
 * @ev: the event
 * @due: if set, asked once the handler is claimed whether the event still
 *	applies; false drops it
 *
 * Events of one id come from several workers (the core's, for connection
 * events, and the id's own work, for resolution, removal and ADDR_CHANGE): a
 * call waits until no other task runs the id's handler, so that the ULP's
 * handler never runs twice at once for one id. An id being destroyed
 * gets no call.
 *
 * Context: process context; sleeps. Not from the id's own handler.
 * Return: non-zero if the id is to be destroyed now, by the caller: the
 * handler asked, or called rdma_destroy_id() on it, and no
 * rdma_destroy_id() on another task took the teardown first.
 */
int kiwi_rdma_deliver(struct kiwi_rdma_priv *priv, struct rdma_cm_event *ev,
		      bool (*due)(struct kiwi_rdma_priv *priv))
{
	bool ok;
	int ret;

	might_sleep();
	wait_var_event(&priv->handler_task, kiwi_rdma_claim(priv, &ok));
	if (!ok)
		return 0;
	if (due && !due(priv)) {
		kiwi_rdma_unclaim(priv);
		return 0;
	}
	ret = priv->id.event_handler(&priv->id, ev);
	if (ret)
		kiwi_rdma_doom(priv);
	ret = ret || READ_ONCE(priv->destroy_deferred);
	/*
	 * An rdma_destroy_id() on another task, waiting for this handler,
	 * tears down instead; or the cut of a removed device, once it ends
	 * (it waits for this handler too: it must not wait here for it).
	 */
	if (ret && !kiwi_rdma_take_teardown(priv)) {
		WRITE_ONCE(priv->destroy_deferred, true);
		ret = 0;
	}
	kiwi_rdma_unclaim(priv);
	return ret;
}

static bool kiwi_rdma_claim_any(struct kiwi_rdma_priv *priv)
{
	unsigned long flags;
	bool free;

	spin_lock_irqsave(&priv->lock, flags);
	free = !priv->handler_task;
	if (free)
		priv->handler_task = current;
	spin_unlock_irqrestore(&priv->lock, flags);
	return free;
}

/**
 * kiwi_rdma_lock_handler() - keep an id's event handler from running
 * @id: the id
 *
 * Waits for a handler call in progress, then holds off the next until
 * kiwi_rdma_unlock_handler(): a ULP can change @id->event_handler or
 * @id->context, or accept, with no event of @id in between. Events that
 * come meanwhile are delivered afterwards, in order.
 *
 * Context: process context; sleeps. Not from @id's own handler.
 */
void kiwi_rdma_lock_handler(struct rdma_cm_id *id)
{
	struct kiwi_rdma_priv *priv = kiwi_rdma_priv(id);

	might_sleep();
	wait_var_event(&priv->handler_task, kiwi_rdma_claim_any(priv));
}
EXPORT_SYMBOL_GPL(kiwi_rdma_lock_handler);

/**
 * kiwi_rdma_unlock_handler() - let an id's event handler run again
 * @id: an id the caller locked with kiwi_rdma_lock_handler()
 *
 * Context: the task that locked @id.
 */
void kiwi_rdma_unlock_handler(struct rdma_cm_id *id)
{
	struct kiwi_rdma_priv *priv = kiwi_rdma_priv(id);

	WARN_ON_ONCE(READ_ONCE(priv->handler_task) != current);
	kiwi_rdma_unclaim(priv);
}
EXPORT_SYMBOL_GPL(kiwi_rdma_unlock_handler);

/**
 * kiwi_rdma_teardown() - free an id in state DESTROYING
 * @priv: the id
 * @self: the id's work item the caller runs in, or NULL
 *
 * Waits for resolution and handlers in flight, destroys the iw_cm id,
 * drops the port, the device and the namespace. The QP is the ULP's:
 * it stays, for the ULP to destroy before or after (as in Linux).
 */
void kiwi_rdma_teardown(struct kiwi_rdma_priv *priv, struct work_struct *self)
{
	/* DESTROYING: no new call pins the id; wait for those that did */
	wait_var_event(&priv->calls, !atomic_read(&priv->calls));
	/* off the list first: device removal and netdev events queue work */
	mutex_lock(&kiwi_rdma_lock);
	list_del(&priv->node);
	mutex_unlock(&kiwi_rdma_lock);
	kiwi_rdma_id_gone();
	if (self != &priv->work.work)
		cancel_delayed_work_sync(&priv->work);
	else
		cancel_delayed_work(&priv->work);	/* kicked while it ran */
	/* DESTROYING: no new handler call starts; wait for a running one */
	wait_var_event(&priv->handler_task, kiwi_rdma_handler_idle(priv));
	if (priv->cm)
		kiwi_cm_destroy_id(priv->cm);
	kiwi_rdma_fan_stop(priv);
	/* and for the fans a device's removal is closing (they pin the id) */
	wait_var_event(&priv->calls, !atomic_read(&priv->calls));
	kiwi_rdma_port_put(priv);
	kiwi_rdma_clear_device(priv);
	put_net(priv->net);
	kfree(priv->iwarp);
	kfree(priv);
}

/*
 * An id no one tore down yet, its teardown taken, DESTROYING (so that no
 * event reaches its handler any more); or NULL.
 */
static struct kiwi_rdma_priv *kiwi_rdma_take_leaked(enum kiwi_rdma_state *was)
{
	struct kiwi_rdma_priv *priv, *found = NULL;

	mutex_lock(&kiwi_rdma_lock);
	list_for_each_entry(priv, &kiwi_rdma_ids, node) {
		if (kiwi_rdma_take_teardown(priv)) {
			*was = kiwi_rdma_state_of(priv);
			kiwi_rdma_doom(priv);
			found = priv;
			break;
		}
	}
	mutex_unlock(&kiwi_rdma_lock);
	return found;
}

/**
 * kiwi_rdma_reap() - free the ids left at module unload
 *
 * Context: module exit, before the core client goes (whose removal
 * would tell the ids DEVICE_REMOVAL). The module unloads only once no ULP
 * module using it is loaded: an id still here was leaked by a ULP that
 * is gone, and its handler with it. Each is named and torn down without
 * a call to its handler: its iw_cm id, port, device and namespace go.
 * A QP the ULP leaked too stays (it may have been destroyed with
 * ib_destroy_qp(), which id->qp does not learn of): the device's
 * unregistration names it.
 * Return: the number of ids reaped.
 */
unsigned int kiwi_rdma_reap(void)
{
	enum kiwi_rdma_state was;
	struct kiwi_rdma_priv *priv;
	unsigned int n = 0;

	while ((priv = kiwi_rdma_take_leaked(&was))) {
		pr_err("kiwi_rdmacm: id %pISpc -> %pISpc (%s) leaked by an unloaded ULP: destroyed at unload, its handler not called\n",
		       &priv->id.route.addr.src_addr,
		       &priv->id.route.addr.dst_addr, kiwi_rdma_state_name(was));
		kiwi_rdma_teardown(priv, NULL);
		n++;
	}
	return n;
}

/* A destroy that found the id being cut: has the cut ended? */
static bool kiwi_rdma_cut_done(struct kiwi_rdma_priv *priv)
{
	unsigned long flags;
	bool done;

	spin_lock_irqsave(&priv->lock, flags);
	done = !priv->cutting;
	spin_unlock_irqrestore(&priv->lock, flags);
	return done;
}

/**
 * kiwi_rdma_destroy_id() - destroy an rdma_cm_id
 * @id: the id
 *
 * Cancels address or route resolution in flight, ends a listener or a
 * connection, and waits until no call of the handler runs: when it
 * returns, the handler runs no more for @id. Called from the id's own
 * handler, it takes effect when the handler returns (as if it had
 * returned non-zero). A connection this
 * side was closing gracefully (rdma_disconnect()) is not reset: the core
 * finishes the close in the background; this call does not wait for it.
 * Called on another task while the id's handler runs and then returns
 * non-zero, the id is torn down once, by this call. A handler's non-zero
 * return gives the id up: once the handler returned, the id is gone and
 * this call must not be made (as in Linux).
 *
 * The id's QP is not destroyed: as in Linux, the ULP destroys it with
 * rdma_destroy_qp() or ib_destroy_qp(), before or after this call. An
 * iWARP QP is the connection, so either may go first; one never
 * destroyed keeps the device from unregistering until the core gives up
 * on it.
 *
 * Context: process context; sleeps. From another id's handler, not while
 * @id's handler (for a listener: a CONNECT_REQUEST handler of its new ids)
 * may itself be destroying that other id (each would wait for the other).
 */
void kiwi_rdma_destroy_id(struct rdma_cm_id *id)
{
	struct kiwi_rdma_priv *priv = kiwi_rdma_priv(id);
	unsigned long flags;
	bool mine, cut;

	might_sleep();
	/* one section: a handler's return cannot slip between doom and take */
	spin_lock_irqsave(&priv->lock, flags);
	priv->state = KIWI_RDMA_DESTROYING;
	if (priv->handler_task == current) {
		priv->destroy_deferred = true;
		spin_unlock_irqrestore(&priv->lock, flags);
		return;
	}
	cut = priv->cutting;
	mine = !priv->torn;
	priv->torn = true;
	priv->destroy_waits |= cut;
	spin_unlock_irqrestore(&priv->lock, flags);
	/* a removed device's cut hands the teardown over when it ends */
	if (cut) {
		wait_var_event(&priv->torn, kiwi_rdma_cut_done(priv));
		mine = true;
	}
	if (mine)
		kiwi_rdma_teardown(priv, NULL);
}
EXPORT_SYMBOL_GPL(kiwi_rdma_destroy_id);
