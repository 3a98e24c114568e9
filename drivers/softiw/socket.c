// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_softiw socket glue: kernel TCP sockets in the namespace of the
 * device's netdev, their callbacks (which only queue work: they run in
 * softirq context and must not sleep), and non-blocking send and receive.
 */
#include <kunit/visibility.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/net.h>
#include <linux/random.h>
#include <linux/tcp.h>
#include <net/inet_ecn.h>
#include <net/inet_sock.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "cm.h"

/**
 * softiw_sock_create() - a TCP socket in the device's namespace
 * @sdev: the device
 * @family: AF_INET or AF_INET6
 * @sockp: the new socket
 *
 * Context: process context, may sleep.
 * Return: 0 or a negative errno.
 */
int softiw_sock_create(struct softiw_device *sdev, int family,
		       struct socket **sockp)
{
	int ret;

	if (family != AF_INET && family != AF_INET6)
		return -EAFNOSUPPORT;
	ret = kiwi_should_fail() ? -ENOMEM :
	      sock_create_kern(dev_net(sdev->kdev.netdev), family,
			       SOCK_STREAM, IPPROTO_TCP, sockp);
	if (ret)
		return ret;
	tcp_sock_set_nodelay((*sockp)->sk);
	return 0;
}

/**
 * softiw_sock_attach() - route a socket's events to @event
 * @sock: the socket
 * @owner: stored in sk_user_data for @event
 * @event: called for data, state changes and errors, in softirq context,
 *	with sk_callback_lock read-held
 * @cbs: where the socket's own callbacks are kept for detach
 */
void softiw_sock_attach(struct socket *sock, void *owner,
			void (*event)(struct sock *sk),
			struct softiw_sock_cbs *cbs)
{
	softiw_sock_attach_flags(sock, owner, 0, event, cbs);
}

/**
 * softiw_sock_attach_flags() - softiw_sock_attach() with sk_user_data flags
 * @sock: the socket
 * @owner: stored in sk_user_data for @event
 * @flags: SK_USER_DATA_* bits stored with @owner; a listener passes
 *	SK_USER_DATA_NOCOPY, so that the sockets TCP clones from it for new
 *	connections start with no owner
 * @event: as for softiw_sock_attach()
 * @cbs: as for softiw_sock_attach()
 */
void softiw_sock_attach_flags(struct socket *sock, void *owner,
			      uintptr_t flags, void (*event)(struct sock *sk),
			      struct softiw_sock_cbs *cbs)
{
	struct sock *sk = sock->sk;

	write_lock_bh(&sk->sk_callback_lock);
	cbs->data_ready = sk->sk_data_ready;
	cbs->state_change = sk->sk_state_change;
	cbs->error_report = sk->sk_error_report;
	cbs->write_space = sk->sk_write_space;
	__rcu_assign_sk_user_data_with_flags(sk, owner, flags);
	sk->sk_data_ready = event;
	sk->sk_state_change = event;
	sk->sk_error_report = event;
	write_unlock_bh(&sk->sk_callback_lock);
}

/**
 * softiw_sock_detach() - give a socket its own callbacks back
 * @sock: the socket
 * @cbs: what softiw_sock_attach() kept
 *
 * After it returns no callback runs with the old owner, and none points
 * into this module: the socket may outlive it (FIN_WAIT, TIME_WAIT).
 */
void softiw_sock_detach(struct socket *sock, const struct softiw_sock_cbs *cbs)
{
	struct sock *sk = sock->sk;

	write_lock_bh(&sk->sk_callback_lock);
	sk->sk_user_data = NULL;
	sk->sk_data_ready = cbs->data_ready;
	sk->sk_state_change = cbs->state_change;
	sk->sk_error_report = cbs->error_report;
	sk->sk_write_space = cbs->write_space;
	write_unlock_bh(&sk->sk_callback_lock);
}

/*
 * Give a kernel socket the reference on its namespace a user socket has.
 * A kernel socket holds none, and TCP stops all its timers when it is
 * released (tcp_close(), since Linux's "tcp: properly terminate timers
 * for kernel sockets", in 6.1 stable): the orphan it leaves in FIN_WAIT1,
 * CLOSING or LAST_ACK then never retransmits its FIN or the data queued
 * before it and never times out, so one lost or refused segment keeps it,
 * and its port, until reboot. With the reference the orphan keeps its
 * timers, ends by TCP's rules for orphans (tcp_orphan_retries,
 * tcp_max_orphans) and holds the namespace until then.
 *
 * Return: false if the namespace is being dismantled and cannot be held.
 */
