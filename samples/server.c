// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_sample_server: a sample ULP that listens on one or more addresses,
 * accepts every connection and sends every message it receives back; or,
 * for a client that asks for it, reads each message by RDMA READ and
 * writes it back by RDMA WRITE.
 *
 *   insmod kiwi_sample_server.ko address=127.0.0.1,198.18.0.1 port=7174
 *
 * Each connection's events are logged when it ends; the summary line
 * comes when the module is removed. Listeners and connections live in the
 * network namespace of the process that loads the module.
 */
#include <linux/list.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/nsproxy.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "sample.h"

#define SERVER_NAME		"kiwi_sample_server"
#define SERVER_MAX_LISTEN	8

static char *address[SERVER_MAX_LISTEN];
static unsigned int nr_address;
module_param_array(address, charp, &nr_address, 0444);
MODULE_PARM_DESC(address, "IPv4 or IPv6 addresses to listen on, comma-separated (required)");

static ushort port = 7174;
module_param(port, ushort, 0444);
MODULE_PARM_DESC(port, "TCP port to listen on (default 7174)");

static uint size = 4096;
module_param(size, uint, 0444);
MODULE_PARM_DESC(size, "largest message, bytes (default 4096, at most 65536)");

/**
 * struct server_conn - an accepted connection
 * @conn: the connection
 * @node: entry in server_conns while the server owns it
 * @release_work: destroys it when it is over
 */
struct server_conn {
	struct kiwi_sample_conn *conn;
	struct list_head node;
	struct work_struct release_work;
};

static struct rdma_cm_id *server_listeners[SERVER_MAX_LISTEN];
/* Listeners moved from their slot at DEVICE_REMOVAL, to destroy. */
static struct rdma_cm_id *server_removed[SERVER_MAX_LISTEN];
static DEFINE_MUTEX(server_lock);
static LIST_HEAD(server_conns);
static struct workqueue_struct *server_wq;
static struct kiwi_sample_stats server_stats;
static atomic_t server_nr = ATOMIC_INIT(0);
static ktime_t server_start;

static void server_conn_free(struct server_conn *sc)
{
	kiwi_sample_conn_destroy(sc->conn);
	kfree(sc);
}

/* Whoever takes @sc off the list destroys it: the release work or exit. */
static void server_release_work(struct work_struct *work)
{
	struct server_conn *sc = container_of(work, struct server_conn,
					      release_work);
	bool mine;

	mutex_lock(&server_lock);
	mine = !list_empty(&sc->node);
	list_del_init(&sc->node);
	mutex_unlock(&server_lock);
	if (mine)
		server_conn_free(sc);
}

static struct server_conn *server_conn_new(struct rdma_cm_id *id)
{
	struct server_conn *sc;

	sc = kzalloc(sizeof(*sc), GFP_KERNEL);
	if (!sc)
		return NULL;
	sc->conn = kiwi_sample_conn_alloc(SERVER_NAME,
					  atomic_inc_return(&server_nr),
					  &server_stats, size, 0, true, false);
	if (!sc->conn) {
		kfree(sc);
		return NULL;
	}
	sc->conn->id = id;
	INIT_WORK(&sc->release_work, server_release_work);
	mutex_lock(&server_lock);
	list_add_tail(&sc->node, &server_conns);
	mutex_unlock(&server_lock);
	id->context = sc;
	return sc;
}

/* Take @id out of its slot. Return: it was there (the caller destroys it). */
static bool server_listener_take(struct rdma_cm_id *id)
{
	unsigned int i;
	bool mine = false;

	mutex_lock(&server_lock);
	for (i = 0; i < SERVER_MAX_LISTEN; i++) {
		if (server_listeners[i] == id) {
			server_listeners[i] = NULL;
			mine = true;
		}
	}
	mutex_unlock(&server_lock);
	return mine;
}

/* Destroy the listeners in @slots, each taken from its slot under the lock. */
static void server_destroy_slots(struct rdma_cm_id **slots)
{
	struct rdma_cm_id *id;
	unsigned int i;

	for (i = 0; i < SERVER_MAX_LISTEN; i++) {
		mutex_lock(&server_lock);
		id = slots[i];
		slots[i] = NULL;
		mutex_unlock(&server_lock);
		if (id)
			rdma_destroy_id(id);
	}
}

/* Destroys the listeners whose device went, outside their handler. */
static void server_removed_work_fn(struct work_struct *work)
{
	server_destroy_slots(server_removed);
}

static DECLARE_WORK(server_removed_work, server_removed_work_fn);

/*
 * A listener's device goes away: the listener is done, as the server's
 * connections on that device are (each ends at its own DEVICE_REMOVAL).
 * Whoever takes the listener's slot destroys it: server_unlisten(), or
 * this handler, through a work item on server_wq, which module exit
 * drains (a non-zero return would let rdma_cm destroy it, but the module
 * could then go while rdma_cm's worker still returns through here).
 */
