/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by kiwi's KUnit suites, exported by kiwi_testlib.ko.
 */
#ifndef _KIWI_TEST_H
#define _KIWI_TEST_H

#include <kunit/test.h>

struct ib_device;
struct list_head;
struct net;
struct sockaddr_storage;
struct xarray;

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
int kiwi_test_write_file(const char *path, const char *text);
bool kiwi_test_path_exists(const char *path);
void kiwi_test_check_module(struct kunit *test,
			    const struct kiwi_test_module *want);
struct net *kiwi_test_peer_net(struct kunit *test);

/**
 * enum kiwi_test_host - an address of the test network, in either family
 * @KIWI_TEST_ANY: the wildcard address (0.0.0.0, ::)
 * @KIWI_TEST_LO: loopback (127.0.0.1, ::1)
 * @KIWI_TEST_KV0: kv0, in the initial namespace
 * @KIWI_TEST_KV1: kv1, in the peer namespace
 */
enum kiwi_test_host {
	KIWI_TEST_ANY,
	KIWI_TEST_LO,
	KIWI_TEST_KV0,
	KIWI_TEST_KV1,
};

const char *kiwi_test_host_text(int family, enum kiwi_test_host host);
void kiwi_test_addr(struct kunit *test, struct sockaddr_storage *ss,
		    int family, enum kiwi_test_host host, u16 port);
u16 kiwi_test_expect_addr(struct kunit *test,
			  const struct sockaddr_storage *got, int family,
			  enum kiwi_test_host host, u16 port);
const void *kiwi_test_family_params(const void *prev, char *desc);
int kiwi_test_family(struct kunit *test);
unsigned int kiwi_test_fuzz_iters(void);
unsigned int kiwi_test_fuzz_reply_iters(void);
unsigned int kiwi_test_flood_peers(void);
unsigned int kiwi_test_stress_secs(void);
unsigned int kiwi_test_tcp_sockets(void);
void kiwi_test_tcp_settled(struct kunit *test, unsigned int base);
void kiwi_test_tcp_watch(struct kunit *test);
#define KIWI_TEST_SLAB_CACHES	512

/**
 * struct kiwi_test_slab_cache - one slab cache's live objects
 * @name: the cache, as /sys/kernel/slab names its directory
 * @bytes: what its live objects take, each counted at its slot's size
 */
struct kiwi_test_slab_cache {
	char name[48];
	unsigned long bytes;
};

/**
 * struct kiwi_test_slab - what slab's caches hold, at one reading
 * @caches: the caches read
 * @bytes: what the live objects of all of them take
 * @cache: each of them
 */
struct kiwi_test_slab {
	unsigned int caches;
	unsigned long bytes;
	struct kiwi_test_slab_cache cache[KIWI_TEST_SLAB_CACHES];
};

int kiwi_test_slab_read(struct kiwi_test_slab *slab);
void kiwi_test_slab_report(const char *who, const struct kiwi_test_slab *from,
			   const struct kiwi_test_slab *to);
int kiwi_test_dev_list_len(struct ib_device *dev, struct list_head *list);
int kiwi_test_xa_len(struct xarray *xa);

#endif /* _KIWI_TEST_H */
