// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_softiw: MPA FPDU framing (RFC 5044 section 4) and the DDP/RDMAP
 * header of each segment (RFC 5041, RFC 5040), on buffers only; and the
 * TERMINATE error codes for a peer's tagged access that failed.
 */
#include <asm/unaligned.h>
#include <kunit/visibility.h>
#include <linux/bitfield.h>
#include <linux/crc32.h>
#include <linux/errno.h>
#include <linux/module.h>
#include <linux/string.h>

#include "fpdu.h"

#define SOFTIW_DDP_TAGGED_LEN \
	(sizeof(struct softiw_ddp_tagged) - SOFTIW_MPA_LEN_SIZE)
#define SOFTIW_DDP_UNTAGGED_LEN \
	(sizeof(struct softiw_ddp_untagged) - SOFTIW_MPA_LEN_SIZE)

/**
 * struct softiw_rdmap_op - how each RDMAP opcode travels
 * @tagged: as a tagged DDP segment
 * @qn: untagged: the DDP queue it belongs to
 * @single: one segment only: L set, MO zero
 * @body: bytes of RDMAP header after the DDP header; exact if @single
 *	and not @open, a minimum if @open
 * @open: @body is a minimum
 */
struct softiw_rdmap_op {
	bool tagged;
	u8 qn;
	bool single;
	u8 body;
	bool open;
};

static const struct softiw_rdmap_op softiw_rdmap_ops[SOFTIW_RDMAP_OPCODES] = {
	[SOFTIW_RDMAP_WRITE] = { .tagged = true },
	[SOFTIW_RDMAP_READ_REQ] = {
		.qn = SOFTIW_DDP_QN_READ_REQ, .single = true,
		.body = sizeof(struct softiw_rdmap_read_req),
	},
	[SOFTIW_RDMAP_READ_RESP] = { .tagged = true },
	[SOFTIW_RDMAP_SEND] = { .qn = SOFTIW_DDP_QN_SEND },
	[SOFTIW_RDMAP_SEND_INV] = { .qn = SOFTIW_DDP_QN_SEND },
	[SOFTIW_RDMAP_SEND_SE] = { .qn = SOFTIW_DDP_QN_SEND },
	[SOFTIW_RDMAP_SEND_SE_INV] = { .qn = SOFTIW_DDP_QN_SEND },
	[SOFTIW_RDMAP_TERMINATE] = {
		.qn = SOFTIW_DDP_QN_TERMINATE, .single = true,
		.body = sizeof(struct softiw_rdmap_term), .open = true,
	},
};

/**
 * kiwi_softiw_fpdu_size() - bytes an FPDU takes on the wire
 * @ulpdu_len: its ULPDU_Length: DDP header and payload
 *
 * Context: any context.
 * Return: ULPDU_Length field, ULPDU, pad and CRC together, or -EMSGSIZE if
 * @ulpdu_len does not fit the 16-bit field.
 */
int kiwi_softiw_fpdu_size(unsigned int ulpdu_len)
{
	if (ulpdu_len > SOFTIW_MPA_ULPDU_MAX)
		return -EMSGSIZE;
	return SOFTIW_MPA_LEN_SIZE + ulpdu_len + softiw_fpdu_pad(ulpdu_len) +
	       SOFTIW_MPA_CRC_SIZE;
}
EXPORT_SYMBOL_IF_KUNIT(kiwi_softiw_fpdu_size);

/**
 * kiwi_softiw_ddp_hdr_size() - bytes of DDP header an opcode travels with
 * @opcode: &enum softiw_rdmap_opcode
 *
 * Context: any context.
 * Return: 14 for the tagged opcodes, 18 for the untagged ones (not counting
 * the ULPDU_Length field), or -EOPNOTSUPP for an undefined opcode.
 */
int kiwi_softiw_ddp_hdr_size(u8 opcode)
{
	if (opcode >= SOFTIW_RDMAP_OPCODES)
		return -EOPNOTSUPP;
	return softiw_rdmap_ops[opcode].tagged ? SOFTIW_DDP_TAGGED_LEN :
						  SOFTIW_DDP_UNTAGGED_LEN;
}
EXPORT_SYMBOL_IF_KUNIT(kiwi_softiw_ddp_hdr_size);

static u16 softiw_ddp_ctrl(const struct kiwi_softiw_ddp_hdr *hdr)
{
	u16 ctrl = FIELD_PREP(SOFTIW_DDP_VERSION, SOFTIW_DDP_VERSION_1) |
		   FIELD_PREP(SOFTIW_RDMAP_VERSION, SOFTIW_RDMAP_VERSION_1) |
		   FIELD_PREP(SOFTIW_RDMAP_OPCODE, hdr->opcode);

	if (hdr->tagged)
		ctrl |= SOFTIW_DDP_TAGGED;
	if (hdr->last)
		ctrl |= SOFTIW_DDP_LAST;
	return ctrl;
}

