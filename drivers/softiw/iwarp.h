/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iWARP wire formats spoken by kiwi_softiw: MPA connection setup (RFC 5044,
 * enhanced by RFC 6581), MPA framing, DDP (RFC 5041) and RDMAP (RFC 5040).
 *
 * Everything here is laid out as it travels, big-endian, with __be types
 * so that sparse catches a missing conversion. Multi-bit fields are
 * described by masks that apply to the host-order value of the word that
 * holds them: convert first, then FIELD_GET()/FIELD_PREP().
 */
#ifndef _KIWI_SOFTIW_IWARP_H
#define _KIWI_SOFTIW_IWARP_H

#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/stddef.h>
#include <linux/types.h>

/* ---- MPA Request/Reply frames (RFC 5044 section 7.1, RFC 6581) ---- */

#define SOFTIW_MPA_KEY_LEN	16
#define SOFTIW_MPA_KEY_REQ	"MPA ID Req Frame"
#define SOFTIW_MPA_KEY_REP	"MPA ID Rep Frame"

#define SOFTIW_MPA_REV1		1	/* RFC 5044 */
#define SOFTIW_MPA_REV2		2	/* RFC 6581 enhanced connection setup */

/* Longest private data a Request/Reply frame may carry (RFC 5044). */
#define SOFTIW_MPA_PD_MAX	512

/**
 * struct softiw_mpa_hdr - MPA Request/Reply frame header, 20 bytes
 * @key: "MPA ID Req Frame" or "MPA ID Rep Frame", no NUL
 * @flags: SOFTIW_MPA_FLAG_* bits
 * @rev: MPA revision
 * @pd_len: bytes of private data that follow, at most %SOFTIW_MPA_PD_MAX;
 *	in an enhanced frame they start with &struct softiw_mpa_v2_ird_ord
 */
struct softiw_mpa_hdr {
	u8 key[SOFTIW_MPA_KEY_LEN];
	u8 flags;
	u8 rev;
	__be16 pd_len;
};

static_assert(sizeof(struct softiw_mpa_hdr) == 20);
static_assert(offsetof(struct softiw_mpa_hdr, pd_len) == 18);

#define SOFTIW_MPA_FLAG_MARKERS		BIT(7)	/* M: sender wants markers */
#define SOFTIW_MPA_FLAG_CRC		BIT(6)	/* C: sender wants CRC32c */
#define SOFTIW_MPA_FLAG_REJECT		BIT(5)	/* R: reply refuses connection */
#define SOFTIW_MPA_FLAG_ENHANCED	BIT(4)	/* rev 2: IRD/ORD word follows */
#define SOFTIW_MPA_FLAG_RESERVED	GENMASK(3, 0)	/* zero out, unchecked in */

/* Longest Request/Reply frame: the header and the longest private data. */
#define SOFTIW_MPA_FRAME_MAX \
	(sizeof(struct softiw_mpa_hdr) + SOFTIW_MPA_PD_MAX)

/**
 * struct softiw_mpa_v2_ird_ord - RFC 6581 IRD/ORD word of an enhanced frame
 * @ird: inbound RDMA Read queue depth, with the P2P and SEND RTR flags
 * @ord: outbound RDMA Read queue depth, with the WRITE and READ RTR flags
 *
 * It opens the private data of every frame whose header has
 * %SOFTIW_MPA_FLAG_ENHANCED set, and counts in its PD_Length.
 */
struct softiw_mpa_v2_ird_ord {
	__be16 ird;
	__be16 ord;
};

/*
 * Private data of the ULP's a frame carries in every revision: the 512
 * bytes of MPA, less revision 2's IRD/ORD word. A revision 1 peer may
 * still send all 512.
 */
#define SOFTIW_MPA_ULP_PD_MAX \
	(SOFTIW_MPA_PD_MAX - sizeof(struct softiw_mpa_v2_ird_ord))

static_assert(sizeof(struct softiw_mpa_v2_ird_ord) == 4);

/* Bits of the host-order @ird half-word. */
#define SOFTIW_MPA_V2_P2P		BIT(15)	/* A: peer-to-peer, RTR used */
#define SOFTIW_MPA_V2_SEND_RTR		BIT(14)	/* B: zero-length SEND as RTR */
/* Bits of the host-order @ord half-word. */
#define SOFTIW_MPA_V2_WRITE_RTR		BIT(15)	/* C: zero-length WRITE */
#define SOFTIW_MPA_V2_READ_RTR		BIT(14)	/* D: zero-length READ */
/* The depth itself, in both half-words: 14 bits. */
#define SOFTIW_MPA_V2_DEPTH		GENMASK(13, 0)
#define SOFTIW_MPA_IRD_ORD_MAX		0x3fff

/* ---- MPA framing of a DDP segment: an FPDU (RFC 5044 section 4) ---- */

#define SOFTIW_MPA_LEN_SIZE	2	/* ULPDU_Length, big-endian */
#define SOFTIW_MPA_CRC_SIZE	4	/* CRC32c, zero when not negotiated */
#define SOFTIW_MPA_ALIGN	4	/* FPDU length is padded to this */
#define SOFTIW_MPA_ULPDU_MAX	0xffff

