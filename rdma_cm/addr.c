// SPDX-License-Identifier: GPL-2.0
/*
 * Addresses: binding and ports, and address and route resolution over the
 * kernel's routing tables in the id's network namespace.
 */
#include <linux/hashtable.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/inetdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/random.h>
#include <net/addrconf.h>
#include <net/dst.h>
#include <net/neighbour.h>
#include <net/ip.h>
#include <net/ip6_route.h>
#include <net/route.h>

#include "rdmacm.h"

/* How often a resolution waiting for a neighbour looks again. */
#define KIWI_RDMA_NEIGH_POLL msecs_to_jiffies(10)

/*
 * The ids holding a port, by port number (every namespace in one table):
 * a bind looks at the ids of its own port only, not at every id.
 */
#define KIWI_RDMA_PORT_BITS 10
static DEFINE_HASHTABLE(kiwi_rdma_ports, KIWI_RDMA_PORT_BITS);

static bool kiwi_rdma_family_ok(const struct sockaddr *sa)
{
	return sa->sa_family == AF_INET || sa->sa_family == AF_INET6;
}

static size_t kiwi_rdma_addr_size(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return sizeof(struct sockaddr_in);
	return sizeof(struct sockaddr_in6);
}

static __be16 *kiwi_rdma_portp(struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return &((struct sockaddr_in *)ss)->sin_port;
	return &((struct sockaddr_in6 *)ss)->sin6_port;
}

static bool kiwi_rdma_any(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return ((const struct sockaddr_in *)ss)->sin_addr.s_addr ==
		       htonl(INADDR_ANY);
	return ipv6_addr_any(&((const struct sockaddr_in6 *)ss)->sin6_addr);
}

static bool kiwi_rdma_same_addr(const struct sockaddr_storage *a,
				const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	return ipv6_addr_equal(&((const struct sockaddr_in6 *)a)->sin6_addr,
			       &((const struct sockaddr_in6 *)b)->sin6_addr);
}

/*
 * May @a (which is about to listen if @a_listens) and @b hold one port
 * at once? Yes if both reuse addresses and neither listens, or both are
 * address-family-only and of two families; otherwise only on two
 * different specific addresses.
 */
static bool kiwi_rdma_port_shared(struct kiwi_rdma_priv *a, bool a_listens,
				  struct kiwi_rdma_priv *b)
{
	struct sockaddr_storage *sa = &a->id.route.addr.src_addr;
	struct sockaddr_storage *sb = &b->id.route.addr.src_addr;

	if (READ_ONCE(a->reuseaddr) && READ_ONCE(b->reuseaddr) && !a_listens &&
	    kiwi_rdma_state_of(a) != KIWI_RDMA_LISTEN &&
	    kiwi_rdma_state_of(b) != KIWI_RDMA_LISTEN)
		return true;
	if (READ_ONCE(a->afonly) && READ_ONCE(b->afonly) &&
	    sa->ss_family != sb->ss_family)
		return true;
	return !kiwi_rdma_any(sa) && !kiwi_rdma_any(sb) &&
	       !kiwi_rdma_same_addr(sa, sb);
}

/* Does another bound id of the namespace hold @port on an overlapping address? */
static bool kiwi_rdma_port_busy(struct kiwi_rdma_priv *priv, __be16 port,
				bool listens)
{
	struct kiwi_rdma_priv *other;
	u16 key = ntohs(port);

	lockdep_assert_held(&kiwi_rdma_lock);
	hash_for_each_possible(kiwi_rdma_ports, other, port_node, key) {
		struct sockaddr_storage *theirs = &other->id.route.addr.src_addr;

		if (other == priv || other->net != priv->net ||
		    *kiwi_rdma_portp(theirs) != port)
			continue;
		if (!kiwi_rdma_port_shared(priv, listens, other))
			return true;
	}
	return false;
}

static int kiwi_rdma_port_pick(struct kiwi_rdma_priv *priv)
{
	int low, high, n, i, port;

	inet_get_local_port_range(priv->net, &low, &high);
	n = high - low + 1;
	port = low + get_random_u32() % n;
	for (i = 0; i < n; i++, port = port == high ? low : port + 1) {
		if (!kiwi_rdma_port_busy(priv, htons(port), false))
			return port;
	}
	return -EADDRNOTAVAIL;
}

