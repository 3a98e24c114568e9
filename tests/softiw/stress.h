/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kiwi_softiw_stress, shared by its three files: stress_test.c (the case:
 * a round's setup, its threads, its checks), stress_client.c (the client
 * threads) and stress_server.c (the server in the listeners' handler, the
 * listener thread and the device thread).
 */
#ifndef _KIWI_SOFTIW_STRESS_H
#define _KIWI_SOFTIW_STRESS_H

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/jiffies.h>
#include <linux/list.h>
#include <linux/prandom.h>
#include <linux/spinlock.h>
#include <linux/wait.h>

#include <kiwi/iw_cm.h>
#include <rdma/ib_verbs.h>

#define STRESS_PORT		27100	/* lo: +0 listens, +1 and +2 come and go */
#define STRESS_DEAD		3	/* STRESS_PORT + 3: nobody listens there */
#define STRESS_LO_PORTS		4
#define STRESS_PORT_KV1		27110
#define STRESS_BACKLOG		16
#define STRESS_STEP_MS		15000	/* any wait for an event; > mpa_timeout_ms */
#define STRESS_DETACH_MS	15000	/* a detach under load */
#define STRESS_BUF		4096
#define STRESS_REJECT_EVERY	8
#define STRESS_MSGS		8
#define STRESS_MSG_LEN		192
#define STRESS_REJ		"rej"
#define STRESS_REJ_LEN		3

/* The server's devices. */
enum stress_dev { STRESS_LO, STRESS_KV1, STRESS_NR_DEVS };

/*
 * What the threads count. An attempt ends in exactly one of
 * SC_SETUP_ERR..SC_HUNG.
 */
enum stress_count {
	SC_ATTEMPTS,
	SC_SETUP_ERR, SC_REFUSED, SC_REJECTED, SC_FAILED, SC_REMOVED, SC_UP,
	SC_HUNG,
	SC_KV0, SC_KV0_ABSENT, SC_SEND, SC_WRITE, SC_DATA_LOST,
	SC_END_GRACEFUL, SC_END_ABORT, SC_END_DESTROY, SC_END_LINGER,
	SC_END_REMOVED,
	SC_SRV_REQUESTS, SC_SRV_ACCEPTED, SC_SRV_REJECTED, SC_SRV_ANSWER_ERR,
	SC_SRV_UP, SC_SRV_CLOSED,
	SC_LISTENS, SC_UNLISTENS, SC_ATTACHES, SC_DETACHES,
	SC_NR
};

/* What the server sends with its accept: where the client may write. */
struct stress_pdata {
	__be64 addr;
	__be32 rkey;
} __packed;

struct stress;

/**
 * struct stress_thread - a thread of the stress
 * @s: the stress
 * @task: the thread, or NULL if it never started
 * @done: completed as it exits
 * @step: what it is doing, for a report of a hang
 * @rnd: its random numbers, from a fixed seed
 * @name: its name in reports
 */
struct stress_thread {
	struct stress *s;
	struct task_struct *task;
	struct completion done;
	const char *step;
	struct rnd_state rnd;
	char name[16];
};

/**
 * struct stress_client - a client thread and its attempt
 * @th: the thread
 * @lock: protects @id, @creating and what the id heard (@ev to @peer)
 * @wq: woken at each event
 * @id: the attempt's id
 * @creating: kiwi_cm_create_id() runs: the handler may learn @id first
 * @ev: events the id heard, by type
 * @first: the attempt's terminal event (CONNECT_REPLY or DEVICE_REMOVAL),
 *	KIWI_CM_NR_EVENTS before it
 * @reply: CONNECT_REPLY's status
 * @close: CLOSE's status
 * @close_early: CLOSE came before a CONNECT_REPLY(0)
 * @rej: CONNECT_REPLY came with the server's rejection
 * @pd_bad: CONNECT_REPLY(0) came without the server's private data
 * @peer: that private data
 * @attempt: attempts so far
 * @kv0: the attempt is on softiw_kv0 (else on softiw_lo)
 * @port: its port of 127.0.0.1, STRESS_PORT + @port
 * @dev: its device
 * @cq: its CQ
 * @pd: its PD
 * @mr: its MR, over @buf
 * @qp: its QP
 * @buf: STRESS_BUF bytes, the thread's for all attempts
 * @data: data operations completed
 */
