/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kiwi_iwcm internals shared by the files of the core.
 */
#ifndef _KIWI_IWCM_H
#define _KIWI_IWCM_H

#include <linux/list.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include <kiwi/fault.h>
#include <kiwi/iw_cm.h>
#include <kiwi/provider.h>
#include <rdma/mr_pool.h>

struct seq_file;

/**
 * struct kiwi_cm_slot - one queued event (see struct kiwi_cm_priv.ring)
 * @pdata: private data copy, owned by the slot
 * @qp_put: a QP reference to drop before delivery (the connection ended)
 * @status: event status
 * @len: bytes at @pdata
 * @event: enum kiwi_cm_event_type
 */
struct kiwi_cm_slot {
	void *pdata;
	struct ib_qp *qp_put;
	int status;
	u16 len;
	u8 event;
};

/*
 * Each event type reaches an id at most once (a second one is a protocol
 * violation and is not queued), so one slot per type can never overflow.
 */
#define KIWI_CM_RING KIWI_CM_NR_EVENTS

/* Bits of kiwi_cm_priv.flags. */
#define KIWI_CM_F_USED		BIT(0)	/* listen/connect was called */
#define KIWI_CM_F_ACCEPTED	BIT(1)	/* accept was called */
#define KIWI_CM_F_ORPHAN	BIT(2)	/* its device is gone: see device.c */
#define KIWI_CM_F_GRACEFUL	BIT(3)	/* the owner's graceful disconnect() */
#define KIWI_CM_F_LINGER	BIT(4)	/* @linger is armed: see linger.c */
#define KIWI_CM_F_FREEING	BIT(5)	/* the last reference went: see cm.c */

/**
 * struct kiwi_cm_priv - a cm_id and the core's state for it
 * @id: what ULPs and providers see
 * @lock: protects everything below except @ref and @work
 * @state: enum kiwi_cm_state
 * @flags: KIWI_CM_F_*
 * @seen: bit per enum kiwi_cm_event_type reported by the provider
 * @head: first queued slot in @ring
 * @count: queued slots
 * @provider_refs: references held by the provider (for leak reports)
 * @backlog: listener: CONNECT_REQUESTs allowed to be pending
 * @pending: listener: CONNECT_REQUESTs pending (not yet handled)
 * @ref: references, see Documentation/iw_cm.rst
 * @qp: the QP bound to the connection, pinned with iw_add_ref
 * @listener: child: the listener, pinned until CONNECT_REQUEST is handled
 * @dev_node: entry in the device's id list
 * @deliveries: handler calls in progress with this id's handler
 * @work: delivers the queued events, in order
 * @linger: in LINGER, ends the background close (see linger.c)
 * @ring: queued events
 */
struct kiwi_cm_priv {
	struct kiwi_cm_id id;
	spinlock_t lock;	/* see the kernel-doc above */
	u8 state;
	u8 flags;
	u8 seen;
	u8 head;
	u8 count;
	u16 provider_refs;
	u16 backlog;
	u16 pending;
	refcount_t ref;
	struct ib_qp *qp;
	struct kiwi_cm_priv *listener;
	struct list_head dev_node;
	struct list_head deliveries;
	struct work_struct work;
	struct delayed_work linger;
	struct kiwi_cm_slot ring[KIWI_CM_RING];
};

static inline struct kiwi_cm_priv *kiwi_cm_priv(struct kiwi_cm_id *id)
{
	return container_of(id, struct kiwi_cm_priv, id);
}

/* cm_state.c: the transition tables */

/* What an upcall does to an id, decided by the table. */
enum kiwi_cm_action {
	KIWI_CM_ACT_DELIVER,	/* queue for the owner, move to next */
	KIWI_CM_ACT_ABSORB,	/* a legal race: drop silently */
	KIWI_CM_ACT_VIOLATION,	/* provider broke the protocol */
	KIWI_CM_ACT_FINISH,	/* a background close ended: see linger.c */
};

/* ULP calls, the other input of the state machine. */
enum kiwi_cm_op {
	KIWI_CM_OP_LISTEN,
	KIWI_CM_OP_CONNECT,
	KIWI_CM_OP_ACCEPT,
	KIWI_CM_OP_REJECT,
	KIWI_CM_OP_DISCONNECT,
	KIWI_CM_OP_DESTROY,
	KIWI_CM_NR_OPS
};

/**
 * struct kiwi_cm_step - the outcome of one input in one state
 * @action: enum kiwi_cm_action (upcalls) or 0/1 refused/allowed (ops)
 * @next: state after the input
 * @deliver: the event the owner sees (KIWI_CM_NR_EVENTS: none)
 * @status: status to report instead of the provider's (0: keep it)
 */
struct kiwi_cm_step {
	u8 action;
	u8 next;
	u8 deliver;
	s8 status;
};

struct kiwi_cm_step kiwi_cm_upcall_step(struct kiwi_cm_priv *priv,
					enum kiwi_cm_event_type event,
					int status);
