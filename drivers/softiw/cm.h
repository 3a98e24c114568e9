/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kiwi_softiw connection management: connection endpoints (one per TCP
 * connection), listeners, and the kernel socket glue under them.
 */
#ifndef _KIWI_SOFTIW_CM_H
#define _KIWI_SOFTIW_CM_H

#include <linux/mutex.h>
#include <linux/net.h>
#include <linux/uio.h>
#include <linux/workqueue.h>

#include <kiwi/iw_cm.h>

#include "fpdu.h"
#include "mpa.h"
#include "softiw.h"

/**
 * enum softiw_cep_state - where a connection endpoint is
 * @SOFTIW_CEP_CONNECTING: active: TCP connect in progress
 * @SOFTIW_CEP_AWAIT_REPLY: active: MPA request sent, waiting for the reply
 * @SOFTIW_CEP_AWAIT_REQUEST: passive: accepted by TCP, waiting for the
 *	MPA request
 * @SOFTIW_CEP_AWAIT_ACCEPT: passive: request delivered, waiting for the
 *	ULP's accept or reject
 * @SOFTIW_CEP_AWAIT_RTR: peer-to-peer: the responder waits for the RTR
 *	message, the initiator of a READ RTR for its READ response
 * @SOFTIW_CEP_ESTABLISHED: MPA done, the QP is in RTS
 * @SOFTIW_CEP_CLOSED: the socket is gone; waiting for the last reference
 */
enum softiw_cep_state {
	SOFTIW_CEP_CONNECTING,
	SOFTIW_CEP_AWAIT_REPLY,
	SOFTIW_CEP_AWAIT_REQUEST,
	SOFTIW_CEP_AWAIT_ACCEPT,
	SOFTIW_CEP_AWAIT_RTR,
	SOFTIW_CEP_ESTABLISHED,
	SOFTIW_CEP_CLOSED,
};

struct softiw_listener;

/*
 * Bits of softiw_cep.flags. STEPPING: a task holding the endpoint's mutex
 * runs a step before it drops it, so a socket event sets MISSED for that
 * task instead of queueing the endpoint's work.
 */
enum {
	SOFTIW_CEP_STEPPING,
	SOFTIW_CEP_MISSED,
};

/**
 * struct softiw_sock_cbs - a socket's own callbacks, put back on detach
 * @data_ready: sk_data_ready
 * @state_change: sk_state_change
 * @error_report: sk_error_report
 * @write_space: sk_write_space
 */
struct softiw_sock_cbs {
	void (*data_ready)(struct sock *sk);
	void (*state_change)(struct sock *sk);
	void (*error_report)(struct sock *sk);
	void (*write_space)(struct sock *sk);
};

/* Bytes of an untagged FPDU before its payload: length and DDP header. */
#define SOFTIW_UNTAGGED_HLEN	sizeof(struct softiw_ddp_untagged)
/* The same for a tagged FPDU. */
#define SOFTIW_TAGGED_HLEN	sizeof(struct softiw_ddp_tagged)
/* Pad and CRC after the payload, at most. */
#define SOFTIW_TRAILER_MAX	(SOFTIW_MPA_ALIGN - 1 + SOFTIW_MPA_CRC_SIZE)
/* Bytes of a received TERMINATE body kept: its word and a copied header. */
#define SOFTIW_TERM_KEEP	32
/* FPDUs of one message framed together and queued by one sendmsg() */
#define SOFTIW_TX_BATCH		16

/**
 * struct softiw_rresp - an RDMA Read Request to answer, as received
 * @sink_stag: the requester's STag the response is placed in
 * @sink_to: its tagged offset
 * @src_stag: this end's STag the data is read from
 * @src_to: its tagged offset
 * @len: bytes
 * @msn: the request's MSN on queue 1, for a TERMINATE that names it
 */
struct softiw_rresp {
	u32 sink_stag;
	u64 sink_to;
	u32 src_stag;
	u64 src_to;
	u32 len;
	u32 msn;
};

