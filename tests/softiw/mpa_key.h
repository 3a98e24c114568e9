/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The keys that open an MPA Request and an MPA Reply (RFC 5044 section
 * 7.1), spelled out here rather than taken from softiw's iwarp.h, so the
 * peers the tests write by hand do not share the code under test.
 */
#ifndef KIWI_TEST_MPA_KEY_H
#define KIWI_TEST_MPA_KEY_H

#define KEY_REQ "MPA ID Req Frame"
#define KEY_REP "MPA ID Rep Frame"

#endif /* KIWI_TEST_MPA_KEY_H */
