// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_softiw_listen: a listener whose kernel_accept() fails for want of
 * memory. The connection stays in the TCP accept queue, and no other
 * comes to wake the listener: its Request must still be delivered
 * (Documentation/softiw.rst, "Timers and limits"). failslab fails
 * the socket kernel_accept() allocates: at the race point before it, the
 * listener's work sets its own fail_nth.
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/jiffies.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/wait.h>
#include <net/sock.h>

#include "cm.h"
#include "cm_fixture.h"
#include "mpa_key.h"
#include "softiw.h"

#define LT_PORT		21130
/* An MPA revision 1 Request without private data. */
#define LT_REQ		KEY_REQ "\x00\x01\x00\x00"
#define LT_REQ_LEN	20
#define LT_WAIT_MS	5000

/**
 * struct lt - the case
 * @lst: the listening id
 * @sk: its listening socket
 * @accepts: accepts its listener's work started
 * @queued: connections in @sk's accept queue at the first two
 * @marked: the task whose next slab allocation failslab fails (fail_nth)
 */
struct lt {
	struct kiwi_cm_id *lst;
	struct sock *sk;
	atomic_t accepts;
	unsigned int queued[2];
	struct task_struct *marked;
};

/*
 * The race point, in the listener's work: the first accept's first slab
 * allocation, the socket kernel_accept() makes, fails (tests/vm/init lets
 * failslab fail allocations that may sleep).
 */
static void lt_accept_hook(void *obj, void *data)
{
	struct lt *l = data;
	int n;

	if (obj != l->lst)
		return;
	n = atomic_inc_return(&l->accepts);
	if (n <= ARRAY_SIZE(l->queued))
		l->queued[n - 1] = READ_ONCE(l->sk->sk_ack_backlog);
	if (n == 1) {
		get_task_struct(current);
		l->marked = current;
		current->fail_nth = 1;
	}
}

/* A mark not spent (no allocation failed) is taken off the worker. */
static void lt_hook_disarm(struct kunit_resource *res)
{
	struct lt *l = res->data;

	kiwi_race_hook(KIWI_RACE_SOFTIW_ACCEPT, NULL, NULL);
	if (!l->marked)
		return;
	WRITE_ONCE(l->marked->fail_nth, 0);
	put_task_struct(l->marked);
}

/*
 * The Request of the one connection is delivered, on an accept after
 * the failed one (failslab's one failure was spent), and the listener
 * takes the next connection as well.
 */
static void listen_accept_no_memory(struct kunit *test)
{
	struct lt *l = kunit_kzalloc(test, sizeof(*l), GFP_KERNEL);
	struct cmt *t = cmt_setup(test, LT_PORT);
	const struct cmt_rec *r;
	struct socket *s;

	KUNIT_ASSERT_NOT_NULL(test, l);
	l->lst = cmt_listen(t);
	l->sk = ((struct softiw_listener *)l->lst->provider_data)->sock->sk;
	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test, NULL,
							 lt_hook_disarm,
							 GFP_KERNEL, l));
	kiwi_race_hook(KIWI_RACE_SOFTIW_ACCEPT, lt_accept_hook, l);

	s = cmt_raw_connect(test, LT_PORT);
	KUNIT_ASSERT_EQ(test, cmt_raw_send(s, LT_REQ, LT_REQ_LEN), LT_REQ_LEN);
	r = cmt_wait(t, KIWI_CM_EVENT_CONNECT_REQUEST, NULL);
	KUNIT_ASSERT_NOT_NULL_MSG(test, r,
				  "the queued connection was not accepted (%d accepts)",
				  atomic_read(&l->accepts));
	KUNIT_ASSERT_GE(test, atomic_read(&l->accepts), 2);
	KUNIT_EXPECT_EQ(test, l->queued[0], 1U);
	KUNIT_EXPECT_EQ_MSG(test, l->queued[1], 1U,
			    "the first accept did not fail (is failslab's ignore-gfp-wait N?)");

	s = cmt_raw_connect(test, LT_PORT);
	KUNIT_ASSERT_EQ(test, cmt_raw_send(s, LT_REQ, LT_REQ_LEN), LT_REQ_LEN);
	wait_event_timeout(t->wq,
			   cmt_count(t, KIWI_CM_EVENT_CONNECT_REQUEST) == 2,
			   msecs_to_jiffies(LT_WAIT_MS));
	KUNIT_EXPECT_EQ(test, cmt_count(t, KIWI_CM_EVENT_CONNECT_REQUEST), 2);
	cmt_teardown(t);
}

static struct kunit_case listen_cases[] = {
	KUNIT_CASE(listen_accept_no_memory),
	{}
};

static struct kunit_suite listen_suite = {
	.suite_init = cmt_suite_init,
	.suite_exit = cmt_suite_exit,
	.name = "kiwi_softiw_listen",
	.test_cases = listen_cases,
};

kunit_test_suite(listen_suite);
