// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_bench_linux: the benchmark's connections over Linux's own
 * rdma_cm, iw_cm and verbs, for comparison with kiwi.
 */
#define BENCH_STACK_NAME	"linux"
#define BENCH_STACK_DESC	"kiwi connection benchmark: Linux's rdma_cm"

#include "stack.c"
