/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kiwi_conformance: the provider contract, run against two devices of any
 * provider. The kit knows the devices by name and the provider only
 * through kiwi's API: connections through the iWARP CM (struct
 * kiwi_cm_id), data through Linux's verbs. Every case checks the rules
 * of Documentation/provider-guide.rst that its table entry names.
 */
#ifndef _KIWI_CONFORMANCE_KC_H
#define _KIWI_CONFORMANCE_KC_H

#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/in.h>
#include <linux/spinlock.h>
#include <linux/wait.h>

#include <kiwi/iw_cm.h>
#include <rdma/ib_verbs.h>

#define KC_MAX_EVS	48
#define KC_MAX_IDS	16
#define KC_MAX_OBJS	16
#define KC_MAX_PDATA	KIWI_CM_MAX_PRIVATE_DATA
/* How long the kit waits for a provider's answer. */
#define KC_WAIT_MS	5000

/**
 * struct kc_side - one of the two devices, as a case uses it
 * @name: the device's name (a module parameter)
 * @dev: the device, a reference held for the case (NULL once the case
 *	unplugged it)
 * @addr: its IPv4 address, port 0
 * @pd: the case's PD on it
 * @violations: the device's protocol_violations when the case began
 * @live_ids: kiwi_device_live_ids() then
 */
struct kc_side {
	const char *name;
	struct ib_device *dev;
	struct sockaddr_in addr;
	struct ib_pd *pd;
	unsigned long violations;
	int live_ids;
};

/**
 * struct kc_ev - one event as the kit's handler saw it
 * @id: the id
 * @event: its type
 * @status: its status
 * @len: private data length
 * @pdata: the private data
 * @ird: the event's IRD
 * @ord: the event's ORD
 * @local: the id's local address when the event was delivered
 * @remote: the id's remote address then
 * @flushed: for CLOSE of an id whose QP the case named with kc_watch():
 *	the completions its CQ held at that moment, or -1
 * @flush_ok: how many of those were IB_WC_WR_FLUSH_ERR
 */
struct kc_ev {
	struct kiwi_cm_id *id;
	u8 event;
	int status;
	u16 len;
	u8 pdata[KC_MAX_PDATA];
	u16 ird;
	u16 ord;
	struct sockaddr_in local;
	struct sockaddr_in remote;
	int flushed;
	int flush_ok;
};

/**
 * struct kc_watch - a QP whose CQ the handler polls when its id closes
 * @id: the id
 * @cq: the CQ
 */
struct kc_watch {
	struct kiwi_cm_id *id;
	struct ib_cq *cq;
};

/**
 * struct kc_buf - memory a case moves data through
 * @cpu: its kernel address
 * @dma: its DMA address on @dev
 * @len: its length
 * @dev: the device it is mapped for
 */
struct kc_buf {
	u8 *cpu;
	u64 dma;
	size_t len;
	struct ib_device *dev;
};

/**
 * struct kc - a case's fixture
 * @test: the case
 * @a: the active side (module parameter dev_a)
 * @b: the passive side (dev_b)
 * @lock: protects @evs, @nev, @ids, @nids, @watch, @qpev, @nqpev,
 *	@cqev, @ncqev, @flushes and @overflow
 * @wq: woken on each event
 * @evs: events, in delivery order
 * @nev: their number
 * @ids: ids destroyed when the case ends
 * @nids: their number
 * @qps: QPs destroyed when the case ends
 * @nqps: their number
 * @cqs: CQs destroyed after them
 * @cq_lib: which of them came from ib_alloc_cq()
 * @ncqs: their number
 * @mrs: MRs deregistered after them
 * @nmrs: their number
 * @bufs: memory freed last, DMA-mapped for a side's device
 * @nbufs: their number
 * @pds: extra PDs (kc_pd()), freed after the MRs
 * @npds: their number
 * @qpev: asynchronous events of the case's QPs: QP and type
 * @nqpev: their number
 * @cqev: the CQs that heard IB_EVENT_CQ_ERR, once per event
 * @ncqev: their number
 * @watch: QPs watched at CLOSE
 * @nwatch: their number
 * @gate: CONNECT_REQUEST handler calls wait for @release
 * @release: opens the gate
 * @flushes: IB_WC_WR_FLUSH_ERR completions a case counted
 * @overflow: an event or a child id found @evs or @ids full
 * @unplugged: side b's device is away (kc_unregister_live()); the case's
 *	end brings it back
 * @port: this case's TCP port
 */
struct kc {
	struct kunit *test;
	struct kc_side a;
	struct kc_side b;
	spinlock_t lock;	/* see above */
	wait_queue_head_t wq;
	struct kc_ev *evs;
	int nev;
	struct kiwi_cm_id *ids[KC_MAX_IDS];
	int nids;
	struct ib_qp *qps[KC_MAX_OBJS];
	int nqps;
	struct ib_cq *cqs[KC_MAX_OBJS];
	bool cq_lib[KC_MAX_OBJS];
	int ncqs;
	struct ib_mr *mrs[KC_MAX_OBJS];
	int nmrs;
	struct kc_buf *bufs[KC_MAX_OBJS];
	int nbufs;
	struct ib_pd *pds[4];
	int npds;
	struct {
		struct ib_qp *qp;
		enum ib_event_type type;
	} qpev[8];
	int nqpev;
	struct ib_cq *cqev[4];
	int ncqev;
	struct kc_watch watch[KC_MAX_IDS];
	int nwatch;
	bool gate;
	struct completion release;
	int flushes;
	bool overflow;
	bool unplugged;
	u16 port;
};

