// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_softiw_mpa: MPA Request/Reply frames of kiwi_softiw against bytes
 * written out by hand from RFC 5044 and RFC 6581 (an oracle independent of
 * the encoder), fed whole and one byte at a time; encoder round trips;
 * and the negotiation rules of both ends.
 */
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/string.h>

#include "mpa.h"
#include "mpa_key.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

/* A frame as a string literal: key, then each field as its own escape. */
#define FRAME(s) .bytes = (const u8 *)(s), .len = sizeof(s) - 1

/*
 * v2 request: CRC and Enhanced flags (0x50), rev 2, PD_Length 7; IRD word
 * P2P | 5, ORD word READ RTR | 7; private data "kiw".
 */
#define REQ_V2_P2P_READ \
	KEY_REQ "\x50\x02\x00\x07\x80\x05\x40\x07kiw"

/* Its accepting reply: CRC and Enhanced, IRD P2P | 7, ORD READ RTR | 5. */
#define REP_V2_P2P_READ \
	KEY_REP "\x50\x02\x00\x06\x80\x07\x40\x05ok"

struct mpa_vector {
	const char *name;
	enum softiw_mpa_kind kind;
	const u8 *bytes;
	size_t len;
	int verdict;	/* SOFTIW_MPA_RX_DONE, SOFTIW_MPA_RX_MORE or -errno */
	struct kiwi_softiw_mpa_info want;
	const char *want_pd;
};

static const struct mpa_vector mpa_vectors[] = {
	{ "v2 request p2p read rtr", SOFTIW_MPA_REQUEST,
	  FRAME(REQ_V2_P2P_READ), .verdict = SOFTIW_MPA_RX_DONE,
	  .want = { .rev = 2, .crc = true, .enhanced = true, .p2p = true,
		    .rtr = SOFTIW_RTR_READ, .ird = 5, .ord = 7, .pd_len = 3 },
	  .want_pd = "kiw" },
	{ "v2 reply p2p read rtr", SOFTIW_MPA_REPLY,
	  FRAME(REP_V2_P2P_READ), .verdict = SOFTIW_MPA_RX_DONE,
	  .want = { .rev = 2, .crc = true, .enhanced = true, .p2p = true,
		    .rtr = SOFTIW_RTR_READ, .ird = 7, .ord = 5, .pd_len = 2 },
	  .want_pd = "ok" },
	{ "v2 request all rtr max depth", SOFTIW_MPA_REQUEST,
	  FRAME(KEY_REQ "\x10\x02\x00\x04\xff\xff\xff\xff"),
	  .verdict = SOFTIW_MPA_RX_DONE,
	  .want = { .rev = 2, .enhanced = true, .p2p = true,
		    .rtr = SOFTIW_RTR_ALL, .ird = 0x3fff, .ord = 0x3fff } },
	{ "v1 request bare", SOFTIW_MPA_REQUEST,
	  FRAME(KEY_REQ "\x00\x01\x00\x00"),
	  .verdict = SOFTIW_MPA_RX_DONE, .want = { .rev = 1 } },
	{ "v1 reject reply", SOFTIW_MPA_REPLY,
	  FRAME(KEY_REP "\x60\x01\x00\x02no"),
	  .verdict = SOFTIW_MPA_RX_DONE,
	  .want = { .rev = 1, .crc = true, .reject = true, .pd_len = 2 },
	  .want_pd = "no" },
	{ "markers decoded", SOFTIW_MPA_REQUEST,
	  FRAME(KEY_REQ "\x80\x01\x00\x00"),
	  .verdict = SOFTIW_MPA_RX_DONE, .want = { .rev = 1, .markers = true } },
	{ "reserved bits ignored", SOFTIW_MPA_REQUEST,
	  FRAME(KEY_REQ "\x0f\x01\x00\x00"),
	  .verdict = SOFTIW_MPA_RX_DONE, .want = { .rev = 1 } },
	{ "enhanced flag of v1 ignored", SOFTIW_MPA_REQUEST,
	  FRAME(KEY_REQ "\x10\x01\x00\x04wxyz"),
	  .verdict = SOFTIW_MPA_RX_DONE, .want = { .rev = 1, .pd_len = 4 },
	  .want_pd = "wxyz" },
	{ "v2 not enhanced", SOFTIW_MPA_REPLY,
	  FRAME(KEY_REP "\x00\x02\x00\x01x"),
	  .verdict = SOFTIW_MPA_RX_DONE, .want = { .rev = 2, .pd_len = 1 },
	  .want_pd = "x" },
	{ "truncated private data", SOFTIW_MPA_REQUEST,
	  FRAME(KEY_REQ "\x00\x01\x00\x05xyz"),
	  .verdict = SOFTIW_MPA_RX_MORE },
	{ "truncated header", SOFTIW_MPA_REQUEST,
	  FRAME(KEY_REQ "\x00\x01\x00"), .verdict = SOFTIW_MPA_RX_MORE },
	{ "reply key in request", SOFTIW_MPA_REQUEST,
	  FRAME(KEY_REP "\x00\x01\x00\x00"), .verdict = -EILSEQ },
	{ "request key in reply", SOFTIW_MPA_REPLY,
	  FRAME(KEY_REQ "\x00\x01\x00\x00"), .verdict = -EILSEQ },
	{ "http instead of mpa", SOFTIW_MPA_REQUEST,
	  FRAME("GET / HTTP/1.1\r\n\r\n\x00\x00"), .verdict = -EILSEQ },
	{ "revision 0", SOFTIW_MPA_REQUEST,
	  FRAME(KEY_REQ "\x00\x00\x00\x00"), .verdict = -EPROTONOSUPPORT },
	{ "revision 3", SOFTIW_MPA_REPLY,
	  FRAME(KEY_REP "\x00\x03\x00\x00"), .verdict = -EPROTONOSUPPORT },
	{ "private data 513", SOFTIW_MPA_REQUEST,
	  FRAME(KEY_REQ "\x00\x01\x02\x01"), .verdict = -EMSGSIZE },
	{ "private data 65535", SOFTIW_MPA_REPLY,
	  FRAME(KEY_REP "\x00\x01\xff\xff"), .verdict = -EMSGSIZE },
	{ "reject flag in request", SOFTIW_MPA_REQUEST,
	  FRAME(KEY_REQ "\x20\x01\x00\x00"), .verdict = -EBADMSG },
	{ "enhanced without ird/ord", SOFTIW_MPA_REQUEST,
	  FRAME(KEY_REQ "\x10\x02\x00\x03\x80\x05\x40"),
	  .verdict = -EBADMSG },
	{ "byte after request", SOFTIW_MPA_REQUEST,
	  FRAME(KEY_REQ "\x00\x01\x00\x01yz"), .verdict = -EPROTO },
	{ "fpdu after reply", SOFTIW_MPA_REPLY,
	  FRAME(KEY_REP "\x00\x01\x00\x00\x00\x0e\xc1\x40"),
	  .verdict = -EPROTO },
};

