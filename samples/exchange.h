/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kiwi_sample_conn internals: what conn.c uses of exchange.c, and the
 * length of a ctrl message, which both map. Not exported; linked into
 * kiwi_sample_conn.ko alone.
 */
#ifndef _KIWI_SAMPLE_EXCHANGE_H
#define _KIWI_SAMPLE_EXCHANGE_H

#include "sample.h"

#define SAMPLE_CTRL_LEN		((u32)sizeof(struct kiwi_sample_ctrl))

u32 sample_send_off(const struct kiwi_sample_conn *conn);
void sample_fail(struct kiwi_sample_conn *conn, const char *what,
		 int error);
void sample_finish(struct kiwi_sample_conn *conn);
int sample_post_recv(struct kiwi_sample_conn *conn);
void sample_send_next(struct kiwi_sample_conn *conn);
int sample_drain_cq(struct kiwi_sample_conn *conn);
void sample_cq_work(struct work_struct *work);
void sample_cq_event(struct ib_cq *cq, void *context);

#endif /* _KIWI_SAMPLE_EXCHANGE_H */
