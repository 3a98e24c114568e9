/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the suites of kiwi_iwcm_test.ko.
 */
#ifndef _KIWI_IWCM_TEST_H
#define _KIWI_IWCM_TEST_H

#include <linux/completion.h>
#include <linux/workqueue.h>

#include "mock_ulp.h"

#define T_REQUEST KIWI_CM_EVENT_CONNECT_REQUEST

/**
 * struct kiwi_t_block - makes the ULP handler block on one event type
 * @entered: completed when the handler got the event
 * @release: the handler waits for it (at most 10 s)
 * @event: the event type
 * @ret: what the handler then returns
 */
struct kiwi_t_block {
	struct completion entered;
	struct completion release;
	u8 event;
	int ret;
};

/* Destroys an id on a WQ_MEM_RECLAIM worker: kiwi_t_async_destroy(). */
struct kiwi_t_async {
	struct work_struct work;
	struct kiwi_ulp *u;
	struct kiwi_cm_id *id;
	struct completion done;
	int seen;	/* events recorded when the destroy returned */
};

/**
 * struct kiwi_t_hold - holds one delivery where the core has started it (the
 *	call is registered with the id) but not yet called the handler
 * @id: the id whose delivery is held, or NULL for any
 * @event: the event type held
 * @held: completed when the delivery is held
 * @release: the delivery waits for it (at most 10 s)
 */
struct kiwi_t_hold {
	struct kiwi_cm_id *id;
	u8 event;
	struct completion held;
	struct completion release;
};

int kiwi_t_block_hook(struct kiwi_ulp *u, struct kiwi_cm_id *id,
		      const struct kiwi_cm_event *ev);
void kiwi_t_block_init(struct kiwi_ulp *u, struct kiwi_t_block *b, u8 event);
bool kiwi_t_wait_state(struct kiwi_cm_id *id, enum kiwi_cm_state state);
struct kiwi_cm_id *kiwi_t_passive(struct kiwi_ulp *u);
void kiwi_t_events(struct kiwi_ulp *u, struct kiwi_cm_id *id, int from,
		   char *buf, size_t len);
bool kiwi_t_wait_calls(struct kiwi_mock *m, enum kiwi_mock_op op, int n);
struct workqueue_struct *
kiwi_t_async_destroy(struct kunit *test, struct kiwi_t_async *ad,
		     struct kiwi_ulp *u, struct kiwi_cm_id *id);
void kiwi_t_async_destroy_end(struct workqueue_struct *wq,
			      struct kiwi_t_async *ad);
void kiwi_t_hold_arm(struct kunit *test, struct kiwi_t_hold *h,
		     struct kiwi_cm_id *id, u8 event);

#endif /* _KIWI_IWCM_TEST_H */
