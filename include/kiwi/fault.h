/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kiwi's fault points, for the KUnit fault suites: every run-time
 * allocation site of kiwi_iwcm, kiwi_rdmacm and kiwi_softiw, and every
 * provider op the core calls whose failure its caller can report, asks
 * kiwi_should_fail() first and fails as if out of memory when it says so:
 *
 *	p = kiwi_should_fail() ? NULL : kzalloc(sizeof(*p), GFP_KERNEL);
 *
 * A suite arms the n-th point from now with kiwi_fault_fail_nth() and
 * runs a scenario (Documentation/testing.rst, "The fault pass"). Only a
 * kernel with CONFIG_KUNIT has the points: anywhere else
 * kiwi_should_fail() is a constant false and they compile to nothing.
 * A module that calls it imports EXPORTED_FOR_KUNIT_TESTING in such a
 * kernel (see kiwi_softiw's and kiwi_rdmacm's main.c).
 *
 * And kiwi's race points, for the KUnit race suites: kiwi_race_at() marks
 * a place inside a window a race fix closed, where a suite runs code of
 * its own (kiwi_race_hook()) to put the racing party there every time
 * (Documentation/testing.rst, "Race points"). The same: nothing without
 * CONFIG_KUNIT.
 */
#ifndef _KIWI_FAULT_H
#define _KIWI_FAULT_H

#include <linux/kconfig.h>
#include <linux/types.h>

/**
 * enum kiwi_race_point - the places a race suite can run code at
 * @KIWI_RACE_CM_ORPHAN: kiwi_cm_orphan(), about to take the id's lock to
 *	orphan it; the device's lock is held (atomic, interrupts off);
 *	the object is the &struct kiwi_cm_id
 * @KIWI_RACE_CM_FREE: kiwi_cm_free(), the last reference gone and the id
 *	found orphaned or not, before acting on it; any context; the
 *	object is the &struct kiwi_cm_id
 * @KIWI_RACE_RESOLVE_ADDR: rdma_resolve_addr(), the id moved to
 *	ADDR_QUERY and its work not queued yet; process context, no lock
 *	held; the object is the &struct rdma_cm_id
 * @KIWI_RACE_SOFTIW_ACCEPT: a kiwi_softiw listener's work, about to
 *	accept the next connection of its TCP accept queue; process
 *	context, the listener's mutex held; the object is the listening
 *	&struct kiwi_cm_id
 * @KIWI_RACE_NR: number of points
 */
enum kiwi_race_point {
	KIWI_RACE_CM_ORPHAN,
	KIWI_RACE_CM_FREE,
	KIWI_RACE_RESOLVE_ADDR,
	KIWI_RACE_SOFTIW_ACCEPT,
	KIWI_RACE_NR
};

/**
 * typedef kiwi_race_fn - a race suite's code at a race point
 * @obj: the object passing the point (see enum kiwi_race_point); a
 *	suite acts on its own objects only
 * @data: what the suite armed the point with
 *
 * Runs in the context the point documents.
 */
typedef void (*kiwi_race_fn)(void *obj, void *data);

#if IS_ENABLED(CONFIG_KUNIT)
bool kiwi_should_fail(void);
void kiwi_race_at(enum kiwi_race_point where, void *obj);
void kiwi_race_hook(enum kiwi_race_point where, kiwi_race_fn fn, void *data);
#else
static inline bool kiwi_should_fail(void)
{
	return false;
}

static inline void kiwi_race_at(enum kiwi_race_point where, void *obj)
{
}
#endif

#endif /* _KIWI_FAULT_H */