/**
 * kiwi_rdma_port_get() - take the port in the id's source address
 * @priv: the id, its source address set
 *
 * Port 0 picks a free port in the namespace's ephemeral range; a
 * connection from the id leaves its port to TCP then.
 *
 * Return: 0, or -EADDRINUSE / -EADDRNOTAVAIL.
 */
int kiwi_rdma_port_get(struct kiwi_rdma_priv *priv)
{
	__be16 *portp = kiwi_rdma_portp(&priv->id.route.addr.src_addr);
	int ret = 0;

	mutex_lock(&kiwi_rdma_lock);
	priv->port_auto = !*portp;
	if (!*portp) {
		ret = kiwi_rdma_port_pick(priv);
		if (ret > 0) {
			*portp = htons(ret);
			ret = 0;
		}
	} else if (kiwi_rdma_port_busy(priv, *portp, false)) {
		ret = -EADDRINUSE;
	}
	if (!ret && !priv->bound)
		hash_add(kiwi_rdma_ports, &priv->port_node, ntohs(*portp));
	priv->bound = !ret;
	mutex_unlock(&kiwi_rdma_lock);
	return ret;
}

/**
 * kiwi_rdma_port_listen_ok() - may a bound id listen on its port?
 * @priv: the id, bound
 *
 * Ids that share a port by rdma_set_reuseaddr() may not listen on it;
 * an id that does not reuse addresses had its port checked at bind.
 *
 * Return: 0, or -EADDRINUSE.
 */
int kiwi_rdma_port_listen_ok(struct kiwi_rdma_priv *priv)
{
	__be16 port = *kiwi_rdma_portp(&priv->id.route.addr.src_addr);
	bool busy;

	if (!READ_ONCE(priv->reuseaddr))
		return 0;
	mutex_lock(&kiwi_rdma_lock);
	busy = kiwi_rdma_port_busy(priv, port, true);
	mutex_unlock(&kiwi_rdma_lock);
	return busy ? -EADDRINUSE : 0;
}

/**
 * kiwi_rdma_port_put() - give the id's port back
 * @priv: the id
 */
void kiwi_rdma_port_put(struct kiwi_rdma_priv *priv)
{
	mutex_lock(&kiwi_rdma_lock);
	if (priv->bound)
		hash_del(&priv->port_node);
	priv->bound = false;
	mutex_unlock(&kiwi_rdma_lock);
}

/**
 * kiwi_rdma_port_local() - the local address an active iw_cm id is given
 * @priv: the id
 * @local: its source address, for the iw_cm id; changed in place
 *
 * A port the ULP bound is the connection's; a port rdma_cm picked is not
 * (port 0): TCP picks one whose four-tuple is free at connect, TIME_WAIT
 * included, and kiwi_rdma_port_move() takes it when the connection is up.
 *
 * Context: rdma_connect(), before the iw_cm id connects.
 */
void kiwi_rdma_port_local(struct kiwi_rdma_priv *priv,
			  struct sockaddr_storage *local)
{
	if (priv->port_auto)
		*kiwi_rdma_portp(local) = 0;
}

/**
 * kiwi_rdma_port_move() - the id's connection is up from @local
 * @priv: an active id
 * @local: the local address and port the connection has
 *
 * The id reports @local from now on and holds its port in the table
 * instead of the one it had. Another id may hold that port already
 * without a socket (TCP could not know it): both keep it, and TCP
 * decides between their sockets (Documentation/rdma_cm.rst, "Binding").
 *
 * Context: the id's iw_cm handler, at a successful CONNECT_REPLY; takes
 * kiwi_rdma_lock.
 */
void kiwi_rdma_port_move(struct kiwi_rdma_priv *priv,
			 const struct sockaddr_storage *local)
{
	struct sockaddr_storage *src = &priv->id.route.addr.src_addr;

	if (local->ss_family != src->ss_family || !kiwi_rdma_ss_port(local))
		return;
	mutex_lock(&kiwi_rdma_lock);
	if (priv->bound)
		hash_del(&priv->port_node);
	*src = *local;
	if (priv->bound)
		hash_add(kiwi_rdma_ports, &priv->port_node,
			 ntohs(*kiwi_rdma_portp(src)));
	mutex_unlock(&kiwi_rdma_lock);
}

