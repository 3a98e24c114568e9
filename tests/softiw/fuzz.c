// SPDX-License-Identifier: GPL-2.0
/*
 * The kiwi_softiw fuzz suites' shared pieces (fuzz.h): mutations, sending
 * and chunks.
 */
#include <asm/unaligned.h>
#include <linux/delay.h>
#include <linux/minmax.h>
#include <linux/rcupdate.h>
#include <linux/mm.h>
#include <linux/vmstat.h>

#include "cm.h"
#include "cm_fixture.h"
#include "fuzz.h"
#include "kiwi_test.h"

/**
 * fuzz_rand() - a random number below @below
 * @rnd: the random state
 * @below: the bound, not 0
 *
 * Context: any context.
 * Return: the number, from 0 to @below - 1.
 */
u32 fuzz_rand(struct rnd_state *rnd, u32 below)
{
	return prandom_u32_state(rnd) % below;
}

/**
 * fuzz_append() - append random bytes to a frame
 * @rnd: the random state
 * @buf: the frame
 * @len: its length
 * @size: room at @buf, at least @len
 *
 * Context: any context.
 * Return: the new length, from @len to @size.
 */
int fuzz_append(struct rnd_state *rnd, u8 *buf, int len, int size)
{
	int i, n = fuzz_rand(rnd, size - len + 1);

	for (i = 0; i < n; i++)
		buf[len + i] = fuzz_rand(rnd, 256);
	return len + n;
}

/* One mutation of @len bytes at @buf. Return: the new length. */
static int fuzz_mutate_once(struct rnd_state *rnd, u8 *buf, int len,
			    int size, int hdr, int lenoff)
{
	int i, n = 1 + fuzz_rand(rnd, 4);

	switch (fuzz_rand(rnd, 7)) {
	case 0:		/* flip bits in the headers */
		for (i = 0; i < n; i++)
			buf[fuzz_rand(rnd, hdr)] ^= BIT(fuzz_rand(rnd, 8));
		break;
	case 1:		/* flip bits anywhere */
		for (i = 0; i < n && len; i++)
			buf[fuzz_rand(rnd, len)] ^= BIT(fuzz_rand(rnd, 8));
		break;
	case 2:		/* cut short */
		len = fuzz_rand(rnd, len + 1);
		break;
	case 3:		/* bytes appended */
		len = fuzz_append(rnd, buf, len, size);
		break;
	case 4:		/* a random byte in the headers */
		buf[fuzz_rand(rnd, hdr)] = fuzz_rand(rnd, 256);
		break;
	case 5:		/* a lying length, and bytes to back the lie */
		put_unaligned_be16(fuzz_rand(rnd, 0x10000), buf + lenoff);
		len = fuzz_append(rnd, buf, len, size);
		break;
	default:	/* a random 16-bit field in the headers */
		put_unaligned_be16(fuzz_rand(rnd, 0x10000),
				   buf + fuzz_rand(rnd, hdr - 1));
		break;
	}
	return len;
}

/**
 * fuzz_mutate() - mutate a frame one to three times
 * @rnd: the random state
 * @buf: the frame
 * @len: its length, at most @size
 * @size: room at @buf: bytes appended stop there
 * @hdr: the bytes of headers the mutations aim at most, at least 2 and
 *	at most @size
 * @lenoff: where the frame's 16-bit length field is
 *
 * Bits flipped in the headers or anywhere, cut short, random bytes
 * appended, a random byte or 16-bit field in the headers, a lying length
 * with bytes appended to back the lie.
 *
 * Context: any context.
 * Return: the new length, from 0 to @size.
 */
int fuzz_mutate(struct rnd_state *rnd, u8 *buf, int len, int size, int hdr,
		int lenoff)
{
	int i, n = 1 + fuzz_rand(rnd, 3);

	for (i = 0; i < n; i++)
		len = fuzz_mutate_once(rnd, buf, len, size, hdr, lenoff);
	return len;
}

/**
 * fuzz_send() - send a frame whole, or one time in sixteen in pieces: its
 *	first FUZZ_BYTEWISE bytes one at a time, the rest in two parts split
 *	at random
 * @rnd: the random state
 * @s: a connected raw socket
 * @buf: the frame
 * @len: its length
 *
 * Every split point within a header is tried that way; past the headers
 * (private data, payload) one split stands for all, and a byte per segment
 * under TCG would cost most of a fuzz run's time.
 * Stops at the first piece the stream refuses.
 *
 * Context: process context; sleeps.
 */
void fuzz_send(struct rnd_state *rnd, struct socket *s, const u8 *buf,
	       int len)
{
	int i, head = min(len, FUZZ_BYTEWISE), cut;

	if (fuzz_rand(rnd, 16)) {
		cmt_raw_send(s, buf, len);
		return;
	}
	for (i = 0; i < head; i++)
		if (cmt_raw_send(s, buf + i, 1) != 1)
			return;
	if (len == head)
		return;
	cut = head + fuzz_rand(rnd, len - head);
	if (cut > head && cmt_raw_send(s, buf + head, cut - head) != cut - head)
		return;
	cmt_raw_send(s, buf + cut, len - cut);
}

/* The chunks' parameter values: their addresses tell them apart. */
static const u8 fuzz_chunks[FUZZ_MAX_CHUNKS];

