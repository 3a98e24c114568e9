// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_softiw_fuzz_oracle: the Reply fuzzer's oracle (fuzz_reply.c) on
 * frames laid out by hand, so that a wrong judgement cannot hide a
 * softiw that agrees with it: Replies of each revision to Requests of
 * each kind, every flag, cut short, lying, a responder's ORD too big,
 * each peer-to-peer RTR choice, and Read Responses right and wrong,
 * with the CRC against RFC 3720's test vector.
 */
#include <asm/unaligned.h>
#include <kunit/test.h>
#include <linux/string.h>

#include <kiwi/iw_cm.h>

#include "fuzz_reply.h"

#define FR_ORACLE_BUF	640

/* Requests: revision 1; 2; 2 peer-to-peer offering WRITE and SEND. */
static const struct fr_req fr_oracle_reqs[] = {
	{ .rev = 1 },
	{ .rev = 2, .enhanced = true, .ird = 4, .ord = 4 },
	{ .rev = 2, .enhanced = true, .p2p = true, .ird = 4, .ord = 4,
	  .rtr = KIWI_IWARP_RTR_WRITE | KIWI_IWARP_RTR_SEND },
};

/**
 * struct fr_oracle_case - a Reply laid out by hand, and the verdict due
 * @name: what it shows
 * @req: its Request, in fr_oracle_reqs
 * @flags: its flags byte
 * @rev: its revision
 * @pd_len: its PD_Length
 * @ird: the IRD half-word after the header
 * @ord: the ORD half-word
 * @sent: bytes sent past 20 + @pd_len; negative: fewer
 * @ok: acceptable
 * @decided: the bytes decide
 * @rtr: the RTR type in force if @ok
 */
struct fr_oracle_case {
	const char *name;
	u8 req;
	u8 flags;
	u8 rev;
	u16 pd_len;
	u16 ird;
	u16 ord;
	s16 sent;
	bool ok;
	bool decided;
	u8 rtr;
};

static const struct fr_oracle_case fr_oracle_cases[] = {
	{ "rev 2", 1, FR_F_E, 2, 6, 4, 4, 0, true, true },
	{ "rev 1 to rev 1", 0, 0, 1, 6, 0, 0, 0, true, true },
	{ "rev 1 fall back", 1, 0, 1, 6, 0, 0, 0, true, true },
	{ "rev 1, E ignored", 0, FR_F_E, 1, 6, 0, 0, 0, true, true },
	{ "rev 2 to rev 1", 0, FR_F_E, 2, 6, 4, 4, 0, false, true },
	{ "rev 2, no E", 1, 0, 2, 6, 4, 4, 0, false, true },
	{ "Reject", 1, FR_F_E | FR_F_R, 2, 6, 4, 4, 0, false, true },
	{ "markers", 1, FR_F_E | FR_F_M, 2, 6, 4, 4, 0, false, true },
	{ "CRC not asked", 1, FR_F_E | FR_F_C, 2, 6, 4, 4, 0, true, true },
	{ "reserved flags", 1, FR_F_E | 0x0f, 2, 6, 4, 4, 0, true, true },
	{ "rev 0", 1, FR_F_E, 0, 6, 4, 4, 0, false, true },
	{ "rev 3", 1, FR_F_E, 3, 6, 4, 4, 0, false, true },
	{ "rev 255", 1, FR_F_E, 255, 6, 4, 4, 0, false, true },
	{ "PD_Length 513", 0, 0, 1, 513, 0, 0, -513, false, true },
	{ "PD_Length 3", 1, FR_F_E, 2, 3, 4, 4, 0, false, true },
	{ "ORD above IRD", 1, FR_F_E, 2, 4, 4, 5, 0, false, true },
	{ "ORD 4 with C, D", 1, FR_F_E, 2, 4, 4, 0xc004, 0, true, true },
	{ "cut in header", 1, FR_F_E, 2, 6, 4, 4, -7, false, false },
	{ "cut in data", 1, FR_F_E, 2, 6, 4, 4, -1, false, false },
	{ "bytes after", 1, FR_F_E, 2, 6, 4, 4, 5, true, true },
	{ "p2p WRITE", 2, FR_F_E, 2, 4, FR_IRD_A, FR_ORD_C | 4, 0, true, true,
	  KIWI_IWARP_RTR_WRITE },
	{ "p2p READ", 2, FR_F_E, 2, 4, FR_IRD_A, FR_ORD_D | 4, 0, false,
	  true },
	{ "p2p none", 2, FR_F_E, 2, 4, FR_IRD_A, 4, 0, false, true },
	{ "p2p all", 2, FR_F_E, 2, 4, FR_IRD_A | FR_IRD_B, 0xc004, 0, true,
	  true, KIWI_IWARP_RTR_WRITE },
	{ "p2p SEND, no A", 2, FR_F_E, 2, 4, FR_IRD_B, 4, 0, true, true,
	  KIWI_IWARP_RTR_SEND },
	{ "p2p fall back", 2, 0, 1, 6, 0, 0, 0, true, true },
	{ "no p2p asked", 1, FR_F_E, 2, 4, FR_IRD_A | FR_IRD_B, 0xc004, 0,
	  true, true },
};

