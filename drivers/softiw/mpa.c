// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_softiw: MPA Request/Reply frames and the connection setup rules of
 * RFC 5044 and RFC 6581, on buffers only.
 */
#include <asm/unaligned.h>
#include <kunit/visibility.h>
#include <linux/bitfield.h>
#include <linux/errno.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/string.h>

#include "mpa.h"

/**
 * DOC: MPA errors
 *
 * Every function here reports a refusal as one negative errno, with one
 * meaning throughout:
 *
 * * -EILSEQ: the frame does not start with the expected key.
 * * -EPROTONOSUPPORT: an MPA revision other than 1 or 2, or a reply of a
 *   higher revision than the request.
 * * -EMSGSIZE: private data longer than the 512 bytes MPA allows.
 * * -EBADMSG: a malformed frame: Reject flag in a request, an enhanced
 *   frame too short for its IRD/ORD word, or a reply whose enhanced flag
 *   disagrees with the request.
 * * -EPROTO: bytes beyond the end of the frame: the peer sent before its
 *   turn.
 * * -ENODATA: the buffer holds less than the whole frame.
 * * -EOPNOTSUPP: the peer asks for markers, which are not implemented.
 * * -ECONNREFUSED: the reply rejects the connection.
 * * -ENOSPC: the responder's ORD exceeds the IRD this end can serve
 *   (TERMINATE cause: LLP, MPA, insufficient IRD).
 * * -ENOPROTOOPT: no RTR type both ends support (TERMINATE cause: LLP,
 *   MPA, no matching RTR).
 * * -ENOBUFS: the caller's buffer is too small for the frame.
 * * -EINVAL: the caller's own parameters are invalid.
 */

static const char *softiw_mpa_key(enum softiw_mpa_kind kind)
{
	return kind == SOFTIW_MPA_REQUEST ? SOFTIW_MPA_KEY_REQ :
					    SOFTIW_MPA_KEY_REP;
}

static bool softiw_mpa_rev_ok(u8 rev)
{
	return rev == SOFTIW_MPA_REV1 || rev == SOFTIW_MPA_REV2;
}

static bool softiw_mpa_hdr_enhanced(const struct softiw_mpa_hdr *hdr)
{
	return hdr->rev == SOFTIW_MPA_REV2 &&
	       (hdr->flags & SOFTIW_MPA_FLAG_ENHANCED);
}

/* Everything that can be checked from the 20-byte header alone. */
static int softiw_mpa_check_hdr(enum softiw_mpa_kind kind,
				const struct softiw_mpa_hdr *hdr)
{
	u16 pd_len = get_unaligned_be16(&hdr->pd_len);

	if (memcmp(hdr->key, softiw_mpa_key(kind), SOFTIW_MPA_KEY_LEN))
		return -EILSEQ;
	if (!softiw_mpa_rev_ok(hdr->rev))
		return -EPROTONOSUPPORT;
	if (pd_len > SOFTIW_MPA_PD_MAX)
		return -EMSGSIZE;
	if (kind == SOFTIW_MPA_REQUEST && (hdr->flags & SOFTIW_MPA_FLAG_REJECT))
		return -EBADMSG;
	if (softiw_mpa_hdr_enhanced(hdr) &&
	    pd_len < sizeof(struct softiw_mpa_v2_ird_ord))
		return -EBADMSG;
	return 0;
}

static void softiw_mpa_get_ird_ord(const u8 *p,
				   struct kiwi_softiw_mpa_info *info)
{
	u16 ird = get_unaligned_be16(p);
	u16 ord = get_unaligned_be16(p + 2);

	info->ird = FIELD_GET(SOFTIW_MPA_V2_DEPTH, ird);
	info->ord = FIELD_GET(SOFTIW_MPA_V2_DEPTH, ord);
	info->p2p = ird & SOFTIW_MPA_V2_P2P;
	info->rtr = 0;
	if (ird & SOFTIW_MPA_V2_SEND_RTR)
		info->rtr |= SOFTIW_RTR_SEND;
	if (ord & SOFTIW_MPA_V2_WRITE_RTR)
		info->rtr |= SOFTIW_RTR_WRITE;
	if (ord & SOFTIW_MPA_V2_READ_RTR)
		info->rtr |= SOFTIW_RTR_READ;
}

