// SPDX-License-Identifier: GPL-2.0
/*
 * The connection suites' raw peer: plain kernel TCP sockets that connect
 * to softiw's listeners and write or read bytes by hand, released when
 * the test case ends. See cm_fixture.h.
 */
#include <kunit/resource.h>
#include <linux/jiffies.h>
#include <linux/net.h>
#include <linux/tcp.h>
#include <net/sock.h>

#include "cm_fixture.h"
#include "kiwi_test.h"
#include "softiw.h"

/**
 * cmt_raw_connect() - a plain blocking TCP client to 127.0.0.1:@port
 * @test: the test
 * @port: the port
 *
 * Return: the connected socket.
 */
struct socket *cmt_raw_connect(struct kunit *test, u16 port)
{
	struct socket *sock = cmt_raw_try_connect(test, port);

	KUNIT_ASSERT_NOT_NULL_MSG(test, sock, "raw connect failed");
	return sock;
}

/* A kernel socket's orphan keeps its timers only if released this way. */
static void cmt_raw_release(struct kunit_resource *res)
{
	kiwi_softiw_sock_release(res->data, false);
}

static bool cmt_raw_match(struct kunit *test, struct kunit_resource *res,
			  void *sock)
{
	return res->free == cmt_raw_release && res->data == sock;
}

/**
 * cmt_raw_adopt() - release a raw socket when the test case ends
 * @test: the running test
 * @sock: a socket the case created or accepted
 *
 * Unless cmt_raw_close() releases it before. If there is no memory to
 * track it, @sock is released at once and the case is aborted.
 *
 * Context: process context.
 */
void cmt_raw_adopt(struct kunit *test, struct socket *sock)
{
	if (kunit_alloc_resource(test, NULL, cmt_raw_release, GFP_KERNEL,
				 sock))
		return;
	sock_release(sock);
	KUNIT_ASSERT_FAILURE(test, "no memory for a resource");
}

/**
 * cmt_raw_socket_of() - a plain TCP socket of a family, not connected yet
 * @test: the running test
 * @family: AF_INET or AF_INET6
 *
 * The socket is released when the test case ends if cmt_raw_close() was
 * not called before.
 *
 * Context: process context.
 * Return: the socket, TCP_NODELAY set.
 */
struct socket *cmt_raw_socket_of(struct kunit *test, int family)
{
	struct socket *sock;

	KUNIT_ASSERT_EQ(test, sock_create_kern(&init_net, family, SOCK_STREAM,
					       IPPROTO_TCP, &sock), 0);
	cmt_raw_adopt(test, sock);
	tcp_sock_set_nodelay(sock->sk);
	return sock;
}

/**
 * cmt_raw_socket() - a plain IPv4 TCP socket, not connected yet
 * @test: the running test
 *
 * Context: process context.
 * Return: what cmt_raw_socket_of() returns for AF_INET.
 */
struct socket *cmt_raw_socket(struct kunit *test)
{
	return cmt_raw_socket_of(test, AF_INET);
}

/**
 * cmt_raw_connect_lo() - a plain blocking TCP client to a loopback address
 * @test: the running test
 * @family: AF_INET (127.0.0.1) or AF_INET6 (::1)
 * @port: the listener's port
 *
 * Context: process context; sleeps.
 * Return: the connected socket, released as cmt_raw_socket_of() says.
 */
struct socket *cmt_raw_connect_lo(struct kunit *test, int family, u16 port)
{
	struct socket *sock = cmt_raw_socket_of(test, family);
	struct sockaddr_storage ss;

	kiwi_test_addr(test, &ss, family, KIWI_TEST_LO, port);
	KUNIT_ASSERT_EQ_MSG(test, kernel_connect(sock, (struct sockaddr *)&ss,
						 sizeof(ss), 0), 0,
			    "raw connect to family %d failed", family);
	return sock;
}

/**
 * cmt_raw_connect_to() - connect a socket of cmt_raw_socket(), blocking
 * @sock: the socket
 * @port: listener port on 127.0.0.1
 *
 * Asserts nothing: a caller may hold a lock across it.
 *
 * Context: process context; sleeps.
 * Return: what kernel_connect() returned.
 */
int cmt_raw_connect_to(struct socket *sock, u16 port)
{
	struct sockaddr_storage ss;

	cmt_addr(&ss, port);
	return kernel_connect(sock, (struct sockaddr *)&ss, sizeof(ss), 0);
}

/**
 * cmt_raw_try_connect() - connect a plain TCP client; refusal allowed
 * @test: the running test
 * @port: listener port on 127.0.0.1
 *
 * The socket is released when the test case ends if cmt_raw_close() was
 * not called before.
 *
 * Context: process context; sleeps.
 * Return: the connected socket, or NULL if the connection was refused.
 */
struct socket *cmt_raw_try_connect(struct kunit *test, u16 port)
{
	struct socket *sock = cmt_raw_socket(test);

	if (cmt_raw_connect_to(sock, port)) {
		cmt_raw_close(sock, false);
		return NULL;
	}
	return sock;
}

/**
 * cmt_raw_send() - send bytes on a raw client
 * @sock: the client
 * @buf: the bytes
 * @len: their number
 *
 * Return: what kernel_sendmsg() returned.
 */
int cmt_raw_send(struct socket *sock, const void *buf, size_t len)
{
	struct msghdr msg = { .msg_flags = MSG_NOSIGNAL };
	struct kvec vec = { .iov_base = (void *)buf, .iov_len = len };

	return kernel_sendmsg(sock, &msg, &vec, 1, len);
}

/**
 * cmt_raw_recv() - receive on a raw client, waiting at most @ms
 * @sock: the client
 * @buf: where to put the bytes
 * @len: at most this many
 * @ms: how long to wait
 *
 * Return: bytes, 0 at end of stream, -EAGAIN on timeout, or an errno.
 */
int cmt_raw_recv(struct socket *sock, void *buf, size_t len, int ms)
{
	struct msghdr msg = {};
	struct kvec vec = { .iov_base = buf, .iov_len = len };

	sock->sk->sk_rcvtimeo = msecs_to_jiffies(ms);
	return kernel_recvmsg(sock, &msg, &vec, 1, len, 0);
}

/**
 * cmt_raw_close() - close a raw client
 * @sock: the client
 * @reset: with a RST instead of a FIN
 */
void cmt_raw_close(struct socket *sock, bool reset)
{
	if (reset)
		sock_no_linger(sock->sk);
	kunit_destroy_resource(current->kunit_test, cmt_raw_match, sock);
}
