/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The part of QEMU's TCG plugin API (include/qemu/qemu-plugin.h of QEMU
 * 7.2, API version 1) that scripts/bench_insns.c uses. QEMU resolves
 * these functions in its own binary when it loads the plugin.
 */
#ifndef BENCH_INSNS_H
#define BENCH_INSNS_H

#include <stddef.h>
#include <stdint.h>

typedef unsigned long long u64;	/* uint64_t of the API */

/* Opaque to plugins. */
struct qemu_info_t;
struct qemu_plugin_tb;

/* enum qemu_plugin_cb_flags: the callback reads no guest registers. */
#define BENCH_QEMU_PLUGIN_CB_NO_REGS	0

void qemu_plugin_register_vcpu_tb_trans_cb(u64 id,
					   void (*cb)(u64 id,
						      struct qemu_plugin_tb *tb));
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
u64 qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb,
					  void (*cb)(unsigned int vcpu_index,
						     void *userdata),
					  int flags, void *userdata);

#endif
