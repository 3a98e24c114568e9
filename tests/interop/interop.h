/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kiwi_interop_test: kiwi's softiw against Linux's siw and rdma-core's
 * ucmatose over the test VM's veth pair, in IPv4 and IPv6. The peer side
 * runs in user space (tests/interop/kiwi-peer, started with
 * call_usermodehelper); the packets of each connection are watched on kv0.
 */
#ifndef _KIWI_INTEROP_H
#define _KIWI_INTEROP_H

#include <kunit/test.h>
#include <linux/types.h>

/*
 * kiwi's side (kv0, initial namespace) and the peer's (kv1); their
 * addresses are kiwi_test_host_text()'s KIWI_TEST_KV0 and KIWI_TEST_KV1.
 */
#define IPT_KIWI_IFNAME		"kv0"
#define IPT_KIWI_DEVICE		"softiw_kv0"

int ipt_peer(const char *cmd, const char *arg1, const char *arg2);
int ipt_peer_start(const char *tag, int secs, const char *const *args);
int ipt_peer_run(const char *tool, const char *tag, int secs,
		 const char *const *args);
void ipt_peer_print(const char *name);

/**
 * struct ipt_mpa_frame - an MPA Request or Reply seen on the wire
 * @seen: it was seen
 * @ip_version: the version of the IP packet it came in, 4 or 6
 * @flags: its flags byte (M C R E and reserved bits)
 * @rev: its revision
 * @pd_len: its PD_Length
 * @ird: IRD field of the enhanced word, if any
 * @ord: ORD field of the enhanced word, if any
 */
struct ipt_mpa_frame {
	bool seen;
	u8 ip_version;
	u8 flags;
	u8 rev;
	u16 pd_len;
	u16 ird;
	u16 ord;
};

/**
 * struct ipt_wire - the MPA frames of one connection on kv0
 * @req: the Request
 * @rep: the Reply
 */
struct ipt_wire {
	struct ipt_mpa_frame req;
	struct ipt_mpa_frame rep;
};

struct ipt_capture;

struct ipt_capture *ipt_capture_start(struct kunit *test, u16 port);
void ipt_capture_read(struct ipt_capture *cap, struct ipt_wire *wire);

#endif /* _KIWI_INTEROP_H */
