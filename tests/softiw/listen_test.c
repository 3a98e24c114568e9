// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_softiw_listen: a listener whose kernel_accept() fails for want of
 * memory. The connection stays in the TCP accept queue, and no other
 * comes to wake the listener: its Request must still be delivered
 * (Documentation/softiw.rst, the limits of a listener). failslab fails
 * the socket kernel_accept() allocates: the race point before it marks
 * the listener's work as the one task failslab fails, once.
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/jiffies.h>
#include <linux/sched.h>
#include <linux/wait.h>

#include "cm.h"
#include "cm_fixture.h"
#include "softiw.h"

#define LT_PORT		21130
/* An MPA revision 1 Request without private data. */
#define LT_REQ		"MPA ID Req Frame\x00\x01\x00\x00"
#define LT_REQ_LEN	20
#define LT_FAILSLAB	"/sys/kernel/debug/failslab/"
#define LT_WAIT_MS	5000

/**
 * struct lt_attr - a failslab setting of the case, and the one before
 * @name: its file in LT_FAILSLAB
 * @value: what the case sets
 * @saved: what it was, restored after the case
 */
struct lt_attr {
	const char *name;
	const char *value;
	char saved[24];
};

/*
 * Only tasks marked fail, each slab allocation (at any size, even those
 * that may sleep) once; quietly: the failure is the case's to see.
 */
static const struct lt_attr lt_failslab[] = {
	{ "task-filter", "Y" },
	{ "ignore-gfp-wait", "N" },
	{ "cache-filter", "N" },
	{ "verbose", "0" },
	{ "interval", "1" },
	{ "space", "0" },
	{ "times", "1" },
	{ "probability", "100" },
};

/**
 * struct lt - the case
 * @attr: the failslab settings, in the order they are set
 * @lst: the listening id
 * @accepts: accepts its listener's work started
 */
struct lt {
	struct lt_attr attr[ARRAY_SIZE(lt_failslab)];
	struct kiwi_cm_id *lst;
	atomic_t accepts;
};

static int lt_attr_write(const struct lt_attr *a, const char *value)
{
	char path[64];

	snprintf(path, sizeof(path), LT_FAILSLAB "%s", a->name);
	return kiwi_test_write_file(path, value);
}

/* Back in the reverse order: failslab is off before the filters go. */
static void lt_failslab_restore(struct kunit_resource *res)
{
	struct lt *l = res->data;
	int i;

	for (i = ARRAY_SIZE(l->attr) - 1; i >= 0; i--)
		if (l->attr[i].saved[0])
			lt_attr_write(&l->attr[i], l->attr[i].saved);
}

static void lt_failslab_arm(struct kunit *test, struct lt *l)
{
	char path[64];
	int i;

	memcpy(l->attr, lt_failslab, sizeof(l->attr));
	KUNIT_ASSERT_NOT_NULL(test,
			      kunit_alloc_resource(test, NULL,
						   lt_failslab_restore,
						   GFP_KERNEL, l));
	for (i = 0; i < ARRAY_SIZE(l->attr); i++) {
		snprintf(path, sizeof(path), LT_FAILSLAB "%s",
			 l->attr[i].name);
		KUNIT_ASSERT_GT_MSG(test,
				    kiwi_test_read_file(path, l->attr[i].saved,
							sizeof(l->attr[i].saved)),
				    0, "%s unreadable", path);
		KUNIT_ASSERT_EQ(test, lt_attr_write(&l->attr[i],
						    l->attr[i].value), 0);
	}
}

/*
 * The race point, in the listener's work: its first accept fails. The
 * worker stays marked if the retry runs on another: harmless, as
 * failslab fails nothing once @times is spent and the case restored it.
 */
static void lt_accept_hook(void *obj, void *data)
{
	struct lt *l = data;

	if (obj == l->lst)
		current->make_it_fail = atomic_inc_return(&l->accepts) == 1;
}

static void lt_hook_disarm(struct kunit_resource *res)
{
	kiwi_race_hook(KIWI_RACE_SOFTIW_ACCEPT, NULL, NULL);
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
	char times[8];

	KUNIT_ASSERT_NOT_NULL(test, l);
	l->lst = cmt_listen(t);
	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test, NULL,
							 lt_hook_disarm,
							 GFP_KERNEL, l));
	kiwi_race_hook(KIWI_RACE_SOFTIW_ACCEPT, lt_accept_hook, l);
	lt_failslab_arm(test, l);

	s = cmt_raw_connect(test, LT_PORT);
	KUNIT_ASSERT_EQ(test, cmt_raw_send(s, LT_REQ, LT_REQ_LEN), LT_REQ_LEN);
	r = cmt_wait(t, KIWI_CM_EVENT_CONNECT_REQUEST, NULL);
	KUNIT_EXPECT_GT(test,
			kiwi_test_read_file(LT_FAILSLAB "times", times,
					    sizeof(times)), 0);
	KUNIT_EXPECT_STREQ_MSG(test, times, "0", "no accept failed");
	KUNIT_ASSERT_NOT_NULL_MSG(test, r,
				  "the queued connection was not accepted (%d accepts)",
				  atomic_read(&l->accepts));
	KUNIT_EXPECT_GE(test, atomic_read(&l->accepts), 2);

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
