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
 */
#ifndef _KIWI_FAULT_H
#define _KIWI_FAULT_H

#include <linux/kconfig.h>
#include <linux/types.h>

#if IS_ENABLED(CONFIG_KUNIT)
bool kiwi_should_fail(void);
#else
static inline bool kiwi_should_fail(void)
{
	return false;
}
#endif

#endif /* _KIWI_FAULT_H */
