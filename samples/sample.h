/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kiwi sample ULPs: one connection of the server or the client, with its
 * QP, CQ and buffers, the ping-pong message exchange (over SEND/RECV, or
 * by the server's RDMA READ and RDMA WRITE), the record of its rdma_cm
 * events, and the counters a summary is made of.
 *
 * Exported by kiwi_sample_conn.ko; kiwi_sample_server.ko and
 * kiwi_sample_client.ko are its two users.
 */
#ifndef _KIWI_SAMPLE_H
#define _KIWI_SAMPLE_H

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/ktime.h>
#include <linux/mutex.h>
#include <linux/scatterlist.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include <rdma/rdma_cm.h>

/* Events one connection records; a connection has at most six. */
#define KIWI_SAMPLE_MAX_EVENTS	8
/* Largest message, so that one fits in one SEND of any kiwi device. */
#define KIWI_SAMPLE_MAX_SIZE	65536
/* Smallest message: the sequence header. */
#define KIWI_SAMPLE_MIN_SIZE	8
/* kiwi_sample_hello.magic: "kiwi" */
#define KIWI_SAMPLE_HELLO_MAGIC	0x6b697769

/**
 * struct kiwi_sample_hello - the client's buffers, offered to the server
 * @magic: KIWI_SAMPLE_HELLO_MAGIC
 * @size: bytes at each of the two addresses
 * @read_addr: where the server reads each message from (RDMA READ)
 * @write_addr: where the server writes it back to (RDMA WRITE)
 * @rkey: the key of both, with remote read and write access
 *
 * The private data of the client's connect when it asks for the RDMA
 * exchange; the server keeps what it received. Big-endian on the wire.
 */
struct kiwi_sample_hello {
	__be32 magic;
	__be32 size;
	__be64 read_addr;
	__be64 write_addr;
	__be32 rkey;
} __packed;

/**
 * struct kiwi_sample_ctrl - a message's announcement in the RDMA exchange
 * @nr: the client's connection number
 * @seq: the message's sequence number
 * @len: its bytes, at the client's read_addr
 *
 * The client SENDs it when a message is ready to be read; the server SENDs
 * it back once the message is written back.
 */
struct kiwi_sample_ctrl {
	__be32 nr;
	__be32 seq;
	__be32 len;
} __packed;

/**
 * struct kiwi_sample_stats - what a module's connections did
 * @completed: connections that reached DISCONNECTED after ESTABLISHED
 *	with every message exchanged and no error
 * @failed: the other connections
 * @messages: messages received and checked
 * @bytes: bytes in them
 * @reads: RDMA READs this module's connections completed
 * @writes: RDMA WRITEs they completed
 * @errors: failed calls, completions and checks
 * @first_error: the first failed connection's error, or 0
 */
struct kiwi_sample_stats {
	atomic_t completed;
	atomic_t failed;
	atomic64_t messages;
	atomic64_t bytes;
	atomic64_t reads;
	atomic64_t writes;
	atomic_t errors;
	atomic_t first_error;
};

/**
 * struct kiwi_sample_conn - one connection of a sample ULP
 * @id: its rdma_cm id
 * @who: the module's name, for the log
 * @nr: its number, for the log
 * @stats: the module's counters, updated when the connection ends
 * @lock: serialises the event handler, the CQ worker and teardown
 * @dead: set by teardown: handler and CQ worker do nothing any more
 * @established: ESTABLISHED was seen
 * @finished: the connection ended; @done is complete
 * @events: the rdma_cm events seen, in order
 * @status: each event's status
 * @nr_events: entries in @events
 * @error: the first error, or 0
 * @what: the call or check that failed, for the log
 * @passive: the server's side: accept, and send every message back
 * @rdma: messages go by the server's RDMA READ and WRITE, not by SEND
 * @hello: @rdma: the client's buffers (the client's own, or what the
 *	server received)
 * @pending: server, @rdma: bytes of the message in the works, until the
 *	SEND that returns its ctrl completes; 0 when none is
 * @count: client: messages to send; server: unused
 * @size: bytes per message (client) or buffer size (server)
 * @sent: messages posted
 * @received: messages received and checked
 * @bytes: bytes in them
 * @buf: two buffers of @size: receive, then send
 * @buf_dma: @buf's DMA address, named in SGEs by the PD's local_dma_lkey
 * @ctrl: @rdma: two ctrl buffers: receive, then send
 * @ctrl_dma: @ctrl's DMA address
 * @mr: @rdma: a fast-registration MR over @buf: the client's both
 *	buffers, for the server's RDMA READ and WRITE; the server's receive
 *	buffer, its READ's sink
 * @sg: what @mr maps
 * @sg_mapped: @sg is DMA-mapped
 * @mr_valid: client: @mr's registration is posted
 * @cq: the CQ of both queues
 * @pd: the protection domain of the QP and the MRs
 * @cq_work: polls @cq
 * @done: completed when the connection ends
 */
struct kiwi_sample_conn {
	struct rdma_cm_id *id;
	const char *who;
	unsigned int nr;
	struct kiwi_sample_stats *stats;
	struct mutex lock; /* serialises handler, CQ worker and teardown */
	bool dead;
	bool established;
	bool finished;
	u8 events[KIWI_SAMPLE_MAX_EVENTS];
	int status[KIWI_SAMPLE_MAX_EVENTS];
	unsigned int nr_events;
	int error;
	const char *what;
	bool passive;
	bool rdma;
	struct kiwi_sample_hello hello;
	u32 pending;
	u32 count;
	u32 size;
	u32 sent;
	u32 received;
	u64 bytes;
	void *buf;
	u64 buf_dma;
	struct kiwi_sample_ctrl *ctrl;
	u64 ctrl_dma;
	struct ib_mr *mr;
	struct scatterlist sg;
	bool sg_mapped;
	bool mr_valid;
	struct ib_cq *cq;
	struct ib_pd *pd;
	struct work_struct cq_work;
	struct completion done;
};

struct kiwi_sample_conn *kiwi_sample_conn_alloc(const char *who,
						unsigned int nr,
						struct kiwi_sample_stats *st,
						u32 size, u32 count, bool passive,
						bool rdma);
bool kiwi_sample_conn_event(struct kiwi_sample_conn *conn,
			    const struct rdma_cm_event *ev);
void kiwi_sample_conn_abort(struct kiwi_sample_conn *conn, const char *what,
			    int error);
void kiwi_sample_conn_destroy(struct kiwi_sample_conn *conn);
void kiwi_sample_summary(const char *who, struct kiwi_sample_stats *st,
			 ktime_t start);
int kiwi_sample_parse_addr(struct net *net, const char *addr, u16 port,
			   struct sockaddr_storage *ss);

#endif /* _KIWI_SAMPLE_H */
