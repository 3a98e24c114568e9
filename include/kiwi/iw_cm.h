/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kiwi iWARP connection manager: the interface shared by the core
 * (kiwi_iwcm.ko), its front end (kiwi_rdmacm.ko) and RNIC providers.
 */
#ifndef _KIWI_IW_CM_H
#define _KIWI_IW_CM_H

#include <linux/types.h>

/*
 * Bumped whenever a structure or calling convention shared between the
 * kiwi modules changes, so that modules built from different kiwi trees
 * refuse to bind rather than misread each other's memory.
 */
#define KIWI_ABI_VERSION 1

int kiwi_iwcm_abi_check(unsigned int abi);

/**
 * kiwi_iwcm_require() - bind a module to the running kiwi core
 *
 * Context: the module_init() of every module built against these headers
 * (front end, providers, ULPs); process context, may sleep.
 * Return: 0, or -EPROTO if the core was built from other kiwi headers.
 */
static inline int kiwi_iwcm_require(void)
{
	return kiwi_iwcm_abi_check(KIWI_ABI_VERSION);
}

#endif /* _KIWI_IW_CM_H */
