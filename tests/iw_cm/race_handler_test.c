// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_iwcm_race_handler: handlers that destroy ids. A request handler
 * destroys its listener and then its child; a child is destroyed while
 * its own request handler runs; handlers running at once destroy each
 * other's ids in a ring; a handler's destroy waits for a call the core
 * holds before the victim's handler.
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/workqueue.h>

#include <kiwi/iw_cm.h>
#include <kiwi/provider.h>

#include "iwcm_test.h"

struct destroy_both {
	struct kiwi_cm_id *listener;
	struct completion done;
};

static int destroy_both_hook(struct kiwi_ulp *u, struct kiwi_cm_id *id,
			     const struct kiwi_cm_event *ev)
{
	struct destroy_both *db = u->hook_data;

	if (ev->event != T_REQUEST)
		return 0;
	kiwi_ulp_destroy(u, db->listener);
	kiwi_ulp_destroy(u, id);
	complete(&db->done);
	return 0;
}

/*
 * The request handler destroys the listener, then the child (which held
 * the listener's last reference): the core must not touch the freed
 * listener when the handler returns (KASAN).
 */
static void race_request_handler_destroys_listener_and_child(struct kunit *test)
{
	struct kiwi_ulp *u = kiwi_ulp_setup(test);
	struct destroy_both db;

	db.listener = kiwi_ulp_listen(u, 0);
	init_completion(&db.done);
	u->hook_data = &db;
	u->hook = destroy_both_hook;
	KUNIT_ASSERT_EQ(test, kiwi_ulp_ev(u, db.listener, T_REQUEST, 0), 0);
	KUNIT_ASSERT_TRUE(test, wait_for_completion_timeout(&db.done, 5 * HZ));
	KUNIT_EXPECT_TRUE(test, kiwi_t_wait_calls(u->m, KIWI_MOCK_REJECT, 1));
	KUNIT_EXPECT_EQ(test, kiwi_mock_calls(u->m, KIWI_MOCK_DESTROY_LISTEN),
			1);
	msleep(50);	/* let the worker return from the handler */
	u->hook = NULL;
}

/* Destroying a child waits for its own CONNECT_REQUEST handler. */
static void race_child_destroyed_in_request_handler(struct kunit *test)
{
	struct kiwi_ulp *u = kiwi_ulp_setup(test);
	struct kiwi_cm_id *l = kiwi_ulp_listen(u, 0);
	struct workqueue_struct *wq;
	struct kiwi_t_async ad;
	struct kiwi_cm_id *child;
	struct kiwi_t_block b;

	kiwi_t_block_init(u, &b, T_REQUEST);
	KUNIT_ASSERT_EQ(test, kiwi_ulp_ev(u, l, T_REQUEST, 0), 0);
	KUNIT_ASSERT_TRUE(test,
			  wait_for_completion_timeout(&b.entered, 5 * HZ));
	child = kiwi_ulp_rec(u, 0).id;
	wq = kiwi_t_async_destroy(test, &ad, u, child);
	KUNIT_EXPECT_TRUE(test,
			  kiwi_t_wait_state(child, KIWI_CM_STATE_DESTROYING));
	msleep(50);
	/* the handler is still running: destroy must not have returned */
	KUNIT_EXPECT_FALSE(test, completion_done(&ad.done));
	complete(&b.release);
	KUNIT_EXPECT_TRUE(test, wait_for_completion_timeout(&ad.done, 5 * HZ));
	kiwi_t_async_destroy_end(wq, &ad);
	KUNIT_EXPECT_EQ(test, kiwi_mock_calls(u->m, KIWI_MOCK_REJECT), 1);
	KUNIT_EXPECT_EQ(test, kiwi_cm_id_state(l), KIWI_CM_STATE_LISTEN);
}