bool kiwi_cm_op_step(struct kiwi_cm_priv *priv, enum kiwi_cm_op op);
const char *kiwi_cm_op_name(enum kiwi_cm_op op);
void kiwi_cm_set_state(struct kiwi_cm_priv *priv, enum kiwi_cm_state state);

/* Is the owner gone (no handler call may start)? */
static inline bool kiwi_cm_owner_gone(u8 state)
{
	return state == KIWI_CM_STATE_DESTROYING ||
	       state == KIWI_CM_STATE_LINGER;
}

/* cm.c */
int kiwi_cm_init(void);
void kiwi_cm_exit(void);
struct kiwi_cm_priv *kiwi_cm_alloc(struct ib_device *dev, gfp_t gfp);
int kiwi_cm_link_locked(struct kiwi_cm_priv *priv);
void kiwi_cm_get(struct kiwi_cm_priv *priv);
void kiwi_cm_put(struct kiwi_cm_priv *priv);
void kiwi_cm_destroy(struct kiwi_cm_priv *priv);
void kiwi_cm_qp_put(struct ib_qp *qp);
bool kiwi_cm_orphan(struct kiwi_cm_priv *priv);
bool kiwi_cm_is_orphan(struct kiwi_cm_priv *priv);
int kiwi_cm_check_live(struct kiwi_cm_priv *priv);
void kiwi_cm_describe(struct kiwi_cm_priv *priv, char *buf, size_t len);

/* event.c */
int kiwi_event_init(void);
void kiwi_event_exit(void);
void kiwi_event_work(struct work_struct *work);
void kiwi_event_queue(struct kiwi_cm_priv *priv, u8 event, int status,
		      void *pdata, u16 len, struct ib_qp *qp_put);
bool kiwi_event_pop(struct kiwi_cm_priv *priv, struct kiwi_cm_slot *slot);
void kiwi_event_release(struct kiwi_cm_priv *priv, struct kiwi_cm_slot *slot);
void kiwi_event_child_done(struct kiwi_cm_priv *child);
void kiwi_event_wait_idle(struct kiwi_cm_priv *priv);
void kiwi_event_violation(struct kiwi_cm_priv *priv,
			  enum kiwi_cm_event_type event, const char *why);
void kiwi_event_queue_delayed(struct delayed_work *dwork,
			      unsigned long delay);

/* linger.c: a destroy during a graceful close finishes it in the background */
void kiwi_cm_linger_work(struct work_struct *work);
void kiwi_cm_linger_start(struct kiwi_cm_priv *priv);
void kiwi_cm_linger_kick(struct kiwi_cm_priv *priv);

/* device.c */
void kiwi_device_get(struct ib_device *dev);
void kiwi_device_count(struct ib_device *dev,
		       enum kiwi_device_counter which);
void kiwi_device_exit(void);
void kiwi_qp_event_init(struct ib_qp *qp);
void kiwi_device_event_init(struct ib_device *dev);
void kiwi_device_event_stop(struct ib_device *dev);
void kiwi_mr_pool_qp_init(struct ib_qp *qp);
void kiwi_rw_init_qp(struct ib_device *dev, struct ib_qp_init_attr *init);
int kiwi_rw_init_mrs(struct ib_qp *qp, const struct ib_qp_init_attr *init);
void kiwi_qp_event_stop(struct ib_qp *qp, bool sync);
void kiwi_cq_event_init(struct ib_cq *cq);
void kiwi_cq_event_stop(struct ib_cq *cq, bool sync);
int kiwi_clients_device_add(struct ib_device *dev);
void kiwi_clients_device_remove(struct ib_device *dev);
unsigned int kiwi_verbs_orphan(struct ib_device *dev);
void kiwi_verbs_track(struct ib_device *dev, struct rdma_restrack_entry *res,
		      enum rdma_restrack_type type, struct list_head *node,
		      struct list_head *list);
void kiwi_verbs_untrack(struct ib_device *dev, struct rdma_restrack_entry *res,
			struct list_head *node);

/* cq.c */
int kiwi_cq_init(void);
void kiwi_cq_exit(void);

/* debugfs.c */
void kiwi_debugfs_init(void);
void kiwi_debugfs_exit(void);
void kiwi_debugfs_add_device(struct ib_device *dev);
void kiwi_debugfs_del_device(struct ib_device *dev);
void kiwi_device_report_leaks(struct ib_device *dev);

/* fault.c: the delivery hook of the KUnit suites (and <kiwi/fault.h>) */
#if IS_ENABLED(CONFIG_KUNIT)
void kiwi_fault_deliver(struct kiwi_cm_id *id, const struct kiwi_cm_event *ev);
#else
static inline void kiwi_fault_deliver(struct kiwi_cm_id *id,
				      const struct kiwi_cm_event *ev)
{
}
#endif

#endif /* _KIWI_IWCM_H */
