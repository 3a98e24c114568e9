// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_softiw_fpdu: MPA framing and the DDP/RDMAP headers of kiwi_softiw
 * against CRC32c known answers (RFC 3720 B.4), a bitwise reference CRC,
 * and headers written out by hand from RFC 5041 and RFC 5040.
 */
#include <asm/unaligned.h>
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/string.h>

#include "fpdu.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

#define BYTES(...) \
	.bytes = (const u8[]){ __VA_ARGS__ }, \
	.len = sizeof((const u8[]){ __VA_ARGS__ })

static void expect_bytes(struct kunit *test, const void *got,
			 const void *want, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (((const u8 *)got)[i] != ((const u8 *)want)[i])
			break;
	KUNIT_EXPECT_EQ_MSG(test, i, len, "first difference at byte %zu", i);
}

/* CRC32c one bit at a time (reflected polynomial 0x82f63b78). */
static u32 ref_crc32c(const u8 *p, size_t len)
{
	u32 crc = ~0U;
	int bit;

	while (len--) {
		crc ^= *p++;
		for (bit = 0; bit < 8; bit++)
			crc = (crc >> 1) ^ (crc & 1 ? 0x82f63b78 : 0);
	}
	return ~crc;
}

struct crc_vector {
	const char *name;
	u8 fill;	/* 0x00 or 0xff; or 1 = ascending, 2 = descending */
	size_t len;
	u8 wire[4];	/* the CRC bytes as transmitted */
};

static const struct crc_vector crc_vectors[] = {
	{ "32 zeros", 0x00, 32, { 0xaa, 0x36, 0x91, 0x8a } },
	{ "32 ones", 0xff, 32, { 0x43, 0xab, 0xa8, 0x62 } },
	{ "32 ascending", 1, 32, { 0x4e, 0x79, 0xdd, 0x46 } },
	{ "32 descending", 2, 32, { 0x5c, 0xdb, 0x3f, 0x11 } },
};

