// SPDX-License-Identifier: GPL-2.0
/*
 * bench_blkio: the I/O load of make bench's NVMe over Fabrics rows, run
 * in the benchmark VM (a static binary: the VM has only busybox).
 *
 * usage: bench_blkio DEVICE randread|randwrite|read|write BLOCK DEPTH
 *                    SECONDS SPAN
 *
 * DEPTH threads each keep one O_DIRECT I/O of BLOCK bytes in flight on
 * DEVICE for SECONDS, so DEPTH I/Os are outstanding at all times (a queue
 * depth of DEPTH, as fio's psync engine with DEPTH jobs). Random I/O
 * picks BLOCK-aligned offsets in the first SPAN bytes; sequential I/O
 * walks them in order, the threads interleaved. Writes write random
 * bytes. Prints one line:
 *
 *   ios=N bytes=N seconds=S iops=I mbps=M p50_us=L p99_us=L errors=E
 *
 * and exits non-zero if any I/O failed or none completed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef unsigned long long u64;

#define MAX_DEPTH 256
/* Latency histogram: 1 us buckets up to 100 ms, the rest in the last. */
#define LAT_BUCKETS 100001

struct job {
	const char *dev;
	int write;
	int random;
	size_t block;
	u64 blocks;	/* in the span */
	unsigned int depth;
	double seconds;
	u64 next;	/* sequential: next block index */
	u64 ios;
	u64 errors;
	u64 *lat;	/* LAT_BUCKETS counters */
};

struct worker {
	struct job *job;
	unsigned int id;
	pthread_t thread;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* xorshift64*: a thread's own offsets and data, no shared state. */
static u64 next_rand(u64 *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

static u64 pick_block(struct job *job, u64 *seed)
{
	if (job->random)
		return next_rand(seed) % job->blocks;
	return __atomic_fetch_add(&job->next, 1, __ATOMIC_RELAXED) % job->blocks;
}

static void record(struct job *job, double t0, double t1)
{
	u64 us = (u64)((t1 - t0) * 1e6);

	if (us >= LAT_BUCKETS)
		us = LAT_BUCKETS - 1;
	__atomic_fetch_add(&job->lat[us], 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&job->ios, 1, __ATOMIC_RELAXED);
}

static void *run(void *arg)
{
	struct worker *w = arg;
	struct job *job = w->job;
	u64 seed = 0x9e3779b97f4a7c15ULL * (w->id + 1);
	double end, t0, t1;
	ssize_t done;
	void *buf;
	size_t i;
	int fd;

	fd = open(job->dev, (job->write ? O_WRONLY : O_RDONLY) | O_DIRECT);
	if (fd < 0 || posix_memalign(&buf, 4096, job->block)) {
		perror(job->dev);
		__atomic_fetch_add(&job->errors, 1, __ATOMIC_RELAXED);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	for (i = 0; i < job->block / sizeof(u64); i++)
		((u64 *)buf)[i] = next_rand(&seed);
	end = now() + job->seconds;
	for (t0 = now(); t0 < end; t0 = t1) {
		off_t off = (off_t)(pick_block(job, &seed) * job->block);

		if (job->write)
			done = pwrite(fd, buf, job->block, off);
		else
			done = pread(fd, buf, job->block, off);
		t1 = now();
		if (done != (ssize_t)job->block) {
			__atomic_fetch_add(&job->errors, 1, __ATOMIC_RELAXED);
			break;
		}
		record(job, t0, t1);
	}
	free(buf);
	close(fd);
	return NULL;
}

/* The latency (us) below which fraction @q of the I/Os completed. */
static u64 quantile(struct job *job, u64 total, double q)
{
	u64 want = (u64)(total * q), seen = 0, us;

	if (!total)
		return 0;
	for (us = 0; us < LAT_BUCKETS; us++) {
		seen += __atomic_load_n(&job->lat[us], __ATOMIC_RELAXED);
		if (seen > want)
			return us;
	}
	return LAT_BUCKETS - 1;
}

static int parse_mode(struct job *job, const char *mode)
{
	job->random = !strncmp(mode, "rand", 4);
	if (job->random)
		mode += 4;
	if (!strcmp(mode, "read"))
		job->write = 0;
	else if (!strcmp(mode, "write"))
		job->write = 1;
	else
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	static struct worker workers[MAX_DEPTH];
	struct job job = { 0 };
	unsigned long long span;
	double t0, elapsed;
	u64 ios, errors;
	unsigned int i;

	if (argc != 7 || parse_mode(&job, argv[2])) {
		fprintf(stderr,
			"usage: %s DEVICE randread|randwrite|read|write BLOCK DEPTH SECONDS SPAN\n",
			argv[0]);
		return 2;
	}
	job.dev = argv[1];
	job.block = strtoul(argv[3], NULL, 0);
	job.depth = strtoul(argv[4], NULL, 0);
	job.seconds = strtod(argv[5], NULL);
	span = strtoull(argv[6], NULL, 0);
	if (!job.block || job.block % 512 || !job.depth ||
	    job.depth > MAX_DEPTH || job.seconds <= 0 || span < job.block) {
		fprintf(stderr, "%s: bad block, depth, seconds or span\n",
			argv[0]);
		return 2;
	}
	job.blocks = span / job.block;
	job.lat = calloc(LAT_BUCKETS, sizeof(*job.lat));
	if (!job.lat)
		return 1;
	t0 = now();
	for (i = 0; i < job.depth; i++) {
		workers[i].job = &job;
		workers[i].id = i;
		if (pthread_create(&workers[i].thread, NULL, run, &workers[i])) {
			fprintf(stderr, "%s: pthread_create: %s\n", argv[0],
				strerror(errno));
			return 1;
		}
	}
	for (i = 0; i < job.depth; i++)
		pthread_join(workers[i].thread, NULL);
	elapsed = now() - t0;
	ios = __atomic_load_n(&job.ios, __ATOMIC_RELAXED);
	errors = __atomic_load_n(&job.errors, __ATOMIC_RELAXED);
	printf("ios=%llu bytes=%llu seconds=%.3f iops=%.0f mbps=%.1f ",
	       ios, ios * job.block, elapsed, ios / elapsed,
	       ios * job.block / elapsed / 1e6);
	printf("p50_us=%llu p99_us=%llu errors=%llu\n",
	       quantile(&job, ios, 0.50), quantile(&job, ios, 0.99), errors);
	return errors || !ios;
}
