// SPDX-License-Identifier: GPL-2.0
/*
 * The rdma_cm side of kiwi's connection benchmark, one source compiled
 * twice through stack.c: against kiwi's <rdma/rdma_cm.h> (kiwi/
 * stack_kiwi.c) and against Linux's (stack_linux.c). stack.c supplies
 * the verbs (struct bench_qpres, bench_qp_create(), bench_qp_destroy(),
 * bench_verbs_exit()); the two wrappers name the stack.
 *
 * A client connection: create an id, resolve the address and the route,
 * create a CQ and a QP, connect with 32 bytes of private data; it is
 * established at ESTABLISHED. The client waits for each step; with the
 * chain parameter its handler takes the next step at ADDR_RESOLVED and at
 * ROUTE_RESOLVED, and it waits for ESTABLISHED only. Closing is
 * rdma_disconnect(), waiting for DISCONNECTED, then destroying the QP, the
 * CQ and the id. The server accepts every request from its handler and
 * destroys each connection when it is disconnected.
 *
 * The same module registers a second stack, the floor (BENCH_STACK_NAME
 * "-floor"): a client that takes the rdma_cm steps short of connecting
 * (create the id, resolve the address and the route, create the CQ and the
 * QP), then opens and closes a connection of the TCP baseline, then undoes
 * the steps. Its rate is what the baseline's would be if every connection
 * also paid for the API's steps before an iWARP connection exists (no MPA,
 * no server side), for reading the stack's ratio to the baseline. It is
 * no exact ceiling: the baseline's request and reply stand in for the MPA
 * Request and Reply, and a floor client waits for each event even with
 * chain.
 */
#include <linux/completion.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/wait.h>
#include <asm/unaligned.h>

#include "bench.h"

#define BENCH_TIMEOUT_MS	5000
#define BENCH_PD_LEN		32
#define BENCH_BACKLOG		1024

/**
 * struct bench_rconn - an rdma_cm connection of the benchmark
 * @id: its id
 * @qp: its QP and CQ
 * @has_qp: @qp was created
 * @floor: a floor client's: its handler never chains
 * @step: completed at each event a client waits for
 * @closed: completed at DISCONNECTED
 * @status: the outcome of the step the client waited for: 1 (done) or a
 *	negative errno
 * @c: the driver's connection (client side only)
 */
struct bench_rconn {
	struct rdma_cm_id *id;
	struct bench_qpres qp;
	bool has_qp;
	bool floor;
	struct completion step;
	struct completion closed;
	int status;
	struct kiwi_bench_conn *c;
};

/**
 * struct bench_floor_conn - a connection of the floor stack
 * @rc: its rdma_cm id, resolved, with a QP; never connected
 * @tcp: its connection of the TCP baseline
 */
struct bench_floor_conn {
	struct bench_rconn *rc;
	struct kiwi_bench_conn tcp;
};

/**
 * struct bench_listener - a listening id
 * @id: the id
 * @node: entry in bench_listeners
 */
struct bench_listener {
	struct rdma_cm_id *id;
	struct list_head node;
};

static bool chain;
module_param(chain, bool, 0644);
MODULE_PARM_DESC(chain, "clients resolve the route and connect from their event handler (as nvme-rdma does) rather than waiting for each step");

static LIST_HEAD(bench_listeners);
static atomic_t bench_served = ATOMIC_INIT(0);
static DECLARE_WAIT_QUEUE_HEAD(bench_served_wq);
static struct kiwi_bench_stack bench_stack;

static int bench_event_status(const struct rdma_cm_event *ev)
{
	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
	case RDMA_CM_EVENT_ESTABLISHED:
		return 0;
	case RDMA_CM_EVENT_REJECTED:
		return -ECONNREFUSED;
	case RDMA_CM_EVENT_UNREACHABLE:
		return -ETIMEDOUT;
	default:
		return ev->status ? ev->status : -EIO;
	}
}

static int bench_qp_connect(struct bench_rconn *rc, bool in_handler);

/*
 * With chain, the handler takes the step after ADDR_RESOLVED and after
 * ROUTE_RESOLVED itself. Return: 0 if it did (the client waits on), 1 if
 * the client's wait ends here, or a negative errno.
 */
static int bench_chain_step(struct bench_rconn *rc,
			    const struct rdma_cm_event *ev)
{
	if (ev->event == RDMA_CM_EVENT_ADDR_RESOLVED)
		return rdma_resolve_route(rc->id, BENCH_TIMEOUT_MS);
	if (ev->event == RDMA_CM_EVENT_ROUTE_RESOLVED)
		return bench_qp_connect(rc, true);
	return 1;
}