/**
 * struct softiw_tx - the transmit side of an established connection
 * @buf: the batch's FPDUs, segments of one message (or one Read
 *	Request, or a TERMINATE), whole or their headers and trailers
 *	(txbatch.c); room for SOFTIW_TX_BATCH of fpdu_size(@mulpdu) bytes
 * @used: bytes used at @buf
 * @vec: the batch as it is sent: pieces of @buf and payloads sent from
 *	where they are; room for SOFTIW_TX_VECS entries
 * @nvec: entries used at @vec
 * @len: bytes of the batch, 0 if none is pending
 * @sent: bytes of them already queued on the socket
 * @nfpdu: FPDUs in the batch
 * @mo: payload bytes of the current message already framed
 * @msn: MSN of the next SEND on queue 0 (the first is 1)
 * @rreq_msn: MSN of the next RDMA Read Request on queue 1 (the first is 1)
 * @mulpdu: longest ULPDU (DDP header and payload) of an FPDU
 * @last: the last FPDU at @buf ends its message
 * @term: the FPDU at @buf is a TERMINATE
 * @wqe: the send work request being framed, or NULL
 * @rresp: a Read Response (the oldest of @irq) is being framed
 * @rresp_last: the last message begun was a Read Response: when both
 *	queues wait, the send queue goes next
 * @ord: READs this end may have outstanding (negotiated by MPA)
 * @reads: READs sent whose response is not all placed yet
 * @ird: Read Requests of the peer served at once (negotiated): @irq's size
 * @irq_head: index of the oldest entry of @irq
 * @irq_count: entries in @irq
 * @irq: the Read Requests received and not answered yet, oldest first
 */
struct softiw_tx {
	u8 *buf;
	u32 used;
	struct kvec *vec;
	u32 nvec;
	u32 len;
	u32 sent;
	u32 nfpdu;
	u32 mo;
	u32 msn;
	u32 rreq_msn;
	u16 mulpdu;
	bool last;
	bool term;
	struct softiw_wqe *wqe;
	bool rresp;
	bool rresp_last;
	u16 ord;
	u16 reads;
	u16 ird;
	u16 irq_head;
	u16 irq_count;
	struct softiw_rresp *irq;
};

/**
 * enum softiw_rx_stage - where the receiver is within an FPDU
 * @SOFTIW_RX_HDR: reading the length field and the DDP/RDMAP header
 * @SOFTIW_RX_PAYLOAD: reading the payload
 * @SOFTIW_RX_TRAILER: reading the pad and the CRC
 */
enum softiw_rx_stage {
	SOFTIW_RX_HDR,
	SOFTIW_RX_PAYLOAD,
	SOFTIW_RX_TRAILER,
};

/**
 * struct softiw_rx - the receive side of an established connection
 * @stage: see enum softiw_rx_stage
 * @hdr: the FPDU's first bytes as received
 * @got: bytes at @hdr, or of the trailer at @trailer
 * @h: the parsed header
 * @left: payload bytes of this FPDU still to read
 * @trailer: pad and CRC
 * @trailer_len: their length
 * @crc: running CRC32c of the FPDU (not yet inverted)
 * @wqe: the RECV the current SEND message is placed in, or NULL
 * @msn: MSN expected of the next SEND message (the first is 1)
 * @mo: bytes of the current SEND message placed so far
 * @rreq_msn: MSN expected of the next RDMA Read Request (the first is 1)
 * @rwqe: the READ the current Read Response segment is placed in
 * @rmo: bytes of the oldest awaited Read Response placed so far
 * @term: the start of a received TERMINATE body, or a Read Request's
 * @term_len: bytes at @term
 * @cause: what our TERMINATE reports, once a protocol error was found
 * @hdr_ok: @hdr holds a whole header (the TERMINATE may copy it)
 * @fpdus: FPDUs received whole, CRC checked
 * @feed: while tcp_read_sock() offers an skb: that skb
 * @feed_off: the offset of its next byte not taken
 * @feed_len: bytes of it offered and not taken yet
 * @budget: what is left of the budget of the current step
 * @ret: how the current step's read of the socket stopped
 */
struct softiw_rx {
	enum softiw_rx_stage stage;
	u8 hdr[SOFTIW_UNTAGGED_HLEN];
	u8 got;
	struct kiwi_softiw_ddp_hdr h;
	u32 left;
	u8 trailer[SOFTIW_TRAILER_MAX];
	u8 trailer_len;
	u32 crc;
	struct softiw_wqe *wqe;
	u32 msn;
	u32 mo;
	u32 rreq_msn;
	struct softiw_wqe *rwqe;
	u32 rmo;
	u8 term[SOFTIW_TERM_KEEP];
	u8 term_len;
	struct kiwi_softiw_term_cause cause;
	bool hdr_ok;
	u32 fpdus;
	const struct sk_buff *feed;
	u32 feed_off;
	u32 feed_len;
	u32 budget;
	int ret;
};

