/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kiwi_softiw connection management: connection endpoints (one per TCP
 * connection), listeners, and the kernel socket glue under them.
 */
#ifndef _KIWI_SOFTIW_CM_H
#define _KIWI_SOFTIW_CM_H

#include <linux/mutex.h>
#include <linux/net.h>
#include <linux/workqueue.h>

#include <kiwi/iw_cm.h>

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
 * @SOFTIW_CEP_ESTABLISHED: MPA done, the QP is in RTS
 * @SOFTIW_CEP_CLOSED: the socket is gone; waiting for the last reference
 */
enum softiw_cep_state {
	SOFTIW_CEP_CONNECTING,
	SOFTIW_CEP_AWAIT_REPLY,
	SOFTIW_CEP_AWAIT_REQUEST,
	SOFTIW_CEP_AWAIT_ACCEPT,
	SOFTIW_CEP_ESTABLISHED,
	SOFTIW_CEP_CLOSED,
};

struct softiw_listener;

/**
 * struct softiw_sock_cbs - a socket's own callbacks, put back on detach
 * @data_ready: sk_data_ready
 * @state_change: sk_state_change
 * @error_report: sk_error_report
 */
struct softiw_sock_cbs {
	void (*data_ready)(struct sock *sk);
	void (*state_change)(struct sock *sk);
	void (*error_report)(struct sock *sk);
};

/**
 * struct softiw_cep - a connection endpoint
 * @ref: the connection's own reference (dropped when it closes), one per
 *	queued @work or pending @timer, one while a delivered request waits
 *	for accept or reject (the child id's provider_data)
 * @lock: serialises the state machine
 * @state: see enum softiw_cep_state
 * @sock: the TCP socket, NULL once closed
 * @cbs: @sock's own callbacks
 * @sdev: the device
 * @id: the cm_id reported to, holding a cm_id reference; NULL if none
 * @listener: passive, until the request is delivered: the listener,
 *	holding a reference on it
 * @pending: entry in @listener's list of connections awaiting a request
 * @qp: the bound QP, holding a reference; NULL if none
 * @work: runs the state machine after a socket event or a QP change
 * @timer: the MPA timeout
 * @req_ref: the child id's reference is held
 * @fin_sent: we shut down our sending side
 * @fin_rcvd: the peer shut down its sending side
 * @close_req: the QP asked for a teardown: 0, KIWI_QPS_CLOSING or
 *	KIWI_QPS_ERROR; written under @qp's lock
 * @local: this end's MPA settings, taken from the module parameters
 * @req: the MPA request sent (active) or received (passive)
 * @pdata: active: the private data of @req
 * @rx: receiver of the peer's MPA frame; a received request stays in it
 */
struct softiw_cep {
	refcount_t ref;
	struct mutex lock;	/* serialises the state machine */
	enum softiw_cep_state state;
	struct socket *sock;
	struct softiw_sock_cbs cbs;
	struct softiw_device *sdev;
	struct kiwi_cm_id *id;
	struct softiw_listener *listener;
	struct list_head pending;
	struct softiw_qp *qp;
	struct work_struct work;
	struct delayed_work timer;
	bool req_ref;
	bool fin_sent;
	bool fin_rcvd;
	int close_req;
	struct kiwi_softiw_mpa_local local;
	struct kiwi_softiw_mpa_info req;
	u8 pdata[KIWI_CM_MAX_PRIVATE_DATA];
	struct kiwi_softiw_mpa_rx rx;
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
	struct list_head pending;
	unsigned int npending;
};

/* cm.c */
extern struct workqueue_struct *softiw_cm_wq;
extern unsigned int softiw_max_pending;
int softiw_cm_init(void);
void softiw_cm_exit(void);
struct softiw_cep *softiw_cep_passive(struct softiw_listener *lst,
				      struct socket *sock);
void softiw_cep_close_pending(struct softiw_cep *cep);
void softiw_cep_request_close(struct softiw_cep *cep);
void softiw_cep_put(struct softiw_cep *cep);
int softiw_connect(struct kiwi_cm_id *id,
		   const struct kiwi_conn_param *param);
int softiw_accept(struct kiwi_cm_id *id,
		  const struct kiwi_conn_param *param);
int softiw_reject(struct kiwi_cm_id *id, const void *pdata, u16 len);

/* listen.c */
int softiw_create_listen(struct kiwi_cm_id *id, int backlog);
int softiw_destroy_listen(struct kiwi_cm_id *id);
void softiw_listener_put(struct softiw_listener *lst);

/* socket.c */
int softiw_sock_create(struct softiw_device *sdev, int family,
		       struct socket **sockp);
void softiw_sock_attach(struct socket *sock, void *owner,
			void (*event)(struct sock *sk),
			struct softiw_sock_cbs *cbs);
void softiw_sock_detach(struct socket *sock,
			const struct softiw_sock_cbs *cbs);
int softiw_sock_send(struct socket *sock, const void *buf, size_t len);
int softiw_sock_recv(struct socket *sock, void *buf, size_t len);
int softiw_sock_addrs(struct socket *sock, struct sockaddr_storage *local,
		      struct sockaddr_storage *remote);

#endif /* _KIWI_SOFTIW_CM_H */