static int bench_client_handler(struct rdma_cm_id *id,
				struct rdma_cm_event *ev)
{
	struct bench_rconn *rc = id->context;
	u64 now = ktime_get_ns();
	int ret;

	if (ev->event == RDMA_CM_EVENT_DISCONNECTED) {
		rc->c->t[KIWI_BENCH_T_DISCONNECTED] = now;
		complete(&rc->closed);
		return 0;
	}
	if (ev->event == RDMA_CM_EVENT_ADDR_RESOLVED)
		rc->c->t[KIWI_BENCH_T_ADDR] = now;
	if (ev->event == RDMA_CM_EVENT_ROUTE_RESOLVED)
		rc->c->t[KIWI_BENCH_T_ROUTE] = now;
	if (ev->event == RDMA_CM_EVENT_ESTABLISHED)
		rc->c->t[KIWI_BENCH_T_ESTABLISHED] = now;
	ret = bench_event_status(ev);
	if (!ret)
		ret = chain && !rc->floor ? bench_chain_step(rc, ev) : 1;
	if (ret) {
		rc->status = ret;
		complete(&rc->step);
	}
	return 0;
}

/* Wait for the next step of an opening connection. */
static int bench_wait_step(struct bench_rconn *rc)
{
	if (!wait_for_completion_timeout(&rc->step,
					 msecs_to_jiffies(BENCH_TIMEOUT_MS)))
		return -ETIMEDOUT;
	reinit_completion(&rc->step);
	return rc->status > 0 ? 0 : rc->status;
}

static int bench_rconn_create_qp(struct bench_rconn *rc)
{
	int ret = bench_qp_create(rc->id, &rc->qp);

	rc->has_qp = !ret;
	return ret;
}

static void bench_rconn_destroy_qp(struct bench_rconn *rc)
{
	if (!rc->has_qp)
		return;
	rdma_destroy_qp(rc->id);
	bench_qp_destroy(&rc->qp);
	rc->has_qp = false;
}

static void bench_rconn_free(struct bench_rconn *rc)
{
	bench_rconn_destroy_qp(rc);
	rdma_destroy_id(rc->id);
	kfree(rc);
}

/*
 * Create the QP and connect, from the id's handler if @in_handler (Linux's
 * rdma_connect() would wait there for the lock the handler holds; both
 * stacks have rdma_connect_locked()). The private data carries the connect
 * call's timestamp, for the server's side of the breakdown.
 */
static int bench_qp_connect(struct bench_rconn *rc, bool in_handler)
{
	u8 pd[BENCH_PD_LEN] = {};
	struct rdma_conn_param param = {
		.private_data = pd,
		.private_data_len = BENCH_PD_LEN,
		.responder_resources = 1,
		.initiator_depth = 1,
	};
	int ret;

	ret = bench_rconn_create_qp(rc);
	if (ret)
		return ret;
	rc->c->t[KIWI_BENCH_T_CONNECT] = ktime_get_ns();
	put_unaligned(rc->c->t[KIWI_BENCH_T_CONNECT], (u64 *)pd);
	if (in_handler)
		return rdma_connect_locked(rc->id, &param);
	return rdma_connect(rc->id, &param);
}

/*
 * Resolve the address and wait for ADDR_RESOLVED (with chain, the
 * handler of a stack's client, not a floor's, goes on to the next steps
 * and the wait ends at ESTABLISHED).
 */
static int bench_resolve_addr(struct bench_rconn *rc,
			      const struct sockaddr_storage *dst)
{
	int ret = rdma_resolve_addr(rc->id, NULL, (struct sockaddr *)dst,
				    BENCH_TIMEOUT_MS);

	return ret ? ret : bench_wait_step(rc);
}

static int bench_resolve_route(struct bench_rconn *rc)
{
	int ret = rdma_resolve_route(rc->id, BENCH_TIMEOUT_MS);

	return ret ? ret : bench_wait_step(rc);
}

/*
 * Resolve, create the QP and connect, waiting for each step; with chain,
 * the handler takes each next step and the client waits for ESTABLISHED.
 */
static int bench_connect(struct bench_rconn *rc,
			 const struct sockaddr_storage *dst)
{
	int ret;

	ret = bench_resolve_addr(rc, dst);
	if (ret || chain)
		return ret;
	ret = bench_resolve_route(rc);
	if (!ret)
		ret = bench_qp_connect(rc, false);
	return ret ? ret : bench_wait_step(rc);
}

