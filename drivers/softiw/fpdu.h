/* SPDX-License-Identifier: GPL-2.0 */
/*
 * MPA framing of DDP segments (FPDUs) in kiwi_softiw: lengths, padding,
 * CRC32c, and the DDP/RDMAP header of each segment. Pure code on buffers.
 */
#ifndef _KIWI_SOFTIW_FPDU_H
#define _KIWI_SOFTIW_FPDU_H

#include <asm/byteorder.h>
#include <linux/bitfield.h>
#include <linux/types.h>

#include "iwarp.h"

/**
 * struct kiwi_softiw_ddp_hdr - host-order DDP/RDMAP header of one FPDU
 * @ulpdu_len: the MPA ULPDU_Length: DDP header and payload, in bytes
 * @opcode: &enum softiw_rdmap_opcode
 * @tagged: DDP T flag; it follows from @opcode
 * @last: DDP L flag: last segment of the message
 * @stag: tagged: the data sink STag; untagged: the RDMAP-owned word (the
 *	STag to invalidate for the SEND_INV opcodes)
 * @to: tagged only: the tagged offset
 * @qn: untagged only: queue number
 * @msn: untagged only: message sequence number
 * @mo: untagged only: message offset
 */
struct kiwi_softiw_ddp_hdr {
	u16 ulpdu_len;
	u8 opcode;
	bool tagged;
	bool last;
	u32 stag;
	u64 to;
	u32 qn;
	u32 msn;
	u32 mo;
};

/**
 * struct kiwi_softiw_term_cause - why a received FPDU is refused, in the
 * terms of the TERMINATE message that reports it (RFC 5040 section 4.8)
 * @layer: SOFTIW_TERM_LAYER_*
 * @etype: error type within @layer
 * @ecode: error code within @etype
 */
struct kiwi_softiw_term_cause {
	u8 layer;
	u8 etype;
	u8 ecode;
};

/**
 * softiw_fpdu_pad() - pad bytes after a ULPDU
 * @ulpdu_len: the ULPDU_Length
 *
 * The ULPDU_Length field, the ULPDU and the pad together are a multiple of
 * four bytes; the CRC follows.
 *
 * Context: any context.
 * Return: 0 to 3.
 */
static inline unsigned int softiw_fpdu_pad(unsigned int ulpdu_len)
{
	return -(ulpdu_len + SOFTIW_MPA_LEN_SIZE) & (SOFTIW_MPA_ALIGN - 1);
}

/**
 * softiw_term_ctrl() - the first word of a TERMINATE body
 * @cause: layer, error type and code
 * @hdrs: SOFTIW_TERM_LEN_VALID, SOFTIW_TERM_DDP_HDR, SOFTIW_TERM_RDMAP_HDR:
 *	what the rest of the body holds
 *
 * Context: any context.
 * Return: the word as it travels (RFC 5040 layout, not siw's).
 */
static inline __be32
softiw_term_ctrl(const struct kiwi_softiw_term_cause *cause, u32 hdrs)
{
	u32 ctrl = FIELD_PREP(SOFTIW_TERM_LAYER, cause->layer) |
		   FIELD_PREP(SOFTIW_TERM_ETYPE, cause->etype) |
		   FIELD_PREP(SOFTIW_TERM_ECODE, cause->ecode);

	return cpu_to_be32(ctrl | (hdrs & (SOFTIW_TERM_LEN_VALID |
					   SOFTIW_TERM_DDP_HDR |
					   SOFTIW_TERM_RDMAP_HDR)));
}

int kiwi_softiw_fpdu_size(unsigned int ulpdu_len);
int kiwi_softiw_ddp_hdr_size(u8 opcode);
int kiwi_softiw_fpdu_put_hdr(const struct kiwi_softiw_ddp_hdr *hdr,
			     void *buf, size_t size);
int kiwi_softiw_fpdu_get_hdr(const void *buf, size_t len,
			     struct kiwi_softiw_ddp_hdr *hdr,
			     struct kiwi_softiw_term_cause *cause);
__le32 kiwi_softiw_fpdu_crc(const void *fpdu, size_t len);
int kiwi_softiw_fpdu_seal(void *fpdu, size_t size, bool crc);
int kiwi_softiw_fpdu_check(const void *fpdu, size_t len, bool crc);
u8 softiw_ddp_access_ecode(int err);
u8 softiw_rdmap_access_ecode(int err);

#endif /* _KIWI_SOFTIW_FPDU_H */
