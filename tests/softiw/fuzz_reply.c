// SPDX-License-Identifier: GPL-2.0
/*
 * The Reply fuzzer's oracle and frame builders (fuzz_reply.h), written
 * from RFC 5044, RFC 6581, RFC 5041 and RFC 5040 rather than from
 * softiw's parser. Where softiw departs from the RFCs on purpose, the
 * oracle follows what mpa.c documents: markers are refused, a
 * peer-to-peer Reply is judged by the RTR type it names (its A flag is
 * not required), and of several named types WRITE, then READ, then SEND
 * is taken.
 */
#include <asm/unaligned.h>
#include <linux/crc32.h>
#include <linux/string.h>

#include <kiwi/iw_cm.h>

#include "fuzz_reply.h"

/**
 * fr_crc() - the MPA CRC of bytes (RFC 5044 section 4.4)
 * @b: the bytes
 * @len: their number
 *
 * CRC32c as RFC 3720 B.4 defines it; it travels least significant byte
 * first (put_unaligned_le32()).
 *
 * Context: any context.
 * Return: the CRC.
 */
u32 fr_crc(const u8 *b, unsigned int len)
{
	return ~__crc32c_le(~0U, b, len);
}

/**
 * fr_rtr_bits() - the RTR types an IRD/ORD word names
 * @ird: its IRD half, host order
 * @ord: its ORD half, host order
 *
 * Context: any context.
 * Return: KIWI_IWARP_RTR_* bits: B (SEND), C (WRITE), D (READ).
 */
u8 fr_rtr_bits(u16 ird, u16 ord)
{
	return (ird & FR_IRD_B ? KIWI_IWARP_RTR_SEND : 0) |
	       (ord & FR_ORD_C ? KIWI_IWARP_RTR_WRITE : 0) |
	       (ord & FR_ORD_D ? KIWI_IWARP_RTR_READ : 0);
}

/* The one type an initiator takes from a set (mpa.c): WRITE, READ, SEND. */
static u8 fr_pick_rtr(u8 set)
{
	if (set & KIWI_IWARP_RTR_WRITE)
		return KIWI_IWARP_RTR_WRITE;
	if (set & KIWI_IWARP_RTR_READ)
		return KIWI_IWARP_RTR_READ;
	return set & KIWI_IWARP_RTR_SEND;
}

/**
 * fr_enhanced() - does a frame header announce the IRD/ORD word
 * @b: the header, 20 bytes
 *
 * RFC 6581: revision 2 with the E flag; in revision 1 the bit is
 * reserved.
 *
 * Context: any context.
 * Return: true if it does.
 */
bool fr_enhanced(const u8 *b)
{
	return b[17] == 2 && (b[16] & FR_F_E);
}

/*
 * What the header alone settles (RFC 5044 section 7.1, RFC 6581 section
 * 9): the key, revision 1 or 2, at most 512 bytes of private data, room
 * for the IRD/ORD word in an enhanced frame. softiw refuses a header as
 * soon as its 20 bytes are in (mpa.h, struct kiwi_softiw_mpa_rx).
 */
static bool fr_hdr_ok(const u8 *b)
{
	u16 pd_len = get_unaligned_be16(b + 18);

	return !memcmp(b, KEY_REP, 16) && (b[17] == 1 || b[17] == 2) &&
	       pd_len <= FR_PD_MAX && (!fr_enhanced(b) || pd_len >= FR_WORD);
}

/*
 * A complete Reply with a good header, against the Request: a revision
 * no higher than the Request's, no Reject, no markers (RFC 5044 lets a
 * responder ask for them; softiw has none and refuses), enhanced exactly
 * when both speak revision 2 (a revision 1 Reply to an enhanced Request
 * is RFC 6581's fall back), a responder's ORD the initiator's IRD can
 * serve, and in peer-to-peer mode an RTR type offered. The C flag only
 * adds CRC; reserved flags are ignored.
 */
static bool fr_reply_ok(const struct fr_req *req, const u8 *b,
			struct fr_verdict *v)
{
	bool enh = fr_enhanced(b);
	u16 ird, ord;

	if (b[17] > req->rev || (b[16] & (FR_F_R | FR_F_M)) ||
	    enh != (req->enhanced && b[17] == 2))
		return false;
	v->crc = req->crc || (b[16] & FR_F_C);
	v->pd_off = FR_HDR + (enh ? FR_WORD : 0);
	v->pd_len = v->len - v->pd_off;
	if (!enh)
		return true;
	ird = get_unaligned_be16(b + FR_HDR);
	ord = get_unaligned_be16(b + FR_HDR + 2);
	if ((ord & FR_DEPTH) > req->ird)
		return false;
	if (!req->p2p)
		return true;
	v->rtr = fr_pick_rtr(fr_rtr_bits(ird, ord) & req->rtr);
	return v->rtr;
}

