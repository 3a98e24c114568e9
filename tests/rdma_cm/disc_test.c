// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_rdmacm_disc: the side that calls rdma_disconnect() on a connected
 * id gets DISCONNECTED (status 0) as soon as the core took the graceful
 * close, before the peer's FIN; the upcalls that finish the close are not
 * shown; destroy right after lingers rather than resets; a peer closing
 * at the same time still gives one DISCONNECTED; a close the provider
 * refused or a reset still reports its status. Over the mock RNIC on lo.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/workqueue.h>

#include "rdmacm_test.h"

#define DT_RACE_ROUNDS 20

static struct kiwi_cm_id *dt_cm(struct rdma_cm_id *id)
{
	return kiwi_rdma_priv(id)->cm;
}

/* Wait until what the core and the id's work queued was delivered. */
static void dt_settle(struct rdma_cm_id *id, struct kiwi_cm_id *cm)
{
	kiwi_cm_id_flush(cm);
	flush_delayed_work(&kiwi_rdma_priv(id)->work);
}

/* Wait (5 s) until @n iw_cm ids are alive. */
static bool dt_wait_live(int n)
{
	int i;

	for (i = 0; i < 250 && kiwi_cm_live_ids() != n; i++)
		msleep(20);
	return kiwi_cm_live_ids() == n;
}

/* The DISCONNECTEDs recorded for @id from record @from on; last status. */
static int dt_disconnected(struct kiwi_rt *rt, struct rdma_cm_id *id,
			   int from, int *status)
{
	int i, n = 0;

	for (i = from; i < kiwi_rt_count(rt); i++) {
		struct kiwi_rt_rec r = kiwi_rt_rec(rt, i);

		if (r.id != id || r.event != RDMA_CM_EVENT_DISCONNECTED)
			continue;
		n++;
		*status = r.status;
	}
	return n;
}

/*
 * rdma_disconnect() on an ESTABLISHED id: DISCONNECTED(0) comes with no
 * upcall from the provider; the QP is in CLOSING and the core's id waits
 * for the peer's half (CLOSING). A second call adds nothing.
 */
static void rdmacm_disc_prompt(struct kunit *test)
{
	struct kiwi_rt *rt = kiwi_rt_setup(test, true);
	struct rdma_cm_id *id = kiwi_rt_established(rt, AF_INET);
	int n = kiwi_rt_count(rt), status = 1;

	KUNIT_ASSERT_EQ(test, rdma_disconnect(id), 0);
	KUNIT_ASSERT_TRUE(test, kiwi_rt_wait(rt, n + 1));
	KUNIT_EXPECT_PTR_EQ(test, kiwi_rt_rec(rt, n).id, id);
	KUNIT_EXPECT_EQ(test, kiwi_rt_rec(rt, n).event,
			RDMA_CM_EVENT_DISCONNECTED);
	KUNIT_EXPECT_EQ(test, kiwi_rt_rec(rt, n).status, 0);
	KUNIT_EXPECT_EQ(test, kiwi_rt_state(id), KIWI_RDMA_DISCONNECTED);
	KUNIT_EXPECT_EQ(test, rt->m->last_qp_state, IB_QPS_SQD);
	KUNIT_EXPECT_EQ(test, kiwi_cm_id_state(dt_cm(id)),
			KIWI_CM_STATE_CLOSING);
	KUNIT_EXPECT_EQ(test, rdma_disconnect(id), 0);
	dt_settle(id, dt_cm(id));
	KUNIT_EXPECT_EQ(test, dt_disconnected(rt, id, n, &status), 1);
}

/**
 * struct dt_late - upcalls that finish a close after the prompt DISCONNECTED
 * @name: the row
 * @ev: the upcalls, in order (0-terminated after the first)
 * @status: their statuses
 */
struct dt_late {
	const char *name;
	u8 ev[2];
	int status[2];
};

static const struct dt_late dt_late_rows[] = {
	{ "peer FIN, CLOSE", { KIWI_CM_EVENT_DISCONNECT, KIWI_CM_EVENT_CLOSE },
	  { 0, 0 } },
	{ "CLOSE 0", { KIWI_CM_EVENT_CLOSE }, { 0 } },
	{ "CLOSE reset", { KIWI_CM_EVENT_CLOSE }, { -ECONNRESET } },
	{ "CLOSE timeout", { KIWI_CM_EVENT_CLOSE }, { -ETIMEDOUT } },
};