/*
 * The longest FPDU of connection setup: an RDMA Read Request (length
 * field, 18 bytes of DDP header, 28 of body, CRC field).
 */
#define SOFTIW_RTR_FRAME_MAX	52

/**
 * struct softiw_rtr - the end of connection setup, after the MPA frames
 * @type: the RTR type (one SOFTIW_RTR_* bit) in peer-to-peer mode, else 0
 * @got: bytes of the awaited frame at @buf
 * @buf: the awaited frame: the RTR (responder) or READ response (initiator)
 * @rep: initiator: the Reply received, reported with CONNECT_REPLY
 */
struct softiw_rtr {
	u8 type;
	u8 got;
	u8 buf[SOFTIW_RTR_FRAME_MAX];
	struct kiwi_softiw_mpa_info rep;
};

/**
 * struct softiw_setup - what only connection setup needs: allocated with
 *	the endpoint, freed when the connection is up (or the endpoint is)
 * @local: this end's MPA settings, taken from the options or the module
 *	parameters
 * @req: the MPA request sent (active) or received (passive)
 * @pdata: active: the private data of @req, allocated (NULL if none)
 * @rtr: the RTR exchange of peer-to-peer mode
 * @mpa_rx: receiver of the peer's MPA frame; a received request stays in
 *	it
 */
struct softiw_setup {
	struct kiwi_softiw_mpa_local local;
	struct kiwi_softiw_mpa_info req;
	u8 *pdata;
	struct softiw_rtr rtr;
	struct kiwi_softiw_mpa_rx mpa_rx;
};

/* What softiw_rx_step() and softiw_tx_step() report besides errors. */
#define SOFTIW_DP_IDLE		0	/* nothing more to do for now */
#define SOFTIW_DP_BUSY		1	/* budget used up: run again */
#define SOFTIW_DP_EOF		2	/* rx: the peer's FIN */

/**
 * struct softiw_cep - a connection endpoint
 * @ref: the connection's own reference (dropped when it closes), one per
 *	queued @work or pending @timer, one while a delivered request waits
 *	for accept or reject (the child id's provider_data)
 * @state: see enum softiw_cep_state
 * @lock: serialises the state machine
 * @sock: the TCP socket, NULL once closed
 * @cbs: @sock's own callbacks
 * @sdev: the device
 * @id: the cm_id reported to, holding a cm_id reference; NULL if none
 * @listener: passive, until the request is delivered: the listener,
 *	holding a reference on it
 * @pending: entry in @listener's list of connections awaiting a request
 * @node: entry in the list of every endpoint (cep.c)
 * @qp: the bound QP, holding a reference; NULL if none
 * @setup: the state of connection setup; NULL once the connection is up
 * @work: runs the state machine after a socket event or a QP change
 * @timer: the MPA timeout
 * @flags: SOFTIW_CEP_STEPPING and SOFTIW_CEP_MISSED (atomic bitops)
 * @close_req: the QP asked for a teardown: 0, IB_QPS_SQD or
 *	IB_QPS_ERR; written under @qp's lock
 * @req_ref: the child id's reference is held
 * @fin_sent: we shut down our sending side
 * @fin_rcvd: the peer shut down its sending side
 * @crc: FPDUs carry a CRC32c (negotiated by MPA)
 * @active: this end is the initiator
 * @hold_tx: MPA revision 1 responder: no FPDU goes out before one came in
 * @tx: established: the transmit side
 * @rx: established: the receive side
 */
struct softiw_cep {
	refcount_t ref;
	enum softiw_cep_state state;
	struct mutex lock;	/* serialises the state machine */
	struct socket *sock;
	struct softiw_sock_cbs cbs;
	struct softiw_device *sdev;
	struct kiwi_cm_id *id;
	struct softiw_listener *listener;
	struct list_head pending;
	struct list_head node;
	struct softiw_qp *qp;
	struct softiw_setup *setup;
	struct work_struct work;
	struct delayed_work timer;
	unsigned long flags;
	int close_req;
	bool req_ref;
	bool fin_sent;
	bool fin_rcvd;
	bool crc;
	bool active;
	bool hold_tx;
	struct softiw_tx tx;
	struct softiw_rx rx;
};