/**
 * kiwi_softiw_fpdu_put_hdr() - write the start of an FPDU
 * @hdr: ULPDU_Length and DDP/RDMAP header, host order
 * @buf: where the FPDU starts
 * @size: room at @buf
 *
 * Writes the ULPDU_Length field and the DDP/RDMAP header; the caller adds
 * the payload, then calls kiwi_softiw_fpdu_seal().
 *
 * Context: any context.
 * Return: bytes written (16 tagged, 20 untagged), -ENOBUFS if @size is too
 * small, -EOPNOTSUPP for an undefined opcode, -EINVAL if @hdr->tagged
 * does not match the opcode or @hdr->ulpdu_len cannot hold the header.
 */
int kiwi_softiw_fpdu_put_hdr(const struct kiwi_softiw_ddp_hdr *hdr,
			     void *buf, size_t size)
{
	struct softiw_ddp_untagged *u = buf;
	struct softiw_ddp_tagged *t = buf;
	int len = kiwi_softiw_ddp_hdr_size(hdr->opcode);

	if (len < 0)
		return len;
	if (hdr->tagged != softiw_rdmap_ops[hdr->opcode].tagged ||
	    hdr->ulpdu_len < len)
		return -EINVAL;
	if (size < SOFTIW_MPA_LEN_SIZE + len)
		return -ENOBUFS;

	put_unaligned_be16(hdr->ulpdu_len, &u->mpa_len);
	put_unaligned_be16(softiw_ddp_ctrl(hdr), &u->ctrl.ctrl);
	if (hdr->tagged) {
		put_unaligned_be32(hdr->stag, &t->stag);
		put_unaligned_be64(hdr->to, &t->to);
	} else {
		put_unaligned_be32(hdr->stag, &u->rsvd_ulp);
		put_unaligned_be32(hdr->qn, &u->qn);
		put_unaligned_be32(hdr->msn, &u->msn);
		put_unaligned_be32(hdr->mo, &u->mo);
	}
	return SOFTIW_MPA_LEN_SIZE + len;
}
EXPORT_SYMBOL_IF_KUNIT(kiwi_softiw_fpdu_put_hdr);

static int softiw_fpdu_refuse(struct kiwi_softiw_term_cause *cause, u8 layer,
			      u8 etype, u8 ecode, int err)
{
	cause->layer = layer;
	cause->etype = etype;
	cause->ecode = ecode;
	return err;
}

/* The two control bytes: versions, opcode, and T against the opcode. */
static int softiw_ddp_get_ctrl(u16 ctrl, struct kiwi_softiw_ddp_hdr *hdr,
			       struct kiwi_softiw_term_cause *cause)
{
	hdr->tagged = ctrl & SOFTIW_DDP_TAGGED;
	hdr->last = ctrl & SOFTIW_DDP_LAST;
	hdr->opcode = FIELD_GET(SOFTIW_RDMAP_OPCODE, ctrl);

	if (FIELD_GET(SOFTIW_DDP_VERSION, ctrl) != SOFTIW_DDP_VERSION_1)
		return softiw_fpdu_refuse(cause, SOFTIW_TERM_LAYER_DDP,
					  hdr->tagged ? SOFTIW_TERM_DDP_TAGGED :
						SOFTIW_TERM_DDP_UNTAGGED,
					  hdr->tagged ? SOFTIW_TERM_DDP_T_VERSION :
						SOFTIW_TERM_DDP_U_VERSION,
					  -EPROTONOSUPPORT);
	if (FIELD_GET(SOFTIW_RDMAP_VERSION, ctrl) != SOFTIW_RDMAP_VERSION_1)
		return softiw_fpdu_refuse(cause, SOFTIW_TERM_LAYER_RDMAP,
					  SOFTIW_TERM_RDMAP_OPERATION,
					  SOFTIW_TERM_RDMAP_VERSION,
					  -EPROTONOSUPPORT);
	if (hdr->opcode >= SOFTIW_RDMAP_OPCODES)
		return softiw_fpdu_refuse(cause, SOFTIW_TERM_LAYER_RDMAP,
					  SOFTIW_TERM_RDMAP_OPERATION,
					  SOFTIW_TERM_RDMAP_OPCODE, -EOPNOTSUPP);
	if (hdr->tagged != softiw_rdmap_ops[hdr->opcode].tagged)
		return softiw_fpdu_refuse(cause, SOFTIW_TERM_LAYER_RDMAP,
					  SOFTIW_TERM_RDMAP_OPERATION,
					  SOFTIW_TERM_RDMAP_OPCODE, -EBADMSG);
	return 0;
}

