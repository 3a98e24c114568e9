/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kiwi_rdmacm internals: the private side of an rdma_cm_id, its states,
 * and what the files of the module share.
 */
#ifndef _KIWI_RDMACM_H
#define _KIWI_RDMACM_H

#include <linux/list.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include <kiwi/fault.h>
#include <kiwi/provider.h>
#include <rdma/rdma_cm.h>

/**
 * enum kiwi_rdma_state - where an rdma_cm_id is
 * @KIWI_RDMA_IDLE: created
 * @KIWI_RDMA_ADDR_BOUND: bound to a local address and port
 * @KIWI_RDMA_ADDR_QUERY: address resolution in flight
 * @KIWI_RDMA_ADDR_RESOLVED: source address and device known
 * @KIWI_RDMA_ROUTE_QUERY: route resolution in flight
 * @KIWI_RDMA_ROUTE_RESOLVED: ready to connect
 * @KIWI_RDMA_LISTEN: listening
 * @KIWI_RDMA_REQUEST: passive side, a request not answered yet
 * @KIWI_RDMA_CONNECT: connect sent, or request accepted; not up yet
 * @KIWI_RDMA_ESTABLISHED: connected
 * @KIWI_RDMA_DISCONNECTED: the connection or attempt ended
 * @KIWI_RDMA_REMOVED: the id's device went away and the ULP kept the id
 *	past DEVICE_REMOVAL: it was cut loose from the device (no iw_cm id,
 *	no device); only rdma_destroy_id() is left
 * @KIWI_RDMA_DESTROYING: rdma_destroy_id() was called
 * @KIWI_RDMA_NR_STATES: number of states
 */
enum kiwi_rdma_state {
	KIWI_RDMA_IDLE,
	KIWI_RDMA_ADDR_BOUND,
	KIWI_RDMA_ADDR_QUERY,
	KIWI_RDMA_ADDR_RESOLVED,
	KIWI_RDMA_ROUTE_QUERY,
	KIWI_RDMA_ROUTE_RESOLVED,
	KIWI_RDMA_LISTEN,
	KIWI_RDMA_REQUEST,
	KIWI_RDMA_CONNECT,
	KIWI_RDMA_ESTABLISHED,
	KIWI_RDMA_DISCONNECTED,
	KIWI_RDMA_REMOVED,
	KIWI_RDMA_DESTROYING,
	KIWI_RDMA_NR_STATES
};

/**
 * enum kiwi_rdma_call - the ULP calls that move an id, for the call table
 * @KIWI_RDMA_CALL_BIND: rdma_bind_addr()
 * @KIWI_RDMA_CALL_RESOLVE_ADDR: rdma_resolve_addr()
 * @KIWI_RDMA_CALL_RESOLVE_ROUTE: rdma_resolve_route()
 * @KIWI_RDMA_CALL_LISTEN: rdma_listen()
 * @KIWI_RDMA_CALL_CONNECT: rdma_connect()
 * @KIWI_RDMA_CALL_ACCEPT: rdma_accept()
 * @KIWI_RDMA_CALL_REJECT: rdma_reject()
 * @KIWI_RDMA_CALL_DISCONNECT: rdma_disconnect()
 * @KIWI_RDMA_NR_CALLS: number of calls
 */
enum kiwi_rdma_call {
	KIWI_RDMA_CALL_BIND,
	KIWI_RDMA_CALL_RESOLVE_ADDR,
	KIWI_RDMA_CALL_RESOLVE_ROUTE,
	KIWI_RDMA_CALL_LISTEN,
	KIWI_RDMA_CALL_CONNECT,
	KIWI_RDMA_CALL_ACCEPT,
	KIWI_RDMA_CALL_REJECT,
	KIWI_RDMA_CALL_DISCONNECT,
	KIWI_RDMA_NR_CALLS
};

/**
 * enum kiwi_rdma_todo - what an id's work is to tell the ULP besides a
 *	resolution (bits in &kiwi_rdma_priv.todo)
 * @KIWI_RDMA_TODO_REMOVE: DEVICE_REMOVAL, for an id without an iw_cm id
 * @KIWI_RDMA_TODO_CHANGE: ADDR_CHANGE, for a resolved id
 * @KIWI_RDMA_TODO_CLOSING: DISCONNECTED, for an id whose rdma_disconnect()
 *	started the graceful close (the CLOSING row of the event table)
 */
enum kiwi_rdma_todo {
	KIWI_RDMA_TODO_REMOVE,
	KIWI_RDMA_TODO_CHANGE,
	KIWI_RDMA_TODO_CLOSING,
};

/*
 * KIWI_RDMA_EV_CLOSING - the key of the event table's one row that is not
 * an iw_cm upcall: rdma_disconnect() on an ESTABLISHED id, once the core
 * took the graceful close (the QP is in CLOSING, its FIN queued).
 */
#define KIWI_RDMA_EV_CLOSING KIWI_CM_NR_EVENTS

