// SPDX-License-Identifier: GPL-2.0
/*
 * Failure injection for the KUnit fault pass: every run-time allocation
 * site of kiwi's three modules, and every provider op the core calls
 * whose failure can be reported, asks kiwi_should_fail() first
 * (<kiwi/fault.h>); a test arms the n-th call to fail, runs a scenario,
 * and checks nothing leaked or hung. And a hook in the delivery of
 * events, to hold one at a chosen point; and the race points, where a
 * race suite runs its code inside a window a fix closed.
 */
#include <linux/atomic.h>
#include <linux/kernel.h>
#include <linux/module.h>

#include <kunit/visibility.h>

#include "iwcm.h"

static atomic_t kiwi_fault_countdown = ATOMIC_INIT(0);
/* Where the armed failure was injected: the caller of kiwi_should_fail(). */
static unsigned long kiwi_fault_ip;
static atomic_t kiwi_fault_hook_countdown = ATOMIC_INIT(0);
static void (*kiwi_fault_hook_fn)(void *data);
static void *kiwi_fault_hook_data;
static kiwi_fault_deliver_fn kiwi_fault_deliver_hook;
static void *kiwi_fault_deliver_data;
static kiwi_race_fn kiwi_race_fns[KIWI_RACE_NR];
static void *kiwi_race_data[KIWI_RACE_NR];

/* Run the armed hook at its call, see kiwi_fault_hook_nth(). */
static void kiwi_fault_run_hook(void)
{
	if (atomic_read(&kiwi_fault_hook_countdown) <= 0)
		return;
	if (atomic_dec_return(&kiwi_fault_hook_countdown) == 0)
		READ_ONCE(kiwi_fault_hook_fn)(READ_ONCE(kiwi_fault_hook_data));
}

/**
 * kiwi_should_fail() - whether this fault point is the one to fail
 *
 * Context: any context: the fault points of kiwi_iwcm, kiwi_rdmacm and
 * kiwi_softiw, allocation sites and provider ops (<kiwi/fault.h>).
 * Return: true exactly once, at the n-th call after kiwi_fault_fail_nth(n);
 * the caller's address is then kept for kiwi_fault_site().
 */