/* The net_device holding a local address, with a reference; or NULL. */
static struct net_device *kiwi_rdma_addr_netdev(struct net *net,
						const struct sockaddr_storage *ss)
{
	struct net_device *nd;

	if (ss->ss_family == AF_INET)
		return ip_dev_find(net,
				   ((const struct sockaddr_in *)ss)->sin_addr.s_addr);
	rcu_read_lock();
	nd = ipv6_dev_find(net, &((const struct sockaddr_in6 *)ss)->sin6_addr,
			   NULL);
	dev_hold(nd);
	rcu_read_unlock();
	return nd;
}

/* Find the kiwi device owning a specific local address. */
static int kiwi_rdma_bind_device(struct kiwi_rdma_priv *priv)
{
	struct net_device *nd;
	struct ib_device *dev;

	nd = kiwi_rdma_addr_netdev(priv->net, &priv->id.route.addr.src_addr);
	if (!nd)
		return -EADDRNOTAVAIL;
	dev = kiwi_device_get_by_netdev(nd);
	dev_put(nd);
	if (!dev)
		return -ENODEV;
	kiwi_rdma_set_device(priv, dev, true);
	return 0;
}

static int kiwi_rdma_do_bind(struct kiwi_rdma_priv *priv,
			     const struct sockaddr *addr)
{
	int ret;

	memset(&priv->id.route.addr.src_addr, 0,
	       sizeof(priv->id.route.addr.src_addr));
	memcpy(&priv->id.route.addr.src_addr, addr, kiwi_rdma_addr_size(addr));
	if (!kiwi_rdma_any(&priv->id.route.addr.src_addr)) {
		ret = kiwi_rdma_bind_device(priv);
		if (ret)
			return ret;
	}
	ret = kiwi_rdma_port_get(priv);
	if (ret)
		kiwi_rdma_clear_device(priv);
	return ret;
}

/**
 * kiwi_rdma_bind_addr() - bind an id to a local address and port
 * @id: an IDLE id
 * @addr: IPv4 or IPv6 address; a specific one must belong to a net_device
 *	of the id's namespace with a kiwi device; port 0 picks a free port
 *
 * Context: process context; sleeps.
 * Return: 0; -EAFNOSUPPORT for another family; -EINVAL if the id is not
 * IDLE; -EADDRNOTAVAIL if no interface has the address (or no port is
 * free); -ENODEV if no kiwi device is bound to that interface;
 * -EADDRINUSE if another id of the namespace holds the port on an
 * overlapping address.
 */
int kiwi_rdma_bind_addr(struct rdma_cm_id *id, struct sockaddr *addr)
{
	struct kiwi_rdma_priv *priv = kiwi_rdma_priv(id);
	int ret;

	might_sleep();
	if (!kiwi_rdma_family_ok(addr))
		return -EAFNOSUPPORT;
	ret = kiwi_rdma_enter(priv, KIWI_RDMA_CALL_BIND);
	if (ret)
		return ret;
	ret = kiwi_rdma_do_bind(priv, addr);
	return kiwi_rdma_leave(priv, KIWI_RDMA_CALL_BIND, ret);
}
EXPORT_SYMBOL_GPL(kiwi_rdma_bind_addr);

/**
 * kiwi_rdma_autobind() - bind an IDLE id before it resolves or listens
 * @priv: the id; nothing happens unless it is IDLE
 * @src: the address to bind to, or NULL for the wildcard address of
 *	@family and a free port
 * @family: AF_INET or AF_INET6
 *
 * Context: process context; sleeps.
 * Return: 0 or the error of kiwi_rdma_bind_addr().
 */
int kiwi_rdma_autobind(struct kiwi_rdma_priv *priv, struct sockaddr *src,
		       sa_family_t family)
{
	struct sockaddr_storage any = { .ss_family = family };

	if (kiwi_rdma_state_of(priv) != KIWI_RDMA_IDLE)
		return 0;
	if (!src)
		src = (struct sockaddr *)&any;
	return kiwi_rdma_bind_addr(&priv->id, src);
}

static void kiwi_rdma_queue(struct kiwi_rdma_priv *priv, unsigned long delay)
{
	queue_delayed_work(kiwi_rdma_id_wq, &priv->work, delay);
}