/**
 * struct ring - handlers that each destroy the next one's id
 * @n: ids in the ring
 * @id: the ids; the handler of @id[i] destroys @id[(i + 1) % @n]
 * @in: how many handlers are inside
 * @all_in: completed when all @n are
 * @done: how many destroys returned
 * @all_done: completed when all @n did
 * @returned: handler i's destroy returned
 * @exited: handler i is about to return
 * @early: destroys that returned while their victim's handler ran on
 *	after its own destroy had returned
 */
struct ring {
	int n;
	struct kiwi_cm_id *id[4];
	atomic_t in;
	struct completion all_in;
	atomic_t done;
	struct completion all_done;
	bool returned[4];
	bool exited[4];
	atomic_t early;
};

static int ring_hook(struct kiwi_ulp *u, struct kiwi_cm_id *id,
		     const struct kiwi_cm_event *ev)
{
	struct ring *r = u->hook_data;
	int i;

	if (ev->event != KIWI_CM_EVENT_DISCONNECT)
		return 0;
	for (i = 0; i < r->n && r->id[i] != id; i++)
		;
	if (i == r->n)
		return 0;
	if (atomic_inc_return(&r->in) == r->n)
		complete_all(&r->all_in);
	wait_for_completion_timeout(&r->all_in, 5 * HZ);
	kiwi_ulp_destroy(u, r->id[(i + 1) % r->n]);
	/* the victim's handler may wait on in a destroy, not run on after */
	if (READ_ONCE(r->returned[(i + 1) % r->n]) &&
	    !READ_ONCE(r->exited[(i + 1) % r->n]))
		atomic_inc(&r->early);
	WRITE_ONCE(r->returned[i], true);
	msleep(20);
	WRITE_ONCE(r->exited[i], true);
	if (atomic_inc_return(&r->done) == r->n)
		complete_all(&r->all_done);
	return 0;
}

static const int ring_sizes[] = { 2, 3, 4 };

static void ring_desc(const int *n, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%d handlers", *n);
}

KUNIT_ARRAY_PARAM(ring, ring_sizes, ring_desc);

/*
 * Handlers running at once destroy each other's ids in a ring (two: a
 * proxy tearing down both halves): each destroy waits for the victim's
 * running handler unless that handler waits, through the others, for its
 * caller; so one of them does not wait and none waits forever.
 */
static void race_handlers_destroy_each_other(struct kunit *test)
{
	struct kiwi_ulp *u = kiwi_ulp_setup(test);
	struct ring *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, r);
	r->n = *(const int *)test->param_value;
	for (i = 0; i < r->n; i++)
		r->id[i] = kiwi_ulp_established(u);
	init_completion(&r->all_in);
	init_completion(&r->all_done);
	u->hook_data = r;
	u->hook = ring_hook;
	for (i = 0; i < r->n; i++)
		KUNIT_ASSERT_EQ(test, kiwi_ulp_ev(u, r->id[i],
						  KIWI_CM_EVENT_DISCONNECT, 0),
				0);
	KUNIT_EXPECT_TRUE(test,
			  wait_for_completion_timeout(&r->all_done, 10 * HZ));
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&r->early), 0,
			    "a destroy returned while its victim ran on");
	for (i = 0; i < r->n; i++) {
		kiwi_cm_id_flush(r->id[i]);
		KUNIT_EXPECT_EQ(test, kiwi_cm_id_state(r->id[i]),
				KIWI_CM_STATE_DESTROYING);
	}
	u->hook = NULL;
}

/**
 * struct xd - the DISCONNECT handler of @x destroys @victim
 * @x: the id whose handler destroys
 * @victim: the id destroyed
 * @entered: completed just before the handler calls kiwi_cm_destroy_id()
 * @done: completed when kiwi_cm_destroy_id() returned
 */
struct xd {
	struct kiwi_cm_id *x;
	struct kiwi_cm_id *victim;
	struct completion entered;
	struct completion done;
};

static int xd_hook(struct kiwi_ulp *u, struct kiwi_cm_id *id,
		   const struct kiwi_cm_event *ev)
{
	struct xd *xd = u->hook_data;

	if (id != xd->x || ev->event != KIWI_CM_EVENT_DISCONNECT)
		return 0;
	complete(&xd->entered);
	kiwi_ulp_destroy(u, xd->victim);
	complete(&xd->done);
	return 0;
}

