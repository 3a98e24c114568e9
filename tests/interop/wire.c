// SPDX-License-Identifier: GPL-2.0
/*
 * The wire between the two stacks: a packet socket on kv0 that records the
 * MPA Request and Reply of one connection, as both stacks really sent them.
 */
#include <asm/unaligned.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/netdevice.h>
#include <linux/slab.h>
#include <linux/socket.h>
#include <linux/tcp.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#include "interop.h"

#define IPT_SNAP	256
#define IPT_MPA_HDR	20
#define IPT_MPA_ENH	0x10	/* E flag: the IRD/ORD word follows */

/**
 * struct ipt_capture - a packet socket on kv0
 * @sock: the socket
 * @port: the listener's port: segments from or to it are the connection's
 */
struct ipt_capture {
	struct socket *sock;
	u16 port;
};

static void ipt_capture_free(struct kunit_resource *res)
{
	struct ipt_capture *cap = res->data;

	sock_release(cap->sock);
	kfree(cap);
}

static int ipt_capture_open(struct ipt_capture *cap)
{
	/* Sent packets reach only ETH_P_ALL taps. */
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET,
		.sll_protocol = htons(ETH_P_ALL),
	};
	struct net_device *dev;
	int ret;

	dev = dev_get_by_name(&init_net, IPT_KIWI_IFNAME);
	if (!dev)
		return -ENODEV;
	sll.sll_ifindex = dev->ifindex;
	dev_put(dev);
	ret = sock_create_kern(&init_net, AF_PACKET, SOCK_DGRAM,
			       (__force int)htons(ETH_P_ALL), &cap->sock);
	if (ret)
		return ret;
	ret = kernel_bind(cap->sock, (struct sockaddr *)&sll, sizeof(sll));
	if (ret)
		sock_release(cap->sock);
	return ret;
}

/**
 * ipt_capture_start() - watch kv0 for a connection to or from @port
 * @test: the test; the socket is released when it ends
 * @port: the listener's TCP port
 *
 * Context: process context; sleeps.
 * Return: the capture; the test is aborted if the socket cannot be made.
 */
struct ipt_capture *ipt_capture_start(struct kunit *test, u16 port)
{
	struct ipt_capture *cap = kzalloc(sizeof(*cap), GFP_KERNEL);
	struct kunit_resource *res;
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, cap);
	cap->port = port;
	ret = ipt_capture_open(cap);
	if (ret)
		kfree(cap);
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "packet socket on " IPT_KIWI_IFNAME);
	res = kunit_alloc_resource(test, NULL, ipt_capture_free, GFP_KERNEL,
				   cap);
	KUNIT_ASSERT_NOT_NULL(test, res);
	return cap;
}

static void ipt_frame(struct ipt_mpa_frame *f, u8 ip_version, const u8 *p,
		      int len)
{
	if (f->seen)
		return;
	f->seen = true;
	f->ip_version = ip_version;
	f->flags = p[16];
	f->rev = p[17];
	f->pd_len = get_unaligned_be16(p + 18);
	if (!(f->flags & IPT_MPA_ENH) || len < IPT_MPA_HDR + 4)
		return;
	f->ird = get_unaligned_be16(p + 20) & 0x3fff;
	f->ord = get_unaligned_be16(p + 22) & 0x3fff;
}

/*
 * The IP header of a TCP packet: its length, and @len cut to the packet's
 * own (a frame may be padded). Return: the IP version, or 0 for anything
 * but TCP over IPv4, or over IPv6 without extension headers.
 */
static u8 ipt_ip(const u8 *p, int *len, int *hlen)
{
	const struct ipv6hdr *ip6 = (const struct ipv6hdr *)p;
	const struct iphdr *ip = (const struct iphdr *)p;

	if (*len < (int)sizeof(*ip))
		return 0;
	if (ip->version == 4 && ip->protocol == IPPROTO_TCP) {
		*hlen = ip->ihl * 4;
		*len = min_t(int, *len, ntohs(ip->tot_len));
		return 4;
	}
	if (*len < (int)sizeof(*ip6) || ip6->version != 6 ||
	    ip6->nexthdr != IPPROTO_TCP)
		return 0;
	*hlen = sizeof(*ip6);
	*len = min_t(int, *len, sizeof(*ip6) + ntohs(ip6->payload_len));
	return 6;
}

/* One packet, network header first (SOCK_DGRAM). */
static void ipt_packet(const struct ipt_capture *cap, const u8 *p, int len,
		       struct ipt_wire *wire)
{
	const struct tcphdr *th;
	int hlen = 0, off;
	u8 version;

	version = ipt_ip(p, &len, &hlen);
	if (!version || len < hlen + (int)sizeof(*th))
		return;
	th = (const struct tcphdr *)(p + hlen);
	if (ntohs(th->source) != cap->port && ntohs(th->dest) != cap->port)
		return;
	off = hlen + th->doff * 4;
	if (len - off < IPT_MPA_HDR)
		return;
	if (!memcmp(p + off, "MPA ID Req Frame", 16))
		ipt_frame(&wire->req, version, p + off, len - off);
	else if (!memcmp(p + off, "MPA ID Rep Frame", 16))
		ipt_frame(&wire->rep, version, p + off, len - off);
}

/**
 * ipt_capture_read() - the MPA frames captured so far
 * @cap: the capture
 * @wire: filled in; a frame not seen has @seen false
 *
 * Reads every packet queued on the socket without waiting.
 *
 * Context: process context; sleeps.
 */
void ipt_capture_read(struct ipt_capture *cap, struct ipt_wire *wire)
{
	u8 *buf = kmalloc(IPT_SNAP, GFP_KERNEL);
	struct kvec vec;
	int n;

	memset(wire, 0, sizeof(*wire));
	if (!buf)
		return;
	for (;;) {
		struct msghdr msg = { .msg_flags = MSG_DONTWAIT };

		vec.iov_base = buf;
		vec.iov_len = IPT_SNAP;
		n = kernel_recvmsg(cap->sock, &msg, &vec, 1, IPT_SNAP,
				   MSG_DONTWAIT | MSG_TRUNC);
		if (n < 0)
			break;
		ipt_packet(cap, buf, min(n, IPT_SNAP), wire);
	}
	kfree(buf);
}