/* ---- DDP (RFC 5041) and RDMAP (RFC 5040) headers ---- */

/*
 * struct softiw_ddp_ctrl - the two control bytes every DDP segment opens with
 * @ctrl: host-order bits SOFTIW_DDP_* (high byte) and SOFTIW_RDMAP_* (low)
 */
struct softiw_ddp_ctrl {
	__be16 ctrl;
};

#define SOFTIW_DDP_TAGGED		BIT(15)	/* T */
#define SOFTIW_DDP_LAST			BIT(14)	/* L */
#define SOFTIW_DDP_RESERVED		GENMASK(13, 10)
#define SOFTIW_DDP_VERSION		GENMASK(9, 8)
#define SOFTIW_RDMAP_VERSION		GENMASK(7, 6)
#define SOFTIW_RDMAP_RESERVED		GENMASK(5, 4)
#define SOFTIW_RDMAP_OPCODE		GENMASK(3, 0)

#define SOFTIW_DDP_VERSION_1		1
#define SOFTIW_RDMAP_VERSION_1		1

/**
 * enum softiw_rdmap_opcode - RDMAP message types (RFC 5040 section 4.3)
 * @SOFTIW_RDMAP_WRITE: RDMA Write, tagged
 * @SOFTIW_RDMAP_READ_REQ: RDMA Read Request, untagged, queue 1
 * @SOFTIW_RDMAP_READ_RESP: RDMA Read Response, tagged
 * @SOFTIW_RDMAP_SEND: Send, untagged, queue 0
 * @SOFTIW_RDMAP_SEND_INV: Send with Invalidate, untagged, queue 0
 * @SOFTIW_RDMAP_SEND_SE: Send with Solicited Event, untagged, queue 0
 * @SOFTIW_RDMAP_SEND_SE_INV: Send with SE and Invalidate, untagged, queue 0
 * @SOFTIW_RDMAP_TERMINATE: Terminate, untagged, queue 2
 * @SOFTIW_RDMAP_OPCODES: number of opcodes defined; higher ones are refused
 */
enum softiw_rdmap_opcode {
	SOFTIW_RDMAP_WRITE = 0x0,
	SOFTIW_RDMAP_READ_REQ = 0x1,
	SOFTIW_RDMAP_READ_RESP = 0x2,
	SOFTIW_RDMAP_SEND = 0x3,
	SOFTIW_RDMAP_SEND_INV = 0x4,
	SOFTIW_RDMAP_SEND_SE = 0x5,
	SOFTIW_RDMAP_SEND_SE_INV = 0x6,
	SOFTIW_RDMAP_TERMINATE = 0x7,
	SOFTIW_RDMAP_OPCODES
};

/* Untagged DDP queues used by RDMAP (RFC 5040 section 5). */
#define SOFTIW_DDP_QN_SEND		0
#define SOFTIW_DDP_QN_READ_REQ		1
#define SOFTIW_DDP_QN_TERMINATE		2
#define SOFTIW_DDP_QUEUES		3

/**
 * struct softiw_ddp_tagged - MPA length and tagged DDP segment header
 * @mpa_len: ULPDU_Length of the FPDU
 * @ctrl: DDP/RDMAP control bits
 * @stag: steering tag of the data sink buffer
 * @to: tagged offset within it
 */
struct softiw_ddp_tagged {
	__be16 mpa_len;
	struct softiw_ddp_ctrl ctrl;
	__be32 stag;
	__be64 to;
} __packed;

static_assert(sizeof(struct softiw_ddp_tagged) == 16);
static_assert(offsetof(struct softiw_ddp_tagged, to) == 8);

/**
 * struct softiw_ddp_untagged - MPA length and untagged DDP segment header
 * @mpa_len: ULPDU_Length of the FPDU
 * @ctrl: DDP/RDMAP control bits
 * @rsvd_ulp: field owned by RDMAP: the STag to invalidate for the
 *	SEND_INV opcodes, zero otherwise
 * @qn: queue number, see SOFTIW_DDP_QN_*
 * @msn: message sequence number on that queue
 * @mo: message offset of this segment's payload
 */
struct softiw_ddp_untagged {
	__be16 mpa_len;
	struct softiw_ddp_ctrl ctrl;
	__be32 rsvd_ulp;
	__be32 qn;
	__be32 msn;
	__be32 mo;
};

static_assert(sizeof(struct softiw_ddp_untagged) == 20);
static_assert(offsetof(struct softiw_ddp_untagged, qn) == 8);

/**
 * struct softiw_rdmap_read_req - RDMA Read Request body (RFC 5040 4.4)
 * @sink_stag: STag of the buffer the responses land in
 * @sink_to: tagged offset there
 * @size: bytes to read
 * @src_stag: STag of the buffer read from
 * @src_to: tagged offset there
 */