/**
 * struct kc_conn - a connection the fixture set up
 * @a: the active id
 * @b: the passive id (the request's child)
 * @qa: the active side's QP
 * @qb: the passive side's QP
 * @listener: the listener, on side b
 */
struct kc_conn {
	struct kiwi_cm_id *a;
	struct kiwi_cm_id *b;
	struct ib_qp *qa;
	struct ib_qp *qb;
	struct kiwi_cm_id *listener;
};

/**
 * struct kc_qp_opts - how kc_qp() makes a QP
 * @sig_all: IB_SIGNAL_ALL_WR instead of IB_SIGNAL_REQ_WR
 * @cqe: entries of its CQ (0: 64)
 * @wr: send and receive queue depth (0: 16)
 * @pd: its PD (NULL: the side's)
 * @lib_cq: its CQ comes from ib_alloc_cq(IB_POLL_DIRECT), for the CQ
 *	library and ib_drain_qp(); work requests then need a wr_cqe
 */
struct kc_qp_opts {
	bool sig_all;
	bool lib_cq;
	int cqe;
	int wr;
	struct ib_pd *pd;
};

/**
 * kc_of() - a case's fixture
 * @test: the case
 *
 * Return: the fixture kc_case_init() made.
 */
static inline struct kc *kc_of(struct kunit *test)
{
	return test->priv;
}

extern struct kunit_suite kc_cm_suite;
extern struct kunit_suite kc_verbs_suite;
extern struct kunit_suite kc_rules_suite;

int kc_case_init(struct kunit *test);
int kc_side_get(struct kunit *test, struct kc_side *s);
void kc_side_put(struct kc *t, struct kc_side *s);
void kc_unregister_live(struct kunit *test);
void kc_replug(struct kc *t);
u32 kc_depth(struct kc_side *s);
void kc_to_dev(struct kc_buf *b);
void kc_to_cpu(struct kc_buf *b);
void kc_case_exit(struct kunit *test);
const char *kc_rules_of(const char *case_name);

struct kiwi_cm_id *kc_id(struct kc *t, struct kc_side *s);
void kc_destroy_id(struct kc *t, struct kiwi_cm_id *id);
struct kiwi_cm_id *kc_listen(struct kc *t, int backlog);
struct kiwi_cm_id *kc_connect(struct kc *t, struct ib_qp *qa, u16 port,
			      const void *pdata, u16 len);
int kc_try_connect(struct kc *t, struct kiwi_cm_id *id, struct ib_qp *qa,
		   u16 port, const void *pdata, u16 len);
struct ib_qp *kc_qp(struct kc *t, struct kc_side *s,
		    const struct kc_qp_opts *o);
void kc_destroy_qp(struct kc *t, struct ib_qp *qp);
void kc_connected(struct kc *t, struct kc_conn *c, const struct kc_qp_opts *o);
void kc_watch_close(struct kc *t, struct kiwi_cm_id *id, struct ib_qp *qp);

const struct kc_ev *kc_wait(struct kc *t, struct kiwi_cm_id *id, u8 event);
const struct kc_ev *kc_wait_nth(struct kc *t, struct kiwi_cm_id *id,
				u8 event, int n);
int kc_nevents(struct kc *t, struct kiwi_cm_id *id, u8 event);
void kc_live(struct kc *t, int live[2]);
int kc_wait_live(struct kc *t, const int base[2]);
int kc_wait_cq_errs(struct kc *t, struct ib_cq *cq);
bool kc_wait_qp_event(struct kc *t, struct ib_qp *qp,
		      enum ib_event_type type);
void kc_destroy_cq(struct kc *t, struct ib_cq *cq);
void kc_events(struct kc *t, struct kiwi_cm_id *id, char *buf, size_t len);
void kc_settle(struct kc *t);
void kc_release(struct kc *t, struct ib_device *dev);

struct kc_buf *kc_buf(struct kc *t, struct kc_side *s, size_t len);
struct ib_mr *kc_mr(struct kc *t, struct ib_pd *pd, struct kc_buf *b,
		    u32 access);
void kc_free_bufs(struct kc *t, struct ib_device *dev);
void kc_forget_mr(struct kc *t, struct ib_mr *mr);
struct ib_pd *kc_pd(struct kc *t, struct kc_side *s);
int kc_poll(struct kc *t, struct ib_qp *qp, struct ib_wc *wc, int n);
void kc_post_recv(struct kc *t, struct ib_qp *qp, u64 wr_id,
		  struct kc_buf *b, u32 len);
int kc_send(struct ib_qp *qp, u64 wr_id, struct kc_buf *b, u32 len,
	    int flags);
int kc_rdma(struct ib_qp *qp, enum ib_wr_opcode op, u64 wr_id,
	    struct kc_buf *b, struct ib_mr *lmr, u32 len, u64 raddr, u32 rkey);

const void *kc_bad_params(const void *prev, char *desc);
void kc_bad_input(struct kunit *test);

#endif /* _KIWI_CONFORMANCE_KC_H */