/**
 * fuzz_chunk_next() - the KUnit parameter after @prev, for a case whose
 *	@iters frames run @chunk at a time
 * @prev: the previous parameter, NULL for the first
 * @desc: its description, "chunk N"
 * @chunk: frames of one parameter
 * @iters: the case's frames: kiwi_test_fuzz_iters() or
 *	kiwi_test_fuzz_reply_iters()
 *
 * The frames make ceil(@iters / @chunk) parameters, at most
 * FUZZ_MAX_CHUNKS.
 *
 * Context: process context.
 * Return: the parameter, or NULL after the last.
 */
const void *fuzz_chunk_next(const void *prev, char *desc, unsigned int chunk,
			    unsigned int iters)
{
	const u8 *next = prev ? (const u8 *)prev + 1 : fuzz_chunks;
	unsigned int i = next - fuzz_chunks;

	if (i >= ARRAY_SIZE(fuzz_chunks) || i * chunk >= iters)
		return NULL;
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "chunk %u", i);
	return next;
}

/**
 * fuzz_chunk_frames() - the running parameter's share of the frames
 * @test: the case, run with a parameter of fuzz_chunk_next()
 * @chunk: frames of one parameter, as given to fuzz_chunk_next()
 * @iters: the case's frames, as given to fuzz_chunk_next()
 * @index: set to the parameter's index, which offsets its seed
 *
 * Context: process context.
 * Return: the frames this run sends: @chunk, fewer in the last one.
 */
unsigned int fuzz_chunk_frames(struct kunit *test, unsigned int chunk,
			       unsigned int iters, unsigned int *index)
{
	KUNIT_EXPECT_LE_MSG(test, iters, chunk * FUZZ_MAX_CHUNKS,
			    "%u frames: more than FUZZ_MAX_CHUNKS chunks hold",
			    iters);
	*index = (const u8 *)test->param_value - fuzz_chunks;
	return min_t(unsigned int, chunk, iters - *index * chunk);
}

/**
 * fuzz_ceps_settled() - check that softiw's endpoints are back to a count
 * @test: the case
 * @ceps: kiwi_softiw_live_ceps() before the case made any
 *
 * Each endpoint goes once its peer is gone: they get 10 s.
 *
 * Context: process context; sleeps.
 */
void fuzz_ceps_settled(struct kunit *test, unsigned int ceps)
{
	int i;

	for (i = 0; i < 500 && kiwi_softiw_live_ceps() > ceps; i++)
		msleep(20);
	KUNIT_EXPECT_EQ(test, kiwi_softiw_live_ceps(), ceps);
}

/* Slab pages in use, KiB, once the frees RCU holds back are done. */
static unsigned long fuzz_slab_kib(void)
{
	rcu_barrier();
	return (global_node_page_state_pages(NR_SLAB_UNRECLAIMABLE_B) +
		global_node_page_state_pages(NR_SLAB_RECLAIMABLE_B)) <<
	       (PAGE_SHIFT - 10);
}

/**
 * fuzz_slab_start() - take slab's level at a case's start
 * @slab: where, kept from one chunk of the case to the next
 * @chunk: the chunk starting: the first takes the level
 *
 * Context: process context; sleeps.
 */
void fuzz_slab_start(struct fuzz_slab *slab, unsigned int chunk)
{
	if (chunk)
		return;
	slab->base = fuzz_slab_kib();
	slab->peak = 0;
	slab->first_read = false;
}

/**
 * fuzz_slab_check() - check slab after a batch
 * @test: the case
 * @slab: the levels, from fuzz_slab_start()
 *
 * Slab's pages stay within FUZZ_SLAB_BOUND_KIB of the case's start.
 *
 * Context: process context; sleeps.
 */
void fuzz_slab_check(struct kunit *test, struct fuzz_slab *slab)
{
	long grew = (long)fuzz_slab_kib() - (long)slab->base;

	slab->peak = max(slab->peak, grew);
	KUNIT_EXPECT_LE_MSG(test, grew, FUZZ_SLAB_BOUND_KIB,
			    "slab grew %ld KiB since the first chunk",
			    grew);
}

/**
 * fuzz_slab_end() - check slab at the end of a chunk
 * @test: the case
 * @slab: the levels, from fuzz_slab_start()
 *
 * The first chunk's end reads live slab; each later one reads it again,
 * prints the caches that grew most since the first, and checks that it
 * grew by FUZZ_SLAB_DRIFT_KIB at most: what frames leak accumulates.
 *
 * Context: process context; sleeps.
 */
void fuzz_slab_end(struct kunit *test, struct fuzz_slab *slab)
{
	struct kiwi_test_slab *now = &slab->first_end;
	long grew;

	if (slab->first_read) {
		now = kunit_kzalloc(test, sizeof(*now), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, now);
	}
	rcu_barrier();
	KUNIT_ASSERT_EQ_MSG(test, kiwi_test_slab_read(now), 0,
			    "slab caches unreadable");
	if (!slab->first_read) {
		slab->first_read = true;
		pr_info("%s: live slab %lu KiB at the end of the first chunk\n",
			test->name, now->bytes >> 10);
		return;
	}
	kiwi_test_slab_report(test->name, &slab->first_end, now);
	grew = ((long)now->bytes - (long)slab->first_end.bytes) / 1024;
	KUNIT_EXPECT_LE_MSG(test, grew, FUZZ_SLAB_DRIFT_KIB,
			    "live slab grew %ld KiB since the first chunk's end",
			    grew);
}
