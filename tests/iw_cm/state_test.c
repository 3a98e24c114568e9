// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_iwcm_proto: every (state, provider event) pair, the illegal ones
 * included, against the table of Documentation/iw_cm.rst. A protocol
 * violation is counted on the device, WARNs once per device, and leaves
 * the id in a safe state; never a BUG. Each case has its own mock device,
 * so each provoking case WARNs (tests/expected-splats lists the WARNING).
 */
#include <kunit/test.h>
#include <linux/module.h>

#include <kiwi/iw_cm.h>
#include <kiwi/provider.h>

#include "mock_ulp.h"

#define S(x) KIWI_CM_STATE_##x
#define E(x) KIWI_CM_EVENT_##x
#define NONE KIWI_CM_NR_EVENTS

/* Where a case starts: the states, split where history matters. */
enum start {
	AT_IDLE,
	AT_LISTEN,
	AT_CONN_RECV,		/* request delivered, not yet accepted */
	AT_CONN_RECV_ACC,	/* accepted */
	AT_CONN_SENT,
	AT_ESTABLISHED,
	AT_CLOSING,		/* we disconnected */
	AT_CLOSING_PEER,	/* the peer did: DISCONNECT was delivered */
	AT_DESTROYING,
	AT_LINGER,		/* destroyed after our graceful disconnect() */
};

static const char *const start_names[] = {
	"IDLE", "LISTEN", "CONN_RECV", "CONN_RECV+accept", "CONN_SENT",
	"ESTABLISHED", "CLOSING", "CLOSING(peer)", "DESTROYING", "LINGER",
};

struct pair {
	u8 start;
	u8 event;
	int status;
	int ret;	/* what the upcall returns */
	u8 next;	/* state after */
	u8 deliver;	/* event the owner sees, or NONE */
	int dstatus;	/* its status */
	bool broken;	/* counted as a protocol violation */
};

#define OK(st, ev, nx, dl) { AT_##st, E(ev), 0, 0, S(nx), dl, 0, false }
#define BAD(st, ev, nx) { AT_##st, E(ev), 0, -EINVAL, S(nx), NONE, 0, true }