/* Each row of fr_oracle_cases, and Read Responses, judged as due. */
static void fuzz_reply_oracle(struct kunit *test)
{
	static const u8 zeros_crc[4] = { 0xaa, 0x36, 0x91, 0x8a };
	const struct fr_oracle_case *c;
	u8 *b = kunit_kzalloc(test, FR_ORACLE_BUF, GFP_KERNEL);
	struct fr_verdict v;

	KUNIT_ASSERT_NOT_NULL(test, b);
	for (c = fr_oracle_cases; c < fr_oracle_cases +
	     ARRAY_SIZE(fr_oracle_cases); c++) {
		memset(b, 0, FR_ORACLE_BUF);
		memcpy(b, KEY_REP, 16);
		b[16] = c->flags;
		b[17] = c->rev;
		put_unaligned_be16(c->pd_len, b + 18);
		put_unaligned_be16(c->ird, b + FR_HDR);
		put_unaligned_be16(c->ord, b + FR_HDR + 2);
		fr_judge_reply(&fr_oracle_reqs[c->req], b,
			       FR_HDR + c->pd_len + c->sent, &v);
		KUNIT_EXPECT_EQ_MSG(test, v.ok, c->ok, "%s", c->name);
		KUNIT_EXPECT_EQ_MSG(test, v.decided, c->decided, "%s", c->name);
		KUNIT_EXPECT_EQ_MSG(test, v.rtr, c->ok ? c->rtr : 0, "%s",
				    c->name);
	}
	b[15] ^= 1;	/* the key of the last row */
	fr_judge_reply(&fr_oracle_reqs[1], b, FR_HDR + 4, &v);
	KUNIT_EXPECT_FALSE(test, v.ok);
	KUNIT_EXPECT_TRUE(test, v.decided);

	/* RFC 3720 B.4: 32 bytes of zeros */
	memset(b, 0, 32);
	put_unaligned_le32(fr_crc(b, 32), b + 32);
	KUNIT_EXPECT_EQ(test, memcmp(b + 32, zeros_crc, 4), 0);

	fr_put_response(b, 5, 9, true);
	KUNIT_EXPECT_TRUE(test, fr_response_ok(b, 20, true, 5, 9));
	KUNIT_EXPECT_TRUE(test, fr_response_ok(b, 27, true, 5, 9));
	KUNIT_EXPECT_FALSE(test, fr_response_ok(b, 19, true, 5, 9));
	KUNIT_EXPECT_FALSE(test, fr_response_ok(b, 20, true, 0, 9));
	KUNIT_EXPECT_FALSE(test, fr_response_ok(b, 20, true, 5, 0));
	b[19] ^= 1;
	KUNIT_EXPECT_FALSE(test, fr_response_ok(b, 20, true, 5, 9));
	KUNIT_EXPECT_TRUE(test, fr_response_ok(b, 20, false, 5, 9));
	fr_put_response(b, 0, 0, false);
	b[2] |= 0x3c;		/* DDP reserved bits */
	b[3] |= 0x30;		/* RDMAP reserved bits */
	KUNIT_EXPECT_TRUE(test, fr_response_ok(b, 20, false, 0, 0));
	b[2] &= ~0x40;		/* not Last */
	KUNIT_EXPECT_FALSE(test, fr_response_ok(b, 20, false, 0, 0));
	fr_put_response(b, 0, 0, false);
	b[3] = 0x47;		/* a TERMINATE */
	KUNIT_EXPECT_FALSE(test, fr_response_ok(b, 20, false, 0, 0));
	fr_put_response(b, 0, 0, false);
	b[2] = 0xc2;		/* DDP version 2 */
	KUNIT_EXPECT_FALSE(test, fr_response_ok(b, 20, false, 0, 0));
	fr_put_response(b, 0, 0, false);
	b[1] = 15;		/* ULPDU_Length 15 */
	KUNIT_EXPECT_FALSE(test, fr_response_ok(b, 24, false, 0, 0));
}

static struct kunit_case fuzz_oracle_cases[] = {
	KUNIT_CASE(fuzz_reply_oracle),
	{}
};

static struct kunit_suite fuzz_oracle_suite = {
	.name = "kiwi_softiw_fuzz_oracle",
	.test_cases = fuzz_oracle_cases,
};

kunit_test_suite(fuzz_oracle_suite);