/**
 * struct kiwi_rdma_priv - an rdma_cm_id and what only the module sees
 * @id: what the ULP sees
 * @net: the id's network namespace (a reference)
 * @cm: the iw_cm id of a listener or connection, or NULL
 * @lock: protects @state, @from, @removal_told, @torn, @cutting and
 *	@destroy_waits
 * @state: see enum kiwi_rdma_state
 * @from: state to return to when a call or resolution fails
 * @node: entry in the list of all ids (kiwi_rdma_lock)
 * @bound: the id holds a port (kiwi_rdma_lock)
 * @port_node: entry in the hash of held ports while @bound (kiwi_rdma_lock)
 * @dev_ref: @id.device holds a device reference of this id's
 * @fan: a wildcard listener: listens on every kiwi device of @net
 *	(kiwi_rdma_fan_lock)
 * @backlog: the backlog rdma_listen() was given, for devices added later
 * @work: the events the module makes itself: address or route resolution
 *	(rescheduled while a neighbour is being resolved) and the @todo
 *	bits; on kiwi_rdma_id_wq. One work item per id: they never run at
 *	once, while the ids' works run in parallel
 * @deadline: jiffies at which address resolution gives up
 * @neigh_kicked: neighbour resolution was started for this resolution
 * @todo: &enum kiwi_rdma_todo bits for @work
 * @removal_told: DEVICE_REMOVAL was delivered (@lock)
 * @port_auto: rdma_cm picked the port when the id was bound: a
 *	connection leaves it to TCP
 * @afonly: rdma_set_afonly(): an IPv6 wildcard bind covers IPv6 only
 * @reuseaddr: rdma_set_reuseaddr(): the port may be shared with other
 *	reusing ids while none listens
 * @handler_task: the task running the ULP's handler for this id, or NULL
 *	(@lock); one at a time: see kiwi_rdma_deliver()
 * @destroy_deferred: the handler called rdma_destroy_id() on its own id
 * @torn: a task took on the teardown (@lock): exactly one ever does, be
 *	it rdma_destroy_id() or the return of a handler asking for it; the
 *	cut of a removed device holds it while it runs
 * @cutting: that cut runs (@lock): see kiwi_rdma_cut_loose()
 * @destroy_waits: an rdma_destroy_id() waits for the cut, and tears the
 *	id down after it (@lock)
 * @calls: pins: ULP calls in progress (kiwi_rdma_enter() to
 *	kiwi_rdma_leave(), kiwi_rdma_pin()), fans a device's removal is
 *	closing (listen.c); the teardown and the cut of a removed device wait
 *	(wait_var_event()) until there are none
 * @iwarp: iWARP options for the iw_cm ids this id makes, allocated by the
 *	first kiwi_rdma_set_option() (@lock)
 */
struct kiwi_rdma_priv {
	struct rdma_cm_id id;
	struct net *net;
	struct kiwi_cm_id *cm;
	spinlock_t lock;	/* protects state, from, removal_told */
	enum kiwi_rdma_state state;
	enum kiwi_rdma_state from;
	/* packed: 504 bytes without debug options, a kmalloc-512 object */
	bool bound;
	bool dev_ref;
	bool fan;
	bool neigh_kicked;
	struct list_head node;
	struct hlist_node port_node;
	int backlog;
	atomic_t calls;
	struct delayed_work work;
	unsigned long deadline;
	unsigned long todo;
	struct task_struct *handler_task;
	bool removal_told;
	bool destroy_deferred;
	bool torn;
	bool cutting;
	bool destroy_waits;
	bool port_auto;
	bool afonly;
	bool reuseaddr;
	struct kiwi_iwarp_opts *iwarp;
};

/**
 * struct kiwi_rdma_dev - a kiwi device the module knows of (client add)
 * @node: entry in kiwi_rdma_devs (kiwi_rdma_lock)
 * @dev: the device, with a reference dropped by @drain_work
 * @remove_work: after the client's remove: closes the device's fan-out
 *	listeners, then queues @drain_work
 * @drain_work: waits for the ULPs to destroy their ids on the device, at
 *	most removal_grace_ms, cuts loose those kept, drops the reference
 *	and frees this (removal.c)
 */
struct kiwi_rdma_dev {
	struct list_head node;
	struct ib_device *dev;
	struct work_struct remove_work;
	struct work_struct drain_work;
};

/**
 * struct kiwi_rdma_fan - one device's share of a wildcard listener
 * @node: entry in the fan-out list (kiwi_rdma_fan_lock)
 * @owner: the wildcard listener
 * @rdev: the device
 * @cm: its listening iw_cm id, or NULL if listening there failed
 * @nomem: it failed for want of memory: the fan work forgets it at the
 *	end of its pass and tries again later
 */
struct kiwi_rdma_fan {
	struct list_head node;
	struct kiwi_rdma_priv *owner;
	struct kiwi_rdma_dev *rdev;
	struct kiwi_cm_id *cm;
	bool nomem;
};

void kiwi_rdma_apply_options(struct kiwi_rdma_priv *priv,
			     struct kiwi_cm_id *cm);