static const struct pair pairs[] = {
	BAD(IDLE, CONNECT_REQUEST, IDLE),
	BAD(IDLE, CONNECT_REPLY, IDLE),
	BAD(IDLE, ESTABLISHED, IDLE),
	BAD(IDLE, DISCONNECT, IDLE),
	BAD(IDLE, CLOSE, IDLE),
	BAD(IDLE, DEVICE_REMOVAL, IDLE),

	OK(LISTEN, CONNECT_REQUEST, LISTEN, E(CONNECT_REQUEST)),
	BAD(LISTEN, CONNECT_REPLY, LISTEN),
	BAD(LISTEN, ESTABLISHED, LISTEN),
	BAD(LISTEN, DISCONNECT, LISTEN),
	BAD(LISTEN, CLOSE, LISTEN),
	BAD(LISTEN, DEVICE_REMOVAL, LISTEN),

	BAD(CONN_RECV, CONNECT_REQUEST, CONN_RECV),
	BAD(CONN_RECV, CONNECT_REPLY, CONN_RECV),
	BAD(CONN_RECV, ESTABLISHED, CONN_RECV),
	BAD(CONN_RECV, DISCONNECT, CONN_RECV),
	BAD(CONN_RECV, CLOSE, IDLE),		/* endpoint gone: dead id */
	BAD(CONN_RECV, DEVICE_REMOVAL, CONN_RECV),

	BAD(CONN_RECV_ACC, CONNECT_REQUEST, CONN_RECV),
	BAD(CONN_RECV_ACC, CONNECT_REPLY, CONN_RECV),
	OK(CONN_RECV_ACC, ESTABLISHED, ESTABLISHED, E(ESTABLISHED)),
	BAD(CONN_RECV_ACC, DISCONNECT, CONN_RECV),
	OK(CONN_RECV_ACC, CLOSE, IDLE, E(CLOSE)),	/* MPA failed */
	BAD(CONN_RECV_ACC, DEVICE_REMOVAL, CONN_RECV),

	BAD(CONN_SENT, CONNECT_REQUEST, CONN_SENT),
	OK(CONN_SENT, CONNECT_REPLY, ESTABLISHED, E(CONNECT_REPLY)),
	{ AT_CONN_SENT, E(CONNECT_REPLY), -ECONNREFUSED, 0, S(IDLE),
	  E(CONNECT_REPLY), -ECONNREFUSED, false },
	BAD(CONN_SENT, ESTABLISHED, CONN_SENT),
	BAD(CONN_SENT, DISCONNECT, CONN_SENT),
	/* CLOSE without ESTABLISHED: the attempt fails as the owner expects */
	{ AT_CONN_SENT, E(CLOSE), 0, -EINVAL, S(IDLE), E(CONNECT_REPLY),
	  -ECONNRESET, true },
	BAD(CONN_SENT, DEVICE_REMOVAL, CONN_SENT),

	BAD(ESTABLISHED, CONNECT_REQUEST, ESTABLISHED),
	BAD(ESTABLISHED, CONNECT_REPLY, ESTABLISHED),
	BAD(ESTABLISHED, ESTABLISHED, ESTABLISHED),
	OK(ESTABLISHED, DISCONNECT, CLOSING, E(DISCONNECT)),
	OK(ESTABLISHED, CLOSE, IDLE, E(CLOSE)),
	BAD(ESTABLISHED, DEVICE_REMOVAL, ESTABLISHED),

	BAD(CLOSING, CONNECT_REQUEST, CLOSING),
	BAD(CLOSING, CONNECT_REPLY, CLOSING),
	BAD(CLOSING, ESTABLISHED, CLOSING),
	OK(CLOSING, DISCONNECT, CLOSING, NONE),	/* absorbed */
	OK(CLOSING, CLOSE, IDLE, E(CLOSE)),
	BAD(CLOSING, DEVICE_REMOVAL, CLOSING),

	BAD(CLOSING_PEER, CONNECT_REQUEST, CLOSING),
	BAD(CLOSING_PEER, CONNECT_REPLY, CLOSING),
	BAD(CLOSING_PEER, ESTABLISHED, CLOSING),
	BAD(CLOSING_PEER, DISCONNECT, CLOSING),	/* duplicate */
	OK(CLOSING_PEER, CLOSE, IDLE, E(CLOSE)),
	BAD(CLOSING_PEER, DEVICE_REMOVAL, CLOSING),

	{ AT_DESTROYING, E(CONNECT_REQUEST), 0, -ECONNREFUSED, S(DESTROYING),
	  NONE, 0, false },
	OK(DESTROYING, CONNECT_REPLY, DESTROYING, NONE),
	OK(DESTROYING, ESTABLISHED, DESTROYING, NONE),
	OK(DESTROYING, DISCONNECT, DESTROYING, NONE),
	OK(DESTROYING, CLOSE, DESTROYING, NONE),
	OK(DESTROYING, DEVICE_REMOVAL, DESTROYING, NONE),

	BAD(LINGER, CONNECT_REQUEST, LINGER),
	BAD(LINGER, CONNECT_REPLY, LINGER),
	BAD(LINGER, ESTABLISHED, LINGER),
	OK(LINGER, DISCONNECT, LINGER, NONE),	/* the peer's half */
	OK(LINGER, CLOSE, DESTROYING, NONE),	/* the close is over */
	BAD(LINGER, DEVICE_REMOVAL, LINGER),
};

static void pair_desc(const struct pair *p, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s + %s(%d)",
		 start_names[p->start], kiwi_cm_event_name(p->event),
		 p->status);
}

KUNIT_ARRAY_PARAM(pair, pairs, pair_desc);

/* Bring a new id of @u's device to @start. */
static struct kiwi_cm_id *drive(struct kiwi_ulp *u, enum start start)
{
	struct kiwi_conn_param p = {};
	struct kiwi_cm_id *id;

	switch (start) {
	case AT_IDLE:
		return kiwi_ulp_id(u);
	case AT_LISTEN:
		return kiwi_ulp_listen(u, 0);
	case AT_CONN_RECV:
	case AT_CONN_RECV_ACC:
		id = kiwi_ulp_request(u, kiwi_ulp_listen(u, 0));
		if (start == AT_CONN_RECV_ACC) {
			p.qpn = kiwi_ulp_qp(u);
			KUNIT_ASSERT_EQ(u->test, kiwi_cm_accept(id, &p), 0);
		}
		return id;
	case AT_CONN_SENT:
		return kiwi_ulp_connect(u);
	case AT_CLOSING:
		id = kiwi_ulp_established(u);
		KUNIT_ASSERT_EQ(u->test, kiwi_cm_disconnect(id, KIWI_CM_DISCONNECT_GRACEFUL), 0);
		return id;
	case AT_CLOSING_PEER:
		id = kiwi_ulp_established(u);
		KUNIT_ASSERT_EQ(u->test, kiwi_ulp_ev(u, id, KIWI_CM_EVENT_DISCONNECT, 0), 0);
		kiwi_cm_id_flush(id);
		return id;
	case AT_DESTROYING:
		id = kiwi_ulp_established(u);
		kiwi_ulp_destroy(u, id);	/* the mock still pins it */
		return id;
	case AT_LINGER:
		id = kiwi_ulp_established(u);
		KUNIT_ASSERT_EQ(u->test, kiwi_cm_disconnect(id, KIWI_CM_DISCONNECT_GRACEFUL), 0);
		kiwi_ulp_destroy(u, id);	/* the mock still pins it */
		return id;
	default:
		return kiwi_ulp_established(u);
	}
}