/* A client's connection with its id, or an ERR_PTR(). */
static struct bench_rconn *bench_rconn_new(struct kiwi_bench_conn *c,
					   struct net *net, bool floor)
{
	struct bench_rconn *rc = kzalloc(sizeof(*rc), GFP_KERNEL);
	struct rdma_cm_id *id;

	if (!rc)
		return ERR_PTR(-ENOMEM);
	init_completion(&rc->step);
	init_completion(&rc->closed);
	rc->c = c;
	rc->floor = floor;
	id = rdma_create_id(net, bench_client_handler, rc, RDMA_PS_TCP,
			    IB_QPT_RC);
	if (IS_ERR(id)) {
		kfree(rc);
		return ERR_CAST(id);
	}
	rc->id = id;
	return rc;
}

static int bench_open(struct kiwi_bench_conn *c, struct net *net,
		      const struct sockaddr_storage *dst)
{
	struct bench_rconn *rc = bench_rconn_new(c, net, false);
	int ret;

	if (IS_ERR(rc))
		return PTR_ERR(rc);
	ret = bench_connect(rc, dst);
	if (ret) {
		bench_rconn_free(rc);
		return ret;
	}
	c->priv = rc;
	return 0;
}

/* The floor's rdma_cm steps: resolve, waiting for each, and create a QP. */
static int bench_floor_steps(struct bench_rconn *rc,
			     const struct sockaddr_storage *dst)
{
	int ret;

	ret = bench_resolve_addr(rc, dst);
	if (!ret)
		ret = bench_resolve_route(rc);
	if (!ret)
		ret = bench_rconn_create_qp(rc);
	return ret;
}

/*
 * A floor connection: the rdma_cm steps, then the TCP baseline's open to
 * @dst (a port the baseline serves). Its latency is the baseline's.
 */
static int bench_floor_open(struct kiwi_bench_conn *c, struct net *net,
			    const struct sockaddr_storage *dst)
{
	struct bench_floor_conn *f = kzalloc(sizeof(*f), GFP_KERNEL);
	int ret;

	if (!f)
		return -ENOMEM;
	f->rc = bench_rconn_new(c, net, true);
	if (IS_ERR(f->rc)) {
		ret = PTR_ERR(f->rc);
		goto err_free_f;
	}
	ret = bench_floor_steps(f->rc, dst);
	if (!ret)
		ret = kiwi_bench_tcp.open(&f->tcp, net, dst);
	if (ret)
		goto err_free_rc;
	c->t[KIWI_BENCH_T_CONNECT] = f->tcp.t[KIWI_BENCH_T_CONNECT];
	c->t[KIWI_BENCH_T_ESTABLISHED] = f->tcp.t[KIWI_BENCH_T_ESTABLISHED];
	c->priv = f;
	return 0;

err_free_rc:
	bench_rconn_free(f->rc);
err_free_f:
	kfree(f);
	return ret;
}

static void bench_floor_close(struct kiwi_bench_conn *c)
{
	struct bench_floor_conn *f = c->priv;

	kiwi_bench_tcp.close(&f->tcp);
	bench_rconn_free(f->rc);
	kfree(f);
	c->priv = NULL;
}

/* The floor serves nothing: its clients connect to the baseline's port. */
static int bench_floor_serve(struct net *net,
			     const struct sockaddr_storage *addr)
{
	return -EOPNOTSUPP;
}

static void bench_floor_unserve(void)
{
}

static void bench_close(struct kiwi_bench_conn *c)
{
	struct bench_rconn *rc = c->priv;

	rdma_disconnect(rc->id);
	c->t[KIWI_BENCH_T_DISC_RET] = ktime_get_ns();
	wait_for_completion_timeout(&rc->closed,
				    msecs_to_jiffies(BENCH_TIMEOUT_MS));
	bench_rconn_destroy_qp(rc);
	c->t[KIWI_BENCH_T_QP_GONE] = ktime_get_ns();
	bench_rconn_free(rc);
	c->priv = NULL;
}

