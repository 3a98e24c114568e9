// SPDX-License-Identifier: GPL-2.0
/*
 * A QEMU TCG plugin for the benchmark VM (scripts/bench.sh with
 * KIWI_BENCH_INSNS): it counts the guest instructions the vCPUs execute
 * and, every millisecond, appends "<host CLOCK_MONOTONIC ns> <instructions
 * so far, all vCPUs>" to a file. scripts/bench_watch.py stamps each line
 * of the VM's results with the same clock, so the report can take the
 * instructions between a command's start and its result, as it takes
 * QEMU's CPU time.
 *
 * Each translated block adds its length to its vCPU's counter when it
 * runs, so the count does not depend on how fast the host runs the VM.
 * An instruction that faults before it ends is counted all the same, and
 * each round of a REP-prefixed instruction counts as one.
 *
 * With prof=PREFIX it also counts the executions of each block. When a
 * file PREFIX.req appears (scripts/bench_watch.py writes one for each
 * "KIWI-SNAP <name>" line of the VM), it writes PREFIX.<name>: a line
 * "<guest address in hex> <instructions executed there so far>" per
 * translation of a block, and removes the request. The difference of
 * two such snapshots, by function (scripts/bench_prof.py), is where the
 * instructions between them went.
 *
 * usage: qemu-system-x86_64 ... -plugin bench_insns.so,out=FILE[,prof=PREFIX]
 * build: gcc -O2 -shared -fPIC -fvisibility=hidden -pthread
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_insns.h"

#define BENCH_EXPORT	__attribute__((visibility("default")))
#define BENCH_MAX_VCPUS	64
#define BENCH_PERIOD_NS	1000000L

/* Checked by QEMU against the API versions it supports. */
BENCH_EXPORT int qemu_plugin_version = 1;

/*
 * One counter per vCPU, on its own cache line; only its vCPU writes it.
 * vCPUs beyond BENCH_MAX_VCPUS share the last one, with atomic adds.
 */
static struct bench_count {
	u64 n;
	char pad[56];
} bench_counts[BENCH_MAX_VCPUS + 1];

/* A translation of a block; prof only: how often it ran, all vCPUs. */
struct bench_tb {
	u64 vaddr;
	u64 insns;
	u64 runs;
	struct bench_tb *next;
};

static FILE *bench_out;
static bool bench_prof;
static char bench_prefix[4096];
static struct bench_tb *bench_tbs;
static pthread_mutex_t bench_tbs_lock = PTHREAD_MUTEX_INITIALIZER;

static void bench_tb_exec(unsigned int vcpu, void *data)
{
	struct bench_tb *tb = data;
	struct bench_count *c;
	u64 n;

	if (vcpu < BENCH_MAX_VCPUS) {
		c = &bench_counts[vcpu];
		n = __atomic_load_n(&c->n, __ATOMIC_RELAXED);
		__atomic_store_n(&c->n, n + tb->insns, __ATOMIC_RELAXED);
	} else {
		c = &bench_counts[BENCH_MAX_VCPUS];
		__atomic_fetch_add(&c->n, tb->insns, __ATOMIC_RELAXED);
	}
	if (bench_prof)
		__atomic_fetch_add(&tb->runs, 1, __ATOMIC_RELAXED);
}

static void bench_tb_trans(u64 id, struct qemu_plugin_tb *qtb)
{
	struct bench_tb *tb = calloc(1, sizeof(*tb));

	if (!tb)
		abort();	/* nothing sensible to count without it */
	tb->vaddr = qemu_plugin_tb_vaddr(qtb);
	tb->insns = qemu_plugin_tb_n_insns(qtb);
	pthread_mutex_lock(&bench_tbs_lock);
	tb->next = bench_tbs;
	bench_tbs = tb;
	pthread_mutex_unlock(&bench_tbs_lock);
	qemu_plugin_register_vcpu_tb_exec_cb(qtb, bench_tb_exec,
					     BENCH_QEMU_PLUGIN_CB_NO_REGS, tb);
}