static void proto_every_pair(struct kunit *test)
{
	const struct pair *p = test->param_value;
	struct kiwi_ulp *u = kiwi_ulp_setup(test);
	struct kiwi_cm_id *id = drive(u, p->start);
	int n = kiwi_ulp_count(u);
	unsigned long v = kiwi_ulp_cnt(u, KIWI_DEV_CNT_VIOLATIONS);
	struct kiwi_ulp_rec r;

	KUNIT_EXPECT_EQ(test, kiwi_ulp_ev(u, id, p->event, p->status), p->ret);
	if (p->event == E(CONNECT_REQUEST) && !p->ret)
		kiwi_ulp_wait(u, n + 1);
	kiwi_cm_id_flush(id);
	KUNIT_EXPECT_STREQ(test, kiwi_cm_state_name(kiwi_cm_id_state(id)),
			   kiwi_cm_state_name(p->next));
	v = kiwi_ulp_cnt(u, KIWI_DEV_CNT_VIOLATIONS) - v;
	KUNIT_EXPECT_EQ(test, v, (unsigned long)p->broken);
	if (p->deliver == NONE) {
		KUNIT_EXPECT_EQ(test, kiwi_ulp_count(u), n);
		return;
	}
	KUNIT_ASSERT_EQ(test, kiwi_ulp_count(u), n + 1);
	r = kiwi_ulp_rec(u, n);
	KUNIT_EXPECT_STREQ(test, kiwi_cm_event_name(r.event),
			   kiwi_cm_event_name(p->deliver));
	KUNIT_EXPECT_EQ(test, r.status, p->dstatus);
	if (p->event == E(CONNECT_REQUEST))
		KUNIT_EXPECT_PTR_NE(test, r.id, id);	/* a new child */
	else
		KUNIT_EXPECT_PTR_EQ(test, r.id, id);
}

/* A second event of a type already seen is a violation, not a delivery. */
static void proto_duplicate_events(struct kunit *test)
{
	struct kiwi_ulp *u = kiwi_ulp_setup(test);
	struct kiwi_cm_id *id = kiwi_ulp_established(u);
	int n = kiwi_ulp_count(u);

	KUNIT_EXPECT_EQ(test, kiwi_ulp_ev(u, id, KIWI_CM_EVENT_CONNECT_REPLY, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, kiwi_ulp_ev(u, id, KIWI_CM_EVENT_CLOSE, 0), 0);
	KUNIT_EXPECT_EQ(test, kiwi_ulp_ev(u, id, KIWI_CM_EVENT_CLOSE, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, kiwi_ulp_ev(u, id, KIWI_CM_EVENT_DISCONNECT, 0), -EINVAL);
	kiwi_cm_id_flush(id);
	KUNIT_EXPECT_EQ(test, kiwi_ulp_count(u), n + 1);
	KUNIT_EXPECT_EQ(test, kiwi_ulp_cnt(u, KIWI_DEV_CNT_VIOLATIONS), 3);
	/* a rem_ref without add_ref is refused, not a refcount underflow */
	kiwi_cm_id_rem_ref(kiwi_ulp_id(u));
	KUNIT_EXPECT_EQ(test, kiwi_ulp_cnt(u, KIWI_DEV_CNT_VIOLATIONS), 4);
}

static struct kunit_case proto_cases[] = {
	KUNIT_CASE_PARAM(proto_every_pair, pair_gen_params),
	KUNIT_CASE(proto_duplicate_events),
	{}
};

static struct kunit_suite proto_suite = {
	.name = "kiwi_iwcm_proto",
	.test_cases = proto_cases,
};

kunit_test_suite(proto_suite);

MODULE_DESCRIPTION("KUnit: kiwi_iwcm protocol violations");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
