/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A mock RNIC provider for kiwi's KUnit suites: every op is counted, can
 * be made to fail from a queue of errors, and can call back into the core
 * from inside itself; events are injected from process, softirq (timer)
 * or hardirq (irq_work) context.
 */
#ifndef _KIWI_MOCK_RNIC_H
#define _KIWI_MOCK_RNIC_H

#include <linux/atomic.h>
#include <linux/spinlock.h>

#include <kiwi/provider.h>

/**
 * enum kiwi_mock_op - the mock's ops, for counting and failure queues
 * @KIWI_MOCK_CONNECT: iw_connect
 * @KIWI_MOCK_ACCEPT: iw_accept
 * @KIWI_MOCK_REJECT: iw_reject
 * @KIWI_MOCK_CREATE_LISTEN: iw_create_listen
 * @KIWI_MOCK_DESTROY_LISTEN: iw_destroy_listen
 * @KIWI_MOCK_GET_QP: iw_get_qp (a queued failure makes it return NULL)
 * @KIWI_MOCK_ADD_REF: iw_add_ref
 * @KIWI_MOCK_REM_REF: iw_rem_ref
 * @KIWI_MOCK_QUERY_DEVICE: query_device
 * @KIWI_MOCK_CREATE_QP: create_qp
 * @KIWI_MOCK_MODIFY_QP: modify_qp
 * @KIWI_MOCK_CREATE_CQ: create_cq
 * @KIWI_MOCK_REG_MR: reg_kernel_mr
 * @KIWI_MOCK_NR_OPS: number of ops
 */
enum kiwi_mock_op {
	KIWI_MOCK_CONNECT,
	KIWI_MOCK_ACCEPT,
	KIWI_MOCK_REJECT,
	KIWI_MOCK_CREATE_LISTEN,
	KIWI_MOCK_DESTROY_LISTEN,
	KIWI_MOCK_GET_QP,
	KIWI_MOCK_ADD_REF,
	KIWI_MOCK_REM_REF,
	KIWI_MOCK_QUERY_DEVICE,
	KIWI_MOCK_CREATE_QP,
	KIWI_MOCK_MODIFY_QP,
	KIWI_MOCK_CREATE_CQ,
	KIWI_MOCK_REG_MR,
	KIWI_MOCK_NR_OPS
};

/**
 * enum kiwi_mock_ctx - the context an event is injected from
 * @KIWI_MOCK_PROCESS: the caller's (process) context
 * @KIWI_MOCK_SOFTIRQ: a timer callback (softirq)
 * @KIWI_MOCK_HARDIRQ: an irq_work callback (hard irq)
 */
enum kiwi_mock_ctx {
	KIWI_MOCK_PROCESS,
	KIWI_MOCK_SOFTIRQ,
	KIWI_MOCK_HARDIRQ,
};

#define KIWI_MOCK_MAX_FAILS 8
#define KIWI_MOCK_MAX_EPS 32

struct kiwi_mock;

/**
 * typedef kiwi_mock_hook - called inside every connection op
 * @m: the mock
 * @op: the op being run
 * @id: its cm_id
 */
typedef void (*kiwi_mock_hook)(struct kiwi_mock *m, enum kiwi_mock_op op,
			       struct kiwi_cm_id *id);

/**
 * struct kiwi_mock - a mock RNIC
 * @dev: the registered device
 * @lock: protects the failure queues, the QP list and the endpoints
 * @fails: per op, queued return values (popped one per call)
 * @nfails: per op, entries in @fails
 * @calls: per op, number of calls
 * @qps: live (not destroyed) QPs
 * @qps_alive: QP objects not yet freed
 * @next_qpn: number of the next QP
 * @next_key: next MR key
 * @eps: ids the mock pins for its endpoints (iw_connect/iw_accept)
 * @neps: entries in @eps
 * @rem_ref_atomic: iw_rem_ref calls made in atomic context (must stay 0)
 * @last_backlog: backlog of the last iw_create_listen
 * @last_ird: IRD of the last iw_connect/iw_accept
 * @last_ord: ORD of the last iw_connect/iw_accept
 * @last_pdata_len: private data length of the last connect/accept/reject
 * @last_pdata: its first bytes
 * @last_qp_state: state of the last modify_qp
 * @hook: if set, called inside every connection op
 * @hook_data: for @hook
 */
struct kiwi_mock {
	struct ib_device dev;
	spinlock_t lock;	/* protects fails, nfails, qps, eps */
	int fails[KIWI_MOCK_NR_OPS][KIWI_MOCK_MAX_FAILS];
	u8 nfails[KIWI_MOCK_NR_OPS];
	atomic_t calls[KIWI_MOCK_NR_OPS];
	struct list_head qps;
	atomic_t qps_alive;
	u32 next_qpn;
	u32 next_key;
	struct kiwi_cm_id *eps[KIWI_MOCK_MAX_EPS];
	int neps;
	atomic_t rem_ref_atomic;
	int last_backlog;
	u16 last_ird;
	u16 last_ord;
	u16 last_pdata_len;
	u8 last_pdata[8];
	enum ib_qp_state last_qp_state;
	kiwi_mock_hook hook;
	void *hook_data;
};

struct kiwi_mock *kiwi_mock_create(const char *name);
struct kiwi_mock *kiwi_mock_create_on(const char *name,
				      struct net_device *netdev);
struct kiwi_mock *kiwi_mock_create_hooked(const char *name,
					  struct net_device *netdev,
					  kiwi_mock_hook hook, void *hook_data);
void kiwi_mock_destroy(struct kiwi_mock *m);
void kiwi_mock_fail(struct kiwi_mock *m, enum kiwi_mock_op op, int err);
int kiwi_mock_calls(struct kiwi_mock *m, enum kiwi_mock_op op);
void kiwi_mock_pin(struct kiwi_mock *m, struct kiwi_cm_id *id);
bool kiwi_mock_release(struct kiwi_mock *m, struct kiwi_cm_id *id);
void kiwi_mock_release_all(struct kiwi_mock *m);
int kiwi_mock_inject(struct kiwi_mock *m, struct kiwi_cm_id *id,
		     const struct kiwi_cm_event *ev, enum kiwi_mock_ctx ctx);
int kiwi_mock_event(struct kiwi_mock *m, struct kiwi_cm_id *id,
		    enum kiwi_cm_event_type type, int status);

#endif /* _KIWI_MOCK_RNIC_H */
