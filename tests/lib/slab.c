// SPDX-License-Identifier: GPL-2.0
/*
 * What slab's caches hold in live objects, read from /sys/kernel/slab (a
 * directory per cache; the names of merged caches are links to it) after
 * shrinking every cache. A shrink flushes the per-CPU slabs back to their
 * node and, under KASAN, takes the cache's objects out of the quarantine,
 * so what is read is what the kernel still uses, not what the allocator
 * keeps at hand: a leak shows, partly used pages and freed objects held
 * back do not. (/proc/slabinfo, which says the same, cannot be read from
 * the kernel: it has no read_iter.)
 */
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/printk.h>
#include <linux/string.h>

#include "kiwi_test.h"

#define SLAB_DIR	"/sys/kernel/slab"
#define SLAB_TOP	3		/* caches a report names */

/**
 * struct slab_names - the caches, as a directory read finds them
 * @ctx: the directory read's
 * @slab: where their names go
 * @err: -E2BIG if there are more than @slab holds, -ENAMETOOLONG if a
 *	name is longer than it holds
 */
struct slab_names {
	struct dir_context ctx;
	struct kiwi_test_slab *slab;
	int err;
};

static bool slab_name(struct dir_context *ctx, const char *name, int len,
		      loff_t off, u64 ino, unsigned int type)
{
	struct slab_names *n = container_of(ctx, struct slab_names, ctx);
	struct kiwi_test_slab *slab = n->slab;

	if (type != DT_DIR || name[0] == '.')
		return true;	/* a merged cache's other name, or . and .. */
	if (slab->caches == KIWI_TEST_SLAB_CACHES)
		n->err = -E2BIG;
	else if (len >= sizeof(slab->cache[0].name))
		n->err = -ENAMETOOLONG;
	else
		strscpy(slab->cache[slab->caches++].name, name, len + 1);
	return !n->err;
}

/* The caches' names into @slab. */
static int slab_read_names(struct kiwi_test_slab *slab)
{
	struct slab_names n = { .ctx.actor = slab_name, .slab = slab };
	struct file *dir;
	int err;

	slab->caches = 0;
	dir = filp_open(SLAB_DIR, O_RDONLY | O_DIRECTORY, 0);
	if (IS_ERR(dir))
		return PTR_ERR(dir);
	err = iterate_dir(dir, &n.ctx);
	filp_close(dir, NULL);
	if (err)
		return err;
	if (n.err)
		return n.err;
	return slab->caches ? 0 : -ENODATA;
}

/* A number a cache's file starts with. */
static int slab_read_number(const char *cache, const char *file,
			    unsigned long *val)
{
	char path[96], text[64];
	ssize_t n;

	snprintf(path, sizeof(path), SLAB_DIR "/%s/%s", cache, file);
	n = kiwi_test_read_file(path, text, sizeof(text));
	if (n < 0)
		return n;
	text[strcspn(text, " ")] = '\0';	/* "objects" goes on per node */
	return kstrtoul(text, 10, val);
}

/* What a cache's live objects take, each at its slot's size. */
static int slab_read_cache(struct kiwi_test_slab_cache *cache)
{
	unsigned long objects, size;
	int err;

	err = slab_read_number(cache->name, "objects", &objects);
	if (!err)
		err = slab_read_number(cache->name, "slab_size", &size);
	if (err)
		return err;
	cache->bytes = objects * size;
	return 0;
}

static int slab_shrink(const struct kiwi_test_slab_cache *cache)
{
	char path[96];

	snprintf(path, sizeof(path), SLAB_DIR "/%s/shrink", cache->name);
	return kiwi_test_write_file(path, "1");
}

/**
 * kiwi_test_slab_read() - read what every slab cache holds in live objects
 * @slab: filled in: the caches, their live bytes and the sum
 *
 * Every cache is shrunk first (see the top of this file); the objects
 * that RCU frees are not waited for: call rcu_barrier() before for them.
 * A cache destroyed meanwhile counts as empty.
 *
 * Context: process context; sleeps.
 * Return: 0, or a negative errno if /sys/kernel/slab could not be read
 * (a kernel without SLUB or sysfs) or holds more than @slab does.
 */
int kiwi_test_slab_read(struct kiwi_test_slab *slab)
{
	unsigned int i;
	int err;

	err = slab_read_names(slab);
	for (i = 0; i < slab->caches && !err; i++) {
		err = slab_shrink(&slab->cache[i]);
		if (err == -ENOENT)	/* destroyed meanwhile */
			err = 0;
	}
	slab->bytes = 0;
	for (i = 0; i < slab->caches && !err; i++) {
		slab->cache[i].bytes = 0;
		err = slab_read_cache(&slab->cache[i]);
		if (err == -ENOENT)
			err = 0;
		slab->bytes += slab->cache[i].bytes;
	}
	return err;
}
EXPORT_SYMBOL_GPL(kiwi_test_slab_read);

/* What @name held in @slab, bytes; 0 if it is not there. */
static long slab_cache_bytes(const struct kiwi_test_slab *slab,
			     const char *name)
{
	unsigned int i;

	for (i = 0; i < slab->caches; i++)
		if (!strcmp(slab->cache[i].name, name))
			return slab->cache[i].bytes;
	return 0;
}

/**
 * kiwi_test_slab_report() - print the caches that grew most between two
 *	readings
 * @who: what the line is about, its first word
 * @from: the earlier reading, of kiwi_test_slab_read()
 * @to: the later one
 *
 * Names up to three caches whose live objects grew, the most first, with
 * how much: what to look at when a level keeps rising. A cache is named
 * as /sys/kernel/slab names its directory (":A-0000192" for caches
 * merged under one).
 *
 * Context: process context.
 */
void kiwi_test_slab_report(const char *who, const struct kiwi_test_slab *from,
			   const struct kiwi_test_slab *to)
{
	unsigned int top[SLAB_TOP], i, j, k = 0;
	long grew[SLAB_TOP], d;
	char line[SLAB_TOP * 64];
	int len = 0;

	for (i = 0; i < to->caches; i++) {
		d = (long)to->cache[i].bytes -
		    slab_cache_bytes(from, to->cache[i].name);
		if (d <= 0)
			continue;
		for (j = k; j > 0 && grew[j - 1] < d; j--)
			if (j < SLAB_TOP) {
				grew[j] = grew[j - 1];
				top[j] = top[j - 1];
			}
		if (j >= SLAB_TOP)
			continue;
		grew[j] = d;
		top[j] = i;
		k = min(k + 1, SLAB_TOP);
	}
	for (j = 0; j < k; j++)
		len += scnprintf(line + len, sizeof(line) - len, " %s %+ld B,",
				 to->cache[top[j]].name, grew[j]);
	if (len)
		line[len - 1] = '\0';
	pr_info("%s: live slab %lu KiB, %+ld KiB since; grew most:%s\n", who,
		to->bytes >> 10, ((long)to->bytes - (long)from->bytes) / 1024,
		k ? line : " none");
}
EXPORT_SYMBOL_GPL(kiwi_test_slab_report);