struct softiw_rdmap_read_req {
	__be32 sink_stag;
	__be64 sink_to;
	__be32 size;
	__be32 src_stag;
	__be64 src_to;
} __packed;

static_assert(sizeof(struct softiw_rdmap_read_req) == 28);
static_assert(offsetof(struct softiw_rdmap_read_req, src_to) == 20);

/* ---- TERMINATE (RFC 5040 section 4.8) ---- */

/*
 * struct softiw_rdmap_term - the word that opens a TERMINATE body; the
 * headers of the faulty message follow when the D and R flags say so.
 * @ctrl: host-order bits SOFTIW_TERM_*
 *
 * Layer is the high nibble of the first byte on the wire. Linux siw (6.1)
 * declares this word as a bit-field, which on little-endian hosts swaps
 * the layer and type nibbles and moves M/D/R to the low bits of the third
 * byte: the cause in a TERMINATE from siw is advisory only.
 */
struct softiw_rdmap_term {
	__be32 ctrl;
};

#define SOFTIW_TERM_LAYER		GENMASK(31, 28)
#define SOFTIW_TERM_ETYPE		GENMASK(27, 24)
#define SOFTIW_TERM_ECODE		GENMASK(23, 16)
#define SOFTIW_TERM_LEN_VALID		BIT(15)	/* M: copied DDP length valid */
#define SOFTIW_TERM_DDP_HDR		BIT(14)	/* D: DDP header copied */
#define SOFTIW_TERM_RDMAP_HDR		BIT(13)	/* R: RDMAP header copied */
#define SOFTIW_TERM_RESERVED		GENMASK(12, 0)

/* Error layers */
#define SOFTIW_TERM_LAYER_RDMAP		0x0
#define SOFTIW_TERM_LAYER_DDP		0x1
#define SOFTIW_TERM_LAYER_LLP		0x2	/* MPA */

/* RDMAP error types and codes */
#define SOFTIW_TERM_RDMAP_CATASTROPHIC	0x0
#define SOFTIW_TERM_RDMAP_PROTECTION	0x1
#define SOFTIW_TERM_RDMAP_OPERATION	0x2

#define SOFTIW_TERM_RDMAP_INV_STAG	0x00
#define SOFTIW_TERM_RDMAP_BOUNDS	0x01
#define SOFTIW_TERM_RDMAP_ACCESS	0x02
#define SOFTIW_TERM_RDMAP_STAG_QP	0x03
#define SOFTIW_TERM_RDMAP_TO_WRAP	0x04
#define SOFTIW_TERM_RDMAP_VERSION	0x05
#define SOFTIW_TERM_RDMAP_OPCODE	0x06
#define SOFTIW_TERM_RDMAP_STREAM	0x07	/* catastrophic, stream */
#define SOFTIW_TERM_RDMAP_GLOBAL	0x08	/* catastrophic, global */
#define SOFTIW_TERM_RDMAP_NO_INV	0x09	/* STag cannot be invalidated */
#define SOFTIW_TERM_RDMAP_UNSPEC	0xff

/* DDP error types and codes */
#define SOFTIW_TERM_DDP_CATASTROPHIC	0x0
#define SOFTIW_TERM_DDP_TAGGED		0x1
#define SOFTIW_TERM_DDP_UNTAGGED	0x2

#define SOFTIW_TERM_DDP_C_LOCAL		0x00	/* local catastrophic */

#define SOFTIW_TERM_DDP_T_INV_STAG	0x00
#define SOFTIW_TERM_DDP_T_BOUNDS	0x01
#define SOFTIW_TERM_DDP_T_STAG_QP	0x02
#define SOFTIW_TERM_DDP_T_TO_WRAP	0x03
#define SOFTIW_TERM_DDP_T_VERSION	0x04
#define SOFTIW_TERM_DDP_U_INV_QN	0x01
#define SOFTIW_TERM_DDP_U_NO_BUF	0x02	/* invalid MSN, no buffer */
#define SOFTIW_TERM_DDP_U_MSN_RANGE	0x03
#define SOFTIW_TERM_DDP_U_INV_MO	0x04
#define SOFTIW_TERM_DDP_U_TOO_LONG	0x05
#define SOFTIW_TERM_DDP_U_VERSION	0x06

/* LLP (MPA) error type and codes, RFC 5044 and RFC 6581 */
#define SOFTIW_TERM_LLP_MPA		0x0

#define SOFTIW_TERM_MPA_LOST		0x01	/* TCP stream lost */
#define SOFTIW_TERM_MPA_CRC		0x02
#define SOFTIW_TERM_MPA_MARKER		0x03	/* marker/length mismatch */
#define SOFTIW_TERM_MPA_REQ_REP		0x04	/* invalid Request/Reply */
#define SOFTIW_TERM_MPA_LOCAL		0x05	/* local catastrophic */
#define SOFTIW_TERM_MPA_IRD		0x06	/* insufficient IRD */
#define SOFTIW_TERM_MPA_RTR		0x07	/* no matching RTR type */

#endif /* _KIWI_SOFTIW_IWARP_H */
