// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_softiw endpoint memory: the slab caches of endpoints and of their
 * setup state, references, and the list of every live endpoint, so that
 * the module never destroys a cache with objects in it: at unload, an
 * endpoint still alive is named and the caches are kept.
 */
#include <kunit/visibility.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "cm.h"

static struct kmem_cache *softiw_cep_cache;
static struct kmem_cache *softiw_setup_cache;

/* Every endpoint from allocation to free: see softiw_cep_exit(). */
static LIST_HEAD(softiw_ceps);
static DEFINE_SPINLOCK(softiw_ceps_lock);	/* protects softiw_ceps */
static unsigned int softiw_ceps_live;

static const char *const softiw_cep_state_names[] = {
	[SOFTIW_CEP_CONNECTING] = "CONNECTING",
	[SOFTIW_CEP_AWAIT_REPLY] = "AWAIT_REPLY",
	[SOFTIW_CEP_AWAIT_REQUEST] = "AWAIT_REQUEST",
	[SOFTIW_CEP_AWAIT_ACCEPT] = "AWAIT_ACCEPT",
	[SOFTIW_CEP_AWAIT_RTR] = "AWAIT_RTR",
	[SOFTIW_CEP_ESTABLISHED] = "ESTABLISHED",
	[SOFTIW_CEP_CLOSED] = "CLOSED",
};

/**
 * softiw_cep_new() - allocate an endpoint and its setup state
 * @sdev: the device
 * @sock: the endpoint's socket
 * @state: its first state
 *
 * The endpoint holds one reference, the connection's own; its work and
 * timer are the caller's to initialise.
 *
 * Context: process context, may sleep.
 * Return: the endpoint, or NULL without memory.
 */
struct softiw_cep *softiw_cep_new(struct softiw_device *sdev,
				  struct socket *sock,
				  enum softiw_cep_state state)
{
	struct softiw_cep *cep;

	cep = kiwi_should_fail() ? NULL :
	      kmem_cache_zalloc(softiw_cep_cache, GFP_KERNEL);
	if (!cep)
		return NULL;
	cep->setup = kiwi_should_fail() ? NULL :
		     kmem_cache_zalloc(softiw_setup_cache, GFP_KERNEL);
	if (!cep->setup) {
		kmem_cache_free(softiw_cep_cache, cep);
		return NULL;
	}
	refcount_set(&cep->ref, 1);
	mutex_init(&cep->lock);
	cep->state = state;
	cep->sock = sock;
	cep->sdev = sdev;
	INIT_LIST_HEAD(&cep->pending);
	spin_lock(&softiw_ceps_lock);
	list_add_tail(&cep->node, &softiw_ceps);
	softiw_ceps_live++;
	spin_unlock(&softiw_ceps_lock);
	return cep;
}

/**
 * softiw_cep_setup_free() - connection setup is over: free what only it
 *	needed
 * @cep: the endpoint
 *
 * Context: process context; the endpoint's mutex held, or its last
 * reference gone.
 */
void softiw_cep_setup_free(struct softiw_cep *cep)
{
	if (!cep->setup)
		return;
	kfree(cep->setup->pdata);
	kmem_cache_free(softiw_setup_cache, cep->setup);
	cep->setup = NULL;
}

static void softiw_cep_free(struct softiw_cep *cep)
{
	spin_lock(&softiw_ceps_lock);
	list_del(&cep->node);
	softiw_ceps_live--;
	spin_unlock(&softiw_ceps_lock);
	softiw_tx_stop(cep);
	softiw_cep_setup_free(cep);
	kmem_cache_free(softiw_cep_cache, cep);
}

/**
 * softiw_cep_put() - drop a reference on an endpoint
 * @cep: the endpoint
 *
 * The last reference only frees memory: by then the endpoint was closed.
 *
 * Context: any context for a reference that is not the last; the last
 * one frees a buffer that may be vmalloc'd, so process context.
 */
void softiw_cep_put(struct softiw_cep *cep)
{
	if (refcount_dec_and_test(&cep->ref))
		softiw_cep_free(cep);
}

/**
 * kiwi_softiw_live_ceps() - endpoints allocated and not freed, for tests
 *
 * Context: any context.
 * Return: their number.
 */
unsigned int kiwi_softiw_live_ceps(void)
{
	return READ_ONCE(softiw_ceps_live);
}
EXPORT_SYMBOL_IF_KUNIT(kiwi_softiw_live_ceps);

/**
 * softiw_cep_init() - create the slab caches of endpoints and of their
 *	setup state
 *
 * Context: module init.
 * Return: 0 or -ENOMEM.
 */
int softiw_cep_init(void)
{
	/*
	 * Own caches: an established endpoint is about 500 bytes, which
	 * would take a kmalloc-512 object only with nothing to spare; the
	 * setup state is about 690, which kmalloc would round to 1 KiB for
	 * every connection being set up (up to max_pending per listener).
	 */
	softiw_cep_cache = KMEM_CACHE(softiw_cep, 0);
	if (!softiw_cep_cache)
		return -ENOMEM;
	softiw_setup_cache = KMEM_CACHE(softiw_setup, 0);
	if (!softiw_setup_cache) {
		kmem_cache_destroy(softiw_cep_cache);
		return -ENOMEM;
	}
	return 0;
}

/*
 * Name an endpoint that outlived the module's work. The lock is not
 * taken: nothing can run for an endpoint any more.
 */
static void softiw_cep_report(const struct softiw_cep *cep)
{
	pr_err("kiwi_softiw: leaked endpoint %p: %s %s, %u references%s%s%s\n",
	       cep, cep->active ? "active" : "passive",
	       softiw_cep_state_names[cep->state], refcount_read(&cep->ref),
	       cep->req_ref ? ", a request not answered" : "",
	       cep->id ? ", bound to an id" : "",
	       cep->setup ? ", in setup" : "");
}

/**
 * softiw_cep_exit() - free the caches, unless endpoints are still alive
 *
 * Context: module exit, once the workqueue is gone: no endpoint work runs
 * any more. A live endpoint is then a lost reference (a bug): each is
 * named, and the caches are kept rather than destroyed with objects in
 * them.
 */
void softiw_cep_exit(void)
{
	struct softiw_cep *cep;

	spin_lock(&softiw_ceps_lock);
	if (softiw_ceps_live) {
		pr_err("kiwi_softiw: %u endpoints leaked at unload, caches kept\n",
		       softiw_ceps_live);
		list_for_each_entry(cep, &softiw_ceps, node)
			softiw_cep_report(cep);
		spin_unlock(&softiw_ceps_lock);
		return;
	}
	spin_unlock(&softiw_ceps_lock);
	kmem_cache_destroy(softiw_setup_cache);
	kmem_cache_destroy(softiw_cep_cache);
}
