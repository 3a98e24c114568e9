// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_softiw_hostile: a plain kernel TCP client writes raw bytes to a
 * softiw listener: a bad key, a request in 1-byte segments, a reset in
 * the middle of a frame, oversize private data, silence, and more
 * connections than a listener keeps waiting. Each is dropped or served
 * cleanly, no CONNECT_REQUEST is made up, and the listener keeps working.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/string.h>

#include "cm_fixture.h"

#define KEY_REQ "MPA ID Req Frame"
#define KEY_REP "MPA ID Rep Frame"

static void hostile_exit(struct kunit *test)
{
	cmt_param(test, "mpa_timeout_ms", "10000");
	cmt_param(test, "max_pending", "32");
}

/* Expect softiw to close @sock, without a reply: end of stream or reset. */
static void hostile_expect_dropped(struct kunit *test, struct socket *sock)
{
	u8 buf[32];
	int ret = cmt_raw_recv(sock, buf, sizeof(buf), 3000);

	KUNIT_EXPECT_TRUE_MSG(test, ret == 0 || ret == -ECONNRESET,
			      "recv returned %d", ret);
	cmt_raw_close(sock, false);
}

/* After the abuse, a well-behaved client still gets through. */
static void hostile_listener_works(struct cmt *t)
{
	struct kiwi_cm_id *a = cmt_connect(t, "fine", t->port);
	const struct cmt_rec *r;

	r = cmt_wait(t, KIWI_CM_EVENT_CONNECT_REQUEST, NULL);
	KUNIT_ASSERT_NOT_NULL(t->test, r);
	CMT_EXPECT_MEM(t->test, r->pd, "fine", 4);
	KUNIT_EXPECT_EQ(t->test, kiwi_cm_reject(r->id, NULL, 0), 0);
	r = cmt_wait(t, KIWI_CM_EVENT_CONNECT_REPLY, a);
	KUNIT_ASSERT_NOT_NULL(t->test, r);
	KUNIT_EXPECT_EQ(t->test, r->status, -ECONNREFUSED);
	KUNIT_EXPECT_EQ(t->test, cmt_count(t, KIWI_CM_EVENT_CONNECT_REQUEST),
			1);
}

static void hostile_bad_key(struct kunit *test)
{
	struct cmt *t = cmt_setup(test, 22001);
	struct socket *s;

	cmt_listen(t);
	s = cmt_raw_connect(test, t->port);
	KUNIT_EXPECT_EQ(test, cmt_raw_send(s, "MPA ID Rep Frame\x00\x01\x00\x00",
					   20), 20);
	hostile_expect_dropped(test, s);
	hostile_listener_works(t);
	cmt_teardown(t);
}

static void hostile_oversize_pdata(struct kunit *test)
{
	struct cmt *t = cmt_setup(test, 22002);
	struct socket *s;

	cmt_listen(t);
	s = cmt_raw_connect(test, t->port);
	/* rev 1, PD_Length 513 */
	KUNIT_EXPECT_EQ(test, cmt_raw_send(s, KEY_REQ "\x00\x01\x02\x01", 20),
			20);
	hostile_expect_dropped(test, s);
	hostile_listener_works(t);
	cmt_teardown(t);
}

static void hostile_reset_mid_frame(struct kunit *test)
{
	struct cmt *t = cmt_setup(test, 22003);
	struct socket *s;

	cmt_listen(t);
	s = cmt_raw_connect(test, t->port);
	KUNIT_EXPECT_EQ(test, cmt_raw_send(s, KEY_REQ "\x00\x01", 18), 18);
	cmt_raw_close(s, true);
	s = cmt_raw_connect(test, t->port);
	KUNIT_EXPECT_EQ(test, cmt_raw_send(s, KEY_REQ "\x00\x01\x00\x04\x61\x62", 22),
			22);
	cmt_raw_close(s, true);
	hostile_listener_works(t);
	cmt_teardown(t);
}