/**
 * struct kiwi_rdma_query - what an address resolution is asked
 * @dst: the peer's address
 * @deadline: jiffies at which it gives up
 */
struct kiwi_rdma_query {
	const struct sockaddr *dst;
	unsigned long deadline;
};

/*
 * Under the id's lock, as it moves to ADDR_QUERY: the id's work, which
 * may run at any time (a removal or a netdev event kicks it), finds the
 * query whole once it sees the state.
 */
static void kiwi_rdma_set_query(struct kiwi_rdma_priv *priv, const void *arg)
{
	const struct kiwi_rdma_query *q = arg;
	struct sockaddr_storage *dst = &priv->id.route.addr.dst_addr;

	memset(dst, 0, sizeof(*dst));
	memcpy(dst, q->dst, kiwi_rdma_addr_size(q->dst));
	priv->deadline = q->deadline;
	priv->neigh_kicked = false;
}

/**
 * kiwi_rdma_resolve_addr() - find the source address and the kiwi device
 * @id: an IDLE or bound id
 * @src_addr: source address to bind an IDLE id to, or NULL for any
 * @dst_addr: the peer's address and port
 * @timeout_ms: how long neighbour resolution may take, in milliseconds
 *
 * Looks the route to @dst_addr up in the id's namespace; its egress
 * interface names the kiwi device (loopback included; for an address of
 * this host, the device of the interface holding it, if it has one, as
 * in Linux). Then the next hop's
 * link-layer address is resolved (ARP or neighbour discovery) unless the
 * interface needs none. The outcome comes as ADDR_RESOLVED or ADDR_ERROR
 * (status: the routing error, -ENODEV without a kiwi device on the egress
 * interface, -EHOSTUNREACH if the neighbour failed, -ETIMEDOUT if it was
 * not resolved within @timeout_ms).
 *
 * Context: process context; sleeps.
 * Return: 0 (an event follows); -EAFNOSUPPORT or -EINVAL for mismatched
 * families; -EINVAL in another state; or a bind error.
 */
int kiwi_rdma_resolve_addr(struct rdma_cm_id *id, struct sockaddr *src_addr,
			   const struct sockaddr *dst_addr,
			   unsigned long timeout_ms)
{
	struct kiwi_rdma_priv *priv = kiwi_rdma_priv(id);
	struct kiwi_rdma_query query;
	int ret;

	might_sleep();
	if (!kiwi_rdma_family_ok(dst_addr))
		return -EAFNOSUPPORT;
	if (src_addr && src_addr->sa_family != dst_addr->sa_family)
		return -EINVAL;
	ret = kiwi_rdma_autobind(priv, src_addr, dst_addr->sa_family);
	if (ret)
		return ret;
	if (id->route.addr.src_addr.ss_family != dst_addr->sa_family)
		return -EINVAL;
	query.dst = dst_addr;
	query.deadline = jiffies + msecs_to_jiffies(timeout_ms);
	ret = kiwi_rdma_enter_set(priv, KIWI_RDMA_CALL_RESOLVE_ADDR,
				  kiwi_rdma_set_query, &query);
	if (ret)
		return ret;
	kiwi_race_at(KIWI_RACE_RESOLVE_ADDR, id);
	kiwi_rdma_queue(priv, 0);
	return kiwi_rdma_leave(priv, KIWI_RDMA_CALL_RESOLVE_ADDR, 0);
}
EXPORT_SYMBOL_GPL(kiwi_rdma_resolve_addr);

/**
 * kiwi_rdma_resolve_route() - look the route up again, with the id's TOS
 * @id: an id whose address is resolved
 * @timeout_ms: bound on the resolution
 *
 * The outcome comes as ROUTE_RESOLVED or ROUTE_ERROR.
 *
 * Context: process context; sleeps.
 * Return: 0 (an event follows), or -EINVAL if the address is not resolved.
 */
int kiwi_rdma_resolve_route(struct rdma_cm_id *id, unsigned long timeout_ms)
{
	struct kiwi_rdma_priv *priv = kiwi_rdma_priv(id);
	int ret;

	might_sleep();
	ret = kiwi_rdma_enter(priv, KIWI_RDMA_CALL_RESOLVE_ROUTE);
	if (ret)
		return ret;
	kiwi_rdma_queue(priv, 0);
	return kiwi_rdma_leave(priv, KIWI_RDMA_CALL_RESOLVE_ROUTE, 0);
}
EXPORT_SYMBOL_GPL(kiwi_rdma_resolve_route);