static inline struct kiwi_rdma_priv *kiwi_rdma_priv(struct rdma_cm_id *id)
{
	return container_of(id, struct kiwi_rdma_priv, id);
}

extern struct mutex kiwi_rdma_lock;
extern struct list_head kiwi_rdma_ids;
extern struct workqueue_struct *kiwi_rdma_wq;
extern struct workqueue_struct *kiwi_rdma_id_wq;

/* id.c */
struct kiwi_rdma_priv *kiwi_rdma_alloc(struct net *net,
				       rdma_cm_event_handler handler,
				       void *context,
				       enum rdma_ucm_port_space ps,
				       enum ib_qp_type qp_type);
int kiwi_rdma_enter_set(struct kiwi_rdma_priv *priv, enum kiwi_rdma_call call,
			void (*set)(struct kiwi_rdma_priv *priv,
				    const void *arg),
			const void *arg);
int kiwi_rdma_enter(struct kiwi_rdma_priv *priv, enum kiwi_rdma_call call);
bool kiwi_rdma_pin(struct kiwi_rdma_priv *priv);
void kiwi_rdma_unpin(struct kiwi_rdma_priv *priv);
int kiwi_rdma_leave(struct kiwi_rdma_priv *priv, enum kiwi_rdma_call call,
		    int ret);
bool kiwi_rdma_move(struct kiwi_rdma_priv *priv, enum kiwi_rdma_state from,
		    enum kiwi_rdma_state to);
enum kiwi_rdma_state kiwi_rdma_state_of(struct kiwi_rdma_priv *priv);
int kiwi_rdma_deliver(struct kiwi_rdma_priv *priv, struct rdma_cm_event *ev,
		      bool (*due)(struct kiwi_rdma_priv *priv));
void kiwi_rdma_teardown(struct kiwi_rdma_priv *priv,
			struct work_struct *self);
bool kiwi_rdma_handler_idle(struct kiwi_rdma_priv *priv);
void kiwi_rdma_kick(struct kiwi_rdma_priv *priv, enum kiwi_rdma_todo todo);
void kiwi_rdma_work(struct work_struct *work);
void kiwi_rdma_set_device(struct kiwi_rdma_priv *priv,
			  struct ib_device *dev, bool ref);
void kiwi_rdma_clear_device(struct kiwi_rdma_priv *priv);
unsigned int kiwi_rdma_reap(void);
const char *kiwi_rdma_state_name(enum kiwi_rdma_state state);
int kiwi_rdma_live_ids(void);

/* addr.c */
int kiwi_rdma_port_get(struct kiwi_rdma_priv *priv);
int kiwi_rdma_port_listen_ok(struct kiwi_rdma_priv *priv);
int kiwi_rdma_autobind(struct kiwi_rdma_priv *priv, struct sockaddr *src,
		       sa_family_t family);
void kiwi_rdma_port_put(struct kiwi_rdma_priv *priv);
void kiwi_rdma_port_local(struct kiwi_rdma_priv *priv,
			  struct sockaddr_storage *local);
void kiwi_rdma_port_move(struct kiwi_rdma_priv *priv,
			 const struct sockaddr_storage *local);
int kiwi_rdma_resolve(struct kiwi_rdma_priv *priv);

/* listen.c */
int kiwi_rdma_fan_listen(struct kiwi_rdma_priv *priv, int backlog);
void kiwi_rdma_fan_stop(struct kiwi_rdma_priv *priv);
void kiwi_rdma_fan_exit(void);
int kiwi_rdma_fan_count(struct kiwi_rdma_priv *priv);
struct kiwi_cm_id *kiwi_rdma_fan_cm(struct kiwi_rdma_priv *priv,
				    struct ib_device *dev);
int kiwi_rdma_device_add(struct ib_device *dev);
void kiwi_rdma_dev_forget(struct ib_device *dev);

/* removal.c */
void kiwi_rdma_dev_drain_work(struct work_struct *work);
void kiwi_rdma_id_gone(void);
unsigned int kiwi_rdma_set_removal_grace(unsigned int ms);

/* netdev.c */
int kiwi_rdma_netdev_init(void);
void kiwi_rdma_netdev_exit(void);
int kiwi_rdma_change_step(struct kiwi_rdma_priv *priv);

/* event.c */
int kiwi_rdma_cm_handler(struct kiwi_cm_id *cm,
			 const struct kiwi_cm_event *ev);
int kiwi_rdma_remove_step(struct kiwi_rdma_priv *priv);
void kiwi_rdma_closing(struct kiwi_rdma_priv *priv);
int kiwi_rdma_closing_step(struct kiwi_rdma_priv *priv);
enum rdma_cm_event_type kiwi_rdma_map_event(enum kiwi_cm_event_type iw,
					    int status,
					    enum kiwi_rdma_state state);
void kiwi_rdma_device_remove(struct ib_device *dev, void *client_data);

#endif /* _KIWI_RDMACM_H */