/* Count a request: since the client's connect call, and the accept call. */
static void bench_server_count(const struct rdma_cm_event *ev, u64 t_req,
			       u64 t_accepted)
{
	struct kiwi_bench_srv *srv = &bench_stack.srv;
	u64 t_connect;

	if (ev->param.conn.private_data_len < sizeof(u64))
		return;
	t_connect = get_unaligned((const u64 *)ev->param.conn.private_data);
	if (!t_connect || t_connect > t_req)
		return;
	atomic64_add(t_req - t_connect, &srv->req_ns);
	atomic64_add(t_accepted - t_req, &srv->accept_ns);
	atomic_inc(&srv->n);
}

/* A new connection for the server: take it, or refuse it. */
static int bench_server_request(struct rdma_cm_id *id,
				const struct rdma_cm_event *ev)
{
	struct rdma_conn_param param = {
		.responder_resources = 1,
		.initiator_depth = 1,
	};
	u64 t_req = ktime_get_ns();
	struct bench_rconn *rc = kzalloc(sizeof(*rc), GFP_KERNEL);
	int ret;

	if (!rc)
		return -ENOMEM;
	rc->id = id;
	id->context = rc;
	ret = bench_rconn_create_qp(rc);
	if (ret)
		goto err_free_rc;
	ret = rdma_accept(id, &param);
	if (ret)
		goto err_destroy_qp;
	bench_server_count(ev, t_req, ktime_get_ns());
	atomic_inc(&bench_served);
	return 0;

err_destroy_qp:
	bench_rconn_destroy_qp(rc);
err_free_rc:
	id->context = NULL;
	kfree(rc);
	return ret;
}

/* The server's connection ended: free it; returning 1 destroys the id. */
static int bench_server_gone(struct rdma_cm_id *id)
{
	struct bench_rconn *rc = id->context;

	if (!rc)
		return 0;
	bench_rconn_destroy_qp(rc);
	kfree(rc);
	id->context = NULL;
	if (atomic_dec_and_test(&bench_served))
		wake_up(&bench_served_wq);
	return 1;
}

static int bench_server_handler(struct rdma_cm_id *id,
				struct rdma_cm_event *ev)
{
	switch (ev->event) {
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		return bench_server_request(id, ev) ? 1 : 0;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		return bench_server_gone(id);
	default:
		return 0;
	}
}

static int bench_serve(struct net *net, const struct sockaddr_storage *addr)
{
	struct bench_listener *l = kzalloc(sizeof(*l), GFP_KERNEL);
	int ret;

	if (!l)
		return -ENOMEM;
	l->id = rdma_create_id(net, bench_server_handler, NULL, RDMA_PS_TCP,
			       IB_QPT_RC);
	if (IS_ERR(l->id)) {
		ret = PTR_ERR(l->id);
		goto err_free_l;
	}
	ret = rdma_bind_addr(l->id, (struct sockaddr *)addr);
	if (!ret)
		ret = rdma_listen(l->id, BENCH_BACKLOG);
	if (ret)
		goto err_destroy_id;
	list_add_tail(&l->node, &bench_listeners);
	return 0;

err_destroy_id:
	rdma_destroy_id(l->id);
err_free_l:
	kfree(l);
	return ret;
}

static void bench_unserve(void)
{
	struct bench_listener *l, *tmp;

	list_for_each_entry_safe(l, tmp, &bench_listeners, node) {
		rdma_destroy_id(l->id);
		list_del(&l->node);
		kfree(l);
	}
	wait_event_timeout(bench_served_wq, !atomic_read(&bench_served),
			   msecs_to_jiffies(BENCH_TIMEOUT_MS));
}

static struct kiwi_bench_stack bench_stack = {
	.name = BENCH_STACK_NAME,
	.owner = THIS_MODULE,
	.serve = bench_serve,
	.unserve = bench_unserve,
	.open = bench_open,
	.close = bench_close,
};

static struct kiwi_bench_stack bench_floor = {
	.name = BENCH_STACK_NAME "-floor",
	.owner = THIS_MODULE,
	.serve = bench_floor_serve,
	.unserve = bench_floor_unserve,
	.open = bench_floor_open,
	.close = bench_floor_close,
};

static int __init bench_stack_init(void)
{
	int ret = kiwi_bench_register(&bench_stack);

	if (ret)
		return ret;
	ret = kiwi_bench_register(&bench_floor);
	if (ret)
		kiwi_bench_unregister(&bench_stack);
	return ret;
}

static void __exit bench_stack_exit(void)
{
	kiwi_bench_unregister(&bench_floor);
	kiwi_bench_unregister(&bench_stack);
	bench_unserve();
	bench_verbs_exit();
}

module_init(bench_stack_init);
module_exit(bench_stack_exit);

MODULE_LICENSE("GPL");
