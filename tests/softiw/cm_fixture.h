/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A recording ULP over a real softiw device on loopback, shared by the
 * connection suites: ids, QPs, events, raw client sockets, and module
 * parameters set for one test and restored after it.
 */
#ifndef _KIWI_SOFTIW_CM_FIXTURE_H
#define _KIWI_SOFTIW_CM_FIXTURE_H

#include <kunit/test.h>
#include <linux/in.h>
#include <linux/net.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/wait.h>
#include <net/net_namespace.h>

#include <kiwi/iw_cm.h>
#include <kiwi/provider.h>
#include <rdma/ib_verbs.h>

#include "kiwi_test.h"

#define CMT_MAX_RECS 32
#define CMT_MAX_IDS 8

/* KUnit of 6.1 has no KUNIT_EXPECT_MEMEQ. */
#define CMT_EXPECT_MEM(test, got, want, n) \
	KUNIT_EXPECT_EQ(test, memcmp(got, want, n), 0)
/**
 * struct cmt_rec - one event as the handler saw it
 * @id: the id
 * @event: its type
 * @status: its status
 * @len: private data length
 * @pd: the first private data bytes
 * @ird: the event's IRD
 * @ord: the event's ORD
 */
struct cmt_rec {
	struct kiwi_cm_id *id;
	u8 event;
	int status;
	u16 len;
	u8 pd[8];
	u16 ird;
	u16 ord;
};

/**
 * struct cmt - the fixture
 * @test: the test
 * @dev: softiw_lo
 * @cq: CQ of every QP
 * @pd: PD of every QP and MR
 * @lock: protects @recs, @n, @ids and @nids
 * @wq: woken on each event
 * @recs: events
 * @n: their number
 * @ids: ids destroyed at the end
 * @nids: their number
 * @qps: QPs destroyed at the end
 * @nqps: their number
 * @mrs: MRs deregistered at the end
 * @nmrs: their number
 * @bufs: memory freed at the end, after the MRs over it
 * @nbufs: their number
 * @live_ids: kiwi_cm_live_ids() at setup
 * @port: TCP port of this test's listener
 * @family: AF_INET (what cmt_setup() sets) or AF_INET6: the family of the
 *	addresses cmt_listen(), cmt_connect_param() and cmt_connect_veth()
 *	use; a case may change it before it listens or connects
 * @qp_access: rights cmt_qp_init() gives each new QP (KIWI_QP_ACCESS_IWARP
 *	unless the test changes it), or CMT_QP_AS_CREATED to keep what
 *	kiwi_create_qp() gives
 * @sig_all: cmt_qp_init() makes QPs of IB_SIGNAL_ALL_WR, not the
 *	default IB_SIGNAL_REQ_WR
 * @qp_events: BIT(enum ib_event_type) of the asynchronous events its
 *	QPs heard (@lock)
 * @qp_event_qp: the QP of the last one
 * @close_id: if set, the handler polls @close_cq when CLOSE reaches this
 *	id, before recording it: what had completed at that moment
 * @close_cq: the CQ it polls
 * @close_wc: the completions it took (@lock)
 * @close_nwc: their number, or -1 before CLOSE (@lock)
 */
struct cmt {
	struct kunit *test;
	struct ib_device *dev;
	struct ib_cq *cq;
	struct ib_pd *pd;
	spinlock_t lock;	/* protects recs, n, ids and nids */
	wait_queue_head_t wq;
	struct cmt_rec recs[CMT_MAX_RECS];
	int n;
	struct kiwi_cm_id *ids[CMT_MAX_IDS];
	int nids;
	struct ib_qp *qps[CMT_MAX_IDS];
	int nqps;
	struct ib_mr *mrs[CMT_MAX_IDS];
	int nmrs;
	void *bufs[CMT_MAX_IDS];
	int nbufs;
	int live_ids;
	u16 port;
	int family;
	u32 qp_access;
	bool sig_all;
	unsigned long qp_events;
	struct ib_qp *qp_event_qp;
	struct kiwi_cm_id *close_id;
	struct ib_cq *close_cq;
	struct ib_wc close_wc[8];
	int close_nwc;
};

#define CMT_QP_AS_CREATED	U32_MAX

int cmt_suite_init(struct kunit_suite *suite);
void cmt_suite_exit(struct kunit_suite *suite);
struct cmt *cmt_setup(struct kunit *test, u16 port);
struct cmt *cmt_setup_in(struct kunit *test, struct net *net,
			 const char *ifname, const char *devname, u16 port);
struct kiwi_cm_id *cmt_connect_veth(struct cmt *ta, struct ib_qp *qa,
				    struct cmt *tb, struct ib_qp *qb);
void cmt_expect_ends(struct cmt *t, struct kiwi_cm_id *a,
		     enum kiwi_test_host ha, struct kiwi_cm_id *b,
		     enum kiwi_test_host hb);
const struct cmt_rec *cmt_accept(struct cmt *ta, struct kiwi_cm_id *a,
				 struct cmt *tb, struct ib_qp *qb);
void cmt_teardown(struct cmt *t);
void cmt_release(struct cmt *t);
struct kiwi_cm_id *cmt_listen(struct cmt *t);
struct kiwi_cm_id *cmt_id_on(struct cmt *t, struct ib_device *dev);
void cmt_addr(struct sockaddr_storage *ss, u16 port);
void cmt_any_addr(struct sockaddr_storage *ss, u16 port);
void cmt_destroy(struct cmt *t, struct kiwi_cm_id *id);
struct kiwi_cm_id *cmt_connect(struct cmt *t, const char *pd, u16 port);
struct kiwi_cm_id *cmt_connect_qp(struct cmt *t, const char *pd, u16 port,
				  u32 qpn);
struct ib_cq *cmt_cq(struct cmt *t, u32 cqe);
struct ib_qp *cmt_qp_init(struct cmt *t,
			  const struct ib_qp_init_attr *init);
struct kiwi_cm_id *cmt_connect_param(struct cmt *t, u16 port,
				     const struct kiwi_conn_param *p);
u32 cmt_qp(struct cmt *t);
struct ib_qp *cmt_wait_qp_event(struct cmt *t, enum ib_event_type type);
void cmt_destroy_qp(struct cmt *t, struct ib_qp *qp);
void *cmt_buf(struct cmt *t, size_t len);
struct ib_mr *cmt_mr(struct cmt *t, void *buf, size_t len, u32 access);
const struct cmt_rec *cmt_wait(struct cmt *t, u8 event, struct kiwi_cm_id *id);
int cmt_count(struct cmt *t, u8 event);
void cmt_param(struct kunit *test, const char *name, const char *value);
struct socket *cmt_raw_connect(struct kunit *test, u16 port);
void cmt_raw_adopt(struct kunit *test, struct socket *sock);
struct socket *cmt_raw_socket_of(struct kunit *test, int family);
struct socket *cmt_raw_socket(struct kunit *test);
struct socket *cmt_raw_connect_lo(struct kunit *test, int family, u16 port);
int cmt_raw_connect_to(struct socket *sock, u16 port);
struct socket *cmt_raw_try_connect(struct kunit *test, u16 port);
int cmt_raw_send(struct socket *sock, const void *buf, size_t len);
int cmt_raw_recv(struct socket *sock, void *buf, size_t len, int ms);
void cmt_raw_close(struct socket *sock, bool reset);

#endif /* _KIWI_SOFTIW_CM_FIXTURE_H */
