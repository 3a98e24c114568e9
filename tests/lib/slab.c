// SPDX-License-Identifier: GPL-2.0
/*
 * What slab's caches hold in live objects, read from /proc/slabinfo after
 * shrinking every cache through /sys/kernel/slab/<cache>/shrink. A shrink
 * flushes the per-CPU slabs back to their node and, under KASAN, takes the
 * cache's objects out of the quarantine, so what is read is what the
 * kernel still uses, not what the allocator keeps at hand: a leak shows,
 * partly used pages and freed objects held back do not.
 */
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/printk.h>
#include <linux/string.h>

#include "kiwi_test.h"

#define SLAB_INFO	"/proc/slabinfo"
#define SLAB_INFO_MAX	(256 * 1024)	/* /proc/slabinfo, at most */
#define SLAB_TOP	3		/* caches a report names */

/* /proc/slabinfo whole, NUL-terminated, in a kvmalloc'd buffer. */
static char *slab_info_text(void)
{
	struct file *f;
	loff_t pos = 0;
	size_t len = 0;
	ssize_t n;
	char *buf;

	buf = kvmalloc(SLAB_INFO_MAX, GFP_KERNEL);
	if (!buf)
		return ERR_PTR(-ENOMEM);
	f = filp_open(SLAB_INFO, O_RDONLY, 0);
	if (IS_ERR(f)) {
		kvfree(buf);
		return ERR_CAST(f);
	}
	do {
		n = kernel_read(f, buf + len, SLAB_INFO_MAX - 1 - len, &pos);
		if (n > 0)
			len += n;
	} while (n > 0 && len < SLAB_INFO_MAX - 1);
	filp_close(f, NULL);
	if (n < 0 || len >= SLAB_INFO_MAX - 1) {
		kvfree(buf);
		return ERR_PTR(n < 0 ? n : -EFBIG);
	}
	buf[len] = '\0';
	return buf;
}

/* A cache's line of /proc/slabinfo: name, then active and all objects. */
static bool slab_info_line(const char *line,
			   struct kiwi_test_slab_cache *cache)
{
	unsigned long active, total;
	unsigned int size;
	char name[sizeof(cache->name)];

	if (line[0] == '#' || !strncmp(line, "slabinfo", 8))
		return false;
	if (sscanf(line, "%47s %lu %lu %u", name, &active, &total, &size) != 4)
		return false;
	strscpy(cache->name, name, sizeof(cache->name));
	cache->bytes = active * size;
	return true;
}

/* Read @text into @slab; the caches past KIWI_TEST_SLAB_CACHES count only. */
static void slab_info_parse(char *text, struct kiwi_test_slab *slab)
{
	struct kiwi_test_slab_cache cache;
	char *line;

	slab->caches = 0;
	slab->bytes = 0;
	while ((line = strsep(&text, "\n"))) {
		if (!slab_info_line(line, &cache))
			continue;
		slab->bytes += cache.bytes;
		if (slab->caches < KIWI_TEST_SLAB_CACHES)
			slab->cache[slab->caches] = cache;
		slab->caches++;
	}
}

/* Shrink the cache /proc/slabinfo names on @line. */
static int slab_shrink_one(const char *line)
{
	struct kiwi_test_slab_cache cache;
	char path[64 + sizeof(cache.name)];
	int err;

	if (!slab_info_line(line, &cache))
		return 0;
	snprintf(path, sizeof(path), "/sys/kernel/slab/%s/shrink", cache.name);
	err = kiwi_test_write_file(path, "1");
	return err == -ENOENT ? 0 : err;	/* destroyed meanwhile */
}

/* Shrink every cache /proc/slabinfo names. */
static int slab_shrink_all(void)
{
	char *text = slab_info_text();
	char *line, *next;
	int err = 0;

	if (IS_ERR(text))
		return PTR_ERR(text);
	for (next = text; (line = strsep(&next, "\n")) && !err;)
		err = slab_shrink_one(line);
	kvfree(text);
	return err;
}

/**
 * kiwi_test_slab_read() - read what every slab cache holds in live objects
 * @slab: filled in: the caches, their live bytes and the sum
 *
 * Every cache is shrunk first (see the top of this file); the objects
 * that RCU frees are not waited for: call rcu_barrier() before for them.
 *
 * Context: process context; sleeps.
 * Return: 0, or a negative errno if /proc/slabinfo or a cache's shrink
 * file could not be used (a kernel without SLUB_DEBUG or sysfs).
 */
int kiwi_test_slab_read(struct kiwi_test_slab *slab)
{
	int err = slab_shrink_all();
	char *text;

	if (err)
		return err;
	text = slab_info_text();
	if (IS_ERR(text))
		return PTR_ERR(text);
	slab_info_parse(text, slab);
	kvfree(text);
	return slab->caches ? 0 : -ENODATA;
}
EXPORT_SYMBOL_GPL(kiwi_test_slab_read);

/* What @name held in @slab, bytes; 0 if it is not there. */
static long slab_cache_bytes(const struct kiwi_test_slab *slab,
			     const char *name)
{
	unsigned int i, n = min_t(unsigned int, slab->caches,
				  KIWI_TEST_SLAB_CACHES);

	for (i = 0; i < n; i++)
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
 * how much: what to look at when a level keeps rising.
 *
 * Context: process context.
 */
void kiwi_test_slab_report(const char *who, const struct kiwi_test_slab *from,
			   const struct kiwi_test_slab *to)
{
	unsigned int top[SLAB_TOP], i, j, n, k = 0;
	long grew[SLAB_TOP], d;
	char line[SLAB_TOP * 64];
	int len = 0;

	n = min_t(unsigned int, to->caches, KIWI_TEST_SLAB_CACHES);
	for (i = 0; i < n; i++) {
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