static u64 bench_total(void)
{
	u64 total = 0;
	int i;

	for (i = 0; i <= BENCH_MAX_VCPUS; i++)
		total += __atomic_load_n(&bench_counts[i].n, __ATOMIC_RELAXED);
	return total;
}

/* Write the snapshot @name asks for: PREFIX.<name>. */
static void bench_snapshot(const char *name)
{
	char path[sizeof(bench_prefix) + 256];
	struct bench_tb *tb;
	FILE *f;
	u64 runs;

	snprintf(path, sizeof(path), "%s.%s", bench_prefix, name);
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "bench_insns: %s: %s\n", path, strerror(errno));
		return;
	}
	pthread_mutex_lock(&bench_tbs_lock);
	tb = bench_tbs;
	pthread_mutex_unlock(&bench_tbs_lock);
	/* Older entries never change their links: walk without the lock. */
	for (; tb; tb = tb->next) {
		runs = __atomic_load_n(&tb->runs, __ATOMIC_RELAXED);
		if (runs)
			fprintf(f, "%llx %llu\n", tb->vaddr, runs * tb->insns);
	}
	fclose(f);
}

/*
 * A request for a snapshot: PREFIX.req, holding its name. It is taken
 * (renamed) before it is read, so a request that comes while a snapshot
 * is written waits for the next poll instead of being lost.
 */
static void bench_poll_request(void)
{
	char req[sizeof(bench_prefix) + 8], taken[sizeof(bench_prefix) + 8];
	char name[256];
	FILE *f;

	snprintf(req, sizeof(req), "%s.req", bench_prefix);
	snprintf(taken, sizeof(taken), "%s.got", bench_prefix);
	if (rename(req, taken))
		return;
	f = fopen(taken, "r");
	if (!f)
		return;
	if (fgets(name, sizeof(name), f)) {
		name[strcspn(name, "\n/")] = '\0';
		if (name[0])
			bench_snapshot(name);
	}
	fclose(f);
	unlink(taken);
}

static void *bench_writer(void *unused)
{
	const struct timespec period = { .tv_nsec = BENCH_PERIOD_NS };
	struct timespec now;

	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		fprintf(bench_out, "%llu %llu\n",
			(u64)now.tv_sec * 1000000000ULL + now.tv_nsec,
			bench_total());
		fflush(bench_out);
		if (bench_prof)
			bench_poll_request();
		nanosleep(&period, NULL);
	}
	return unused;
}

static int bench_args(int argc, char **argv)
{
	const char *out = NULL;
	int i;

	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4)) {
			out = argv[i] + 4;
		} else if (!strncmp(argv[i], "prof=", 5)) {
			snprintf(bench_prefix, sizeof(bench_prefix), "%s",
				 argv[i] + 5);
			bench_prof = true;
		} else {
			out = NULL;
			break;
		}
	}
	if (!out) {
		fprintf(stderr, "bench_insns: usage: out=FILE[,prof=PREFIX]\n");
		return -1;
	}
	bench_out = fopen(out, "w");
	if (!bench_out) {
		fprintf(stderr, "bench_insns: %s: %s\n", out, strerror(errno));
		return -1;
	}
	return 0;
}

BENCH_EXPORT int qemu_plugin_install(u64 id,
				     const struct qemu_info_t *info,
				     int argc, char **argv)
{
	pthread_t writer;
	int err;

	if (bench_args(argc, argv))
		return -1;
	qemu_plugin_register_vcpu_tb_trans_cb(id, bench_tb_trans);
	err = pthread_create(&writer, NULL, bench_writer, NULL);
	if (err) {
		fprintf(stderr, "bench_insns: thread: %s\n", strerror(err));
		return -1;
	}
	pthread_detach(writer);
	return 0;
}