/* Queue number, and the rules of the single-segment messages. */
static int softiw_ddp_check_untagged(const struct kiwi_softiw_ddp_hdr *hdr,
				     struct kiwi_softiw_term_cause *cause)
{
	const struct softiw_rdmap_op *op = &softiw_rdmap_ops[hdr->opcode];
	unsigned int body = hdr->ulpdu_len - SOFTIW_DDP_UNTAGGED_LEN;

	if (hdr->qn != op->qn)
		return softiw_fpdu_refuse(cause, SOFTIW_TERM_LAYER_DDP,
					  SOFTIW_TERM_DDP_UNTAGGED,
					  SOFTIW_TERM_DDP_U_INV_QN, -EBADMSG);
	if (!op->single)
		return 0;
	if (!hdr->last || hdr->mo ||
	    (op->open ? body < op->body : body != op->body))
		return softiw_fpdu_refuse(cause, SOFTIW_TERM_LAYER_RDMAP,
					  SOFTIW_TERM_RDMAP_OPERATION,
					  SOFTIW_TERM_RDMAP_UNSPEC, -EBADMSG);
	return 0;
}

/**
 * kiwi_softiw_fpdu_get_hdr() - read and validate the start of an FPDU
 * @buf: where the FPDU starts: its ULPDU_Length field
 * @len: bytes available at @buf
 * @hdr: filled in, host order, as far as it could be read
 * @cause: on a refusal, what the TERMINATE message reports
 *
 * Checks DDP version 1, RDMAP version 1, a defined opcode with the T flag
 * it requires, a ULPDU long enough for the header, the untagged queue
 * number the opcode belongs to (0 to 2), and that Read Requests and
 * Terminates are single segments of the right length. Reserved bits are
 * not checked (RFC 5041, RFC 5040: ignored by receivers).
 *
 * Context: any context.
 * Return: 0; -ENODATA if @len is shorter than the header (call again with
 * more); -EPROTONOSUPPORT for a DDP or RDMAP version other than 1;
 * -EOPNOTSUPP for an undefined opcode; -EBADMSG for any other malformed
 * header.
 */
int kiwi_softiw_fpdu_get_hdr(const void *buf, size_t len,
			     struct kiwi_softiw_ddp_hdr *hdr,
			     struct kiwi_softiw_term_cause *cause)
{
	const struct softiw_ddp_untagged *u = buf;
	const struct softiw_ddp_tagged *t = buf;
	int hlen, ret;

	memset(hdr, 0, sizeof(*hdr));
	memset(cause, 0, sizeof(*cause));
	if (len < sizeof(u->mpa_len) + sizeof(u->ctrl))
		return -ENODATA;
	hdr->ulpdu_len = get_unaligned_be16(&u->mpa_len);
	ret = softiw_ddp_get_ctrl(get_unaligned_be16(&u->ctrl.ctrl), hdr,
				  cause);
	if (ret)
		return ret;
	hlen = kiwi_softiw_ddp_hdr_size(hdr->opcode);
	if (hdr->ulpdu_len < hlen)
		return softiw_fpdu_refuse(cause, SOFTIW_TERM_LAYER_DDP,
					  SOFTIW_TERM_DDP_CATASTROPHIC, 0,
					  -EBADMSG);
	if (len < SOFTIW_MPA_LEN_SIZE + hlen)
		return -ENODATA;
	if (hdr->tagged) {
		hdr->stag = get_unaligned_be32(&t->stag);
		hdr->to = get_unaligned_be64(&t->to);
		return 0;
	}
	hdr->stag = get_unaligned_be32(&u->rsvd_ulp);
	hdr->qn = get_unaligned_be32(&u->qn);
	hdr->msn = get_unaligned_be32(&u->msn);
	hdr->mo = get_unaligned_be32(&u->mo);
	return softiw_ddp_check_untagged(hdr, cause);
}
EXPORT_SYMBOL_IF_KUNIT(kiwi_softiw_fpdu_get_hdr);

/**
 * kiwi_softiw_fpdu_crc() - the CRC32c of an FPDU, as it travels
 * @fpdu: the FPDU, from its ULPDU_Length field
 * @len: bytes covered: the length field, ULPDU and pad
 *
 * MPA uses the CRC32c of iSCSI (RFC 3720): initial value all ones, final
 * value inverted, sent least significant byte first, as Linux siw does.
 * Computed by the kernel's built-in CRC32c (lib/crc32.c), which adds no
 * module dependency; libcrc32c's crc32c() would add one on libcrc32c.
 *
 * Context: any context.
 * Return: the CRC field, ready to be stored.
 */
