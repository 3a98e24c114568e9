// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_bench_dp_linux: the data-path benchmark over Linux's own rdma_cm,
 * iw_cm and verbs (siw), for comparison with kiwi.
 */
#define DP_STACK_NAME	"linux"
#define DP_STACK_DESC	"kiwi data-path benchmark: Linux's rdma_cm and verbs"

#include "dp_rdma.c"