static bool softiw_sock_hold_net(struct sock *sk)
{
	struct net *net = sock_net(sk);

	if (sk->sk_net_refcnt)
		return true;
	if (!maybe_get_net(net))
		return false;
	netns_tracker_alloc(net, &sk->ns_tracker, GFP_KERNEL);
	/* shares a byte with fields setsockopt() writes under the lock */
	lock_sock(sk);
	sk->sk_net_refcnt = 1;
	release_sock(sk);
	sock_inuse_add(net, 1);
	return true;
}

/**
 * kiwi_softiw_sock_release() - close a socket, gracefully or by a reset
 * @sock: a TCP socket, detached (softiw_sock_detach()) if it was attached
 * @abort: reset the connection; otherwise what was queued is sent, then
 *	a FIN, and TCP finishes the close after the socket is gone
 *
 * A graceful close leaves TCP an orphan that keeps its timers: it
 * retransmits and times out as a user socket's would (see
 * softiw_sock_hold_net()). In a namespace being dismantled, which no
 * orphan may outlive, the connection is reset instead. The tests' raw
 * peers close their kernel sockets with it too.
 *
 * Context: process context, may sleep.
 */
void kiwi_softiw_sock_release(struct socket *sock, bool abort)
{
	if (!abort && !softiw_sock_hold_net(sock->sk))
		abort = true;
	if (abort)
		sock_no_linger(sock->sk);
	sock_release(sock);
}
EXPORT_SYMBOL_IF_KUNIT(kiwi_softiw_sock_release);

/**
 * softiw_sock_watch_space() - route a socket's write space events too
 * @sock: a socket attached with softiw_sock_attach()
 * @event: called in softirq context, with sk_callback_lock read-held,
 *	when a full send buffer has room again
 */
void softiw_sock_watch_space(struct socket *sock,
			     void (*event)(struct sock *sk))
{
	struct sock *sk = sock->sk;

	write_lock_bh(&sk->sk_callback_lock);
	sk->sk_write_space = event;
	write_unlock_bh(&sk->sk_callback_lock);
}

/**
 * kiwi_softiw_dead_peer_plan() - the keepalive schedule of one connection
 * @ms: how long the peer may stay silent, ms, not 0
 * @rnd: a random number: where the first probe falls
 * @plan: set to the schedule
 *
 * The first keepalive probe comes after a silence of between a third and
 * five sixths of @ms (in whole seconds, rounded up), drawn from @rnd, so
 * that connections opened together do not probe together: TCP's timer
 * wheel fires all keepalive timers of a bucket (2 s wide for timers 20 s
 * ahead at HZ=250) in one softirq, and a burst of thousands of probes
 * overflows a CPU's receive backlog on a veth or loopback path, dropping
 * other packets with it. A live peer's answer restarts the silence, so
 * a connection sends one probe per idle time. If the peer answers
 * nothing, a second probe follows at the interval, and a second interval
 * later, between @ms and a second after it, the user timeout ends the
 * connection. Past TCP's limits on the idle time and the interval (about
 * 9 h each) the end comes later.
 *
 * Context: any context.
 */
void kiwi_softiw_dead_peer_plan(unsigned int ms, u32 rnd,
				struct softiw_dead_peer *plan)
{
	unsigned int secs = max(ms / 1000 + !!(ms % 1000), 1U);
	unsigned int lo = secs / 3, span = secs * 5 / 6 - lo;
	unsigned int idle = lo + (span ? rnd % span : 0);

	idle = clamp_t(unsigned int, idle, 1, MAX_TCP_KEEPIDLE);
	plan->idle_s = idle;
	plan->intvl_s = clamp_t(unsigned int,
				DIV_ROUND_UP(secs - min(idle, secs), 2), 1,
				MAX_TCP_KEEPINTVL);
	plan->timeout_ms = min_t(unsigned int, ms, INT_MAX);
}
EXPORT_SYMBOL_IF_KUNIT(kiwi_softiw_dead_peer_plan);

/**
 * softiw_sock_dead_peer() - give up on a peer that stops answering
 * @sock: an established socket
 * @ms: how long the peer may stay silent; 0 leaves TCP's defaults
 *
 * Turns on TCP keepalive with the schedule of
 * kiwi_softiw_dead_peer_plan(), and a TCP user timeout of @ms: the
 * connection ends with ETIMEDOUT when neither probes, data nor window
 * probes are answered for that long. The probe count stays TCP's: with a
 * user timeout set, TCP ends a silent connection by that timeout alone.
 *
 * Context: process context, may sleep.
 */