/* A valid rev 1 request one byte per segment; the reject reply comes back. */
static void hostile_one_byte_segments(struct kunit *test)
{
	static const char req[] = KEY_REQ "\x00\x01\x00\x03\x61\x62\x63";
	struct cmt *t = cmt_setup(test, 22004);
	const struct cmt_rec *r;
	struct socket *s;
	u8 rep[24];
	int i, got = 0, ret;

	cmt_listen(t);
	s = cmt_raw_connect(test, t->port);
	for (i = 0; i < sizeof(req) - 1; i++) {
		KUNIT_EXPECT_EQ(test, cmt_raw_send(s, req + i, 1), 1);
		msleep(20);
	}
	r = cmt_wait(t, KIWI_CM_EVENT_CONNECT_REQUEST, NULL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->len, 3);
	CMT_EXPECT_MEM(test, r->pd, "abc", 3);
	KUNIT_EXPECT_EQ(test, kiwi_cm_reject(r->id, "nope", 4), 0);
	while (got < sizeof(rep)) {
		ret = cmt_raw_recv(s, rep + got, sizeof(rep) - got, 3000);
		if (ret <= 0)
			break;
		got += ret;
	}
	KUNIT_EXPECT_EQ(test, got, 24);
	CMT_EXPECT_MEM(test, rep, KEY_REP, 16);
	KUNIT_EXPECT_EQ(test, rep[16] & 0x20, 0x20);	/* Reject */
	CMT_EXPECT_MEM(test, rep + 20, "nope", 4);
	cmt_raw_close(s, false);
	cmt_teardown(t);
}

static void hostile_markers(struct kunit *test)
{
	struct cmt *t = cmt_setup(test, 22005);
	struct socket *s;
	u8 rep[20];
	int ret;

	cmt_listen(t);
	s = cmt_raw_connect(test, t->port);
	KUNIT_EXPECT_EQ(test, cmt_raw_send(s, KEY_REQ "\x80\x01\x00\x00", 20),
			20);
	ret = cmt_raw_recv(s, rep, sizeof(rep), 3000);
	KUNIT_EXPECT_EQ(test, ret, 20);
	if (ret == 20)
		KUNIT_EXPECT_EQ(test, rep[16] & 0xa0, 0x20); /* R, no M */
	hostile_expect_dropped(test, s);
	hostile_listener_works(t);
	cmt_teardown(t);
}

static void hostile_silent(struct kunit *test)
{
	struct cmt *t;
	struct socket *s;

	cmt_param(test, "mpa_timeout_ms", "300");
	t = cmt_setup(test, 22006);
	cmt_listen(t);
	s = cmt_raw_connect(test, t->port);
	hostile_expect_dropped(test, s);
	hostile_listener_works(t);
	cmt_teardown(t);
}

/* Beyond max_pending, new connections are closed at once. */
static void hostile_pending_bound(struct kunit *test)
{
	struct socket *s[4];
	struct cmt *t;
	u8 byte;
	int i, dropped = 0;

	cmt_param(test, "max_pending", "2");
	t = cmt_setup(test, 22007);
	cmt_listen(t);
	/*
	 * A client over the bound may be dropped after TCP accepted it, or
	 * refused while the listener's queue is full: both count as dropped.
	 */
	for (i = 0; i < ARRAY_SIZE(s); i++)
		s[i] = cmt_raw_try_connect(test, t->port);
	for (i = 0; i < ARRAY_SIZE(s); i++) {
		int ret = s[i] ? cmt_raw_recv(s[i], &byte, 1, 500) : 0;

		dropped += ret == 0 || ret == -ECONNRESET;
	}
	KUNIT_EXPECT_EQ(test, dropped, 2);
	for (i = 0; i < ARRAY_SIZE(s); i++)
		if (s[i])
			cmt_raw_close(s[i], false);
	msleep(100);
	hostile_listener_works(t);
	cmt_teardown(t);
}

/* Connections still waiting for a request when the listener goes away. */
static void hostile_destroy_with_pending(struct kunit *test)
{
	struct cmt *t = cmt_setup(test, 22008);
	struct socket *s[2];
	int i;

	cmt_listen(t);
	for (i = 0; i < ARRAY_SIZE(s); i++)
		s[i] = cmt_raw_connect(test, t->port);
	KUNIT_EXPECT_EQ(test, cmt_raw_send(s[1], KEY_REQ, 16), 16);
	msleep(100);
	cmt_teardown(t);
	for (i = 0; i < ARRAY_SIZE(s); i++)
		hostile_expect_dropped(test, s[i]);
}

static struct kunit_case hostile_cases[] = {
	KUNIT_CASE(hostile_bad_key),
	KUNIT_CASE(hostile_oversize_pdata),
	KUNIT_CASE(hostile_reset_mid_frame),
	KUNIT_CASE(hostile_one_byte_segments),
	KUNIT_CASE(hostile_markers),
	KUNIT_CASE(hostile_silent),
	KUNIT_CASE(hostile_pending_bound),
	KUNIT_CASE(hostile_destroy_with_pending),
	{}
};

static struct kunit_suite hostile_suite = {
	.suite_init = cmt_suite_init,
	.suite_exit = cmt_suite_exit,
	.name = "kiwi_softiw_hostile",
	.exit = hostile_exit,
	.test_cases = hostile_cases,
};

kunit_test_suite(hostile_suite);
