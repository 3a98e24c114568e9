/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fixture of kiwi_rdmacm_test.ko: a mock RNIC bound to lo, a recording
 * rdma_cm handler, and ids in the states the suites need.
 */
#ifndef _KIWI_RDMACM_TEST_H
#define _KIWI_RDMACM_TEST_H

#include <kunit/test.h>
#include <linux/wait.h>

#include <rdma/rdma_cm.h>

#include "mock_rnic.h"
#include "rdmacm.h"

#define KIWI_RT_MAX_RECS 32
#define KIWI_RT_MAX_OWNED 16

/**
 * struct kiwi_rt_rec - one event as the handler saw it
 * @id: the id
 * @event: its type
 * @status: its status
 * @len: private data length
 * @pdata0: first private data byte
 * @ird: initiator_depth
 * @ord: responder_resources
 */
struct kiwi_rt_rec {
	struct rdma_cm_id *id;
	u8 event;
	int status;
	u8 len;
	u8 pdata0;
	u8 ird;
	u8 ord;
};

struct kiwi_rt;

/**
 * typedef kiwi_rt_hook - called by the handler after recording
 * @rt: the fixture
 * @id: the id
 * @ev: the event
 *
 * Return: what the handler returns.
 */
typedef int (*kiwi_rt_hook)(struct kiwi_rt *rt, struct rdma_cm_id *id,
			    struct rdma_cm_event *ev);

/**
 * struct kiwi_rt - the fixture
 * @test: the running test
 * @m: the mock RNIC, bound to lo unless the test asked otherwise
 * @cq: a CQ for QPs
 * @pd: the PD of QPs
 * @lock: protects @recs, @n, @owned, @nowned
 * @wq: woken on every event
 * @recs: recorded events
 * @n: number of events
 * @ret_on: per event, what the handler returns
 * @hook: if set, called for every event instead of @ret_on
 * @owned: ids destroyed at the end
 * @nowned: entries in @owned
 */
struct kiwi_rt {
	struct kunit *test;
	struct kiwi_mock *m;
	struct ib_cq *cq;
	struct ib_pd *pd;
	spinlock_t lock;	/* protects recs, n, owned, nowned */
	wait_queue_head_t wq;
	struct kiwi_rt_rec recs[KIWI_RT_MAX_RECS];
	int n;
	int ret_on[RDMA_CM_NR_EVENTS];
	kiwi_rt_hook hook;
	struct rdma_cm_id *owned[KIWI_RT_MAX_OWNED];
	int nowned;
};

/**
 * struct kiwi_rt_sides - the last event of each side of a connection
 * @lock: protects @events, @status, @count, and what the user keeps
 *	beside them (its ids)
 * @wq: woken on every event
 * @events: per side (0 client, 1 server), the last event; -1 for none
 * @status: its status
 * @count: per side, events seen
 */
struct kiwi_rt_sides {
	spinlock_t lock;	/* protects events, status, count */
	wait_queue_head_t wq;
	int events[2];
	int status[2];
	int count[2];
};

void kiwi_rt_sides_init(struct kiwi_rt_sides *s);
void kiwi_rt_sides_note(struct kiwi_rt_sides *s, int side,
			const struct rdma_cm_event *ev);
void kiwi_rt_sides_forget(struct kiwi_rt_sides *s);
int kiwi_rt_sides_wait(struct kiwi_rt_sides *s, int side, int event);
int kiwi_rt_sides_count(struct kiwi_rt_sides *s, int side);

struct kiwi_rt *kiwi_rt_setup(struct kunit *test, bool on_lo);
void kiwi_rt_destroy_mock(struct kiwi_rt *rt);
struct rdma_cm_id *kiwi_rt_id(struct kiwi_rt *rt);
struct rdma_cm_id *kiwi_rt_id_in(struct kiwi_rt *rt, struct net *net);
int kiwi_rt_seq_next(void);
struct kiwi_mock **kiwi_rt_mock(struct kiwi_rt *rt, struct net_device *nd,
				kiwi_mock_hook hook);
bool kiwi_rt_forget(struct kiwi_rt *rt, struct rdma_cm_id *id);
void kiwi_rt_destroy_with_qp(struct rdma_cm_id *id);
void kiwi_rt_destroy(struct kiwi_rt *rt, struct rdma_cm_id *id);
bool kiwi_rt_wait(struct kiwi_rt *rt, int n);
int kiwi_rt_count(struct kiwi_rt *rt);
struct kiwi_rt_rec kiwi_rt_rec(struct kiwi_rt *rt, int i);
void kiwi_rt_addr(struct sockaddr_storage *ss, int family, const char *ip,
		  u16 port);
struct rdma_cm_id *kiwi_rt_resolved(struct kiwi_rt *rt, int family);
struct rdma_cm_id *kiwi_rt_listener(struct kiwi_rt *rt, int family,
				    u16 port);
struct rdma_cm_id *kiwi_rt_request(struct kiwi_rt *rt,
				   struct rdma_cm_id *listener);
struct rdma_cm_id *kiwi_rt_established(struct kiwi_rt *rt, int family);
int kiwi_rt_inject(struct kiwi_rt *rt, struct rdma_cm_id *id, u8 event,
		   int status, const char *pdata);
enum kiwi_rdma_state kiwi_rt_state(struct rdma_cm_id *id);
int kiwi_rt_route4(struct net *net, bool add, const char *dst, u8 plen,
		   u8 tos, const char *gw, int oif);

#endif /* _KIWI_RDMACM_TEST_H */
