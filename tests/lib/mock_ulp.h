/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A recording ULP for kiwi's KUnit suites: a cm_id handler that logs every
 * event it gets (and the context it got it in), returns what the test
 * asked for, and a fixture that owns a mock RNIC, a CQ and QPs and tears
 * everything down at the end of the test, checking nothing leaked.
 */
#ifndef _KIWI_MOCK_ULP_H
#define _KIWI_MOCK_ULP_H

#include <kunit/test.h>
#include <linux/wait.h>

#include <kiwi/iw_cm.h>
#include <rdma/ib_verbs.h>

#include "mock_rnic.h"

#define KIWI_ULP_MAX_RECS 32
#define KIWI_ULP_MAX_OWNED 16

/**
 * struct kiwi_ulp_rec - one event as the handler saw it
 * @id: the id it was for
 * @event: its type
 * @status: its status
 * @len: private data length
 * @pdata0: first private data byte
 * @ird: IRD in the event
 * @ord: ORD in the event
 */
struct kiwi_ulp_rec {
	struct kiwi_cm_id *id;
	u8 event;
	int status;
	u16 len;
	u8 pdata0;
	u16 ird;
	u16 ord;
};

struct kiwi_ulp;

/**
 * typedef kiwi_ulp_hook - called by the handler after recording an event
 * @u: the ULP
 * @id: the id
 * @ev: the event
 *
 * Return: what the handler returns (non-zero destroys @id).
 */
typedef int (*kiwi_ulp_hook)(struct kiwi_ulp *u, struct kiwi_cm_id *id,
			     const struct kiwi_cm_event *ev);

/**
 * struct kiwi_ulp - a recording ULP and its test fixture
 * @test: the running test
 * @m: its mock RNIC
 * @dev: @m's device
 * @cq: a CQ for the QPs
 * @pd: the PD of the QPs
 * @lock: protects @recs and @n
 * @wq: woken on every recorded event
 * @recs: recorded events
 * @n: number of recorded events
 * @bad_ctx: events delivered outside process context or out of a worker
 * @ret_on: per event type, what the handler returns
 * @hook: if set, called for every event; its result is returned instead
 * @hook_data: for @hook
 * @owned: ids the fixture destroys at the end unless already destroyed
 * @nowned: entries in @owned
 * @qps: QPs the fixture destroys at the end
 * @nqps: entries in @qps
 * @live_ids: kiwi_cm_live_ids() when the fixture was set up
 */
struct kiwi_ulp {
	struct kunit *test;
	struct kiwi_mock *m;
	struct ib_device *dev;
	struct ib_cq *cq;
	struct ib_pd *pd;
	spinlock_t lock;	/* protects recs, n, owned, nowned */
	wait_queue_head_t wq;
	struct kiwi_ulp_rec recs[KIWI_ULP_MAX_RECS];
	int n;
	int bad_ctx;
	int ret_on[KIWI_CM_NR_EVENTS];
	kiwi_ulp_hook hook;
	void *hook_data;
	struct kiwi_cm_id *owned[KIWI_ULP_MAX_OWNED];
	int nowned;
	struct ib_qp *qps[8];
	int nqps;
	int live_ids;
};

struct kiwi_ulp *kiwi_ulp_setup(struct kunit *test);
void kiwi_ulp_teardown(struct kiwi_ulp *u);
int kiwi_ulp_handler(struct kiwi_cm_id *id, const struct kiwi_cm_event *ev);
struct kiwi_cm_id *kiwi_ulp_id(struct kiwi_ulp *u);
void kiwi_ulp_own(struct kiwi_ulp *u, struct kiwi_cm_id *id);
void kiwi_ulp_destroy(struct kiwi_ulp *u, struct kiwi_cm_id *id);
bool kiwi_ulp_forget(struct kiwi_ulp *u, struct kiwi_cm_id *id);
u32 kiwi_ulp_qp(struct kiwi_ulp *u);
bool kiwi_ulp_wait(struct kiwi_ulp *u, int n);
int kiwi_ulp_count(struct kiwi_ulp *u);
struct kiwi_ulp_rec kiwi_ulp_rec(struct kiwi_ulp *u, int i);
struct kiwi_cm_id *kiwi_ulp_listen(struct kiwi_ulp *u, int backlog);
struct kiwi_cm_id *kiwi_ulp_request(struct kiwi_ulp *u,
				    struct kiwi_cm_id *listener);
struct kiwi_cm_id *kiwi_ulp_connect(struct kiwi_ulp *u);
struct kiwi_cm_id *kiwi_ulp_established(struct kiwi_ulp *u);
int kiwi_ulp_ev(struct kiwi_ulp *u, struct kiwi_cm_id *id, u8 event,
		int status);
unsigned long kiwi_ulp_cnt(struct kiwi_ulp *u, enum kiwi_device_counter c);

#endif /* _KIWI_MOCK_ULP_H */
