// SPDX-License-Identifier: GPL-2.0
/*
 * Routes for the tests, added and removed through a kernel rtnetlink
 * socket in the namespace: the tests need IPv4 routes keyed by TOS, which
 * neither busybox nor an exported kernel function can add.
 */
#include <linux/inet.h>
#include <linux/net.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/socket.h>
#include <net/sock.h>

#include "rdmacm_test.h"

struct kiwi_rt_nlreq {
	struct nlmsghdr nh;
	struct rtmsg rtm;
	char attrs[64];
};

static void kiwi_rt_nl_attr(struct kiwi_rt_nlreq *req, u16 type,
			    const void *data, int len)
{
	struct rtattr *rta = (void *)((char *)req + NLMSG_ALIGN(req->nh.nlmsg_len));

	rta->rta_type = type;
	rta->rta_len = RTA_LENGTH(len);
	memcpy(RTA_DATA(rta), data, len);
	req->nh.nlmsg_len = NLMSG_ALIGN(req->nh.nlmsg_len) + RTA_ALIGN(rta->rta_len);
}

static int kiwi_rt_nl_talk(struct net *net, struct kiwi_rt_nlreq *req)
{
	struct sockaddr_nl to = { .nl_family = AF_NETLINK };
	struct msghdr msg = { .msg_name = &to, .msg_namelen = sizeof(to) };
	struct kvec iov = { req, req->nh.nlmsg_len };
	struct {
		struct nlmsghdr nh;
		struct nlmsgerr err;
	} ack;
	struct socket *sock;
	int ret;

	ret = sock_create_kern(net, AF_NETLINK, SOCK_RAW, NETLINK_ROUTE, &sock);
	if (ret)
		return ret;
	ret = kernel_sendmsg(sock, &msg, &iov, 1, iov.iov_len);
	if (ret < 0)
		goto out_release;
	memset(&msg, 0, sizeof(msg));
	iov.iov_base = &ack;
	iov.iov_len = sizeof(ack);
	ret = kernel_recvmsg(sock, &msg, &iov, 1, sizeof(ack), 0);
	if (ret >= (int)sizeof(ack) && ack.nh.nlmsg_type == NLMSG_ERROR)
		ret = ack.err.error;
	else if (ret >= 0)
		ret = -EPROTO;
out_release:
	sock_release(sock);
	return ret;
}

/**
 * kiwi_rt_route4() - add or delete an IPv4 route
 * @net: the namespace
 * @add: add (true) or delete
 * @dst: destination prefix, as text
 * @plen: prefix length
 * @tos: TOS key of the route (0: any)
 * @gw: gateway as text, or NULL
 * @oif: egress interface index
 *
 * Context: process context; takes rtnl: not with it held.
 * Return: 0 or the rtnetlink error.
 */
int kiwi_rt_route4(struct net *net, bool add, const char *dst, u8 plen,
		   u8 tos, const char *gw, int oif)
{
	struct kiwi_rt_nlreq req = {
		.nh = {
			.nlmsg_len = NLMSG_LENGTH(sizeof(struct rtmsg)),
			.nlmsg_type = add ? RTM_NEWROUTE : RTM_DELROUTE,
			.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK |
				       (add ? NLM_F_CREATE | NLM_F_EXCL : 0),
		},
		.rtm = {
			.rtm_family = AF_INET,
			.rtm_dst_len = plen,
			.rtm_tos = tos,
			.rtm_table = RT_TABLE_MAIN,
			.rtm_protocol = RTPROT_STATIC,
			.rtm_scope = gw ? RT_SCOPE_UNIVERSE : RT_SCOPE_LINK,
			.rtm_type = RTN_UNICAST,
		},
	};
	__be32 a = in_aton(dst);

	kiwi_rt_nl_attr(&req, RTA_DST, &a, sizeof(a));
	if (gw) {
		a = in_aton(gw);
		kiwi_rt_nl_attr(&req, RTA_GATEWAY, &a, sizeof(a));
	}
	kiwi_rt_nl_attr(&req, RTA_OIF, &oif, sizeof(oif));
	return kiwi_rt_nl_talk(net, &req);
}