/**
 * struct softiw_listener - a listening socket and its new connections
 * @ref: the listening id's reference and one per pending connection
 * @lock: protects @dead, @pending and @npending
 * @dead: destroy_listen ran: no more requests are delivered
 * @sock: the listening socket
 * @cbs: @sock's own callbacks
 * @sdev: the device
 * @id: the listening cm_id, holding a cm_id reference
 * @work: accepts new TCP connections
 * @retry: queues @work again after an accept failed for want of memory
 * @pending: connections waiting for their MPA request
 * @npending: their number, at most softiw_max_pending
 */
struct softiw_listener {
	refcount_t ref;
	struct mutex lock;	/* protects dead, pending, npending */
	bool dead;
	struct socket *sock;
	struct softiw_sock_cbs cbs;
	struct softiw_device *sdev;
	struct kiwi_cm_id *id;
	struct work_struct work;
	struct delayed_work retry;
	struct list_head pending;
	unsigned int npending;
};

/* cep.c */
struct softiw_cep *softiw_cep_new(struct softiw_device *sdev,
				  struct socket *sock,
				  enum softiw_cep_state state);
void softiw_cep_setup_free(struct softiw_cep *cep);
void softiw_cep_put(struct softiw_cep *cep);
unsigned int kiwi_softiw_live_ceps(void);
int softiw_cep_init(void);
void softiw_cep_exit(void);

/* cep_core.c */
extern struct workqueue_struct *softiw_cm_wq;
extern unsigned int softiw_max_pending;
extern unsigned int softiw_mpa_timeout_ms;
extern unsigned int softiw_rtr_timeout_ms;
void softiw_cep_kick_on(struct softiw_cep *cep, int cpu);
void softiw_cep_kick(struct softiw_cep *cep);
void softiw_cep_sk_event(struct sock *sk);
void softiw_cep_settings(struct softiw_cep *cep,
			 const struct kiwi_cm_id *id, u16 ird, u16 ord);
void softiw_cep_arm_timer(struct softiw_cep *cep, unsigned int ms);
void softiw_cep_stop_timer(struct softiw_cep *cep);
int softiw_cep_bind_qp(struct softiw_cep *cep, u32 qpn);
void softiw_cep_unbind_qp(struct softiw_cep *cep, bool error);
void softiw_cep_qp_move(struct softiw_cep *cep, enum ib_qp_state state);
int softiw_cep_start_data(struct softiw_cep *cep,
			  const struct kiwi_softiw_mpa_result *res);
void softiw_cep_leave_listener(struct softiw_cep *cep);
void softiw_cep_close(struct softiw_cep *cep, bool abort);
int softiw_cep_upcall(struct softiw_cep *cep, enum kiwi_cm_event_type type,
		      int status, const struct kiwi_softiw_mpa_info *info);
void softiw_cep_dropped(struct softiw_cep *cep);
void softiw_cep_connect_failed(struct softiw_cep *cep, int status,
			       const struct kiwi_softiw_mpa_info *rep);
void softiw_cep_finish(struct softiw_cep *cep, int status, bool abort);
void softiw_cep_abort(struct softiw_cep *cep, int status);
int softiw_cep_read_mpa(struct softiw_cep *cep,
			struct kiwi_softiw_mpa_info *info);
int softiw_cep_send_mpa(struct softiw_cep *cep, enum softiw_mpa_kind kind,
			const struct kiwi_softiw_mpa_info *info);
void softiw_cep_drain(struct softiw_cep *cep);
void softiw_cep_setup_failed(struct softiw_cep *cep, int status, u8 ecode,
			     const struct kiwi_softiw_mpa_info *rep);

/* setup.c */
void softiw_cep_established(struct softiw_cep *cep,
			    const struct kiwi_softiw_mpa_info *rep);
void softiw_cep_await_rtr(struct softiw_cep *cep);
void softiw_cep_step_active(struct softiw_cep *cep);
void softiw_cep_step_request(struct softiw_cep *cep);
void softiw_cep_step_await_accept(struct softiw_cep *cep);
void softiw_cep_step_rtr(struct softiw_cep *cep);

/* established.c */
void softiw_cep_step_established(struct softiw_cep *cep);