struct stress_client {
	struct stress_thread th;
	spinlock_t lock;	/* protects id, creating, ev to peer */
	wait_queue_head_t wq;
	struct kiwi_cm_id *id;
	bool creating;
	u8 ev[KIWI_CM_NR_EVENTS];
	u8 first;
	int reply;
	int close;
	bool close_early;
	bool rej;
	bool pd_bad;
	struct stress_pdata peer;
	unsigned int attempt;
	bool kv0;
	u16 port;
	struct ib_device *dev;
	struct ib_cq *cq;
	struct ib_pd *pd;
	struct ib_mr *mr;
	struct ib_qp *qp;
	void *buf;
	unsigned int data;
};

/**
 * struct stress_child - a connection the server accepted
 * @node: in &stress.children
 * @id: its id
 * @cq: its CQ
 * @mr: its MR, over @buf
 * @qp: its QP
 * @buf: where the client's SEND or WRITE lands
 * @ev: events heard since the accept, by type
 */
struct stress_child {
	struct list_head node;
	struct kiwi_cm_id *id;
	struct ib_cq *cq;
	struct ib_mr *mr;
	struct ib_qp *qp;
	void *buf;
	u8 ev[KIWI_CM_NR_EVENTS];
};

/**
 * struct stress - one round
 * @end: when the threads stop starting new work
 * @stop: stop now (a thread did not start)
 * @stuck: a thread did not end: everything is left as it is
 * @cleaning: the server's connections are being destroyed by the test
 * @count: by enum stress_count
 * @lock: protects @children, @fails and @msgs
 * @children: the server's connections, accepted and not yet closed
 * @fails: failures the threads reported
 * @msgs: the first STRESS_MSGS of them
 * @dev: softiw_lo, softiw_kv1 (referenced)
 * @pd: the server's PD on each
 * @lst: listeners on lo, by port; [STRESS_DEAD] stays NULL
 * @lst_kv1: the listener on kv1
 * @lo: 127.0.0.1 with each port
 * @kv1: kv1's address with STRESS_PORT_KV1
 * @peer: the peer namespace, kv1's
 * @kv1_attached: softiw was attached to kv1 by the round
 * @drain_set: @old_drain is to be restored
 * @old_drain: kiwi_iwcm's drain_timeout_secs before the round
 * @base_ids: kiwi_cm_live_ids() before the round
 * @base_ceps: kiwi_softiw_live_ceps() before the round
 * @base_qps: QPs of each device before the round
 * @base_mrs: MRs of each device before the round
 * @nclients: client threads
 * @clients: them
 * @listener: the listener thread
 * @device: the device thread
 */
struct stress {
	unsigned long end;
	bool stop;
	bool stuck;
	bool cleaning;
	atomic_t count[SC_NR];
	spinlock_t lock;	/* protects children, fails, msgs */
	struct list_head children;
	int fails;
	char msgs[STRESS_MSGS][STRESS_MSG_LEN];
	struct ib_device *dev[STRESS_NR_DEVS];
	struct ib_pd *pd[STRESS_NR_DEVS];
	struct kiwi_cm_id *lst[STRESS_LO_PORTS];
	struct kiwi_cm_id *lst_kv1;
	struct sockaddr_storage lo[STRESS_LO_PORTS];
	struct sockaddr_storage kv1;
	struct net *peer;
	bool kv1_attached;
	bool drain_set;
	unsigned int old_drain;
	int base_ids;
	unsigned int base_ceps;
	int base_qps[STRESS_NR_DEVS];
	int base_mrs[STRESS_NR_DEVS];
	int nclients;
	struct stress_client *clients;
	struct stress_thread listener;
	struct stress_thread device;
};

static inline void stress_inc(struct stress *s, enum stress_count which)
{
	atomic_inc(&s->count[which]);
}

/* The round is over for the threads: no new work. */
static inline bool stress_over(struct stress *s)
{
	return READ_ONCE(s->stop) || time_after_eq(jiffies, s->end);
}

static inline void stress_step(struct stress_thread *th, const char *step)
{
	WRITE_ONCE(th->step, step);
}

static inline u32 stress_rand(struct stress_thread *th, u32 n)
{
	return prandom_u32_state(&th->rnd) % n;
}

__printf(2, 3) void stress_fail(struct stress *s, const char *fmt, ...);
int stress_srv_handler(struct kiwi_cm_id *id, const struct kiwi_cm_event *ev);
int stress_listen(struct stress *s, int port);
void stress_listeners_destroy(struct stress *s);
void stress_children_destroy(struct stress *s);
int stress_listener_fn(void *arg);
int stress_device_fn(void *arg);
int stress_client_fn(void *arg);

#endif /* _KIWI_SOFTIW_STRESS_H */
