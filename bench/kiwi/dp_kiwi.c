// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_bench_dp_kiwi: the data-path benchmark over kiwi, from the same
 * source as kiwi_bench_dp_linux: only the headers differ (see Kbuild).
 */
#define DP_STACK_NAME	"kiwi"
#define DP_STACK_DESC	"kiwi data-path benchmark: kiwi's rdma_cm and verbs"

#include "../dp_rdma.c"
