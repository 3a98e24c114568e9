// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_bench_kiwi: the benchmark's connections over kiwi, from the same
 * source as kiwi_bench_linux: only the headers differ (kiwi's
 * <rdma/rdma_cm.h> and <rdma/ib_verbs.h>, see Kbuild).
 */
#define BENCH_STACK_NAME	"kiwi"
#define BENCH_STACK_DESC	"kiwi connection benchmark: kiwi's rdma_cm"

#include "../stack.c"