/**
 * fr_judge_reply() - judge what a responder sent after the Request
 * @req: the Request
 * @b: the bytes sent
 * @n: their number
 * @v: the verdict, filled in
 *
 * A Reply cut short is decided only by the end of the stream (or a
 * timer); a bad header as soon as its 20 bytes are in; a complete frame
 * by itself. Bytes after the frame are not the Reply's.
 *
 * Context: any context.
 */
void fr_judge_reply(const struct fr_req *req, const u8 *b, unsigned int n,
		    struct fr_verdict *v)
{
	memset(v, 0, sizeof(*v));
	if (n < FR_HDR)
		return;
	v->decided = true;
	if (!fr_hdr_ok(b))
		return;
	v->len = FR_HDR + get_unaligned_be16(b + 18);
	if (n < v->len) {
		v->len = 0;
		v->decided = false;
		return;
	}
	v->ok = fr_reply_ok(req, b, v);
}

/**
 * fr_response_ok() - is this the answer to a READ RTR
 * @b: the bytes that follow the Reply frame
 * @n: their number
 * @crc: CRC is in force
 * @stag: the Data Sink STag of the initiator's Read Request
 * @to: its Data Sink offset
 *
 * RFC 6581, RFC 5040 section 4.5: an empty Read Response, a single
 * tagged DDP segment (T and L set, DDP and RDMAP version 1) to the Data
 * Sink of the Read Request, framed by MPA: ULPDU_Length 14, no pad, the
 * CRC right if CRC is in force. Reserved bits, and the CRC field when
 * CRC is not in force, are ignored (RFC 5041, RFC 5044). What follows
 * its 20 bytes is the data path's.
 *
 * Context: any context.
 * Return: true if the initiator must take it.
 */
bool fr_response_ok(const u8 *b, unsigned int n, bool crc, u32 stag, u64 to)
{
	if (n < FR_RESP_SIZE || get_unaligned_be16(b) != FR_RESP_LEN ||
	    (get_unaligned_be16(b + 2) & FR_CTRL_MASK) != FR_RESP_CTRL ||
	    get_unaligned_be32(b + 4) != stag ||
	    get_unaligned_be64(b + 8) != to)
		return false;
	return !crc || get_unaligned_le32(b + 16) == fr_crc(b, 16);
}

/**
 * fr_put_reply() - lay out a valid Reply
 * @b: where, room for 532 bytes
 * @req: the Request it answers: its C flag is echoed, the IRD/ORD word
 *	and the A flag present if it asked for them
 * @rep: the content
 *
 * Context: any context.
 * Return: the frame's length.
 */
int fr_put_reply(u8 *b, const struct fr_req *req, const struct fr_rep *rep)
{
	bool enh = rep->rev == 2 && req->enhanced;
	u16 ird = rep->ird, ord = rep->ord;
	u8 *p = b + FR_HDR;

	memcpy(b, KEY_REP, 16);
	b[16] = (req->crc ? FR_F_C : 0) | (enh ? FR_F_E : 0);
	b[17] = rep->rev;
	put_unaligned_be16(rep->len + (enh ? FR_WORD : 0), b + 18);
	if (enh) {
		if (req->p2p) {
			ird |= FR_IRD_A;
			ird |= rep->rtr & KIWI_IWARP_RTR_SEND ? FR_IRD_B : 0;
			ord |= rep->rtr & KIWI_IWARP_RTR_WRITE ? FR_ORD_C : 0;
			ord |= rep->rtr & KIWI_IWARP_RTR_READ ? FR_ORD_D : 0;
		}
		put_unaligned_be16(ird, p);
		put_unaligned_be16(ord, p + 2);
		p += FR_WORD;
	}
	if (rep->pd)
		memcpy(p, rep->pd, rep->len);
	return p + rep->len - b;
}

/**
 * fr_put_response() - lay out an empty Read Response
 * @b: where, room for FR_RESP_SIZE bytes
 * @stag: the Data Sink STag it goes to
 * @to: the offset
 * @crc: with its CRC, else 0 in the CRC field
 *
 * Context: any context.
 * Return: its length, FR_RESP_SIZE.
 */
int fr_put_response(u8 *b, u32 stag, u64 to, bool crc)
{
	put_unaligned_be16(FR_RESP_LEN, b);
	put_unaligned_be16(FR_RESP_CTRL, b + 2);
	put_unaligned_be32(stag, b + 4);
	put_unaligned_be64(to, b + 8);
	put_unaligned_le32(crc ? fr_crc(b, 16) : 0, b + 16);
	return FR_RESP_SIZE;
}
