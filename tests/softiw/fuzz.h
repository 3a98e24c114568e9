/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the kiwi_softiw fuzz suites share: the seed, the mutations of a
 * frame drawn from a seeded random state, sending a frame whole or its
 * headers a byte at a time, and the chunks a case's frames run in (one
 * KUnit parameter each, so that no run nears KUnit's time-out).
 */
#ifndef KIWI_TEST_FUZZ_H
#define KIWI_TEST_FUZZ_H

#include <kunit/test.h>
#include <linux/net.h>
#include <linux/prandom.h>
#include <linux/types.h>

#include "kiwi_test.h"

#define FUZZ_SEED	0x6b697769ULL
#define FUZZ_BATCH	200	/* frames between two legitimate exchanges */
#define FUZZ_MAX_CHUNKS	512	/* KUnit parameters of one case, at most */
#define FUZZ_BYTEWISE	64	/* the longest header a frame has, and more */
/*
 * Slab across a fuzz case, two ways. After each batch, the pages slab
 * takes: they include what the allocator keeps at hand (per-CPU and
 * partly used slabs, KASAN's quarantine), and the churn of sockets leaves
 * more live for a while (TIME_WAIT sockets live 60 s), by an amount set by
 * the rate of connections, not by their number: within FUZZ_SLAB_BOUND_KIB
 * of the case's start. At each chunk's end, the bytes of live objects
 * with every cache shrunk (kiwi_test_slab_read()), which a leak raises
 * chunk after chunk and the allocator's keeping does not: from the second
 * chunk on, within FUZZ_SLAB_DRIFT_KIB of the first chunk's end, and the
 * caches that grew most since are named.
 */
#define FUZZ_SLAB_BOUND_KIB	8192
#define FUZZ_SLAB_DRIFT_KIB	2048

/**
 * struct fuzz_slab - slab memory across the chunks of a case
 * @base: KiB of slab pages at the start of its first chunk
 * @peak: the most they stood above @base after a batch, KiB
 * @first_read: @first_end holds the first chunk's end
 * @first_end: live slab at the end of the first chunk
 */
struct fuzz_slab {
	unsigned long base;
	long peak;
	bool first_read;
	struct kiwi_test_slab first_end;
};

u32 fuzz_rand(struct rnd_state *rnd, u32 below);
int fuzz_append(struct rnd_state *rnd, u8 *buf, int len, int size);
int fuzz_mutate(struct rnd_state *rnd, u8 *buf, int len, int size, int hdr,
		int lenoff);
void fuzz_send(struct rnd_state *rnd, struct socket *s, const u8 *buf,
	       int len);
const void *fuzz_chunk_next(const void *prev, char *desc,
			    unsigned int chunk, unsigned int iters);
unsigned int fuzz_chunk_frames(struct kunit *test, unsigned int chunk,
			       unsigned int iters, unsigned int *index);
void fuzz_ceps_settled(struct kunit *test, unsigned int ceps);
void fuzz_slab_start(struct fuzz_slab *slab, unsigned int chunk);
void fuzz_slab_check(struct kunit *test, struct fuzz_slab *slab);
void fuzz_slab_end(struct kunit *test, struct fuzz_slab *slab);

#endif