enum xd_victim { XD_CONNECTION, XD_LISTENER };

static const enum xd_victim xd_victims[] = { XD_CONNECTION, XD_LISTENER };

static void xd_desc(const enum xd_victim *v, char *desc)
{
	strscpy(desc, *v == XD_CONNECTION ? "connection" : "listener",
		KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(xd, xd_victims, xd_desc);

/*
 * X's handler destroys Y while the core has started delivering an event
 * of Y (a DISCONNECT; for a listener, a child's CONNECT_REQUEST, which is
 * the listener's handler call) but has not called the handler yet. The
 * destroy must wait for that call: the handler runs, and is done, before
 * kiwi_cm_destroy_id() returns, never after (the owner may free the
 * context then).
 */
static void race_destroy_from_handler_waits(struct kunit *test)
{
	enum xd_victim v = *(const enum xd_victim *)test->param_value;
	struct kiwi_t_hold *h = kunit_kzalloc(test, sizeof(*h), GFP_KERNEL);
	struct xd *xd = kunit_kzalloc(test, sizeof(*xd), GFP_KERNEL);
	struct kiwi_ulp *u;
	u8 held_ev;
	int i, n;

	KUNIT_ASSERT_NOT_NULL(test, h);
	KUNIT_ASSERT_NOT_NULL(test, xd);
	u = kiwi_ulp_setup(test);
	xd->x = kiwi_ulp_established(u);
	if (v == XD_CONNECTION) {
		xd->victim = kiwi_ulp_established(u);
		held_ev = KIWI_CM_EVENT_DISCONNECT;
		kiwi_t_hold_arm(test, h, xd->victim, held_ev);
	} else {
		xd->victim = kiwi_ulp_listen(u, 0);
		held_ev = T_REQUEST;
		kiwi_t_hold_arm(test, h, NULL, held_ev);
	}
	init_completion(&xd->entered);
	init_completion(&xd->done);
	n = kiwi_ulp_count(u);
	KUNIT_ASSERT_EQ(test, kiwi_ulp_ev(u, xd->victim, held_ev, 0), 0);
	KUNIT_ASSERT_TRUE(test, wait_for_completion_timeout(&h->held, 5 * HZ));
	u->hook_data = xd;
	u->hook = xd_hook;
	KUNIT_ASSERT_EQ(test, kiwi_ulp_ev(u, xd->x, KIWI_CM_EVENT_DISCONNECT,
					  0), 0);
	KUNIT_ASSERT_TRUE(test,
			  wait_for_completion_timeout(&xd->entered, 5 * HZ));
	msleep(100);
	KUNIT_ASSERT_FALSE_MSG(test, completion_done(&xd->done),
			       "destroy returned before the held call ran");
	complete_all(&h->release);
	KUNIT_ASSERT_TRUE(test, wait_for_completion_timeout(&xd->done, 5 * HZ));
	/* the held call reached the handler before destroy returned */
	for (i = n; i < kiwi_ulp_count(u); i++)
		if (kiwi_ulp_rec(u, i).event == held_ev)
			break;
	KUNIT_EXPECT_LT_MSG(test, i, kiwi_ulp_count(u),
			    "held call not handled when destroy returned");
	kiwi_cm_id_flush(xd->x);
	u->hook = NULL;
}

static struct kunit_case race_handler_cases[] = {
	KUNIT_CASE(race_request_handler_destroys_listener_and_child),
	KUNIT_CASE(race_child_destroyed_in_request_handler),
	KUNIT_CASE_PARAM(race_handlers_destroy_each_other, ring_gen_params),
	KUNIT_CASE_PARAM(race_destroy_from_handler_waits, xd_gen_params),
	{}
};

static struct kunit_suite race_handler_suite = {
	.name = "kiwi_iwcm_race_handler",
	.test_cases = race_handler_cases,
};

kunit_test_suite(race_handler_suite);