/* cm.c */
int softiw_cm_init(void);
void softiw_cm_exit(void);
struct softiw_cep *softiw_cep_passive(struct softiw_listener *lst,
				      struct socket *sock);
void softiw_cep_first_step(struct softiw_cep *cep);
unsigned long kiwi_softiw_request_steps(bool listener);
unsigned long kiwi_softiw_request_handoffs(void);
unsigned long kiwi_softiw_idle_connect_steps(void);
void softiw_cep_close_pending(struct softiw_cep *cep);
void softiw_cep_request_close(struct softiw_cep *cep);
int softiw_connect(struct kiwi_cm_id *id,
		   const struct kiwi_conn_param *param);
int softiw_accept(struct kiwi_cm_id *id,
		  const struct kiwi_conn_param *param);
int softiw_reject(struct kiwi_cm_id *id, const void *pdata, u16 len);

/* listen.c */
int softiw_create_listen(struct kiwi_cm_id *id, int backlog);
int softiw_destroy_listen(struct kiwi_cm_id *id);
void softiw_listener_put(struct softiw_listener *lst);

/* txbatch.c */
int softiw_tx_buf(struct softiw_tx *tx);
void softiw_tx_buf_free(struct softiw_tx *tx);
void softiw_tx_reset(struct softiw_tx *tx);
u8 *softiw_tx_slot(const struct softiw_tx *tx);
void softiw_tx_seal(struct softiw_tx *tx, bool crc, bool last);
void softiw_tx_seal_bufs(struct softiw_tx *tx, u32 hlen,
			 const struct softiw_buf *b, u32 nbuf, u32 off, u32 n,
			 bool crc, bool last);
int softiw_tx_push(struct softiw_cep *cep);

/* tx.c */
int softiw_tx_start(struct softiw_cep *cep,
		    const struct kiwi_softiw_mpa_result *res);
void softiw_tx_stop(struct softiw_cep *cep);
int softiw_tx_step(struct softiw_cep *cep);
int softiw_tx_terminate(struct softiw_cep *cep);
int softiw_tx_read_request(struct softiw_cep *cep,
			   const struct softiw_rresp *req);
void softiw_tx_read_done(struct softiw_cep *cep);

/* rx.c */
void softiw_rx_start(struct softiw_cep *cep);
int softiw_rx_step(struct softiw_cep *cep);

/* rtr.c */
void softiw_rtr_start(struct softiw_cep *cep,
		      const struct kiwi_softiw_mpa_result *res);
bool softiw_rtr_awaited(const struct softiw_cep *cep);
int softiw_rtr_send(struct softiw_cep *cep);
int softiw_rtr_recv(struct softiw_cep *cep);
int softiw_rtr_terminate(struct softiw_cep *cep, u8 ecode);
bool softiw_rtr_tx_held(const struct softiw_cep *cep);

/* socket.c */
int softiw_sock_create(struct softiw_device *sdev, int family,
		       struct socket **sockp);
void softiw_sock_attach(struct socket *sock, void *owner,
			void (*event)(struct sock *sk),
			struct softiw_sock_cbs *cbs);
void softiw_sock_attach_flags(struct socket *sock, void *owner,
			      uintptr_t flags, void (*event)(struct sock *sk),
			      struct softiw_sock_cbs *cbs);
void softiw_sock_detach(struct socket *sock,
			const struct softiw_sock_cbs *cbs);
void softiw_sock_watch_space(struct socket *sock,
			     void (*event)(struct sock *sk));
void softiw_sock_dead_peer(struct socket *sock, unsigned int ms);
bool softiw_sock_dead_peer_of(struct socket *sock,
			      struct softiw_dead_peer *plan);
void softiw_sock_set_tos(struct socket *sock, const struct kiwi_cm_id *id);
void softiw_sock_tos_of(struct socket *sock, struct softiw_tos *tos);
int softiw_sock_send(struct socket *sock, const void *buf, size_t len);
int softiw_sock_recv(struct socket *sock, void *buf, size_t len);
int softiw_sock_addrs(struct socket *sock, struct sockaddr_storage *local,
		      struct sockaddr_storage *remote);
bool softiw_addr_any(const struct sockaddr_storage *ss);
int softiw_sock_bind_local(struct socket *sock,
			   const struct sockaddr_storage *local, int ifindex);

#endif /* _KIWI_SOFTIW_CM_H */
