/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kiwi_interop_test: kiwi's softiw against Linux's siw and rdma-core's
 * ucmatose and rping over the test VM's veth pair, in IPv4 and IPv6. The
 * peer side runs in user space (tests/interop/kiwi-peer, started with
 * call_usermodehelper); the packets of each connection are watched on kv0.
 */
#ifndef _KIWI_INTEROP_H
#define _KIWI_INTEROP_H

#include <kunit/test.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>

#include <kiwi/iw_cm.h>
#include <rdma/ib_verbs.h>

/*
 * kiwi's side (kv0, initial namespace) and the peer's (kv1); their
 * addresses are kiwi_test_host_text()'s KIWI_TEST_KV0 and KIWI_TEST_KV1.
 */
#define IPT_KIWI_IFNAME		"kv0"
#define IPT_KIWI_DEVICE		"softiw_kv0"

int ipt_peer(const char *cmd, const char *arg1, const char *arg2);
int ipt_peer_start(const char *tag, int secs, const char *const *args);
int ipt_peer_run(const char *tool, const char *tag, int secs,
		 const char *const *args);
void ipt_peer_print(const char *name);

/**
 * struct ipt_mpa_frame - an MPA Request or Reply seen on the wire
 * @seen: it was seen
 * @ip_version: the version of the IP packet it came in, 4 or 6
 * @flags: its flags byte (M C R E and reserved bits)
 * @rev: its revision
 * @pd_len: its PD_Length
 * @ird: IRD field of the enhanced word, if any
 * @ord: ORD field of the enhanced word, if any
 */
struct ipt_mpa_frame {
	bool seen;
	u8 ip_version;
	u8 flags;
	u8 rev;
	u16 pd_len;
	u16 ird;
	u16 ord;
};

/**
 * struct ipt_wire - the MPA frames of one connection on kv0
 * @req: the Request
 * @rep: the Reply
 */
struct ipt_wire {
	struct ipt_mpa_frame req;
	struct ipt_mpa_frame rep;
};

struct ipt_capture;

struct ipt_capture *ipt_capture_start(struct kunit *test, u16 port);
void ipt_capture_read(struct ipt_capture *cap, struct ipt_wire *wire);

/* siw_test.c: one case of kiwi_interop_siw, and kiwi's side of it. */
#define IPT_WAIT_MS	15000	/* an event, under TCG and a loaded host */
#define IPT_MAX_RECS	16
#define IPT_KIWI_PD	"kiwi-pd"
#define IPT_IRD_ORD	1	/* what ucmatose and rping ask for */

/**
 * struct ipt_case - one connection
 * @name: its name
 * @kiwi_listens: kiwi is the responder, the peer tool the initiator
 * @rev: kiwi_softiw's mpa_rev
 * @crc: kiwi_softiw's mpa_crc
 * @refused: siw refuses kiwi's Reply (a revision 1 Reply to its revision 2
 *	Request; RFC 6581 allows the fall back, siw does not)
 * @rping: the peer is rping (RDMA READ and WRITE), not ucmatose
 * @ipv6: over the veth pair's IPv6 addresses, not its IPv4 ones
 */
struct ipt_case {
	const char *name;
	bool kiwi_listens;
	u8 rev;
	bool crc;
	bool refused;
	bool rping;
	bool ipv6;
};

/**
 * struct ipt_rec - one kiwi event
 * @id: the id
 * @event: its type
 * @status: its status
 * @len: private data length
 * @ird: IRD reported
 * @ord: ORD reported
 */
struct ipt_rec {
	struct kiwi_cm_id *id;
	u8 event;
	int status;
	u16 len;
	u16 ird;
	u16 ord;
};

/**
 * struct ipt - one case's kiwi side, freed by a KUnit resource
 * @test: the test
 * @c: the case
 * @port: the listener's port (kiwi's or the peer tool's)
 * @tag: names the peer tool's log
 * @peer: the peer tool was started and must be waited for
 * @dev: softiw_kv0
 * @cq: the QP's CQ
 * @pd: the PD of the QP and the MR
 * @qp: the QP, or NULL
 * @listen: kiwi's listening id, or NULL
 * @conn: kiwi's connected id (active, or the request's child), or NULL
 * @lock: protects @recs, @n and @conn
 * @wq: woken on each event
 * @recs: events
 * @n: their number
 * @rev: mpa_rev before the case
 * @crc: mpa_crc before the case
 * @buf: the messages' buffers (siw_test.c) or rping's (rping.c)
 * @mr: @buf's MR, or NULL
 * @done: completions reaped, by opcode (IB_WC_SEND, IB_WC_RECV)
 */
struct ipt {
	struct kunit *test;
	const struct ipt_case *c;
	u16 port;
	char tag[16];
	bool peer;
	struct ib_device *dev;
	struct ib_cq *cq;
	struct ib_pd *pd;
	struct ib_qp *qp;
	struct kiwi_cm_id *listen;
	struct kiwi_cm_id *conn;
	spinlock_t lock;	/* protects recs, n and conn */
	wait_queue_head_t wq;
	struct ipt_rec recs[IPT_MAX_RECS];
	int n;
	char rev[8];
	char crc[8];
	u8 *buf;
	struct ib_mr *mr;
	int done[IB_WC_RECV + 1];
};

int ipt_handler(struct kiwi_cm_id *id, const struct kiwi_cm_event *ev);
const struct ipt_rec *ipt_wait(struct ipt *t, u8 event,
			       struct kiwi_cm_id *id);
const char *ipt_host(const struct ipt *t, bool peer);
void ipt_addr(struct ipt *t, struct sockaddr_storage *ss, bool peer);
void ipt_expect_ends(struct ipt *t);
u32 ipt_qp(struct ipt *t);
void ipt_start_peer_tool(struct ipt *t, const char *tool,
			 const char *const *args);
int ipt_wait_peer(struct ipt *t);
void ipt_check_frame(struct ipt *t, const struct ipt_mpa_frame *f,
		     u8 rev, bool crc, u16 ulp_len);
void ipt_close(struct ipt *t, struct kiwi_cm_id *id);
void ipt_siw_settle(void);

/* rping.c: the cases whose peer is rping (RDMA READ and WRITE). */
void ipt_rping_server(struct ipt *t, struct ipt_capture *cap);
void ipt_rping_client(struct ipt *t, struct ipt_capture *cap);

#endif /* _KIWI_INTEROP_H */