static void crc_vector_desc(const struct crc_vector *v, char *desc)
{
	strscpy(desc, v->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(crc_vector, crc_vectors, crc_vector_desc);

static void fill(u8 *buf, const struct crc_vector *v)
{
	size_t i;

	for (i = 0; i < v->len; i++)
		buf[i] = v->fill == 1 ? i : v->fill == 2 ? v->len - 1 - i :
							   v->fill;
}

/* RFC 3720 B.4: the CRC field, byte for byte, as siw and iSCSI send it. */
static void fpdu_crc_known_answers(struct kunit *test)
{
	const struct crc_vector *v = test->param_value;
	u8 buf[32];
	__le32 crc;

	fill(buf, v);
	crc = kiwi_softiw_fpdu_crc(buf, v->len);
	/* one short line per failing vector: the test log is small */
	KUNIT_EXPECT_EQ(test, get_unaligned_le32(&crc),
			get_unaligned_le32(v->wire));
}

/* The check value of CRC-32C, and odd lengths and alignments. */
static void fpdu_crc_reference(struct kunit *test)
{
	static const u8 digits[] = "123456789";
	u8 *buf = kunit_kzalloc(test, 300, GFP_KERNEL);
	size_t off, len;
	int bad = 0;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(kiwi_softiw_fpdu_crc(digits, 9)),
			0xe3069283);
	for (len = 0; len < 300; len++)
		buf[len] = len * 7 + 3;
	for (off = 0; off < 4; off++)
		for (len = 0; len + off <= 300; len += 37)
			bad += le32_to_cpu(kiwi_softiw_fpdu_crc(buf + off,
								len)) !=
			       ref_crc32c(buf + off, len);
	KUNIT_EXPECT_EQ(test, bad, 0);
}

/* Pad and total length: length field + ULPDU + pad is 4-aligned, + CRC. */
static void fpdu_sizes(struct kunit *test)
{
	static const struct { unsigned int ulpdu, pad; int size; } sizes[] = {
		{ 0, 2, 8 }, { 1, 1, 8 }, { 2, 0, 8 }, { 3, 3, 12 },
		{ 14, 0, 20 }, { 18, 0, 24 }, { 23, 3, 32 },
		{ 0xffff, 3, 0x10008 }, { 0x10000, 2, -EMSGSIZE },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(sizes); i++)
		if (softiw_fpdu_pad(sizes[i].ulpdu) != sizes[i].pad ||
		    kiwi_softiw_fpdu_size(sizes[i].ulpdu) != sizes[i].size)
			break;
	KUNIT_EXPECT_EQ_MSG(test, i, ARRAY_SIZE(sizes), "ulpdu_len %u",
			    i < ARRAY_SIZE(sizes) ? sizes[i].ulpdu : 0);
	KUNIT_EXPECT_EQ(test, kiwi_softiw_ddp_hdr_size(SOFTIW_RDMAP_WRITE), 14);
	KUNIT_EXPECT_EQ(test, kiwi_softiw_ddp_hdr_size(SOFTIW_RDMAP_SEND), 18);
	KUNIT_EXPECT_EQ(test, kiwi_softiw_ddp_hdr_size(8), -EOPNOTSUPP);
}

struct hdr_vector {
	const char *name;
	const u8 *bytes;
	size_t len;
	int verdict;
	struct kiwi_softiw_ddp_hdr want;
	struct kiwi_softiw_term_cause cause;
};

/* Untagged header: length, control, RsvdULP, QN, MSN, MO. */
#define UNTAGGED(ulen, ctrl0, ctrl1, qn, msn, mo) \
	.bytes = (const u8[]){ 0x00, ulen, ctrl0, ctrl1, 0, 0, 0, 0, \
			       0, 0, 0, qn, 0, 0, 0, msn, 0, 0, 0, mo }, \
	.len = 20

static const struct hdr_vector hdr_vectors[] = {
	{ "zero-length write",
	  BYTES(0x00, 0x0e, 0xc1, 0x40, 0x00, 0x00, 0x12, 0x34,
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08),
	  .want = { .ulpdu_len = 14, .opcode = SOFTIW_RDMAP_WRITE,
		    .tagged = true, .last = true, .stag = 0x1234,
		    .to = 0x0102030405060708ULL } },
	{ "read response middle segment",
	  BYTES(0x01, 0x0e, 0x81, 0x42, 0xaa, 0xbb, 0xcc, 0xdd,
		0, 0, 0, 0, 0, 0, 0x10, 0x00),
	  .want = { .ulpdu_len = 270, .opcode = SOFTIW_RDMAP_READ_RESP,
		    .tagged = true, .stag = 0xaabbccdd, .to = 0x1000 } },
	{ "send", UNTAGGED(22, 0x41, 0x43, 0, 1, 0),
	  .want = { .ulpdu_len = 22, .opcode = SOFTIW_RDMAP_SEND,
		    .last = true, .msn = 1 } },
	{ "send with invalidate",
	  BYTES(0x00, 0x12, 0x41, 0x44, 0xde, 0xad, 0xbe, 0xef,
		0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 0),
	  .want = { .ulpdu_len = 18, .opcode = SOFTIW_RDMAP_SEND_INV,
		    .last = true, .stag = 0xdeadbeef, .msn = 9 } },
	{ "read request", UNTAGGED(46, 0x41, 0x41, 1, 1, 0),
	  .want = { .ulpdu_len = 46, .opcode = SOFTIW_RDMAP_READ_REQ,
		    .last = true, .qn = 1, .msn = 1 } },
	{ "terminate", UNTAGGED(22, 0x41, 0x47, 2, 1, 0),
	  .want = { .ulpdu_len = 22, .opcode = SOFTIW_RDMAP_TERMINATE,
		    .last = true, .qn = 2, .msn = 1 } },
	{ "reserved bits ignored", UNTAGGED(18, 0x7d, 0x73, 0, 1, 0),
	  .want = { .ulpdu_len = 18, .opcode = SOFTIW_RDMAP_SEND,
		    .last = true, .msn = 1 } },
	{ "ddp version 0", BYTES(0x00, 0x0e, 0xc0, 0x40),
	  .verdict = -EPROTONOSUPPORT, .cause = { 1, 1, 0x04 } },
	{ "ddp version 2 untagged", BYTES(0x00, 0x12, 0x42, 0x43),
	  .verdict = -EPROTONOSUPPORT, .cause = { 1, 2, 0x06 } },
	{ "rdmap version 2", BYTES(0x00, 0x0e, 0xc1, 0x80),
	  .verdict = -EPROTONOSUPPORT, .cause = { 0, 2, 0x05 } },
	{ "opcode 8", BYTES(0x00, 0x12, 0x41, 0x48),
	  .verdict = -EOPNOTSUPP, .cause = { 0, 2, 0x06 } },
	{ "tagged send", BYTES(0x00, 0x12, 0xc1, 0x43),
	  .verdict = -EBADMSG, .cause = { 0, 2, 0x06 } },
	{ "untagged write", BYTES(0x00, 0x12, 0x41, 0x40),
	  .verdict = -EBADMSG, .cause = { 0, 2, 0x06 } },
	{ "ulpdu shorter than header", BYTES(0x00, 0x0d, 0xc1, 0x40),
	  .verdict = -EBADMSG, .cause = { 1, 0, 0 } },
	{ "send on queue 3", UNTAGGED(18, 0x41, 0x43, 3, 1, 0),
	  .verdict = -EBADMSG, .cause = { 1, 2, 0x01 } },
	{ "send on read queue", UNTAGGED(18, 0x41, 0x43, 1, 1, 0),
	  .verdict = -EBADMSG, .cause = { 1, 2, 0x01 } },
	{ "terminate on send queue", UNTAGGED(22, 0x41, 0x47, 0, 1, 0),
	  .verdict = -EBADMSG, .cause = { 1, 2, 0x01 } },
	{ "read request not last", UNTAGGED(46, 0x01, 0x41, 1, 1, 0),
	  .verdict = -EBADMSG, .cause = { 0, 2, 0xff } },
	{ "read request short", UNTAGGED(45, 0x41, 0x41, 1, 1, 0),
	  .verdict = -EBADMSG, .cause = { 0, 2, 0xff } },
	{ "terminate at offset", UNTAGGED(22, 0x41, 0x47, 2, 1, 4),
	  .verdict = -EBADMSG, .cause = { 0, 2, 0xff } },
	{ "three bytes", BYTES(0x00, 0x0e, 0xc1), .verdict = -ENODATA },
	{ "tagged header cut", BYTES(0x00, 0x0e, 0xc1, 0x40, 0, 0, 0, 0),
	  .verdict = -ENODATA },
};

static void hdr_vector_desc(const struct hdr_vector *v, char *desc)
{
	strscpy(desc, v->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(hdr_vector, hdr_vectors, hdr_vector_desc);

static void expect_hdr(struct kunit *test,
		       const struct kiwi_softiw_ddp_hdr *got,
		       const struct kiwi_softiw_ddp_hdr *want)
{
	bool same = got->ulpdu_len == want->ulpdu_len &&
		    got->opcode == want->opcode &&
		    got->tagged == want->tagged && got->last == want->last &&
		    got->stag == want->stag && got->to == want->to &&
		    got->qn == want->qn && got->msn == want->msn &&
		    got->mo == want->mo;

	KUNIT_EXPECT_TRUE(test, same);
}

/* Each header: its verdict, its fields, and the TERMINATE cause. */
static void fpdu_parse_hdr(struct kunit *test)
{
	const struct hdr_vector *v = test->param_value;
	struct kiwi_softiw_ddp_hdr hdr;
	struct kiwi_softiw_term_cause cause;

	KUNIT_ASSERT_EQ(test, kiwi_softiw_fpdu_get_hdr(v->bytes, v->len, &hdr,
						       &cause), v->verdict);
	if (!v->verdict)
		expect_hdr(test, &hdr, &v->want);
	KUNIT_EXPECT_TRUE(test, !memcmp(&cause, &v->cause, sizeof(cause)));
}

/* Valid headers are rewritten byte for byte by the encoder. */
static void fpdu_hdr_round_trip(struct kunit *test)
{
	struct kiwi_softiw_ddp_hdr hdr;
	struct kiwi_softiw_term_cause cause;
	u8 buf[20];
	int i, len;

	for (i = 0; i < ARRAY_SIZE(hdr_vectors); i++) {
		const struct hdr_vector *v = &hdr_vectors[i];

		if (v->verdict || !strcmp(v->name, "reserved bits ignored"))
			continue;
		KUNIT_ASSERT_EQ(test, kiwi_softiw_fpdu_get_hdr(v->bytes, v->len,
							       &hdr, &cause),
				0);
		len = kiwi_softiw_fpdu_put_hdr(&hdr, buf, sizeof(buf));
		KUNIT_ASSERT_EQ(test, len, (int)v->len);
		expect_bytes(test, buf, v->bytes, len);
	}
	hdr.tagged = !hdr.tagged;
	KUNIT_EXPECT_EQ(test, kiwi_softiw_fpdu_put_hdr(&hdr, buf, sizeof(buf)),
			-EINVAL);
	hdr.tagged = !hdr.tagged;
	KUNIT_EXPECT_EQ(test, kiwi_softiw_fpdu_put_hdr(&hdr, buf, 19),
			-ENOBUFS);
}

/* A SEND of "hello": sealed with a CRC a bitwise reference agrees with. */
static void fpdu_seal_and_check(struct kunit *test)
{
	const struct kiwi_softiw_ddp_hdr send = {
		.ulpdu_len = 18 + 5, .opcode = SOFTIW_RDMAP_SEND, .last = true,
		.msn = 1,
	};
	u8 fpdu[32];
	u32 crc;

	memset(fpdu, 0xee, sizeof(fpdu));
	KUNIT_ASSERT_EQ(test, kiwi_softiw_fpdu_put_hdr(&send, fpdu,
						       sizeof(fpdu)), 20);
	memcpy(fpdu + 20, "hello", 5);
	KUNIT_ASSERT_EQ(test, kiwi_softiw_fpdu_seal(fpdu, 31, true), -ENOBUFS);
	KUNIT_ASSERT_EQ(test, kiwi_softiw_fpdu_seal(fpdu, sizeof(fpdu), true),
			32);
	expect_bytes(test, fpdu + 25, "\0\0\0", 3);
	crc = ref_crc32c(fpdu, 28);
	KUNIT_EXPECT_EQ(test, get_unaligned_le32(fpdu + 28), crc);
	KUNIT_EXPECT_EQ(test, kiwi_softiw_fpdu_check(fpdu, 32, true), 0);
	KUNIT_EXPECT_EQ(test, kiwi_softiw_fpdu_check(fpdu, 31, true),
			-EMSGSIZE);

	fpdu[22] ^= 0x01;	/* one bit of payload */
	KUNIT_EXPECT_EQ(test, kiwi_softiw_fpdu_check(fpdu, 32, true),
			-EBADMSG);
	KUNIT_EXPECT_EQ(test, kiwi_softiw_fpdu_check(fpdu, 32, false), 0);
	fpdu[22] ^= 0x01;
	fpdu[31] ^= 0x80;	/* one bit of the CRC */
	KUNIT_EXPECT_EQ(test, kiwi_softiw_fpdu_check(fpdu, 32, true),
			-EBADMSG);

	/* without CRC the field is zero */
	KUNIT_ASSERT_EQ(test, kiwi_softiw_fpdu_seal(fpdu, sizeof(fpdu), false),
			32);
	expect_bytes(test, fpdu + 28, "\0\0\0\0", 4);
}

/* The TERMINATE control word, against RFC 5040's layout written out. */
static void fpdu_term_ctrl(struct kunit *test)
{
	const struct kiwi_softiw_term_cause ird = {
		SOFTIW_TERM_LAYER_LLP, SOFTIW_TERM_LLP_MPA, SOFTIW_TERM_MPA_IRD,
	};
	const struct kiwi_softiw_term_cause qn = {
		SOFTIW_TERM_LAYER_DDP, SOFTIW_TERM_DDP_UNTAGGED,
		SOFTIW_TERM_DDP_U_INV_QN,
	};
	__be32 w;

	w = softiw_term_ctrl(&ird, 0);
	expect_bytes(test, &w, "\x20\x06\x00\x00", 4);
	w = softiw_term_ctrl(&qn, SOFTIW_TERM_LEN_VALID | SOFTIW_TERM_DDP_HDR |
				  SOFTIW_TERM_RESERVED);
	expect_bytes(test, &w, "\x12\x01\xc0\x00", 4);
}

static struct kunit_case softiw_fpdu_cases[] = {
	KUNIT_CASE_PARAM(fpdu_crc_known_answers, crc_vector_gen_params),
	KUNIT_CASE(fpdu_crc_reference),
	KUNIT_CASE(fpdu_sizes),
	KUNIT_CASE_PARAM(fpdu_parse_hdr, hdr_vector_gen_params),
	KUNIT_CASE(fpdu_hdr_round_trip),
	KUNIT_CASE(fpdu_seal_and_check),
	KUNIT_CASE(fpdu_term_ctrl),
	{}
};

static struct kunit_suite softiw_fpdu_suite = {
	.name = "kiwi_softiw_fpdu",
	.test_cases = softiw_fpdu_cases,
};

kunit_test_suite(softiw_fpdu_suite);
