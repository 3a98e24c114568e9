/* SPDX-License-Identifier: GPL-2.0 */
/*
 * MPA connection setup of kiwi_softiw: Request/Reply frames, their
 * incremental reception, and the RFC 5044/6581 negotiation. Pure code on
 * buffers: no sockets, no allocation, no locking.
 */
#ifndef _KIWI_SOFTIW_MPA_H
#define _KIWI_SOFTIW_MPA_H

#include <linux/bits.h>
#include <linux/types.h>

#include "iwarp.h"

/**
 * enum softiw_mpa_kind - which of the two setup frames
 * @SOFTIW_MPA_REQUEST: sent by the initiator, key "MPA ID Req Frame"
 * @SOFTIW_MPA_REPLY: sent by the responder, key "MPA ID Rep Frame"
 */
enum softiw_mpa_kind {
	SOFTIW_MPA_REQUEST,
	SOFTIW_MPA_REPLY,
};

/* Ready-to-receive message types of RFC 6581, as a set. */
#define SOFTIW_RTR_WRITE	BIT(0)	/* zero-length RDMA Write */
#define SOFTIW_RTR_READ		BIT(1)	/* zero-length RDMA Read */
#define SOFTIW_RTR_SEND		BIT(2)	/* zero-length Send */
#define SOFTIW_RTR_ALL		(SOFTIW_RTR_WRITE | SOFTIW_RTR_READ | \
				 SOFTIW_RTR_SEND)

/**
 * struct kiwi_softiw_mpa_info - host-order content of a Request/Reply frame
 * @rev: MPA revision, 1 or 2
 * @markers: M flag; decoded, never sent (markers are not implemented)
 * @crc: C flag
 * @reject: R flag, replies only
 * @enhanced: revision 2 frame that carries the RFC 6581 IRD/ORD word
 * @p2p: enhanced only: the peer-to-peer flag (A)
 * @rtr: enhanced only: SOFTIW_RTR_* flags (B, C, D); offered types in a
 *	request, the chosen one in a reply
 * @ird: enhanced only: inbound RDMA Read depth, 14 bits
 * @ord: enhanced only: outbound RDMA Read depth, 14 bits
 * @pdata: the ULP's private data, without the IRD/ORD word; NULL if none
 * @pd_len: its length in bytes
 */
struct kiwi_softiw_mpa_info {
	u8 rev;
	bool markers;
	bool crc;
	bool reject;
	bool enhanced;
	bool p2p;
	u8 rtr;
	u16 ird;
	u16 ord;
	const u8 *pdata;
	u16 pd_len;
};

int kiwi_softiw_mpa_build(enum softiw_mpa_kind kind,
			  const struct kiwi_softiw_mpa_info *info,
			  void *buf, size_t size);
int kiwi_softiw_mpa_decode(enum softiw_mpa_kind kind, const void *frame,
			   size_t len, struct kiwi_softiw_mpa_info *info);

/* Return values of kiwi_softiw_mpa_rx_feed() besides errors. */
#define SOFTIW_MPA_RX_MORE	0
#define SOFTIW_MPA_RX_DONE	1

/**
 * struct kiwi_softiw_mpa_rx - receiver of one Request/Reply frame
 * @kind: the frame expected
 * @got: bytes of the frame received so far
 * @len: length of the whole frame, known once its header is in; else 0
 * @err: the error that stopped reception, sticky; 0 if none
 * @done: the frame is complete and valid
 * @buf: the frame; large enough for the longest legal one, so the peer
 *	never chooses the size of an allocation
 */
struct kiwi_softiw_mpa_rx {
	enum softiw_mpa_kind kind;
	u16 got;
	u16 len;
	int err;
	bool done;
	u8 buf[SOFTIW_MPA_FRAME_MAX];
};

void kiwi_softiw_mpa_rx_init(struct kiwi_softiw_mpa_rx *rx,
			     enum softiw_mpa_kind kind);
size_t kiwi_softiw_mpa_rx_missing(const struct kiwi_softiw_mpa_rx *rx);
int kiwi_softiw_mpa_rx_feed(struct kiwi_softiw_mpa_rx *rx, const void *data,
			    size_t len, struct kiwi_softiw_mpa_info *info);

/**
 * struct kiwi_softiw_mpa_local - what this end asks for or accepts
 * @rev: highest MPA revision spoken, 1 or 2
 * @crc: use CRC32c even if the peer does not ask for it
 * @p2p: initiator: ask for the peer-to-peer model (needs @rev 2)
 * @rtr: SOFTIW_RTR_* types this end can send (initiator) or receive
 *	(responder) as ready-to-receive message
 * @ird: inbound RDMA Read depth this end can serve, at most 0x3fff
 * @ord: outbound RDMA Read depth this end would like, at most 0x3fff
 */
struct kiwi_softiw_mpa_local {
	u8 rev;
	bool crc;
	bool p2p;
	u8 rtr;
	u16 ird;
	u16 ord;
};

/**
 * struct kiwi_softiw_mpa_result - what a completed negotiation agreed
 * @rev: MPA revision in force
 * @crc: FPDUs carry a CRC32c, in both directions
 * @enhanced: IRD/ORD were exchanged (RFC 6581)
 * @p2p: peer-to-peer model: the initiator sends one RTR message, the
 *	responder sends nothing before it has received it
 * @rtr: the RTR type (one SOFTIW_RTR_* bit) if @p2p, else 0
 * @ird: inbound RDMA Read depth to provide
 * @ord: outbound RDMA Reads this end may have outstanding
 */
struct kiwi_softiw_mpa_result {
	u8 rev;
	bool crc;
	bool enhanced;
	bool p2p;
	u8 rtr;
	u16 ird;
	u16 ord;
};

int kiwi_softiw_mpa_request(const struct kiwi_softiw_mpa_local *local,
			    const void *pdata, u16 pd_len,
			    struct kiwi_softiw_mpa_info *req);
int kiwi_softiw_mpa_accept(const struct kiwi_softiw_mpa_local *local,
			   const struct kiwi_softiw_mpa_info *req,
			   const void *pdata, u16 pd_len,
			   struct kiwi_softiw_mpa_info *rep,
			   struct kiwi_softiw_mpa_result *res);
int kiwi_softiw_mpa_reject(const struct kiwi_softiw_mpa_local *local,
			   const struct kiwi_softiw_mpa_info *req,
			   const void *pdata, u16 pd_len,
			   struct kiwi_softiw_mpa_info *rep);
int kiwi_softiw_mpa_connected(const struct kiwi_softiw_mpa_local *local,
			      const struct kiwi_softiw_mpa_info *req,
			      const struct kiwi_softiw_mpa_info *rep,
			      struct kiwi_softiw_mpa_result *res);

#endif /* _KIWI_SOFTIW_MPA_H */
