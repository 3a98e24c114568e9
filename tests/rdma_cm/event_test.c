// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_rdmacm_events: the iw_cm -> rdma_cm event table, row by row, and
 * the event names ULPs print.
 */
#include <kunit/test.h>

#include "rdmacm_test.h"

struct map_case {
	const char *name;
	u8 iw;
	int status;
	enum kiwi_rdma_state state;
	enum rdma_cm_event_type want;
};

#define NONE RDMA_CM_NR_EVENTS

static const struct map_case map_cases[] = {
	{ "request on listener", KIWI_CM_EVENT_CONNECT_REQUEST, 0,
	  KIWI_RDMA_LISTEN, RDMA_CM_EVENT_CONNECT_REQUEST },
	{ "request on closed id", KIWI_CM_EVENT_CONNECT_REQUEST, 0,
	  KIWI_RDMA_DESTROYING, NONE },
	{ "reply 0", KIWI_CM_EVENT_CONNECT_REPLY, 0,
	  KIWI_RDMA_CONNECT, RDMA_CM_EVENT_ESTABLISHED },
	{ "reply refused", KIWI_CM_EVENT_CONNECT_REPLY, -ECONNREFUSED,
	  KIWI_RDMA_CONNECT, RDMA_CM_EVENT_REJECTED },
	{ "reply reset", KIWI_CM_EVENT_CONNECT_REPLY, -ECONNRESET,
	  KIWI_RDMA_CONNECT, RDMA_CM_EVENT_REJECTED },
	{ "reply timedout", KIWI_CM_EVENT_CONNECT_REPLY, -ETIMEDOUT,
	  KIWI_RDMA_CONNECT, RDMA_CM_EVENT_UNREACHABLE },
	{ "reply hostunreach", KIWI_CM_EVENT_CONNECT_REPLY, -EHOSTUNREACH,
	  KIWI_RDMA_CONNECT, RDMA_CM_EVENT_UNREACHABLE },
	{ "reply EIO", KIWI_CM_EVENT_CONNECT_REPLY, -EIO,
	  KIWI_RDMA_CONNECT, RDMA_CM_EVENT_CONNECT_ERROR },
	{ "reply destroying", KIWI_CM_EVENT_CONNECT_REPLY, 0,
	  KIWI_RDMA_DESTROYING, NONE },
	{ "established", KIWI_CM_EVENT_ESTABLISHED, 0,
	  KIWI_RDMA_CONNECT, RDMA_CM_EVENT_ESTABLISHED },
	{ "closing up", KIWI_RDMA_EV_CLOSING, 0,
	  KIWI_RDMA_ESTABLISHED, RDMA_CM_EVENT_DISCONNECTED },
	{ "closing after disconnect", KIWI_RDMA_EV_CLOSING, 0,
	  KIWI_RDMA_DISCONNECTED, NONE },
	{ "closing connecting", KIWI_RDMA_EV_CLOSING, 0,
	  KIWI_RDMA_CONNECT, NONE },
	{ "closing destroying", KIWI_RDMA_EV_CLOSING, 0,
	  KIWI_RDMA_DESTROYING, NONE },
	{ "disconnect", KIWI_CM_EVENT_DISCONNECT, 0,
	  KIWI_RDMA_ESTABLISHED, RDMA_CM_EVENT_DISCONNECTED },
	{ "close up", KIWI_CM_EVENT_CLOSE, 0,
	  KIWI_RDMA_ESTABLISHED, RDMA_CM_EVENT_DISCONNECTED },
	{ "close after disconnect", KIWI_CM_EVENT_CLOSE, 0,
	  KIWI_RDMA_DISCONNECTED, NONE },
	{ "close accepted", KIWI_CM_EVENT_CLOSE, -ECONNRESET,
	  KIWI_RDMA_CONNECT, RDMA_CM_EVENT_CONNECT_ERROR },
	{ "removal listen", KIWI_CM_EVENT_DEVICE_REMOVAL, 0,
	  KIWI_RDMA_LISTEN, RDMA_CM_EVENT_DEVICE_REMOVAL },
	{ "removal up", KIWI_CM_EVENT_DEVICE_REMOVAL, 0,
	  KIWI_RDMA_ESTABLISHED, RDMA_CM_EVENT_DEVICE_REMOVAL },
	{ "removal destroying", KIWI_CM_EVENT_DEVICE_REMOVAL, 0,
	  KIWI_RDMA_DESTROYING, NONE },
};

static void map_case_desc(const struct map_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(map, map_cases, map_case_desc);

static void rdmacm_event_map(struct kunit *test)
{
	const struct map_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, kiwi_rdma_map_event(c->iw, c->status, c->state),
			c->want);
}

static void rdmacm_event_names(struct kunit *test)
{
	KUNIT_EXPECT_STREQ(test, rdma_event_msg(RDMA_CM_EVENT_ADDR_RESOLVED),
			   "ADDR_RESOLVED");
	KUNIT_EXPECT_STREQ(test, rdma_event_msg(RDMA_CM_EVENT_DEVICE_REMOVAL),
			   "DEVICE_REMOVAL");
	KUNIT_EXPECT_STREQ(test, rdma_event_msg(RDMA_CM_NR_EVENTS), "UNKNOWN");
	KUNIT_EXPECT_STREQ(test, rdma_reject_msg(NULL, -ECONNREFUSED),
			   "consumer or peer refused the connection");
	KUNIT_EXPECT_STREQ(test, kiwi_rdma_state_name(KIWI_RDMA_LISTEN),
			   "LISTEN");
}

static struct kunit_case rdmacm_events_cases[] = {
	KUNIT_CASE_PARAM(rdmacm_event_map, map_gen_params),
	KUNIT_CASE(rdmacm_event_names),
	{}
};

static struct kunit_suite rdmacm_events_suite = {
	.name = "kiwi_rdmacm_events",
	.test_cases = rdmacm_events_cases,
};

kunit_test_suite(rdmacm_events_suite);
