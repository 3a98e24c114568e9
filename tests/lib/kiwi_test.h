/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by kiwi's KUnit suites, exported by kiwi_testlib.ko.
 */
#ifndef _KIWI_TEST_H
#define _KIWI_TEST_H

#include <kunit/test.h>

struct net;

/**
 * struct kiwi_test_module - what a loaded kiwi module must look like
 * @name: module name, as in /sys/module
 * @holders: NULL-terminated list of modules that must depend on it
 */
struct kiwi_test_module {
	const char *name;
	const char *const *holders;
};

ssize_t kiwi_test_read_file(const char *path, char *buf, size_t len);
bool kiwi_test_path_exists(const char *path);
void kiwi_test_check_module(struct kunit *test,
			    const struct kiwi_test_module *want);
struct net *kiwi_test_peer_net(struct kunit *test);
unsigned int kiwi_test_fuzz_iters(void);

#endif /* _KIWI_TEST_H */