static void softiw_mpa_put_ird_ord(u8 *p,
				   const struct kiwi_softiw_mpa_info *info)
{
	u16 ird = FIELD_PREP(SOFTIW_MPA_V2_DEPTH, info->ird);
	u16 ord = FIELD_PREP(SOFTIW_MPA_V2_DEPTH, info->ord);

	if (info->p2p)
		ird |= SOFTIW_MPA_V2_P2P;
	if (info->rtr & SOFTIW_RTR_SEND)
		ird |= SOFTIW_MPA_V2_SEND_RTR;
	if (info->rtr & SOFTIW_RTR_WRITE)
		ord |= SOFTIW_MPA_V2_WRITE_RTR;
	if (info->rtr & SOFTIW_RTR_READ)
		ord |= SOFTIW_MPA_V2_READ_RTR;
	put_unaligned_be16(ird, p);
	put_unaligned_be16(ord, p + 2);
}

static u8 softiw_mpa_flags(const struct kiwi_softiw_mpa_info *info)
{
	u8 flags = 0;

	if (info->crc)
		flags |= SOFTIW_MPA_FLAG_CRC;
	if (info->reject)
		flags |= SOFTIW_MPA_FLAG_REJECT;
	if (info->enhanced)
		flags |= SOFTIW_MPA_FLAG_ENHANCED;
	return flags;
}

static int softiw_mpa_check_info(enum softiw_mpa_kind kind,
				 const struct kiwi_softiw_mpa_info *info)
{
	if (info->markers)
		return -EOPNOTSUPP;
	if (!softiw_mpa_rev_ok(info->rev))
		return -EINVAL;
	if (info->reject && kind == SOFTIW_MPA_REQUEST)
		return -EINVAL;
	if (info->enhanced && info->rev != SOFTIW_MPA_REV2)
		return -EINVAL;
	if (info->ird > SOFTIW_MPA_IRD_ORD_MAX ||
	    info->ord > SOFTIW_MPA_IRD_ORD_MAX || info->rtr & ~SOFTIW_RTR_ALL)
		return -EINVAL;
	if (info->pd_len && !info->pdata)
		return -EINVAL;
	return 0;
}

/* PD_Length of the frame @info describes. */
static size_t softiw_mpa_pd_len(const struct kiwi_softiw_mpa_info *info)
{
	size_t word = info->enhanced ? sizeof(struct softiw_mpa_v2_ird_ord) : 0;

	return word + info->pd_len;
}

/**
 * kiwi_softiw_mpa_build() - lay out a Request or Reply frame
 * @kind: request or reply
 * @info: its content; the IRD/ORD word is written if @info->enhanced
 * @buf: where to write the frame; @info->pdata must not point into it
 * @size: room at @buf
 *
 * Context: any context.
 * Return: the length of the frame, or -EOPNOTSUPP if @info asks for
 * markers, -EMSGSIZE if the private data (with the IRD/ORD word) exceeds
 * 512 bytes, -ENOBUFS if @size is too small, -EINVAL if @info is
 * otherwise invalid.
 */
int kiwi_softiw_mpa_build(enum softiw_mpa_kind kind,
			  const struct kiwi_softiw_mpa_info *info,
			  void *buf, size_t size)
{
	struct softiw_mpa_hdr *hdr = buf;
	size_t pd_len = softiw_mpa_pd_len(info);
	u8 *pd = (u8 *)buf + sizeof(*hdr);
	int ret;

	ret = softiw_mpa_check_info(kind, info);
	if (ret)
		return ret;
	if (pd_len > SOFTIW_MPA_PD_MAX)
		return -EMSGSIZE;
	if (size < sizeof(*hdr) + pd_len)
		return -ENOBUFS;

	memcpy(hdr->key, softiw_mpa_key(kind), SOFTIW_MPA_KEY_LEN);
	hdr->flags = softiw_mpa_flags(info);
	hdr->rev = info->rev;
	put_unaligned_be16(pd_len, &hdr->pd_len);
	if (info->enhanced) {
		softiw_mpa_put_ird_ord(pd, info);
		pd += sizeof(struct softiw_mpa_v2_ird_ord);
	}
	if (info->pd_len)
		memcpy(pd, info->pdata, info->pd_len);
	return sizeof(*hdr) + pd_len;
}
EXPORT_SYMBOL_IF_KUNIT(kiwi_softiw_mpa_build);

