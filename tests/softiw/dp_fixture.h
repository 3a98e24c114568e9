/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Two softiw QPs connected over loopback through the cm fixture, each
 * with its own CQ and a buffer of DPT_BUF bytes registered for every
 * access, and what the datapath, dead peer, RDMA and MR suites share to
 * post on them and check what arrives: message sizes around the MULPDU,
 * completions, and the TERMINATE that ends a protocol error.
 */
#ifndef _KIWI_SOFTIW_DP_FIXTURE_H
#define _KIWI_SOFTIW_DP_FIXTURE_H

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/types.h>
#include <rdma/ib_verbs.h>

#include "cm_fixture.h"
#include "softiw.h"

#define DPT_BUF		(SOFTIW_MAX_MSG + 64)
#define DPT_OFF		32	/* where the target buffer starts */

/**
 * struct dpt_side - one end of the connection
 * @cq: its CQ, for sends and receives
 * @qp: its QP
 * @mr: @buf, registered with local write access
 * @buf: DPT_BUF bytes
 * @calls: completion handler calls
 */
struct dpt_side {
	struct ib_cq *cq;
	struct ib_qp *qp;
	struct ib_mr *mr;
	u8 *buf;
	atomic_t calls;
};

/**
 * struct dpt - two connected QPs
 * @t: the connection fixture
 * @s: [0] the active end, [1] the passive end
 * @id: their cm_ids
 */
struct dpt {
	struct cmt *t;
	struct dpt_side s[2];
	struct kiwi_cm_id *id[2];
};

enum dpt_size {
	DPT_ZERO, DPT_ONE, DPT_P_MINUS, DPT_P, DPT_P_PLUS, DPT_MULTI, DPT_MAX,
};

/**
 * struct dpt_size_param - a message size and a CRC setting
 * @name: description
 * @size: enum dpt_size; P is the payload of one full FPDU (MULPDU - 18)
 * @crc: mpa_crc
 */
struct dpt_size_param {
	const char *name;
	u8 size;
	bool crc;
};

extern const struct dpt_size_param dpt_size_params[];

void dpt_exit(struct kunit *test);
struct dpt *dpt_setup(struct kunit *test, u16 port, u32 cqe, u32 sq,
		      u32 rq);
void dpt_connect_depth(struct dpt *d, u32 ird, u32 ord);
void dpt_connect(struct dpt *d);
int dpt_recv(struct dpt_side *s, u64 wr_id, u32 off, u32 len);
int dpt_send(struct dpt_side *s, u64 wr_id, u32 off, u32 len,
	     u32 flags);
int dpt_poll(struct dpt_side *s, struct ib_wc *wc);
void dpt_fill(u8 *buf, u32 len, u8 seed);
const void *dpt_size_gen(const void *prev, char *desc);
u32 dpt_len(u8 size, u32 p);
void dpt_expect_terminated(struct dpt *d, u32 layer, u32 etype,
			   u32 ecode);
void dpt_expect_wc(struct kunit *test, struct dpt_side *s, u64 wr_id,
		   int opcode, u32 byte_len);
void dpt_rdma_setup_family(struct kunit *test, struct dpt **dp,
			   int port, int family, bool crc, u32 *room);
void dpt_rdma_setup(struct kunit *test, struct dpt **dp, int port,
		    bool crc, u32 *room);
int dpt_send_inv(struct dpt_side *s, u64 wr_id, u32 len, u32 rkey);

#endif /* _KIWI_SOFTIW_DP_FIXTURE_H */
