// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_harness_lockdep: a case that passes but takes two mutexes in both
 * orders, one after the other (never deadlocking), which lockdep reports
 * as a possible circular dependency.
 * Harness self-test: "make check" must fail on it (scripts/harness-selftest.sh).
 */
#include <kunit/test.h>
#include <linux/mutex.h>

static DEFINE_MUTEX(harness_a);
static DEFINE_MUTEX(harness_b);

static void harness_lockdep(struct kunit *test)
{
	mutex_lock(&harness_a);
	mutex_lock(&harness_b);
	mutex_unlock(&harness_b);
	mutex_unlock(&harness_a);

	mutex_lock(&harness_b);
	mutex_lock(&harness_a);	/* the inverse order, on purpose */
	mutex_unlock(&harness_a);
	mutex_unlock(&harness_b);
	KUNIT_SUCCEED(test);
}

static struct kunit_case harness_lockdep_cases[] = {
	KUNIT_CASE(harness_lockdep),
	{}
};

static struct kunit_suite harness_lockdep_suite = {
	.name = "kiwi_harness_lockdep",
	.test_cases = harness_lockdep_cases,
};

kunit_test_suite(harness_lockdep_suite);

MODULE_DESCRIPTION("kiwi harness self-test: lockdep");
MODULE_LICENSE("GPL");