__le32 kiwi_softiw_fpdu_crc(const void *fpdu, size_t len)
{
	return cpu_to_le32(~__crc32c_le(~0U, fpdu, len));
}
EXPORT_SYMBOL_IF_KUNIT(kiwi_softiw_fpdu_crc);

/**
 * kiwi_softiw_fpdu_seal() - finish an FPDU: pad and CRC
 * @fpdu: the FPDU; its ULPDU_Length field and ULPDU are written
 * @size: room at @fpdu
 * @crc: CRC was negotiated; if not, the CRC field is zero
 *
 * Context: any context.
 * Return: the length of the FPDU, -ENODATA if @size cannot even hold the
 * length field, or -ENOBUFS if it cannot hold the FPDU.
 */
int kiwi_softiw_fpdu_seal(void *fpdu, size_t size, bool crc)
{
	u8 *p = fpdu;
	unsigned int ulpdu_len, end;
	__le32 sum = 0;
	int total;

	if (size < SOFTIW_MPA_LEN_SIZE)
		return -ENODATA;
	ulpdu_len = get_unaligned_be16(p);
	total = kiwi_softiw_fpdu_size(ulpdu_len);
	if (size < total)
		return -ENOBUFS;
	end = SOFTIW_MPA_LEN_SIZE + ulpdu_len;
	memset(p + end, 0, softiw_fpdu_pad(ulpdu_len));
	if (crc)
		sum = kiwi_softiw_fpdu_crc(p, total - SOFTIW_MPA_CRC_SIZE);
	memcpy(p + total - SOFTIW_MPA_CRC_SIZE, &sum, sizeof(sum));
	return total;
}
EXPORT_SYMBOL_IF_KUNIT(kiwi_softiw_fpdu_seal);

/**
 * kiwi_softiw_fpdu_check() - verify the framing of a received FPDU
 * @fpdu: the FPDU, from its ULPDU_Length field
 * @len: its length as received
 * @crc: CRC was negotiated; if not, the CRC field is ignored
 *
 * Pad bytes are not checked.
 *
 * Context: any context.
 * Return: 0, -ENODATA if @len cannot hold the length field, -EMSGSIZE if
 * @len is not the length the field announces, or -EBADMSG if the CRC does
 * not match (TERMINATE cause: LLP, MPA, CRC error).
 */
int kiwi_softiw_fpdu_check(const void *fpdu, size_t len, bool crc)
{
	const u8 *p = fpdu;
	__le32 sum;
	int total;

	if (len < SOFTIW_MPA_LEN_SIZE)
		return -ENODATA;
	total = kiwi_softiw_fpdu_size(get_unaligned_be16(p));
	if (len != total)
		return -EMSGSIZE;
	if (!crc)
		return 0;
	sum = kiwi_softiw_fpdu_crc(p, total - SOFTIW_MPA_CRC_SIZE);
	if (memcmp(p + total - SOFTIW_MPA_CRC_SIZE, &sum, sizeof(sum)))
		return -EBADMSG;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(kiwi_softiw_fpdu_check);

/**
 * softiw_ddp_access_ecode() - the DDP tagged buffer error code for a
 *	softiw_mr_get() error
 * @err: the error
 *
 * DDP has no code for missing rights: like siw, softiw reports an
 * invalid STag.
 *
 * Context: any context.
 * Return: the code.
 */
u8 softiw_ddp_access_ecode(int err)
{
	switch (err) {
	case -EPERM:
		return SOFTIW_TERM_DDP_T_STAG_QP;
	case -ERANGE:
		return SOFTIW_TERM_DDP_T_BOUNDS;
	case -EOVERFLOW:
		return SOFTIW_TERM_DDP_T_TO_WRAP;
	default:
		return SOFTIW_TERM_DDP_T_INV_STAG;
	}
}

/**
 * softiw_rdmap_access_ecode() - the RDMAP remote protection error code
 *	for a softiw_mr_get() error
 * @err: the error
 *
 * Context: any context.
 * Return: the code.
 */
u8 softiw_rdmap_access_ecode(int err)
{
	switch (err) {
	case -EPERM:
		return SOFTIW_TERM_RDMAP_STAG_QP;
	case -ERANGE:
		return SOFTIW_TERM_RDMAP_BOUNDS;
	case -EOVERFLOW:
		return SOFTIW_TERM_RDMAP_TO_WRAP;
	case -EACCES:
		return SOFTIW_TERM_RDMAP_ACCESS;
	default:
		return SOFTIW_TERM_RDMAP_INV_STAG;
	}
}