void softiw_sock_dead_peer(struct socket *sock, unsigned int ms)
{
	struct softiw_dead_peer plan;

	if (!ms)
		return;
	kiwi_softiw_dead_peer_plan(ms, get_random_u32(), &plan);
	sock_set_keepalive(sock->sk);
	tcp_sock_set_keepidle(sock->sk, plan.idle_s);
	tcp_sock_set_keepintvl(sock->sk, plan.intvl_s);
	tcp_sock_set_user_timeout(sock->sk, plan.timeout_ms);
}

/**
 * softiw_sock_dead_peer_of() - the dead-peer settings of a socket
 * @sock: the socket
 * @plan: set to its keepalive idle time and interval, s, and its user
 *	timeout, ms
 *
 * Context: any context; the caller keeps @sock alive.
 * Return: true if keepalive is on.
 */
bool softiw_sock_dead_peer_of(struct socket *sock,
			      struct softiw_dead_peer *plan)
{
	const struct tcp_sock *tp = tcp_sk(sock->sk);

	plan->idle_s = READ_ONCE(tp->keepalive_time) / HZ;
	plan->intvl_s = READ_ONCE(tp->keepalive_intvl) / HZ;
	plan->timeout_ms = READ_ONCE(inet_csk(sock->sk)->icsk_user_timeout);
	return sock_flag(sock->sk, SOCK_KEEPOPEN);
}

/*
 * What IPV6_TCLASS does for a stream socket: the class without its ECN
 * bits, which stay TCP's, and a fresh route for the new class.
 */
static void softiw_sock_set_tclass(struct sock *sk, u8 tclass)
{
	struct ipv6_pinfo *np;
	u8 val;

	lock_sock(sk);
	np = inet6_sk(sk);
	if (np) {
		val = (tclass & ~INET_ECN_MASK) | (np->tclass & INET_ECN_MASK);
		if (np->tclass != val) {
			np->tclass = val;
			sk_dst_reset(sk);
		}
	}
	release_sock(sk);
}

/**
 * softiw_sock_set_tos() - give a socket the type of service of its id
 * @sock: a TCP socket: one not connected yet, a listener, or one just
 *	accepted
 * @id: the cm_id; nothing changes unless its owner set @id->tos
 *	(@id->tos_set), so that the socket otherwise keeps the kernel's
 *	default
 *
 * IPv4: the IP TOS, as IP_TOS sets it; IPv6: the traffic class, as
 * IPV6_TCLASS sets it. Either way TCP keeps the ECN bits. Set on a
 * socket before connect(), the SYN and every later segment carry it; set
 * on a listener, the SYN-ACK and the connections TCP clones from it.
 *
 * Context: process context, may sleep.
 */
void softiw_sock_set_tos(struct socket *sock, const struct kiwi_cm_id *id)
{
	struct sock *sk = sock->sk;

	if (!id->tos_set)
		return;
	if (sk->sk_family == AF_INET)
		ip_sock_set_tos(sk, id->tos);
	else if (sk->sk_family == AF_INET6)
		softiw_sock_set_tclass(sk, id->tos);
}

/**
 * softiw_sock_tos_of() - the type of service a socket sends and received
 * @sock: the socket
 * @tos: set to what it sends with: the IPv4 TOS or the IPv6 traffic
 *	class, ECN bits included
 *
 * For a socket TCP accepted, @tos->received is the TOS (traffic class)
 * byte of the packet that completed the peer's handshake (the ACK, or
 * the SYN for a fast open): what the peer's socket sent with. TCP
 * records it at accept and not after; for another socket it is 0.
 *
 * Context: process context, may sleep.
 */
void softiw_sock_tos_of(struct socket *sock, struct softiw_tos *tos)
{
	struct sock *sk = sock->sk;
	struct ipv6_pinfo *np;

	memset(tos, 0, sizeof(*tos));
	lock_sock(sk);
	np = sk->sk_family == AF_INET6 ? inet6_sk(sk) : NULL;
	if (np) {
		tos->sent = np->tclass;
		tos->received = ip6_tclass(np->rcv_flowinfo);
	} else {
		tos->sent = inet_sk(sk)->tos;
		tos->received = inet_sk(sk)->rcv_tos;
	}
	release_sock(sk);
}

/**
 * softiw_sock_send() - send a whole buffer without blocking
 * @sock: the socket
 * @buf: the bytes
 * @len: their number, small enough for an empty send buffer
 *
 * Context: process context.
 * Return: 0, or -ECONNRESET if the bytes could not all be queued.
 */