/* IPv4 route: its dst, and the source address if none is bound. */
static int kiwi_rdma_route4(struct kiwi_rdma_priv *priv,
			    struct dst_entry **dstp)
{
	struct sockaddr_in *src = (void *)&priv->id.route.addr.src_addr;
	struct sockaddr_in *dst = (void *)&priv->id.route.addr.dst_addr;
	struct flowi4 fl4 = {
		.daddr = dst->sin_addr.s_addr,
		.saddr = src->sin_addr.s_addr,
		.flowi4_tos = RT_TOS(READ_ONCE(priv->id.route.tos)),
	};
	struct rtable *rt;

	rt = ip_route_output_key(priv->net, &fl4);
	if (IS_ERR(rt))
		return PTR_ERR(rt);
	/* other ids' port checks read it (kiwi_rdma_port_busy()) */
	mutex_lock(&kiwi_rdma_lock);
	src->sin_addr.s_addr = fl4.saddr;
	mutex_unlock(&kiwi_rdma_lock);
	*dstp = &rt->dst;
	return 0;
}

/* IPv6 route: its dst, and the source address if none is bound. */
static int kiwi_rdma_route6(struct kiwi_rdma_priv *priv,
			    struct dst_entry **dstp)
{
	struct sockaddr_in6 *src = (void *)&priv->id.route.addr.src_addr;
	struct sockaddr_in6 *dst = (void *)&priv->id.route.addr.dst_addr;
	struct flowi6 fl6 = {
		.daddr = dst->sin6_addr,
		.saddr = src->sin6_addr,
		.flowi6_oif = dst->sin6_scope_id,
		.flowlabel = ip6_make_flowinfo(READ_ONCE(priv->id.route.tos), 0),
	};
	struct in6_addr saddr = src->sin6_addr;
	struct dst_entry *de;
	int ret;

	de = ip6_route_output(priv->net, NULL, &fl6);
	ret = de->error;
	if (!ret && ipv6_addr_any(&saddr) &&
	    ipv6_dev_get_saddr(priv->net, de->dev, &fl6.daddr, 0, &saddr))
		ret = -EADDRNOTAVAIL;
	if (ret) {
		dst_release(de);
		return ret;
	}
	/* other ids' port checks read it (kiwi_rdma_port_busy()) */
	mutex_lock(&kiwi_rdma_lock);
	src->sin6_addr = saddr;
	mutex_unlock(&kiwi_rdma_lock);
	*dstp = de;
	return 0;
}

/*
 * Is the next hop's link-layer address known? Starts neighbour resolution
 * once per rdma_resolve_addr() (again if the entry was recreated meanwhile),
 * so that a neighbour the kernel gave up on ends the wait. Return: 0, -EAGAIN while it is being
 * resolved, -EHOSTUNREACH if it failed, or -ENOMEM.
 */
static int kiwi_rdma_neigh(struct kiwi_rdma_priv *priv, struct dst_entry *de)
{
	struct sockaddr_storage *ss = &priv->id.route.addr.dst_addr;
	const void *daddr;
	struct neighbour *n;
	u8 nud;

	if (de->dev->flags & (IFF_LOOPBACK | IFF_NOARP))
		return 0;
	if (ss->ss_family == AF_INET)
		daddr = &((struct sockaddr_in *)ss)->sin_addr;
	else
		daddr = &((struct sockaddr_in6 *)ss)->sin6_addr;
	n = dst_neigh_lookup(de, daddr);
	if (!n)
		return -ENOMEM;
	if (!priv->neigh_kicked || READ_ONCE(n->nud_state) == NUD_NONE) {
		priv->neigh_kicked = true;
		neigh_event_send(n, NULL);
	}
	nud = READ_ONCE(n->nud_state);
	neigh_release(n);
	if (nud & NUD_VALID)
		return 0;
	if (nud & NUD_FAILED)
		return -EHOSTUNREACH;
	return -EAGAIN;
}