bool kiwi_should_fail(void)
{
	kiwi_fault_run_hook();
	if (atomic_read(&kiwi_fault_countdown) <= 0)
		return false;
	if (atomic_dec_return(&kiwi_fault_countdown))
		return false;
	WRITE_ONCE(kiwi_fault_ip, _RET_IP_);
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(kiwi_should_fail);

/**
 * kiwi_fault_fail_nth() - arm the failure injection
 * @nth: fail the nth fault point from now (1 = the next); 0 disarms
 *
 * Forgets the site of the failure injected before (kiwi_fault_site()).
 *
 * Context: any context.
 */
void kiwi_fault_fail_nth(int nth)
{
	WRITE_ONCE(kiwi_fault_ip, 0);
	atomic_set(&kiwi_fault_countdown, nth);
}
EXPORT_SYMBOL_IF_KUNIT(kiwi_fault_fail_nth);

/**
 * kiwi_fault_remaining() - fault points left before the armed failure
 *
 * Context: any context.
 * Return: 0 once the failure was injected (or when disarmed).
 */
int kiwi_fault_remaining(void)
{
	return atomic_read(&kiwi_fault_countdown);
}
EXPORT_SYMBOL_IF_KUNIT(kiwi_fault_remaining);

/**
 * kiwi_fault_site() - where the armed failure was injected, for a test's
 *	messages: "%pS" prints the fault point's function and offset
 *
 * Context: any context.
 * Return: the return address of the kiwi_should_fail() call that failed
 * since the last kiwi_fault_fail_nth(), or NULL if none did.
 */
void *kiwi_fault_site(void)
{
	return (void *)READ_ONCE(kiwi_fault_ip);
}
EXPORT_SYMBOL_IF_KUNIT(kiwi_fault_site);

/**
 * kiwi_fault_hook_nth() - run a function at a fault point
 * @nth: run @fn at the nth fault point from now (1 = the next);
 *	0 disarms
 * @fn: the function; it runs in the allocating context, so the test
 *	must make that process context (e.g. a KIWI_MOCK_PROCESS upcall)
 *	if @fn sleeps
 * @data: passed to @fn
 *
 * Lets a test run something exactly between two steps of the core, e.g.
 * between allocating a child id and queueing its request.
 *
 * Context: any context.
 */
void kiwi_fault_hook_nth(int nth, void (*fn)(void *data), void *data)
{
	atomic_set(&kiwi_fault_hook_countdown, 0);
	WRITE_ONCE(kiwi_fault_hook_fn, fn);
	WRITE_ONCE(kiwi_fault_hook_data, data);
	atomic_set(&kiwi_fault_hook_countdown, nth);
}
EXPORT_SYMBOL_IF_KUNIT(kiwi_fault_hook_nth);

/**
 * kiwi_fault_hook_deliver() - run a function in every event delivery
 * @fn: called by the delivering worker after the call was registered with
 *	the id (and, for a request, its listener) and before the handler is
 *	called; NULL disarms
 * @data: passed to @fn
 *
 * Lets a test hold a delivery exactly where the core has started it but
 * the owner's handler has not been entered yet. Arm and disarm it while
 * no event is on its way to a handler: a delivery passing the hook point
 * meanwhile may see the old @fn with the new @data (NULL when disarmed).
 *
 * Context: any context.
 */
void kiwi_fault_hook_deliver(kiwi_fault_deliver_fn fn, void *data)
{
	WRITE_ONCE(kiwi_fault_deliver_hook, NULL);
	WRITE_ONCE(kiwi_fault_deliver_data, data);
	smp_wmb();	/* @data before @fn: see kiwi_fault_deliver() */
	WRITE_ONCE(kiwi_fault_deliver_hook, fn);
}
EXPORT_SYMBOL_IF_KUNIT(kiwi_fault_hook_deliver);

/**
 * kiwi_fault_deliver() - the delivery hook point
 * @id: the id the event is delivered to
 * @ev: the event
 *
 * Context: a kiwi_cm worker, before the handler call.
 */
void kiwi_fault_deliver(struct kiwi_cm_id *id, const struct kiwi_cm_event *ev)
{
	kiwi_fault_deliver_fn fn = READ_ONCE(kiwi_fault_deliver_hook);

	if (!fn)
		return;
	smp_rmb();	/* pairs with kiwi_fault_hook_deliver() */
	fn(id, ev, READ_ONCE(kiwi_fault_deliver_data));
}

/**
 * kiwi_race_hook() - run a function at a race point
 * @where: the point
 * @fn: called by every object passing @where (the suite filters on its
 *	own), in the context the point documents; NULL disarms
 * @data: passed to @fn
 *
 * Lets a race suite put the other party of a race inside the window a
 * fix closed, every run: an orphaning held where it is about to take the
 * id's lock while the last reference goes, say. Arm and disarm while none
 * of the suite's objects can pass @where: an object passing meanwhile may
 * see the old @fn with the new @data (NULL when disarmed).
 *
 * Context: any context.
 */
void kiwi_race_hook(enum kiwi_race_point where, kiwi_race_fn fn, void *data)
{
	if (WARN_ON_ONCE((unsigned int)where >= KIWI_RACE_NR))
		return;
	WRITE_ONCE(kiwi_race_fns[where], NULL);
	WRITE_ONCE(kiwi_race_data[where], data);
	smp_wmb();	/* @data before @fn: see kiwi_race_at() */
	WRITE_ONCE(kiwi_race_fns[where], fn);
}
EXPORT_SYMBOL_IF_KUNIT(kiwi_race_hook);

/**
 * kiwi_race_at() - a race point
 * @where: which one
 * @obj: the object passing it
 *
 * Context: the one enum kiwi_race_point documents for @where.
 */
void kiwi_race_at(enum kiwi_race_point where, void *obj)
{
	kiwi_race_fn fn = READ_ONCE(kiwi_race_fns[where]);

	if (!fn)
		return;
	smp_rmb();	/* pairs with kiwi_race_hook() */
	fn(obj, READ_ONCE(kiwi_race_data[where]));
}
EXPORT_SYMBOL_IF_KUNIT(kiwi_race_at);