int softiw_sock_send(struct socket *sock, const void *buf, size_t len)
{
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT | MSG_NOSIGNAL };
	struct kvec vec = { .iov_base = (void *)buf, .iov_len = len };
	int ret;

	ret = kernel_sendmsg(sock, &msg, &vec, 1, len);
	return ret == len ? 0 : -ECONNRESET;
}

/**
 * softiw_sock_recv() - take what has arrived, without blocking
 * @sock: the socket
 * @buf: where to put it
 * @len: at most this many bytes
 *
 * Context: process context.
 * Return: bytes taken, 0 at end of stream, -EAGAIN if nothing is there,
 * or another negative errno.
 */
int softiw_sock_recv(struct socket *sock, void *buf, size_t len)
{
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT };
	struct kvec vec = { .iov_base = buf, .iov_len = len };

	return kernel_recvmsg(sock, &msg, &vec, 1, len, MSG_DONTWAIT);
}

/**
 * softiw_sock_addrs() - both ends' addresses of a connected socket
 * @sock: the socket
 * @local: filled with the local address
 * @remote: filled with the peer's address
 *
 * Return: 0 or a negative errno.
 */
int softiw_sock_addrs(struct socket *sock, struct sockaddr_storage *local,
		      struct sockaddr_storage *remote)
{
	int ret;

	memset(local, 0, sizeof(*local));
	memset(remote, 0, sizeof(*remote));
	ret = kernel_getsockname(sock, (struct sockaddr *)local);
	if (ret < 0)
		return ret;
	ret = kernel_getpeername(sock, (struct sockaddr *)remote);
	return ret < 0 ? ret : 0;
}

/**
 * softiw_addr_any() - is an address the IPv4 or IPv6 wildcard?
 * @ss: the address
 *
 * Context: any context.
 * Return: true for 0.0.0.0 and ::, false for another address or family.
 */
bool softiw_addr_any(const struct sockaddr_storage *ss)
{
	const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)ss;
	const struct sockaddr_in *sin = (const struct sockaddr_in *)ss;

	if (ss->ss_family == AF_INET)
		return sin->sin_addr.s_addr == htonl(INADDR_ANY);
	return ss->ss_family == AF_INET6 && ipv6_addr_any(&sin6->sin6_addr);
}

static __be16 softiw_sock_port(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return ((const struct sockaddr_in *)ss)->sin_port;
	return ((const struct sockaddr_in6 *)ss)->sin6_port;
}

/**
 * softiw_sock_bind_local() - bind an active socket to its id's local address
 * @sock: a socket not connected yet
 * @local: the id's local address; AF_UNSPEC, or the wildcard address with
 *	port 0, binds nothing (TCP picks both at connect)
 * @ifindex: the device's interface, the scope of an IPv6 link-local
 *	address that comes without one
 *
 * Every active socket gets SO_REUSEADDR, as Linux's siw gives it: neither
 * the TIME_WAIT of an earlier connection from the port nor, later, this
 * connection's own stands in the way of a bind; TCP still refuses a
 * four-tuple in use, or in TIME_WAIT without timestamps (connect() fails
 * with -EADDRNOTAVAIL). A port in @local is bound as it is: -EADDRINUSE
 * here if a listener or a socket without SO_REUSEADDR holds it. Port 0
 * binds the address alone (IP_BIND_ADDRESS_NO_PORT): connect() picks the
 * port, one whose four-tuple is neither in use nor in TIME_WAIT.
 *
 * Context: process context, may sleep.
 * Return: 0 or the bind's negative errno.
 */
int softiw_sock_bind_local(struct socket *sock,
			   const struct sockaddr_storage *local, int ifindex)
{
	struct sockaddr_in6 *sin6;
	struct sockaddr_storage ss = *local;
	struct sock *sk = sock->sk;

	sock_set_reuseaddr(sk);
	if (ss.ss_family != AF_INET && ss.ss_family != AF_INET6)
		return 0;
	if (!softiw_sock_port(&ss)) {
		if (softiw_addr_any(&ss))
			return 0;
		lock_sock(sk);
		inet_sk(sk)->bind_address_no_port = 1;
		release_sock(sk);
	}
	sin6 = (struct sockaddr_in6 *)&ss;
	if (ss.ss_family == AF_INET6 && !sin6->sin6_scope_id &&
	    ipv6_addr_type(&sin6->sin6_addr) & IPV6_ADDR_LINKLOCAL)
		sin6->sin6_scope_id = ifindex;
	return kernel_bind(sock, (struct sockaddr *)&ss, sizeof(ss));
}