/*
 * The kiwi device a route's egress interface @nd stands for: its own; or,
 * for a destination on this host (egress through loopback), as in
 * Linux, the device of the interface holding the destination address if
 * it has one, so that a client reaches a server of the same namespace
 * on the server's RNIC. Sets the id's ifindex to the interface used.
 */
static struct ib_device *kiwi_rdma_egress_device(struct kiwi_rdma_priv *priv,
						 struct net_device *nd)
{
	struct net_device *owner = NULL;
	struct ib_device *dev = NULL;

	if (nd->flags & IFF_LOOPBACK)
		owner = kiwi_rdma_addr_netdev(priv->net,
					      &priv->id.route.addr.dst_addr);
	if (owner && owner != nd) {
		dev = kiwi_device_get_by_netdev(owner);
		if (dev)
			priv->id.route.ifindex = owner->ifindex;
	}
	dev_put(owner);
	if (dev)
		return dev;
	priv->id.route.ifindex = nd->ifindex;
	return kiwi_device_get_by_netdev(nd);
}

/*
 * Route lookup (and, for address resolution, the neighbour) for the id;
 * it gets the egress device unless it has one.
 */
static int kiwi_rdma_lookup(struct kiwi_rdma_priv *priv, bool addr)
{
	struct ib_device *dev;
	struct dst_entry *de;
	int ret;

	if (priv->id.route.addr.dst_addr.ss_family == AF_INET)
		ret = kiwi_rdma_route4(priv, &de);
	else
		ret = kiwi_rdma_route6(priv, &de);
	if (ret)
		return ret;
	dev = kiwi_rdma_egress_device(priv, de->dev);
	ret = !dev && !priv->id.device ? -ENODEV : 0;
	if (!ret && addr)
		ret = kiwi_rdma_neigh(priv, de);
	dst_release(de);
	if (ret || priv->id.device) {
		if (dev)
			kiwi_device_put(dev);
		return ret;
	}
	kiwi_rdma_set_device(priv, dev, true);
	return 0;
}

/*
 * One resolution step: ADDR_QUERY or ROUTE_QUERY to its outcome. Return:
 * true with @ev to deliver; false if the id moved on (destroyed) or the
 * step was queued again to wait for the neighbour.
 */
static bool kiwi_rdma_resolve_step(struct kiwi_rdma_priv *priv,
				   struct rdma_cm_event *ev)
{
	enum kiwi_rdma_state state = kiwi_rdma_state_of(priv);
	bool addr = state == KIWI_RDMA_ADDR_QUERY;
	long left;
	int ret;

	if (!addr && state != KIWI_RDMA_ROUTE_QUERY)
		return false;
	/* written with the state, read after it: kiwi_rdma_set_query() */
	left = (long)(priv->deadline - jiffies);
	ret = kiwi_rdma_lookup(priv, addr);
	if (ret == -EAGAIN && left > 0) {
		kiwi_rdma_queue(priv, min_t(long, left, KIWI_RDMA_NEIGH_POLL));
		return false;
	}
	if (ret == -EAGAIN)
		ret = -ETIMEDOUT;
	ev->status = ret;
	if (ret) {
		ev->event = addr ? RDMA_CM_EVENT_ADDR_ERROR :
				   RDMA_CM_EVENT_ROUTE_ERROR;
		return kiwi_rdma_move(priv, state, priv->from);
	}
	ev->event = addr ? RDMA_CM_EVENT_ADDR_RESOLVED :
			   RDMA_CM_EVENT_ROUTE_RESOLVED;
	return kiwi_rdma_move(priv, state, addr ? KIWI_RDMA_ADDR_RESOLVED :
						  KIWI_RDMA_ROUTE_RESOLVED);
}

/**
 * kiwi_rdma_resolve() - run a resolution in flight and tell the ULP
 * @priv: the id; nothing happens unless it is resolving
 *
 * Context: the id's work.
 * Return: non-zero if the id is to be torn down now.
 */
int kiwi_rdma_resolve(struct kiwi_rdma_priv *priv)
{
	struct rdma_cm_event ev = {};

	if (!kiwi_rdma_resolve_step(priv, &ev))
		return 0;	/* not resolving, or waiting */
	return kiwi_rdma_deliver(priv, &ev, NULL);
}
