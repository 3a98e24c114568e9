/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The Reply fuzzer's wire formats and oracle (fuzz_reply.c): MPA
 * Request/Reply frames (RFC 5044 section 7.1) with the IRD/ORD word of
 * RFC 6581, and the empty Read Response that answers a READ RTR (RFC
 * 5040, RFC 5041), laid out and judged without softiw's own code.
 */
#ifndef KIWI_TEST_FUZZ_REPLY_H
#define KIWI_TEST_FUZZ_REPLY_H

#include <linux/types.h>

#include "mpa_key.h"

#define FR_HDR		20	/* key, flags, revision, PD_Length */
#define FR_PD_MAX	512	/* PD_Length at most */
#define FR_WORD		4	/* the IRD/ORD word */
#define FR_F_M		0x80	/* markers */
#define FR_F_C		0x40	/* CRC */
#define FR_F_R		0x20	/* reject */
#define FR_F_E		0x10	/* enhanced: revision 2 only */
#define FR_IRD_A	0x8000	/* IRD half: peer-to-peer */
#define FR_IRD_B	0x4000	/* IRD half: zero-length SEND as RTR */
#define FR_ORD_C	0x8000	/* ORD half: zero-length WRITE as RTR */
#define FR_ORD_D	0x4000	/* ORD half: zero-length READ as RTR */
#define FR_DEPTH	0x3fff

/*
 * The control half-word of a DDP segment: T, L, the DDP and RDMAP
 * versions and the opcode; reserved bits are outside the mask.
 */
#define FR_CTRL_MASK	0xc3cf
#define FR_RESP_CTRL	0xc142	/* T, L, version 1 both, Read Response */
#define FR_RESP_LEN	14	/* ULPDU_Length of an empty tagged segment */
#define FR_RESP_SIZE	20	/* its FPDU: length, header, no pad, CRC */

/**
 * struct fr_req - a Request as the server read it off the wire
 * @rev: its revision
 * @crc: its C flag
 * @enhanced: revision 2 with an IRD/ORD word
 * @p2p: the word's A flag
 * @rtr: the KIWI_IWARP_RTR_* types the word offers
 * @ird: the word's IRD
 * @ord: the word's ORD
 */
struct fr_req {
	u8 rev;
	bool crc;
	bool enhanced;
	bool p2p;
	u8 rtr;
	u16 ird;
	u16 ord;
};

/**
 * struct fr_rep - the content of a valid Reply
 * @rev: its revision, 1 to the Request's
 * @ird: the responder's IRD (enhanced Replies)
 * @ord: the responder's ORD, at most the Request's IRD (enhanced)
 * @rtr: the RTR type chosen, one offered (peer-to-peer Requests)
 * @pd: private data, or NULL to leave the bytes as they are
 * @len: its length: at most 508 bytes in an enhanced Reply, else 512
 */
struct fr_rep {
	u8 rev;
	u16 ird;
	u16 ord;
	u8 rtr;
	const void *pd;
	u16 len;
};

/**
 * struct fr_verdict - the oracle's judgement of what a responder sent
 * @ok: the initiator must report the connection up
 * @decided: the bytes decide, without the stream ending
 * @crc: the FPDUs after an acceptable Reply carry a CRC
 * @rtr: the RTR type an acceptable Reply puts in force, or 0
 * @len: bytes of the Reply frame once complete, else 0
 * @pd_off: where an acceptable Reply's private data for the ULP starts
 * @pd_len: its length
 */
struct fr_verdict {
	bool ok;
	bool decided;
	bool crc;
	u8 rtr;
	u16 len;
	u16 pd_off;
	u16 pd_len;
};

u32 fr_crc(const u8 *b, unsigned int len);
u8 fr_rtr_bits(u16 ird, u16 ord);
bool fr_enhanced(const u8 *b);
void fr_judge_reply(const struct fr_req *req, const u8 *b, unsigned int n,
		    struct fr_verdict *v);
bool fr_response_ok(const u8 *b, unsigned int n, bool crc, u32 stag, u64 to);
int fr_put_reply(u8 *b, const struct fr_req *req, const struct fr_rep *rep);
int fr_put_response(u8 *b, u32 stag, u64 to, bool crc);

#endif