/**
 * kiwi_softiw_mpa_decode() - validate and read a complete Request or Reply
 * @kind: the frame expected
 * @frame: its bytes
 * @len: their number: exactly one frame
 * @info: filled in on success; @info->pdata points into @frame
 *
 * Reserved flag bits are not checked: RFC 5044 has receivers ignore them
 * (Linux siw defines one of them for its own use). The Enhanced flag counts
 * in revision 2 frames only.
 *
 * Context: any context.
 * Return: 0, or a negative errno from "MPA errors": -EILSEQ,
 * -EPROTONOSUPPORT, -EMSGSIZE, -EBADMSG, -ENODATA or -EPROTO.
 */
int kiwi_softiw_mpa_decode(enum softiw_mpa_kind kind, const void *frame,
			   size_t len, struct kiwi_softiw_mpa_info *info)
{
	const struct softiw_mpa_hdr *hdr = frame;
	const u8 *pd = (const u8 *)frame + sizeof(*hdr);
	u16 pd_len;
	int ret;

	if (len < sizeof(*hdr))
		return -ENODATA;
	ret = softiw_mpa_check_hdr(kind, hdr);
	if (ret)
		return ret;
	pd_len = get_unaligned_be16(&hdr->pd_len);
	if (len < sizeof(*hdr) + pd_len)
		return -ENODATA;
	if (len > sizeof(*hdr) + pd_len)
		return -EPROTO;

	memset(info, 0, sizeof(*info));
	info->rev = hdr->rev;
	info->markers = hdr->flags & SOFTIW_MPA_FLAG_MARKERS;
	info->crc = hdr->flags & SOFTIW_MPA_FLAG_CRC;
	info->reject = hdr->flags & SOFTIW_MPA_FLAG_REJECT;
	info->enhanced = softiw_mpa_hdr_enhanced(hdr);
	if (info->enhanced) {
		softiw_mpa_get_ird_ord(pd, info);
		pd += sizeof(struct softiw_mpa_v2_ird_ord);
		pd_len -= sizeof(struct softiw_mpa_v2_ird_ord);
	}
	info->pdata = pd_len ? pd : NULL;
	info->pd_len = pd_len;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(kiwi_softiw_mpa_decode);

/**
 * kiwi_softiw_mpa_rx_init() - prepare to receive one frame
 * @rx: the receiver
 * @kind: the frame expected
 *
 * Context: any context.
 */
void kiwi_softiw_mpa_rx_init(struct kiwi_softiw_mpa_rx *rx,
			     enum softiw_mpa_kind kind)
{
	rx->kind = kind;
	rx->got = 0;
	rx->len = 0;
	rx->err = 0;
	rx->done = false;
}
EXPORT_SYMBOL_IF_KUNIT(kiwi_softiw_mpa_rx_init);

/**
 * kiwi_softiw_mpa_rx_missing() - bytes the receiver still needs
 * @rx: the receiver
 *
 * A caller reading from a stream asks for no more than this, so that it
 * never takes bytes that follow the frame.
 *
 * Context: any context.
 * Return: bytes missing from the header, or once it is in, from the frame;
 * 0 when the frame is complete or reception has failed.
 */
size_t kiwi_softiw_mpa_rx_missing(const struct kiwi_softiw_mpa_rx *rx)
{
	if (rx->err || rx->done)
		return 0;
	if (!rx->len)
		return sizeof(struct softiw_mpa_hdr) - rx->got;
	return rx->len - rx->got;
}
EXPORT_SYMBOL_IF_KUNIT(kiwi_softiw_mpa_rx_missing);

static int softiw_mpa_rx_fail(struct kiwi_softiw_mpa_rx *rx, int err)
{
	rx->err = err;
	return err;
}

/* The header has just been completed: check it, learn the frame length. */
static int softiw_mpa_rx_hdr(struct kiwi_softiw_mpa_rx *rx)
{
	const struct softiw_mpa_hdr *hdr = (const void *)rx->buf;
	int ret;

	ret = softiw_mpa_check_hdr(rx->kind, hdr);
	if (ret)
		return ret;
	rx->len = sizeof(*hdr) + get_unaligned_be16(&hdr->pd_len);
	return 0;
}

/**
 * kiwi_softiw_mpa_rx_feed() - give the receiver the next bytes of the stream
 * @rx: the receiver
 * @data: the bytes, in any chunking, down to one at a time
 * @len: their number
 * @info: filled in when the frame is complete; @info->pdata points into
 *	@rx, valid until @rx is reinitialised or freed
 *
 * The header is checked as soon as its 20 bytes are in, before any
 * private data is taken. An error is sticky: every later call returns it.
 * Bytes past the end of the frame are an error, since neither MPA peer
 * may send before it has received the other's frame.
 *
 * Context: any context.
 * Return: %SOFTIW_MPA_RX_MORE if all bytes were taken and the frame is not
 * complete, %SOFTIW_MPA_RX_DONE once it is, or a negative errno from
 * "MPA errors": -EILSEQ, -EPROTONOSUPPORT, -EMSGSIZE, -EBADMSG or -EPROTO.
 */
int kiwi_softiw_mpa_rx_feed(struct kiwi_softiw_mpa_rx *rx, const void *data,
			    size_t len, struct kiwi_softiw_mpa_info *info)
{
	const u8 *p = data;
	int ret;

	if (rx->err)
		return rx->err;
	while (len) {
		size_t n = min(len, kiwi_softiw_mpa_rx_missing(rx));

		if (!n)
			return softiw_mpa_rx_fail(rx, -EPROTO);
		memcpy(rx->buf + rx->got, p, n);
		rx->got += n;
		p += n;
		len -= n;
		if (!rx->len && rx->got == sizeof(struct softiw_mpa_hdr)) {
			ret = softiw_mpa_rx_hdr(rx);
			if (ret)
				return softiw_mpa_rx_fail(rx, ret);
		}
		if (rx->len && rx->got == rx->len)
			rx->done = true;
	}
	if (!rx->done)
		return SOFTIW_MPA_RX_MORE;
	ret = kiwi_softiw_mpa_decode(rx->kind, rx->buf, rx->len, info);
	if (ret)
		return softiw_mpa_rx_fail(rx, ret);
	return SOFTIW_MPA_RX_DONE;
}
EXPORT_SYMBOL_IF_KUNIT(kiwi_softiw_mpa_rx_feed);

static int softiw_mpa_check_local(const struct kiwi_softiw_mpa_local *local)
{
	if (!softiw_mpa_rev_ok(local->rev))
		return -EINVAL;
	if (local->ird > SOFTIW_MPA_IRD_ORD_MAX ||
	    local->ord > SOFTIW_MPA_IRD_ORD_MAX)
		return -EINVAL;
	if (local->rtr & ~SOFTIW_RTR_ALL)
		return -EINVAL;
	if (local->p2p && (local->rev != SOFTIW_MPA_REV2 || !local->rtr))
		return -EINVAL;
	return 0;
}

/* Attach the ULP's private data to @info, checking the MPA limit. */
static int softiw_mpa_set_pdata(struct kiwi_softiw_mpa_info *info,
				const void *pdata, u16 pd_len)
{
	if (pd_len && !pdata)
		return -EINVAL;
	info->pdata = pd_len ? pdata : NULL;
	info->pd_len = pd_len;
	if (softiw_mpa_pd_len(info) > SOFTIW_MPA_PD_MAX)
		return -EMSGSIZE;
	return 0;
}

/**
 * kiwi_softiw_mpa_request() - the Request an initiator sends
 * @local: this end's configuration
 * @pdata: the ULP's private data
 * @pd_len: its length; with the IRD/ORD word of revision 2, at most 512
 * @req: filled in, to give to kiwi_softiw_mpa_build()
 *
 * Revision 2 requests are always enhanced: they carry this end's IRD and
 * ORD, and with @local->p2p the peer-to-peer flag and the RTR types
 * offered.
 *
 * Context: any context.
 * Return: 0, -EMSGSIZE if the private data is too long, or -EINVAL if
 * @local is invalid.
 */
int kiwi_softiw_mpa_request(const struct kiwi_softiw_mpa_local *local,
			    const void *pdata, u16 pd_len,
			    struct kiwi_softiw_mpa_info *req)
{
	int ret;

	ret = softiw_mpa_check_local(local);
	if (ret)
		return ret;
	memset(req, 0, sizeof(*req));
	req->rev = local->rev;
	req->crc = local->crc;
	req->enhanced = local->rev == SOFTIW_MPA_REV2;
	if (req->enhanced) {
		req->ird = local->ird;
		req->ord = local->ord;
		req->p2p = local->p2p;
		req->rtr = local->p2p ? local->rtr : 0;
	}
	return softiw_mpa_set_pdata(req, pdata, pd_len);
}
EXPORT_SYMBOL_IF_KUNIT(kiwi_softiw_mpa_request);

/*
 * The part of a reply that accepting and rejecting share: revision, CRC,
 * IRD/ORD, private data. Each end's ORD is bounded by the other's IRD.
 */
static int softiw_mpa_reply_init(const struct kiwi_softiw_mpa_local *local,
				 const struct kiwi_softiw_mpa_info *req,
				 const void *pdata, u16 pd_len,
				 struct kiwi_softiw_mpa_info *rep)
{
	int ret;

	ret = softiw_mpa_check_local(local);
	if (ret)
		return ret;
	memset(rep, 0, sizeof(*rep));
	rep->rev = min(req->rev, local->rev);
	rep->crc = req->crc || local->crc;
	rep->enhanced = req->enhanced && rep->rev == SOFTIW_MPA_REV2;
	if (rep->enhanced) {
		rep->ird = min(local->ird, req->ord);
		rep->ord = min(local->ord, req->ird);
	}
	return softiw_mpa_set_pdata(rep, pdata, pd_len);
}

/* The RTR type a responder picks from a set: WRITE, then READ, then SEND. */
static u8 softiw_mpa_pick_rtr(u8 set)
{
	if (set & SOFTIW_RTR_WRITE)
		return SOFTIW_RTR_WRITE;
	if (set & SOFTIW_RTR_READ)
		return SOFTIW_RTR_READ;
	return set & SOFTIW_RTR_SEND;
}

/**
 * kiwi_softiw_mpa_accept() - the Reply a responder sends to accept
 * @local: this end's configuration; @local->rtr lists the RTR types this
 *	end can receive, @local->p2p is not used
 * @req: the Request received, as decoded
 * @pdata: the ULP's private data for the reply
 * @pd_len: its length
 * @rep: filled in, to give to kiwi_softiw_mpa_build()
 * @res: filled in: what the connection will use
 *
 * The reply speaks the lower of both revisions, and is enhanced if the
 * request is and both speak revision 2. CRC is on if either end asks.
 * For a peer-to-peer request the reply names one RTR type from those
 * offered that this end accepts, preferring WRITE, then READ, then SEND.
 * On error the caller answers with kiwi_softiw_mpa_reject().
 *
 * Context: any context.
 * Return: 0, -EOPNOTSUPP if the request asks for markers, -ENOPROTOOPT if
 * no offered RTR type is accepted, -EMSGSIZE if the private data is too
 * long, or -EINVAL if @local is invalid.
 */
int kiwi_softiw_mpa_accept(const struct kiwi_softiw_mpa_local *local,
			   const struct kiwi_softiw_mpa_info *req,
			   const void *pdata, u16 pd_len,
			   struct kiwi_softiw_mpa_info *rep,
			   struct kiwi_softiw_mpa_result *res)
{
	int ret;

	ret = softiw_mpa_reply_init(local, req, pdata, pd_len, rep);
	if (ret)
		return ret;
	if (req->markers)
		return -EOPNOTSUPP;
	if (rep->enhanced && req->p2p) {
		rep->p2p = true;
		rep->rtr = softiw_mpa_pick_rtr(req->rtr & local->rtr);
		if (!rep->rtr)
			return -ENOPROTOOPT;
	}
	memset(res, 0, sizeof(*res));
	res->rev = rep->rev;
	res->crc = rep->crc;
	res->enhanced = rep->enhanced;
	res->p2p = rep->p2p;
	res->rtr = rep->rtr;
	res->ird = rep->enhanced ? rep->ird : local->ird;
	res->ord = rep->enhanced ? rep->ord : local->ord;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(kiwi_softiw_mpa_accept);

/**
 * kiwi_softiw_mpa_reject() - the Reply a responder sends to refuse
 * @local: this end's configuration
 * @req: the Request received, as decoded
 * @pdata: the ULP's private data for the reply
 * @pd_len: its length
 * @rep: filled in, to give to kiwi_softiw_mpa_build()
 *
 * The reply has the Reject flag, no markers, and, answering an enhanced
 * request, an IRD/ORD word: Linux siw strips four bytes from the private
 * data of any reply to its enhanced request, rejecting or not.
 *
 * Context: any context.
 * Return: 0, -EMSGSIZE if the private data is too long, or -EINVAL if
 * @local is invalid.
 */
int kiwi_softiw_mpa_reject(const struct kiwi_softiw_mpa_local *local,
			   const struct kiwi_softiw_mpa_info *req,
			   const void *pdata, u16 pd_len,
			   struct kiwi_softiw_mpa_info *rep)
{
	int ret;

	ret = softiw_mpa_reply_init(local, req, pdata, pd_len, rep);
	if (ret)
		return ret;
	rep->reject = true;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(kiwi_softiw_mpa_reject);

static int softiw_mpa_check_reply(const struct kiwi_softiw_mpa_info *req,
				  const struct kiwi_softiw_mpa_info *rep)
{
	if (rep->rev > req->rev)
		return -EPROTONOSUPPORT;
	if (rep->reject)
		return -ECONNREFUSED;
	if (rep->markers)
		return -EOPNOTSUPP;
	if (rep->enhanced && !req->enhanced)
		return -EBADMSG;
	if (req->enhanced && rep->rev == SOFTIW_MPA_REV2 && !rep->enhanced)
		return -EBADMSG;
	return 0;
}

/**
 * kiwi_softiw_mpa_connected() - check the Reply an initiator received
 * @local: this end's configuration, as given to kiwi_softiw_mpa_request()
 * @req: the Request this end sent
 * @rep: the Reply received, as decoded
 * @res: filled in on success: what the connection will use
 *
 * A revision 1 reply to an enhanced request is a fall back (RFC 6581):
 * the connection goes on in revision 1, without IRD/ORD exchange and
 * without peer-to-peer mode, so this end must send the first FPDU; @res
 * says so with @res->enhanced and @res->p2p false. An enhanced reply
 * sets this end's ORD to at most the responder's IRD; the responder's ORD
 * must fit in this end's IRD. In peer-to-peer mode the reply must name
 * an RTR type offered; if it names several (Intel's iWARP drivers set the
 * B flag in every reply), the same preference as the responder's picks
 * one.
 *
 * Context: any context.
 * Return: 0, or -ECONNREFUSED if the reply rejects the connection,
 * -EOPNOTSUPP if it asks for markers, -EPROTONOSUPPORT if its revision is
 * above the request's, -EBADMSG if its enhanced flag disagrees with the
 * request, -ENOSPC if its ORD exceeds @local->ird, -ENOPROTOOPT if it
 * names no RTR type offered. -ENOSPC and -ENOPROTOOPT call for a TERMINATE
 * (LLP, MPA, insufficient IRD or no matching RTR).
 */
int kiwi_softiw_mpa_connected(const struct kiwi_softiw_mpa_local *local,
			      const struct kiwi_softiw_mpa_info *req,
			      const struct kiwi_softiw_mpa_info *rep,
			      struct kiwi_softiw_mpa_result *res)
{
	int ret;

	ret = softiw_mpa_check_reply(req, rep);
	if (ret)
		return ret;
	memset(res, 0, sizeof(*res));
	res->rev = rep->rev;
	res->crc = req->crc || rep->crc;
	if (!rep->enhanced) {
		res->ird = local->ird;
		res->ord = local->ord;
		return 0;
	}
	if (rep->ord > local->ird)
		return -ENOSPC;
	if (req->p2p) {
		res->p2p = true;
		res->rtr = softiw_mpa_pick_rtr(rep->rtr & req->rtr);
		if (!res->rtr)
			return -ENOPROTOOPT;
	}
	res->enhanced = true;
	res->ird = rep->ord;
	res->ord = min(req->ord, rep->ird);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(kiwi_softiw_mpa_connected);
