// SPDX-License-Identifier: GPL-2.0
/*
 * Read what the kernel publishes about loaded modules in sysfs, so suites
 * can check module metadata without reaching into module internals; and
 * read and write such files for other ends.
 */
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/namei.h>
#include <linux/path.h>
#include <linux/string.h>

#include "kiwi_test.h"

/**
 * kiwi_test_read_file() - read the start of a (sysfs) file
 * @path: absolute path
 * @buf: destination, NUL-terminated on success
 * @len: size of @buf
 *
 * A trailing newline is removed.
 *
 * Context: process context; sleeps.
 * Return: number of bytes read, or a negative errno.
 */
ssize_t kiwi_test_read_file(const char *path, char *buf, size_t len)
{
	struct file *f;
	loff_t pos = 0;
	ssize_t n;

	if (len < 1)
		return -EINVAL;
	f = filp_open(path, O_RDONLY, 0);
	if (IS_ERR(f))
		return PTR_ERR(f);
	n = kernel_read(f, buf, len - 1, &pos);
	filp_close(f, NULL);
	if (n < 0)
		return n;
	buf[n] = '\0';
	if (n > 0 && buf[n - 1] == '\n')
		buf[--n] = '\0';
	return n;
}
EXPORT_SYMBOL_GPL(kiwi_test_read_file);

/**
 * kiwi_test_write_file() - write a string to a (sysfs, debugfs) file
 * @path: absolute path
 * @text: what to write, without a newline
 *
 * Context: process context; sleeps.
 * Return: 0, or a negative errno.
 */
int kiwi_test_write_file(const char *path, const char *text)
{
	size_t len = strlen(text);
	struct file *f;
	loff_t pos = 0;
	ssize_t n;

	f = filp_open(path, O_WRONLY, 0);
	if (IS_ERR(f))
		return PTR_ERR(f);
	n = kernel_write(f, text, len, &pos);
	filp_close(f, NULL);
	if (n < 0)
		return n;
	return n == len ? 0 : -EIO;
}
EXPORT_SYMBOL_GPL(kiwi_test_write_file);

/**
 * kiwi_test_path_exists() - whether a path resolves
 * @path: absolute path
 *
 * Context: process context; sleeps.
 * Return: true if @path exists.
 */
bool kiwi_test_path_exists(const char *path)
{
	struct path p;

	if (kern_path(path, LOOKUP_FOLLOW, &p))
		return false;
	path_put(&p);
	return true;
}
EXPORT_SYMBOL_GPL(kiwi_test_path_exists);

/**
 * kiwi_test_check_module() - expect a kiwi module to be loaded and sound
 * @test: the running test
 * @want: name and holders the module must have
 *
 * The module must be live, carry no taint but out-of-tree ('O': no
 * proprietary licence, no forced load), and be held by every module in
 * @want->holders (a holder is a module that resolved symbols from it).
 *
 * Context: process context; sleeps.
 */
void kiwi_test_check_module(struct kunit *test,
			    const struct kiwi_test_module *want)
{
	const char *const *h;
	char path[128];
	char val[32];

	snprintf(path, sizeof(path), "/sys/module/%s/initstate", want->name);
	KUNIT_ASSERT_GT_MSG(test, kiwi_test_read_file(path, val, sizeof(val)),
			    0, "%s not loaded", want->name);
	KUNIT_EXPECT_STREQ(test, val, "live");

	snprintf(path, sizeof(path), "/sys/module/%s/taint", want->name);
	KUNIT_ASSERT_GE(test, kiwi_test_read_file(path, val, sizeof(val)), 0);
	KUNIT_EXPECT_STREQ_MSG(test, val, "O", "%s taints the kernel",
			       want->name);

	for (h = want->holders; h && *h; h++) {
		snprintf(path, sizeof(path), "/sys/module/%s/holders/%s",
			 want->name, *h);
		KUNIT_EXPECT_TRUE_MSG(test, kiwi_test_path_exists(path),
				      "%s does not depend on %s", *h,
				      want->name);
	}
}
EXPORT_SYMBOL_GPL(kiwi_test_check_module);