/* KUnit of 6.1 has no KUNIT_EXPECT_MEMEQ */
static void expect_bytes(struct kunit *test, const void *got,
			 const void *want, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (((const u8 *)got)[i] != ((const u8 *)want)[i])
			break;
	KUNIT_EXPECT_EQ_MSG(test, i, len, "first difference at byte %zu", i);
}

static void mpa_vector_desc(const struct mpa_vector *v, char *desc)
{
	strscpy(desc, v->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(mpa_vector, mpa_vectors, mpa_vector_desc);

/* The first field that differs, so that a failure logs one short line. */
static const char *info_diff(const struct kiwi_softiw_mpa_info *got,
			     const struct kiwi_softiw_mpa_info *want,
			     const void *want_pd)
{
	if (got->rev != want->rev)
		return "rev";
	if (got->markers != want->markers || got->crc != want->crc ||
	    got->reject != want->reject || got->enhanced != want->enhanced)
		return "flags";
	if (got->p2p != want->p2p || got->rtr != want->rtr)
		return "p2p/rtr";
	if (got->ird != want->ird || got->ord != want->ord)
		return "ird/ord";
	if (got->pd_len != want->pd_len)
		return "pd_len";
	if (!got->pd_len)
		return got->pdata ? "pdata" : "";
	return memcmp(got->pdata, want_pd, got->pd_len) ? "pdata" : "";
}

static void expect_info(struct kunit *test, const struct mpa_vector *v,
			const struct kiwi_softiw_mpa_info *got)
{
	KUNIT_EXPECT_STREQ(test, info_diff(got, &v->want, v->want_pd), "");
}

static struct kiwi_softiw_mpa_rx *new_rx(struct kunit *test,
					 enum softiw_mpa_kind kind)
{
	struct kiwi_softiw_mpa_rx *rx = kunit_kzalloc(test, sizeof(*rx),
						      GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, rx);
	kiwi_softiw_mpa_rx_init(rx, kind);
	return rx;
}

/* The vector in one chunk: the receiver and the decoder agree with it. */
static void mpa_feed_whole(struct kunit *test)
{
	const struct mpa_vector *v = test->param_value;
	struct kiwi_softiw_mpa_rx *rx = new_rx(test, v->kind);
	struct kiwi_softiw_mpa_info info = {};
	int ret;

	ret = kiwi_softiw_mpa_rx_feed(rx, v->bytes, v->len, &info);
	KUNIT_ASSERT_EQ(test, ret, v->verdict);
	if (ret < 0) {
		/* sticky, and no more bytes asked for */
		KUNIT_EXPECT_EQ(test, kiwi_softiw_mpa_rx_feed(rx, "", 1, &info),
				ret);
		KUNIT_EXPECT_EQ(test, kiwi_softiw_mpa_rx_missing(rx), 0);
	}
	if (ret == SOFTIW_MPA_RX_MORE) {
		KUNIT_EXPECT_GT(test, kiwi_softiw_mpa_rx_missing(rx), 0);
		KUNIT_EXPECT_EQ(test, kiwi_softiw_mpa_decode(v->kind, v->bytes,
							     v->len, &info),
				-ENODATA);
	}
	if (ret != SOFTIW_MPA_RX_DONE)
		return;
	expect_info(test, v, &info);
	KUNIT_EXPECT_EQ(test, kiwi_softiw_mpa_rx_missing(rx), 0);
	KUNIT_ASSERT_EQ(test, kiwi_softiw_mpa_decode(v->kind, v->bytes, v->len,
						     &info), 0);
	expect_info(test, v, &info);
}

/* The vector one byte at a time: same verdict, reached at the same byte. */
static void mpa_feed_bytewise(struct kunit *test)
{
	const struct mpa_vector *v = test->param_value;
	struct kiwi_softiw_mpa_rx *rx = new_rx(test, v->kind);
	struct kiwi_softiw_mpa_info info = {};
	size_t i, asked = 0;
	int ret = SOFTIW_MPA_RX_MORE;

	for (i = 0; i < v->len; i++) {
		asked = kiwi_softiw_mpa_rx_missing(rx);
		ret = kiwi_softiw_mpa_rx_feed(rx, &v->bytes[i], 1, &info);
		if (ret < 0)
			break;
	}
	KUNIT_ASSERT_EQ(test, ret, v->verdict);
	if (ret == SOFTIW_MPA_RX_DONE)
		expect_info(test, v, &info);
	/* a reader asking for no more than missing never takes those bytes */
	if (ret == -EPROTO)
		KUNIT_EXPECT_EQ(test, asked, 0);
	/* header errors are found on the header's last byte */
	if (ret == -EMSGSIZE || ret == -EILSEQ || ret == -EPROTONOSUPPORT ||
	    ret == -EBADMSG)
		KUNIT_EXPECT_EQ(test, i, sizeof(struct softiw_mpa_hdr) - 1);
}

static u32 xorshift(u32 *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 17;
	*state ^= *state << 5;
	return *state;
}

/* Feed @len bytes in chunks of 1 to 8 bytes, stop at the first error. */
static int feed_chunked(struct kiwi_softiw_mpa_rx *rx, const u8 *p,
			size_t len, struct kiwi_softiw_mpa_info *info,
			u32 *seed)
{
	int ret = SOFTIW_MPA_RX_MORE;
	size_t n;

	while (len && ret >= 0) {
		n = min_t(size_t, len, 1 + xorshift(seed) % 8);
		ret = kiwi_softiw_mpa_rx_feed(rx, p, n, info);
		p += n;
		len -= n;
	}
	return ret;
}

/*
 * Corrupted vectors (random bit flips, extra bytes): whatever the chunking,
 * the receiver reaches the same verdict and reads the same frame.
 */
static void mpa_chunking_invariance(struct kunit *test)
{
	struct kiwi_softiw_mpa_rx *one = new_rx(test, SOFTIW_MPA_REQUEST);
	struct kiwi_softiw_mpa_rx *many = new_rx(test, SOFTIW_MPA_REQUEST);
	struct kiwi_softiw_mpa_info a, b;
	u8 *buf = kunit_kzalloc(test, 64, GFP_KERNEL);
	u32 seed = 0x6b697769;
	int iter, bad = 0, done = 0;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (iter = 0; iter < 2000; iter++) {
		const struct mpa_vector *v =
			&mpa_vectors[xorshift(&seed) % ARRAY_SIZE(mpa_vectors)];
		size_t len = v->len + xorshift(&seed) % 3;
		int ra, rb;

		memset(buf, 0, 64);
		memcpy(buf, v->bytes, v->len);
		buf[xorshift(&seed) % len] ^= BIT(xorshift(&seed) % 8);
		kiwi_softiw_mpa_rx_init(one, v->kind);
		kiwi_softiw_mpa_rx_init(many, v->kind);
		ra = kiwi_softiw_mpa_rx_feed(one, buf, len, &a);
		rb = feed_chunked(many, buf, len, &b, &seed);
		if (ra != rb || (ra == SOFTIW_MPA_RX_DONE &&
				 *info_diff(&a, &b, b.pdata)))
			bad++;
		done += ra == SOFTIW_MPA_RX_DONE;
	}
	KUNIT_EXPECT_EQ(test, bad, 0);
	/* the corpus reaches both verdicts */
	KUNIT_EXPECT_GT(test, done, 10);
	KUNIT_EXPECT_LT(test, done, 1990);
}

/* The longest legal frame is taken; the peer's length never sizes memory. */
static void mpa_longest_frame(struct kunit *test)
{
	struct kiwi_softiw_mpa_rx *rx = new_rx(test, SOFTIW_MPA_REQUEST);
	struct kiwi_softiw_mpa_info info = {};
	const char hdr[] = KEY_REQ "\x00\x01\x02\x00";
	u8 *frame = kunit_kzalloc(test, SOFTIW_MPA_FRAME_MAX, GFP_KERNEL);
	size_t i;
	int ret = SOFTIW_MPA_RX_MORE;

	KUNIT_ASSERT_NOT_NULL(test, frame);
	KUNIT_ASSERT_EQ(test, SOFTIW_MPA_FRAME_MAX, 532UL);
	memcpy(frame, hdr, sizeof(hdr) - 1);
	memset(frame + sizeof(hdr) - 1, 0xa5, SOFTIW_MPA_PD_MAX);
	for (i = 0; i < SOFTIW_MPA_FRAME_MAX && ret == SOFTIW_MPA_RX_MORE;
	     i += 7)
		ret = kiwi_softiw_mpa_rx_feed(rx, frame + i,
					      min_t(size_t, 7,
						    SOFTIW_MPA_FRAME_MAX - i),
					      &info);
	KUNIT_ASSERT_EQ(test, ret, SOFTIW_MPA_RX_DONE);
	KUNIT_EXPECT_EQ(test, info.pd_len, SOFTIW_MPA_PD_MAX);
	KUNIT_EXPECT_EQ(test, info.pdata[SOFTIW_MPA_PD_MAX - 1], 0xa5);
}

static const struct kiwi_softiw_mpa_local initiator_p2p_read = {
	.rev = 2, .crc = true, .p2p = true, .rtr = SOFTIW_RTR_READ,
	.ird = 5, .ord = 7,
};

static const struct kiwi_softiw_mpa_local responder_all = {
	.rev = 2, .rtr = SOFTIW_RTR_ALL, .ird = 16, .ord = 16,
};

/* The encoder, driven by the negotiation, writes the RFC bytes above. */
static void mpa_encoder_matches_rfc_bytes(struct kunit *test)
{
	struct kiwi_softiw_mpa_info req, rep;
	struct kiwi_softiw_mpa_result res;
	size_t size = SOFTIW_MPA_FRAME_MAX;
	u8 *buf = kunit_kzalloc(test, size, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_EQ(test, kiwi_softiw_mpa_request(&initiator_p2p_read,
						      "kiw", 3, &req), 0);
	KUNIT_ASSERT_EQ(test, kiwi_softiw_mpa_build(SOFTIW_MPA_REQUEST, &req,
						    buf, size),
			sizeof(REQ_V2_P2P_READ) - 1);
	expect_bytes(test, buf, REQ_V2_P2P_READ, sizeof(REQ_V2_P2P_READ) - 1);

	KUNIT_ASSERT_EQ(test, kiwi_softiw_mpa_accept(&responder_all, &req,
						     "ok", 2, &rep, &res), 0);
	KUNIT_ASSERT_EQ(test, kiwi_softiw_mpa_build(SOFTIW_MPA_REPLY, &rep,
						    buf, size),
			sizeof(REP_V2_P2P_READ) - 1);
	expect_bytes(test, buf, REP_V2_P2P_READ, sizeof(REP_V2_P2P_READ) - 1);
}

/* Whatever the encoder accepts, the decoder reads back unchanged. */
static void mpa_round_trip(struct kunit *test)
{
	static const u8 pd[SOFTIW_MPA_PD_MAX] = { [0] = 1, [511] = 2 };
	const struct kiwi_softiw_mpa_info infos[] = {
		{ .rev = 1 },
		{ .rev = 1, .crc = true, .pdata = pd, .pd_len = 512 },
		{ .rev = 2, .enhanced = true, .ird = 0x3fff, .ord = 1,
		  .p2p = true, .rtr = SOFTIW_RTR_SEND, .pdata = pd,
		  .pd_len = 508 },
		{ .rev = 2, .reject = true, .enhanced = true, .rtr = 0 },
	};
	struct kiwi_softiw_mpa_info got;
	u8 *buf = kunit_kzalloc(test, SOFTIW_MPA_FRAME_MAX, GFP_KERNEL);
	int i, len;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (i = 0; i < ARRAY_SIZE(infos); i++) {
		len = kiwi_softiw_mpa_build(SOFTIW_MPA_REPLY, &infos[i], buf,
					    SOFTIW_MPA_FRAME_MAX);
		KUNIT_ASSERT_GT(test, len, 0);
		KUNIT_ASSERT_EQ(test, kiwi_softiw_mpa_decode(SOFTIW_MPA_REPLY,
							     buf, len, &got), 0);
		KUNIT_EXPECT_STREQ(test, info_diff(&got, &infos[i], pd), "");
	}
}

/* What the encoder refuses to write. */
static void mpa_build_refusals(struct kunit *test)
{
	static const u8 pd[SOFTIW_MPA_PD_MAX + 1];
	struct kiwi_softiw_mpa_info info = { .rev = 1 };
	size_t size = SOFTIW_MPA_FRAME_MAX;
	u8 *buf = kunit_kzalloc(test, size, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, buf);
	info.markers = true;
	KUNIT_EXPECT_EQ(test, kiwi_softiw_mpa_build(SOFTIW_MPA_REQUEST, &info,
						    buf, size),
			-EOPNOTSUPP);
	info.markers = false;
	info.reject = true;
	KUNIT_EXPECT_EQ(test, kiwi_softiw_mpa_build(SOFTIW_MPA_REQUEST, &info,
						    buf, size), -EINVAL);
	info.reject = false;
	info.enhanced = true;
	KUNIT_EXPECT_EQ(test, kiwi_softiw_mpa_build(SOFTIW_MPA_REQUEST, &info,
						    buf, size), -EINVAL);
	info.rev = 2;
	info.ird = 0x4000;
	KUNIT_EXPECT_EQ(test, kiwi_softiw_mpa_build(SOFTIW_MPA_REQUEST, &info,
						    buf, size), -EINVAL);
	info.ird = 0;
	info.pdata = pd;
	info.pd_len = 509;
	KUNIT_EXPECT_EQ(test, kiwi_softiw_mpa_build(SOFTIW_MPA_REQUEST, &info,
						    buf, size),
			-EMSGSIZE);
	info.pd_len = 508;
	KUNIT_EXPECT_EQ(test, kiwi_softiw_mpa_build(SOFTIW_MPA_REQUEST, &info,
						    buf, size - 1),
			-ENOBUFS);
	KUNIT_EXPECT_EQ(test, kiwi_softiw_mpa_build(SOFTIW_MPA_REQUEST, &info,
						    buf, size),
			SOFTIW_MPA_FRAME_MAX);
}

/* Both ends, through real frames: request, reply, result on each side. */
static int handshake(struct kunit *test,
		     const struct kiwi_softiw_mpa_local *ini,
		     const struct kiwi_softiw_mpa_local *resp,
		     struct kiwi_softiw_mpa_result *ini_res,
		     struct kiwi_softiw_mpa_result *resp_res)
{
	struct kiwi_softiw_mpa_info req, rep, got_req, got_rep;
	u8 *buf = kunit_kzalloc(test, SOFTIW_MPA_FRAME_MAX, GFP_KERNEL);
	int len, ret, conn, want;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_EQ(test, kiwi_softiw_mpa_request(ini, NULL, 0, &req), 0);
	len = kiwi_softiw_mpa_build(SOFTIW_MPA_REQUEST, &req, buf,
				    SOFTIW_MPA_FRAME_MAX);
	KUNIT_ASSERT_GT(test, len, 0);
	ret = kiwi_softiw_mpa_decode(SOFTIW_MPA_REQUEST, buf, len, &got_req);
	KUNIT_ASSERT_EQ(test, ret, 0);
	ret = kiwi_softiw_mpa_accept(resp, &got_req, NULL, 0, &rep, resp_res);
	if (ret)
		KUNIT_ASSERT_EQ(test, kiwi_softiw_mpa_reject(resp, &got_req,
							     NULL, 0, &rep),
				0);
	/* the request is still in @buf: got_req.pdata is NULL, no aliasing */
	len = kiwi_softiw_mpa_build(SOFTIW_MPA_REPLY, &rep, buf,
				    SOFTIW_MPA_FRAME_MAX);
	KUNIT_ASSERT_GT(test, len, 0);
	conn = kiwi_softiw_mpa_decode(SOFTIW_MPA_REPLY, buf, len, &got_rep);
	KUNIT_ASSERT_EQ(test, conn, 0);
	conn = kiwi_softiw_mpa_connected(ini, &req, &got_rep, ini_res);
	want = ret ? -ECONNREFUSED : 0;
	KUNIT_EXPECT_EQ(test, conn, want);
	return ret;
}

/* The first field that differs, so that a failure logs one short line. */
static const char *res_diff(const struct kiwi_softiw_mpa_result *got,
			    const struct kiwi_softiw_mpa_result *want)
{
	if (got->rev != want->rev)
		return "rev";
	if (got->crc != want->crc)
		return "crc";
	if (got->enhanced != want->enhanced)
		return "enhanced";
	if (got->p2p != want->p2p || got->rtr != want->rtr)
		return "p2p/rtr";
	if (got->ird != want->ird)
		return "ird";
	if (got->ord != want->ord)
		return "ord";
	return "";
}

struct nego_case {
	const char *name;
	struct kiwi_softiw_mpa_local ini;
	struct kiwi_softiw_mpa_local resp;
	int verdict;	/* of kiwi_softiw_mpa_accept() */
	struct kiwi_softiw_mpa_result ini_res;
	struct kiwi_softiw_mpa_result resp_res;
};

#define P2P_READ { .rev = 2, .crc = true, .p2p = true, \
		   .rtr = SOFTIW_RTR_READ, .ird = 5, .ord = 7 }
#define RESP_ALL { .rev = 2, .rtr = SOFTIW_RTR_ALL, .ird = 16, .ord = 16 }

static const struct nego_case nego_cases[] = {
	{ "p2p read", P2P_READ, RESP_ALL, 0,
	  { 2, true, true, true, SOFTIW_RTR_READ, .ird = 5, .ord = 7 },
	  { 2, true, true, true, SOFTIW_RTR_READ, .ird = 7, .ord = 5 } },
	{ "write preferred",
	  { .rev = 2, .p2p = true, .rtr = SOFTIW_RTR_ALL, .ird = 1, .ord = 1 },
	  RESP_ALL, 0,
	  { 2, false, true, true, SOFTIW_RTR_WRITE, .ird = 1, .ord = 1 },
	  { 2, false, true, true, SOFTIW_RTR_WRITE, .ird = 1, .ord = 1 } },
	{ "read before send",
	  { .rev = 2, .p2p = true, .rtr = SOFTIW_RTR_READ | SOFTIW_RTR_SEND },
	  RESP_ALL, 0,
	  { 2, false, true, true, SOFTIW_RTR_READ },
	  { 2, false, true, true, SOFTIW_RTR_READ } },
	{ "no common rtr",
	  { .rev = 2, .p2p = true, .rtr = SOFTIW_RTR_SEND },
	  { .rev = 2, .rtr = SOFTIW_RTR_WRITE | SOFTIW_RTR_READ },
	  -ENOPROTOOPT },
	{ "small responder ird", P2P_READ,
	  { .rev = 2, .rtr = SOFTIW_RTR_ALL, .ird = 3, .ord = 16 }, 0,
	  { 2, true, true, true, SOFTIW_RTR_READ, .ird = 5, .ord = 3 },
	  { 2, true, true, true, SOFTIW_RTR_READ, .ird = 3, .ord = 5 } },
	{ "small responder ord", P2P_READ,
	  { .rev = 2, .rtr = SOFTIW_RTR_ALL, .ird = 16, .ord = 2 }, 0,
	  { 2, true, true, true, SOFTIW_RTR_READ, .ird = 2, .ord = 7 },
	  { 2, true, true, true, SOFTIW_RTR_READ, .ird = 7, .ord = 2 } },
	{ "client-server v2", { .rev = 2, .ird = 4, .ord = 4 }, RESP_ALL, 0,
	  { 2, false, true, false, 0, .ird = 4, .ord = 4 },
	  { 2, false, true, false, 0, .ird = 4, .ord = 4 } },
	{ "crc asked by responder", { .rev = 2, .ird = 1, .ord = 1 },
	  { .rev = 2, .crc = true, .ird = 1, .ord = 1 }, 0,
	  { 2, true, true, false, 0, .ird = 1, .ord = 1 },
	  { 2, true, true, false, 0, .ird = 1, .ord = 1 } },
	{ "v1 responder: fall back", P2P_READ,
	  { .rev = 1, .ird = 16, .ord = 16 }, 0,
	  { 1, true, false, false, 0, .ird = 5, .ord = 7 },
	  { 1, true, false, false, 0, .ird = 16, .ord = 16 } },
	{ "v1 both", { .rev = 1, .ird = 2, .ord = 3 },
	  { .rev = 2, .ird = 4, .ord = 5 }, 0,
	  { 1, false, false, false, 0, .ird = 2, .ord = 3 },
	  { 1, false, false, false, 0, .ird = 4, .ord = 5 } },
};

static void nego_case_desc(const struct nego_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(nego_case, nego_cases, nego_case_desc);

/* Each pair of configurations: the verdict and what both ends agree. */
static void mpa_negotiate(struct kunit *test)
{
	const struct nego_case *c = test->param_value;
	struct kiwi_softiw_mpa_result a = {}, b = {};
	int ret;

	ret = handshake(test, &c->ini, &c->resp, &a, &b);
	KUNIT_ASSERT_EQ(test, ret, c->verdict);
	if (ret)
		return;
	KUNIT_EXPECT_STREQ_MSG(test, res_diff(&a, &c->ini_res), "", "ini");
	KUNIT_EXPECT_STREQ_MSG(test, res_diff(&b, &c->resp_res), "", "resp");
}

/* Replies naming several RTR types: the initiator picks one it offered. */
static void mpa_connected_rtr_pick(struct kunit *test)
{
	struct kiwi_softiw_mpa_local ini = P2P_READ;
	struct kiwi_softiw_mpa_info req, rep = {
		.rev = 2, .enhanced = true, .p2p = true, .ird = 7, .ord = 5,
	};
	struct kiwi_softiw_mpa_result res;

	KUNIT_ASSERT_EQ(test, kiwi_softiw_mpa_request(&ini, NULL, 0, &req), 0);
	rep.rtr = SOFTIW_RTR_READ | SOFTIW_RTR_WRITE;
	KUNIT_EXPECT_EQ(test, kiwi_softiw_mpa_connected(&ini, &req, &rep, &res),
			0);
	KUNIT_EXPECT_EQ(test, res.rtr, SOFTIW_RTR_READ);
	/* Intel-style reply: B always set, the choice in C or D */
	ini.rtr = SOFTIW_RTR_ALL;
	KUNIT_ASSERT_EQ(test, kiwi_softiw_mpa_request(&ini, NULL, 0, &req), 0);
	rep.rtr = SOFTIW_RTR_SEND | SOFTIW_RTR_WRITE;
	KUNIT_EXPECT_EQ(test, kiwi_softiw_mpa_connected(&ini, &req, &rep, &res),
			0);
	KUNIT_EXPECT_EQ(test, res.rtr, SOFTIW_RTR_WRITE);
}

/* Peer-to-peer needs revision 2 and an RTR type; depths are 14 bits. */
static void mpa_request_refusals(struct kunit *test)
{
	static const u8 pd[SOFTIW_MPA_PD_MAX - 3];
	struct kiwi_softiw_mpa_local ini = P2P_READ;
	struct kiwi_softiw_mpa_info req;
	int ret;

	ini.rev = 1;
	ret = kiwi_softiw_mpa_request(&ini, NULL, 0, &req);
	KUNIT_EXPECT_EQ(test, ret, -EINVAL);
	ini.rev = 2;
	ini.rtr = 0;
	ret = kiwi_softiw_mpa_request(&ini, NULL, 0, &req);
	KUNIT_EXPECT_EQ(test, ret, -EINVAL);
	ini.p2p = false;
	ini.ord = 0x4000;
	ret = kiwi_softiw_mpa_request(&ini, NULL, 0, &req);
	KUNIT_EXPECT_EQ(test, ret, -EINVAL);
	ini.ord = 0x3fff;
	ret = kiwi_softiw_mpa_request(&ini, NULL, 0, &req);
	KUNIT_EXPECT_EQ(test, ret, 0);
	ret = kiwi_softiw_mpa_request(&ini, pd, sizeof(pd), &req);
	KUNIT_EXPECT_EQ(test, ret, -EMSGSIZE);
}

/* The initiator of P2P_READ receives @rep in answer to @req. */
static int conn(const struct kiwi_softiw_mpa_info *req,
		const struct kiwi_softiw_mpa_info *rep)
{
	const struct kiwi_softiw_mpa_local ini = P2P_READ;
	struct kiwi_softiw_mpa_result res;

	return kiwi_softiw_mpa_connected(&ini, req, rep, &res);
}

/* Hostile or broken replies, as the initiator sees them. */
static void mpa_connected_refusals(struct kunit *test)
{
	const struct kiwi_softiw_mpa_local ini = P2P_READ;
	struct kiwi_softiw_mpa_info req, rep;

	KUNIT_ASSERT_EQ(test, kiwi_softiw_mpa_request(&ini, NULL, 0, &req), 0);
	rep = (struct kiwi_softiw_mpa_info){ .rev = 2, .enhanced = true,
		.p2p = true, .rtr = SOFTIW_RTR_READ, .ird = 7, .ord = 5 };
	KUNIT_EXPECT_EQ(test, conn(&req, &rep), 0);
	rep.ord = 6;	/* more reads than this end's IRD of 5 */
	KUNIT_EXPECT_EQ(test, conn(&req, &rep), -ENOSPC);
	rep.ord = 5;
	rep.rtr = SOFTIW_RTR_WRITE;	/* not offered */
	KUNIT_EXPECT_EQ(test, conn(&req, &rep), -ENOPROTOOPT);
	rep.rtr = SOFTIW_RTR_SEND;	/* not offered either */
	KUNIT_EXPECT_EQ(test, conn(&req, &rep), -ENOPROTOOPT);
	rep.rtr = 0;
	KUNIT_EXPECT_EQ(test, conn(&req, &rep), -ENOPROTOOPT);
	rep.rtr = SOFTIW_RTR_READ;
	rep.markers = true;
	KUNIT_EXPECT_EQ(test, conn(&req, &rep), -EOPNOTSUPP);
	rep.markers = false;
	rep.enhanced = false;	/* rev 2 must stay enhanced */
	KUNIT_EXPECT_EQ(test, conn(&req, &rep), -EBADMSG);
	rep.enhanced = true;
	rep.reject = true;
	KUNIT_EXPECT_EQ(test, conn(&req, &rep), -ECONNREFUSED);
	req.rev = 1;	/* reply of a higher revision than the request */
	req.enhanced = false;
	rep.reject = false;
	rep.enhanced = false;
	KUNIT_EXPECT_EQ(test, conn(&req, &rep), -EPROTONOSUPPORT);
	req.rev = 2;	/* enhanced reply to a plain request */
	rep.rev = 2;
	rep.enhanced = true;
	KUNIT_EXPECT_EQ(test, conn(&req, &rep), -EBADMSG);
}

/* Markers are refused with a well-formed Reject reply. */
static void mpa_markers_rejected(struct kunit *test)
{
	const char frame[] = KEY_REQ "\xc0\x01\x00\x00";
	const char reject[] = KEY_REP "\x60\x01\x00\x00";
	struct kiwi_softiw_mpa_info req, rep;
	struct kiwi_softiw_mpa_result res;
	u8 buf[sizeof(reject) - 1];

	KUNIT_ASSERT_EQ(test, kiwi_softiw_mpa_decode(SOFTIW_MPA_REQUEST, frame,
						     sizeof(frame) - 1, &req), 0);
	KUNIT_EXPECT_EQ(test, kiwi_softiw_mpa_accept(&responder_all, &req,
						     NULL, 0, &rep, &res),
			-EOPNOTSUPP);
	KUNIT_ASSERT_EQ(test, kiwi_softiw_mpa_reject(&responder_all, &req,
						     NULL, 0, &rep), 0);
	KUNIT_ASSERT_EQ(test, kiwi_softiw_mpa_build(SOFTIW_MPA_REPLY, &rep, buf,
						    sizeof(buf)),
			sizeof(buf));
	expect_bytes(test, buf, reject, sizeof(buf));
}

static struct kunit_case softiw_mpa_cases[] = {
	KUNIT_CASE_PARAM(mpa_feed_whole, mpa_vector_gen_params),
	KUNIT_CASE_PARAM(mpa_feed_bytewise, mpa_vector_gen_params),
	KUNIT_CASE(mpa_chunking_invariance),
	KUNIT_CASE(mpa_longest_frame),
	KUNIT_CASE(mpa_encoder_matches_rfc_bytes),
	KUNIT_CASE(mpa_round_trip),
	KUNIT_CASE(mpa_build_refusals),
	KUNIT_CASE_PARAM(mpa_negotiate, nego_case_gen_params),
	KUNIT_CASE(mpa_request_refusals),
	KUNIT_CASE(mpa_connected_refusals),
	KUNIT_CASE(mpa_connected_rtr_pick),
	KUNIT_CASE(mpa_markers_rejected),
	{}
};

static struct kunit_suite softiw_mpa_suite = {
	.name = "kiwi_softiw_mpa",
	.test_cases = softiw_mpa_cases,
};

kunit_test_suite(softiw_mpa_suite);
