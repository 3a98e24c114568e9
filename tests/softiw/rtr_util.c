// SPDX-License-Identifier: GPL-2.0
/*
 * What the RTR suites share: see rtr_util.h.
 */
#include <kunit/test.h>
#include <linux/in.h>
#include <linux/string.h>
#include <net/sock.h>

#include "cm_fixture.h"
#include "kiwi_test.h"
#include "rtr_util.h"

/**
 * rtr_exit() - restore the module parameters a case may have set
 * @test: the test
 *
 * The exit of the RTR suites: mpa_p2p, mpa_rtr, rtr_timeout_ms, mpa_rev
 * and mpa_crc at their defaults.
 */
void rtr_exit(struct kunit *test)
{
	cmt_param(test, "mpa_p2p", "N");
	cmt_param(test, "mpa_rtr", "7");
	cmt_param(test, "rtr_timeout_ms", "10000");
	cmt_param(test, "mpa_rev", "2");
	cmt_param(test, "mpa_crc", "N");
}

/* The TERMINATE of no matching RTR type. */
const u8 rtr_term_rtr[28] = RTR_TERM(0x07);

/**
 * rtr_recv_all() - read exactly @len bytes
 * @s: the socket
 * @buf: where
 * @len: how many
 * @ms: how long to wait for each piece
 *
 * Return: the bytes read, fewer on end of stream, an error or a timeout.
 */
int rtr_recv_all(struct socket *s, u8 *buf, int len, int ms)
{
	int got = 0, ret;

	while (got < len) {
		ret = cmt_raw_recv(s, buf + got, len - got, ms);
		if (ret <= 0)
			return got;
		got += ret;
	}
	return got;
}

/**
 * rtr_expect_bytes() - read @len bytes from @s and compare them with @want
 * @test: the test
 * @s: the raw peer's socket
 * @want: the bytes expected
 * @len: their number, at most 64
 */
void rtr_expect_bytes(struct kunit *test, struct socket *s,
		      const u8 *want, int len)
{
	u8 got[64];

	KUNIT_ASSERT_LE(test, len, (int)sizeof(got));
	KUNIT_ASSERT_EQ(test, rtr_recv_all(s, got, len, 3000), len);
	CMT_EXPECT_MEM(test, got, want, len);
}

/**
 * rtr_expect_term() - the peer reads a TERMINATE, byte for byte, then the
 *	FIN
 * @test: the test
 * @s: the raw peer's socket
 * @term: the 28 bytes of the TERMINATE
 */
void rtr_expect_term(struct kunit *test, struct socket *s,
		     const u8 *term)
{
	u8 rest[8];

	rtr_expect_bytes(test, s, term, 28);
	KUNIT_EXPECT_EQ(test, cmt_raw_recv(s, rest, sizeof(rest), 3000), 0);
}

/**
 * rtr_param_defaults() - the settings of the RTR suites load with the
 *	defaults the doc names
 * @test: the test
 *
 * A case of kiwi_softiw_rtr, and the last check of each case of
 * kiwi_softiw_rtr_option.
 */
void rtr_param_defaults(struct kunit *test)
{
	static const char * const want[][2] = {
		{ "mpa_p2p", "N" }, { "mpa_rtr", "7" },
		{ "rtr_timeout_ms", "10000" }, { "mpa_rev", "2" },
	};
	char path[96], buf[16];
	int i;

	for (i = 0; i < ARRAY_SIZE(want); i++) {
		snprintf(path, sizeof(path),
			 "/sys/module/kiwi_softiw/parameters/%s", want[i][0]);
		KUNIT_EXPECT_EQ(test, kiwi_test_read_file(path, buf,
							  sizeof(buf)),
				(ssize_t)strlen(want[i][1]));
		KUNIT_EXPECT_STREQ(test, buf, want[i][1]);
	}
}

/**
 * rtr_raw_request() - a P2P revision 2 Request offering @offer, IRD/ORD 4
 * @test: the test
 * @s: the raw initiator's socket
 * @offer: the RTR types offered, mpa_rtr bits
 */
void rtr_raw_request(struct kunit *test, struct socket *s, int offer)
{
	u8 req[24] = KEY_REQ;

	req[16] = 0x10;				/* E */
	req[17] = 2;
	req[19] = 4;				/* PD_Length: the word */
	req[20] = 0x80 | (offer & RTR_SEND ? 0x40 : 0);	/* A, B */
	req[21] = 4;				/* IRD */
	req[22] = (offer & RTR_WRITE ? 0x80 : 0) |	/* C */
		  (offer & RTR_READ ? 0x40 : 0);	/* D */
	req[23] = 4;				/* ORD */
	KUNIT_ASSERT_EQ(test, cmt_raw_send(s, req, sizeof(req)), 24);
}

/**
 * rtr_raw_listen() - a raw listener on 127.0.0.1:@port
 * @test: the test
 * @port: its TCP port
 *
 * Released when the case ends. TCP_NODELAY is set, and the sockets it
 * accepts inherit it.
 *
 * Return: the listening socket; the test is aborted on failure.
 */
struct socket *rtr_raw_listen(struct kunit *test, u16 port)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	struct socket *sock = cmt_raw_socket_of(test, AF_INET);

	sock_set_reuseaddr(sock->sk);
	KUNIT_ASSERT_EQ(test, kernel_bind(sock, (struct sockaddr *)&sin,
					  sizeof(sin)), 0);
	KUNIT_ASSERT_EQ(test, kernel_listen(sock, 4), 0);
	return sock;
}

/**
 * rtr_raw_accept() - accept one connection on a raw listener
 * @test: the test
 * @lst: the listener of rtr_raw_listen()
 *
 * Waits up to 3 s. The socket is released when the case ends.
 *
 * Return: the accepted socket; the test is aborted on failure.
 */
struct socket *rtr_raw_accept(struct kunit *test, struct socket *lst)
{
	struct socket *sock;

	lst->sk->sk_rcvtimeo = msecs_to_jiffies(3000);
	KUNIT_ASSERT_EQ(test, kernel_accept(lst, &sock, 0), 0);
	cmt_raw_adopt(test, sock);
	return sock;
}