static void server_listener_removed(struct rdma_cm_id *id)
{
	unsigned int i;

	mutex_lock(&server_lock);
	for (i = 0; i < SERVER_MAX_LISTEN; i++) {
		if (server_listeners[i] == id) {
			server_listeners[i] = NULL;
			server_removed[i] = id;
		}
	}
	mutex_unlock(&server_lock);
	queue_work(server_wq, &server_removed_work);
}

/*
 * The handler of the listeners and of the ids their requests come on. A
 * listener's context is NULL, and so is a new request's until it gets its
 * connection here.
 */
static int server_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct server_conn *sc = id->context;

	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
		sc = server_conn_new(id);
		if (!sc) {
			atomic_inc(&server_stats.failed);
			return -ENOMEM;	/* rdma_cm refuses and destroys it */
		}
	}
	if (!sc) {
		pr_info(SERVER_NAME ": listener %pISpc: %s (%d)\n",
			rdma_get_local_addr(id), rdma_event_msg(ev->event),
			ev->status);
		if (ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL)
			server_listener_removed(id);
		return 0;
	}
	if (kiwi_sample_conn_event(sc->conn, ev))
		queue_work(server_wq, &sc->release_work);
	return 0;
}

static int server_listen(struct net *net, const char *addr,
			 struct rdma_cm_id **idp)
{
	struct sockaddr_storage ss;
	struct rdma_cm_id *id;
	int ret;

	ret = kiwi_sample_parse_addr(net, addr, port, &ss);
	if (ret) {
		pr_err(SERVER_NAME ": '%s' is not an address\n", addr);
		return ret;
	}
	id = rdma_create_id(net, server_handler, NULL, RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(id))
		return PTR_ERR(id);
	ret = rdma_bind_addr(id, (struct sockaddr *)&ss);
	if (ret)
		goto err_destroy_id;
	/* in its slot before it can hear DEVICE_REMOVAL as a listener */
	mutex_lock(&server_lock);
	*idp = id;
	mutex_unlock(&server_lock);
	ret = rdma_listen(id, 0);
	if (ret)
		goto err_clear_slot;
	pr_info(SERVER_NAME ": listening on %pISpc\n", &ss);
	return 0;

err_clear_slot:
	if (!server_listener_take(id)) {
		pr_err(SERVER_NAME ": cannot listen on %pISpc: %d\n", &ss, ret);
		return ret;	/* its removal took it, and destroys it */
	}

err_destroy_id:
	pr_err(SERVER_NAME ": cannot listen on %pISpc: %d\n", &ss, ret);
	rdma_destroy_id(id);
	return ret;
}

static void server_unlisten(void)
{
	server_destroy_slots(server_listeners);
}

static int __init server_init(void)
{
	struct net *net = current->nsproxy->net_ns;
	unsigned int i;
	int ret;

	if (!nr_address || size < KIWI_SAMPLE_MIN_SIZE ||
	    size > KIWI_SAMPLE_MAX_SIZE) {
		pr_err(SERVER_NAME ": need address=, and %d <= size <= %d\n",
		       KIWI_SAMPLE_MIN_SIZE, KIWI_SAMPLE_MAX_SIZE);
		return -EINVAL;
	}
	server_wq = alloc_workqueue(SERVER_NAME, 0, 0);
	if (!server_wq)
		return -ENOMEM;
	server_start = ktime_get();
	for (i = 0; i < nr_address; i++) {
		ret = server_listen(net, address[i], &server_listeners[i]);
		if (ret)
			goto err_unlisten;
	}
	return 0;

err_unlisten:
	server_unlisten();
	destroy_workqueue(server_wq);
	return ret;
}

/*
 * Take the connections one by one, each under the lock, as the release
 * work does; then drain the release works that took theirs.
 */
static void __exit server_exit(void)
{
	struct server_conn *sc;

	server_unlisten();
	for (;;) {
		mutex_lock(&server_lock);
		sc = list_first_entry_or_null(&server_conns, struct server_conn,
					      node);
		if (sc)
			list_del_init(&sc->node);
		mutex_unlock(&server_lock);
		if (!sc)
			break;
		cancel_work_sync(&sc->release_work);
		kiwi_sample_conn_abort(sc->conn, "server unloaded", -ESHUTDOWN);
		server_conn_free(sc);
	}
	destroy_workqueue(server_wq);
	kiwi_sample_summary(SERVER_NAME, &server_stats, server_start);
}

module_init(server_init);
module_exit(server_exit);
MODULE_DESCRIPTION("kiwi sample ULP: an echo server over rdma_cm, SEND/RECV and RDMA READ/WRITE");
MODULE_AUTHOR("kiwi");
MODULE_LICENSE("GPL");