static void dt_late_desc(const struct dt_late *r, char *desc)
{
	strscpy(desc, r->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(dt_late, dt_late_rows, dt_late_desc);

/* The upcalls ending the close this side started are not shown. */
static void rdmacm_disc_late_close(struct kunit *test)
{
	const struct dt_late *row = test->param_value;
	struct kiwi_rt *rt = kiwi_rt_setup(test, true);
	struct rdma_cm_id *id = kiwi_rt_established(rt, AF_INET6);
	int n = kiwi_rt_count(rt), status = 1, i;

	KUNIT_ASSERT_EQ(test, rdma_disconnect(id), 0);
	KUNIT_ASSERT_TRUE(test, kiwi_rt_wait(rt, n + 1));
	for (i = 0; i < ARRAY_SIZE(row->ev) && row->ev[i]; i++)
		KUNIT_EXPECT_EQ(test, kiwi_rt_inject(rt, id, row->ev[i],
						     row->status[i], NULL), 0);
	dt_settle(id, dt_cm(id));
	KUNIT_EXPECT_EQ(test, kiwi_cm_id_state(dt_cm(id)), KIWI_CM_STATE_IDLE);
	KUNIT_EXPECT_EQ(test, dt_disconnected(rt, id, n, &status), 1);
	KUNIT_EXPECT_EQ(test, status, 0);
	KUNIT_EXPECT_EQ(test, kiwi_rt_count(rt), n + 1);
	KUNIT_EXPECT_EQ(test, rdma_disconnect(id), 0);
}

/*
 * rdma_destroy_id() right after rdma_disconnect(): no event after it
 * returned, no reset (the QP stays in CLOSING), and the core lingers
 * until the provider's CLOSE.
 */
static void rdmacm_disc_destroy_after(struct kunit *test)
{
	struct kiwi_rt *rt = kiwi_rt_setup(test, true);
	struct rdma_cm_id *id = kiwi_rt_established(rt, AF_INET);
	struct kiwi_cm_id *cm = dt_cm(id);
	int live = kiwi_cm_live_ids();
	int n;

	KUNIT_ASSERT_EQ(test, rdma_disconnect(id), 0);
	KUNIT_ASSERT_TRUE(test, kiwi_rt_forget(rt, id));
	kiwi_rt_destroy_with_qp(id);
	n = kiwi_rt_count(rt);
	KUNIT_EXPECT_EQ(test, rt->m->last_qp_state, IB_QPS_SQD);
	/* the mock's endpoint still pins @cm */
	KUNIT_EXPECT_EQ(test, kiwi_cm_id_state(cm), KIWI_CM_STATE_LINGER);
	KUNIT_EXPECT_EQ(test, kiwi_mock_event(rt->m, cm, KIWI_CM_EVENT_CLOSE,
					      0), 0);
	kiwi_cm_id_flush(cm);
	KUNIT_EXPECT_EQ(test, kiwi_rt_count(rt), n);
	KUNIT_EXPECT_EQ(test, rt->m->last_qp_state, IB_QPS_SQD);
	KUNIT_EXPECT_TRUE(test, kiwi_mock_release(rt->m, cm));
	/* the linger work drops the owner's reference: the id goes */
	KUNIT_EXPECT_TRUE(test, dt_wait_live(live - 1));
}

/* The test's CPU disconnects while a worker reports the peer's FIN. */
struct dt_race {
	struct work_struct work;
	struct kiwi_rt *rt;
	struct rdma_cm_id *id;
	int ret;
};

static void dt_race_work(struct work_struct *work)
{
	struct dt_race *r = container_of(work, struct dt_race, work);

	r->ret = kiwi_rt_inject(r->rt, r->id, KIWI_CM_EVENT_DISCONNECT, 0,
				NULL);
}

static void dt_race_round(struct kunit *test, struct kiwi_rt *rt,
			  struct dt_race *r, int i)
{
	struct rdma_cm_id *id = kiwi_rt_established(rt, AF_INET);
	int n = kiwi_rt_count(rt), status = 1;
	unsigned long flags;

	r->id = id;
	queue_work(system_unbound_wq, &r->work);
	udelay((i % 10) * 20);
	KUNIT_EXPECT_EQ(test, rdma_disconnect(id), 0);
	flush_work(&r->work);
	KUNIT_EXPECT_EQ(test, r->ret, 0);
	KUNIT_EXPECT_EQ(test, kiwi_rt_inject(rt, id, KIWI_CM_EVENT_CLOSE, 0,
					     NULL), 0);
	dt_settle(id, dt_cm(id));
	KUNIT_EXPECT_EQ_MSG(test, dt_disconnected(rt, id, n, &status), 1,
			    "round %d", i);
	KUNIT_EXPECT_EQ_MSG(test, status, 0, "round %d", i);
	KUNIT_EXPECT_EQ(test, rt->m->last_qp_state, IB_QPS_SQD);
	kiwi_rt_destroy(rt, id);
	/* the records are full after a few rounds: start again */
	spin_lock_irqsave(&rt->lock, flags);
	rt->n = 0;
	spin_unlock_irqrestore(&rt->lock, flags);
}

/*
 * Both sides disconnect at once: the peer's DISCONNECT and our
 * rdma_disconnect() race on 2 CPUs; whichever moves the id, the ULP sees
 * exactly one DISCONNECTED, with status 0, and the close stays graceful.
 */
static void rdmacm_disc_both_at_once(struct kunit *test)
{
	struct kiwi_rt *rt = kiwi_rt_setup(test, true);
	struct dt_race r = { .rt = rt };
	int i;

	INIT_WORK_ONSTACK(&r.work, dt_race_work);
	for (i = 0; i < DT_RACE_ROUNDS; i++)
		dt_race_round(test, rt, &r, i);
	destroy_work_on_stack(&r.work);
}

/*
 * The provider refuses the graceful close (modify_qp fails): the call
 * fails, nothing is shown, and the CLOSE the provider then reports comes
 * as DISCONNECTED with its status.
 */
static void rdmacm_disc_refused_reports_status(struct kunit *test)
{
	struct kiwi_rt *rt = kiwi_rt_setup(test, true);
	struct rdma_cm_id *id = kiwi_rt_established(rt, AF_INET);
	int n = kiwi_rt_count(rt), status = 1;

	kiwi_mock_fail(rt->m, KIWI_MOCK_MODIFY_QP, -EIO);
	KUNIT_EXPECT_EQ(test, rdma_disconnect(id), -EIO);
	dt_settle(id, dt_cm(id));
	KUNIT_EXPECT_EQ(test, kiwi_rt_count(rt), n);
	KUNIT_EXPECT_EQ(test, kiwi_rt_state(id), KIWI_RDMA_ESTABLISHED);
	KUNIT_EXPECT_EQ(test, kiwi_rt_inject(rt, id, KIWI_CM_EVENT_CLOSE, -EIO,
					     NULL), 0);
	KUNIT_ASSERT_TRUE(test, kiwi_rt_wait(rt, n + 1));
	KUNIT_EXPECT_EQ(test, dt_disconnected(rt, id, n, &status), 1);
	KUNIT_EXPECT_EQ(test, status, -EIO);
}

/*
 * The peer resets the connection before this side disconnects: one
 * DISCONNECTED with -ECONNRESET, and rdma_disconnect() after it has
 * nothing left to close and adds no event.
 */
static void rdmacm_disc_reset_reports_status(struct kunit *test)
{
	struct kiwi_rt *rt = kiwi_rt_setup(test, true);
	struct rdma_cm_id *id = kiwi_rt_established(rt, AF_INET);
	int n = kiwi_rt_count(rt), status = 1;

	KUNIT_EXPECT_EQ(test, kiwi_rt_inject(rt, id, KIWI_CM_EVENT_CLOSE,
					     -ECONNRESET, NULL), 0);
	KUNIT_ASSERT_TRUE(test, kiwi_rt_wait(rt, n + 1));
	KUNIT_EXPECT_EQ(test, rdma_disconnect(id), 0);
	dt_settle(id, dt_cm(id));
	KUNIT_EXPECT_EQ(test, dt_disconnected(rt, id, n, &status), 1);
	KUNIT_EXPECT_EQ(test, status, -ECONNRESET);
	KUNIT_EXPECT_EQ(test, kiwi_rt_count(rt), n + 1);
}

static int dt_destroy_hook(struct kiwi_rt *rt, struct rdma_cm_id *id,
			   struct rdma_cm_event *ev)
{
	return ev->event == RDMA_CM_EVENT_DISCONNECTED;
}

/*
 * A handler returning non-zero at the prompt DISCONNECTED destroys the
 * id from the id's own work: the close still lingers, no reset.
 */
static void rdmacm_disc_handler_destroys(struct kunit *test)
{
	struct kiwi_rt *rt = kiwi_rt_setup(test, true);
	struct rdma_cm_id *id = kiwi_rt_established(rt, AF_INET);
	struct kiwi_cm_id *cm = dt_cm(id);
	int n = kiwi_rt_count(rt);
	int i;

	rt->hook = dt_destroy_hook;
	KUNIT_ASSERT_EQ(test, rdma_disconnect(id), 0);
	KUNIT_ASSERT_TRUE(test, kiwi_rt_wait(rt, n + 1));
	for (i = 0; i < 250 && kiwi_cm_id_state(cm) != KIWI_CM_STATE_LINGER;
	     i++)
		msleep(20);
	KUNIT_EXPECT_EQ(test, kiwi_cm_id_state(cm), KIWI_CM_STATE_LINGER);
	KUNIT_EXPECT_EQ(test, rt->m->last_qp_state, IB_QPS_SQD);
	KUNIT_EXPECT_EQ(test, kiwi_mock_event(rt->m, cm, KIWI_CM_EVENT_CLOSE,
					      0), 0);
	kiwi_cm_id_flush(cm);
	KUNIT_EXPECT_EQ(test, kiwi_rt_count(rt), n + 1);
	kiwi_mock_release(rt->m, cm);
}

static struct kunit_case rdmacm_disc_cases[] = {
	KUNIT_CASE(rdmacm_disc_prompt),
	KUNIT_CASE_PARAM(rdmacm_disc_late_close, dt_late_gen_params),
	KUNIT_CASE(rdmacm_disc_destroy_after),
	KUNIT_CASE(rdmacm_disc_both_at_once),
	KUNIT_CASE(rdmacm_disc_refused_reports_status),
	KUNIT_CASE(rdmacm_disc_reset_reports_status),
	KUNIT_CASE(rdmacm_disc_handler_destroys),
	{}
};

static struct kunit_suite rdmacm_disc_suite = {
	.name = "kiwi_rdmacm_disc",
	.test_cases = rdmacm_disc_cases,
};

kunit_test_suite(rdmacm_disc_suite);
