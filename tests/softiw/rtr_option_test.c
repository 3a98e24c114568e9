// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_softiw_rtr_option: the per-id iWARP options of
 * kiwi_cm_set_option(). Unknown options, bad lengths and values and
 * used ids refused; each option on an initiator's id and on a
 * listener's id, seen on the wire by a raw TCP peer (the Request's or
 * the Reply's bytes, the MPA and RTR timers), with the module
 * parameters still at their defaults after each.
 */
#include <kunit/test.h>
#include <linux/in.h>
#include <linux/module.h>
#include <linux/string.h>

#include "cm_fixture.h"
#include "rtr_util.h"

static int rtr_opt(struct kiwi_cm_id *id, int opt, u32 v)
{
	return kiwi_cm_set_option(id, opt, &v, sizeof(v));
}

/* Unknown options, bad lengths and values, and a used id are refused. */
static void rtr_option_checks(struct kunit *test)
{
	struct cmt *t = cmt_setup(test, 24060);
	struct kiwi_cm_id *id = cmt_id_on(t, t->dev), *a;
	const struct cmt_rec *r;
	u64 wide = 1;

	KUNIT_EXPECT_EQ(test, rtr_opt(id, KIWI_IWARP_NR_OPTS, 1), -ENOPROTOOPT);
	KUNIT_EXPECT_EQ(test, rtr_opt(id, -1, 1), -ENOPROTOOPT);
	KUNIT_EXPECT_EQ(test, kiwi_cm_set_option(id, KIWI_IWARP_OPT_P2P, &wide,
						 sizeof(wide)), -EINVAL);
	KUNIT_EXPECT_EQ(test, kiwi_cm_set_option(id, KIWI_IWARP_OPT_P2P, NULL,
						 sizeof(u32)), -EINVAL);
	KUNIT_EXPECT_EQ(test, rtr_opt(id, KIWI_IWARP_OPT_MPA_REV, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, rtr_opt(id, KIWI_IWARP_OPT_MPA_REV, 3), -EINVAL);
	KUNIT_EXPECT_EQ(test, rtr_opt(id, KIWI_IWARP_OPT_MPA_CRC, 2), -EINVAL);
	KUNIT_EXPECT_EQ(test, rtr_opt(id, KIWI_IWARP_OPT_P2P, 2), -EINVAL);
	KUNIT_EXPECT_EQ(test, rtr_opt(id, KIWI_IWARP_OPT_RTR, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, rtr_opt(id, KIWI_IWARP_OPT_RTR, 8), -EINVAL);
	KUNIT_EXPECT_EQ(test, rtr_opt(id, KIWI_IWARP_OPT_MPA_TIMEOUT_MS, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, rtr_opt(id, KIWI_IWARP_OPT_RTR_TIMEOUT_MS,
				      KIWI_IWARP_TIMEOUT_MAX + 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, id->opts.set, 0U);
	KUNIT_EXPECT_EQ(test, rtr_opt(id, KIWI_IWARP_OPT_MPA_REV, 1), 0);
	KUNIT_EXPECT_EQ(test, rtr_opt(id, KIWI_IWARP_OPT_RTR, 7), 0);
	KUNIT_EXPECT_EQ(test, rtr_opt(id, KIWI_IWARP_OPT_RTR_TIMEOUT_MS,
				      KIWI_IWARP_TIMEOUT_MAX), 0);
	KUNIT_EXPECT_EQ(test, id->opts.set,
			BIT(KIWI_IWARP_OPT_MPA_REV) | BIT(KIWI_IWARP_OPT_RTR) |
			BIT(KIWI_IWARP_OPT_RTR_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, kiwi_cm_option(id, KIWI_IWARP_OPT_MPA_REV, 2),
			1U);
	KUNIT_EXPECT_EQ(test, kiwi_cm_option(id, KIWI_IWARP_OPT_P2P, 5), 5U);

	KUNIT_EXPECT_EQ(test, rtr_opt(cmt_listen(t), KIWI_IWARP_OPT_P2P, 1),
			-EISCONN);
	a = cmt_connect(t, NULL, t->port);
	KUNIT_EXPECT_EQ(test, rtr_opt(a, KIWI_IWARP_OPT_P2P, 1), -EISCONN);
	r = cmt_wait(t, KIWI_CM_EVENT_CONNECT_REQUEST, NULL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, rtr_opt(r->id, KIWI_IWARP_OPT_P2P, 1), -EISCONN);
	KUNIT_EXPECT_EQ(test, kiwi_cm_reject(r->id, NULL, 0), 0);
	KUNIT_EXPECT_NOT_NULL(test, cmt_wait(t, KIWI_CM_EVENT_CONNECT_REPLY, a));
	cmt_teardown(t);
}

/**
 * struct rtr_opt_case - one setting on one id, and what it changes
 * @name: description
 * @opt: enum kiwi_iwarp_opt
 * @val: its value
 * @opt2: a second option set with it, or -1
 * @val2: its value
 * @want: bytes 16 to 23 of the frame (Request of the softiw initiator,
 *	Reply of the softiw responder); all 0: a timeout case
 */
struct rtr_opt_case {
	const char *name;
	int opt;
	u32 val;
	int opt2;
	u32 val2;
	u8 want[8];
};

static const struct rtr_opt_case rtr_init_opt_cases[] = {
	{ "rev 1", KIWI_IWARP_OPT_MPA_REV, 1, -1, 0,
	  { 0x00, 0x01, 0x00, 0x03, 'p', '2', 'p', 0 } },
	{ "crc", KIWI_IWARP_OPT_MPA_CRC, 1, -1, 0,
	  { 0x50, 0x02, 0x00, 0x07, 0x00, 0x04, 0x00, 0x04 } },
	{ "p2p", KIWI_IWARP_OPT_P2P, 1, -1, 0,
	  { 0x10, 0x02, 0x00, 0x07, 0xc0, 0x04, 0xc0, 0x04 } },
	{ "p2p READ", KIWI_IWARP_OPT_P2P, 1, KIWI_IWARP_OPT_RTR, 2,
	  { 0x10, 0x02, 0x00, 0x07, 0x80, 0x04, 0x40, 0x04 } },
	{ "mpa timeout", KIWI_IWARP_OPT_MPA_TIMEOUT_MS, 300, -1, 0, {} },
};

static void rtr_opt_desc(const struct rtr_opt_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(rtr_init_opt, rtr_init_opt_cases, rtr_opt_desc);

static bool rtr_opt_is_timeout(const struct rtr_opt_case *c)
{
	return !memchr_inv(c->want, 0, sizeof(c->want));
}

static void rtr_set_opts(struct kunit *test, struct kiwi_cm_id *id,
			 const struct rtr_opt_case *c)
{
	KUNIT_ASSERT_EQ(test, rtr_opt(id, c->opt, c->val), 0);
	if (c->opt2 >= 0)
		KUNIT_ASSERT_EQ(test, rtr_opt(id, c->opt2, c->val2), 0);
}

/*
 * A softiw initiator with module parameters at their defaults and one
 * option set on its id: the Request a raw responder reads shows it, or
 * the MPA timer of 300 ms ends the silent attempt; the parameters stay.
 */
static void rtr_init_option(struct kunit *test)
{
	const struct rtr_opt_case *c = test->param_value;
	struct cmt *t = cmt_setup(test, 24070 + (c - rtr_init_opt_cases));
	struct kiwi_conn_param p = {
		.private_data = "p2p", .private_data_len = 3, .ird = 4,
		.ord = 4,
	};
	struct sockaddr_in *sin;
	struct kiwi_cm_id *id;
	const struct cmt_rec *r;
	struct socket *lst, *s;
	int n = c->opt == KIWI_IWARP_OPT_MPA_REV ? 23 : 24;
	u8 req[24];

	lst = rtr_raw_listen(test, t->port);
	id = cmt_id_on(t, t->dev);
	rtr_set_opts(test, id, c);
	sin = (struct sockaddr_in *)&id->remote_addr;
	sin->sin_family = AF_INET;
	sin->sin_port = htons(t->port);
	sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	p.qpn = cmt_qp(t);
	KUNIT_ASSERT_EQ(test, kiwi_cm_connect(id, &p), 0);
	s = rtr_raw_accept(test, lst);
	if (rtr_opt_is_timeout(c)) {
		r = cmt_wait(t, KIWI_CM_EVENT_CONNECT_REPLY, id);
		KUNIT_ASSERT_NOT_NULL(test, r);
		KUNIT_EXPECT_EQ(test, r->status, -ETIMEDOUT);
	} else {
		KUNIT_ASSERT_EQ(test, rtr_recv_all(s, req, n, 3000), n);
		CMT_EXPECT_MEM(test, req, KEY_REQ, 16);
		CMT_EXPECT_MEM(test, req + 16, c->want, n - 16);
	}
	rtr_param_defaults(test);
	cmt_teardown(t);
}

static const struct rtr_opt_case rtr_resp_opt_cases[] = {
	{ "rev 1", KIWI_IWARP_OPT_MPA_REV, 1, -1, 0,
	  { 0x00, 0x01, 0x00, 0x00 } },
	{ "crc", KIWI_IWARP_OPT_MPA_CRC, 1, -1, 0,
	  { 0x50, 0x02, 0x00, 0x04, 0x80, 0x04, 0x80, 0x04 } },
	{ "rtr SEND", KIWI_IWARP_OPT_RTR, 4, -1, 0,
	  { 0x10, 0x02, 0x00, 0x04, 0xc0, 0x04, 0x00, 0x04 } },
	{ "rtr READ|SEND", KIWI_IWARP_OPT_RTR, 6, -1, 0,
	  { 0x10, 0x02, 0x00, 0x04, 0x80, 0x04, 0x40, 0x04 } },
	{ "rtr timeout", KIWI_IWARP_OPT_RTR_TIMEOUT_MS, 300, -1, 0, {} },
	{ "mpa timeout", KIWI_IWARP_OPT_MPA_TIMEOUT_MS, 300, -1, 0, {} },
};

KUNIT_ARRAY_PARAM(rtr_resp_opt, rtr_resp_opt_cases, rtr_opt_desc);

/*
 * A softiw listener with module parameters at their defaults and one
 * option set on the listening id, which its connections inherit: the
 * Reply a raw P2P initiator (offering every RTR type) reads shows it, the
 * RTR timer of 300 ms sends the TERMINATE, or the MPA timer of 300 ms
 * drops the silent connection; the parameters stay.
 */
static void rtr_resp_option(struct kunit *test)
{
	const struct rtr_opt_case *c = test->param_value;
	struct cmt *t = cmt_setup(test, 24080 + (c - rtr_resp_opt_cases));
	struct kiwi_conn_param cp = { .ird = 4, .ord = 4 };
	bool mpa_timeout = c->opt == KIWI_IWARP_OPT_MPA_TIMEOUT_MS;
	int n = c->opt == KIWI_IWARP_OPT_MPA_REV ? 20 : 24;
	const struct cmt_rec *r;
	struct kiwi_cm_id *l;
	struct socket *s;
	u8 rep[24], b;
	int ret;

	l = cmt_id_on(t, t->dev);
	rtr_set_opts(test, l, c);
	cmt_any_addr(&l->local_addr, t->port);
	KUNIT_ASSERT_EQ(test, kiwi_cm_listen(l, 8), 0);
	s = cmt_raw_connect(test, t->port);
	if (mpa_timeout) {
		ret = cmt_raw_recv(s, &b, 1, 3000);
		KUNIT_EXPECT_TRUE_MSG(test, ret == 0 || ret == -ECONNRESET,
				      "recv returned %d", ret);
		KUNIT_EXPECT_EQ(test, cmt_count(t, KIWI_CM_EVENT_CONNECT_REQUEST),
				0);
		rtr_param_defaults(test);
		cmt_teardown(t);
		return;
	}
	rtr_raw_request(test, s, RTR_WRITE | RTR_READ | RTR_SEND);
	r = cmt_wait(t, KIWI_CM_EVENT_CONNECT_REQUEST, NULL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	cp.qpn = cmt_qp(t);
	KUNIT_ASSERT_EQ(test, kiwi_cm_accept(r->id, &cp), 0);
	KUNIT_ASSERT_EQ(test, rtr_recv_all(s, rep, n, 3000), n);
	if (rtr_opt_is_timeout(c)) {
		rtr_expect_term(test, s, rtr_term_rtr);
	} else {
		CMT_EXPECT_MEM(test, rep, KEY_REP, 16);
		CMT_EXPECT_MEM(test, rep + 16, c->want, n - 16);
	}
	rtr_param_defaults(test);
	cmt_teardown(t);
}

static struct kunit_case rtr_option_cases[] = {
	KUNIT_CASE(rtr_option_checks),
	KUNIT_CASE_PARAM(rtr_init_option, rtr_init_opt_gen_params),
	KUNIT_CASE_PARAM(rtr_resp_option, rtr_resp_opt_gen_params),
	{}
};

static struct kunit_suite rtr_option_suite = {
	.suite_init = cmt_suite_init,
	.suite_exit = cmt_suite_exit,
	.name = "kiwi_softiw_rtr_option",
	.exit = rtr_exit,
	.test_cases = rtr_option_cases,
};

kunit_test_suite(rtr_option_suite);
