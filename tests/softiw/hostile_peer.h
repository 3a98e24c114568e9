/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A raw kernel TCP client that speaks MPA and writes FPDUs by hand to a
 * softiw listener: the peer of the hostile and fuzz suites.
 */
#ifndef KIWI_TEST_HOSTILE_PEER_H
#define KIWI_TEST_HOSTILE_PEER_H

#include <linux/net.h>

#include "cm_fixture.h"
#include "mpa_key.h"

#define HOSTILE_SEND_LAST 0x4143	/* L, DDP v1 | RDMAP v1, SEND */
#define HOSTILE_WRITE_LAST	0xc140	/* T, L, DDP v1 | RDMAP v1, WRITE */
#define HOSTILE_RRESP_LAST	0xc142	/* T, L, Read Response */
#define HOSTILE_RREQ		0x4141	/* L, Read Request */
#define HOSTILE_REGION		256	/* bytes registered, at offset 256 */
#define HOSTILE_GUARD		0x5a

/**
 * struct hostile_peer - a raw client connected over MPA to a softiw QP
 * @s: the client's socket
 * @child: the accepted id
 * @qp: its QP, on the fixture's CQ
 * @buf: the QP's receive memory, 4 KiB
 * @mr: @buf's MR
 */
struct hostile_peer {
	struct socket *s;
	struct kiwi_cm_id *child;
	struct ib_qp *qp;
	u8 *buf;
	struct ib_mr *mr;
};

/**
 * struct hostile_fpdu - an untagged FPDU written out field by field
 * @ctrl: the two DDP/RDMAP control bytes (L, versions, opcode)
 * @msn: its MSN
 * @mo: its MO
 * @data: payload
 * @len: payload bytes
 * @qn: its queue number
 */
struct hostile_fpdu {
	u16 ctrl;
	u32 msn;
	u32 mo;
	const char *data;
	u16 len;
	u32 qn;
};

/**
 * struct hostile_opts - how hostile_peer_open() sets the connection up
 * @crc: ask for MPA CRC
 * @nrecv: RECVs posted before the accept: wr_id 0, 1, ..., 256 bytes each
 * @ird: Read Requests the QP serves
 * @ord: READs the QP may have outstanding
 * @sq: send queue entries, 0 for cmt_qp()'s
 */
struct hostile_opts {
	bool crc;
	int nrecv;
	u16 ird;
	u16 ord;
	u32 sq;
};

int hostile_recv_all(struct socket *s, u8 *buf, int len);
void hostile_post_recv(struct cmt *t, struct hostile_peer *p,
		       u64 wr_id, u32 off, u32 len);
void hostile_peer_open(struct cmt *t, struct hostile_peer *p,
		       const struct hostile_opts *o);
void hostile_peer_connect_ird(struct cmt *t, struct hostile_peer *p,
			      bool crc, int nrecv, u16 ird);
void hostile_peer_connect(struct cmt *t, struct hostile_peer *p,
			  bool crc, int nrecv);
int hostile_fpdu_put(u8 *buf, const struct hostile_fpdu *f, bool crc);
int hostile_tagged_put(u8 *buf, u16 ctrl, u32 stag, u64 to,
		       const void *data, u16 len);
int hostile_rreq_put(u8 *buf, u32 msn, u32 sink_stag, u64 sink_to,
		     u32 size, u32 src_stag, u64 src_to);
int hostile_term_expected(u8 *buf, const u8 *seg, u8 layer_etype, u8 ecode,
			  u8 rdmap);
int hostile_recv_fpdu(struct socket *s, u8 *buf, int size);
int hostile_post(struct ib_qp *qp, u64 wr_id, int opcode, struct ib_mr *mr,
		 u32 off, u32 len, u64 raddr, u32 rkey);
int hostile_poll(struct cmt *t, struct ib_wc *wc);
void hostile_prime(struct cmt *t, struct hostile_peer *p);
void hostile_expect_term(struct cmt *t, struct hostile_peer *p, u8 layer_etype,
			 u8 ecode);
int hostile_init(struct kunit *test);
void hostile_exit(struct kunit *test);

#endif
