/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the RTR suites (kiwi_softiw_rtr, kiwi_softiw_rtr_option) share:
 * the RTR types, the TERMINATE of no matching RTR type,
 * the .exit that restores the module parameters and the check that they
 * load with their defaults, and a raw TCP peer on either side that
 * reads setup frames byte for byte.
 */
#ifndef _KIWI_SOFTIW_RTR_UTIL_H
#define _KIWI_SOFTIW_RTR_UTIL_H

#include <kunit/test.h>
#include <linux/net.h>
#include <linux/types.h>

#include "mpa_key.h"

/* The RTR types, as mpa_rtr takes them. */
enum { RTR_WRITE = 1, RTR_READ = 2, RTR_SEND = 4 };

/* A TERMINATE, layer LLP, type MPA, code @c, no headers copied. */
#define RTR_TERM(c) {							\
	0x00, 0x16, 0x41, 0x47,		/* len 22; L v1; v1 TERMINATE */ \
	0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 1,	/* queue 2, MSN 1 */	\
	0, 0, 0, 0,				/* MO 0 */		\
	0x20, (c), 0, 0,		/* LLP, MPA, code; no M D R */	\
	0, 0, 0, 0 }

extern const u8 rtr_term_rtr[28];

void rtr_exit(struct kunit *test);
int rtr_recv_all(struct socket *s, u8 *buf, int len, int ms);
void rtr_expect_bytes(struct kunit *test, struct socket *s,
		      const u8 *want, int len);
void rtr_expect_term(struct kunit *test, struct socket *s,
		     const u8 *term);
void rtr_param_defaults(struct kunit *test);
void rtr_raw_request(struct kunit *test, struct socket *s, int offer);
struct socket *rtr_raw_listen(struct kunit *test, u16 port);
struct socket *rtr_raw_accept(struct kunit *test, struct socket *lst);

#endif /* _KIWI_SOFTIW_RTR_UTIL_H */
