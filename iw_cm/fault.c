// SPDX-License-Identifier: GPL-2.0
/*
 * Allocation failure injection for the KUnit fault pass: every allocation
 * site of the core asks kiwi_should_fail() first; a test arms the n-th
 * call to fail, runs a scenario, and checks nothing leaked or hung.
 */
#include <linux/atomic.h>
#include <linux/module.h>

#include <kunit/visibility.h>

#include "iwcm.h"

static atomic_t kiwi_fault_countdown = ATOMIC_INIT(0);

/**
 * kiwi_should_fail() - whether this allocation is the one to fail
 *
 * Context: any context.
 * Return: true exactly once, at the n-th call after kiwi_fault_fail_nth(n).
 */
bool kiwi_should_fail(void)
{
	if (atomic_read(&kiwi_fault_countdown) <= 0)
		return false;
	return atomic_dec_return(&kiwi_fault_countdown) == 0;
}

/**
 * kiwi_fault_fail_nth() - arm the failure injection
 * @nth: fail the nth allocation from now (1 = the next); 0 disarms
 *
 * Context: any context.
 */
void kiwi_fault_fail_nth(int nth)
{
	atomic_set(&kiwi_fault_countdown, nth);
}
EXPORT_SYMBOL_IF_KUNIT(kiwi_fault_fail_nth);

/**
 * kiwi_fault_remaining() - allocations left before the armed failure
 *
 * Context: any context.
 * Return: 0 once the failure was injected (or when disarmed).
 */
int kiwi_fault_remaining(void)
{
	return atomic_read(&kiwi_fault_countdown);
}
EXPORT_SYMBOL_IF_KUNIT(kiwi_fault_remaining);
