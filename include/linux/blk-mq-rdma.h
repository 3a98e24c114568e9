/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kiwi's <linux/blk-mq-rdma.h>, ahead of the kernel's: the kernel's
 * blk_mq_rdma_map_queues() asks Linux's ib_core for a completion
 * vector's interrupt affinity, which a kiwi device (a struct of another
 * layout) cannot answer. kiwi devices have no per-vector interrupts, so
 * the queues get the block layer's default CPU spread, which is what the
 * kernel's version falls back to for such devices.
 */
#ifndef _KIWI_BLK_MQ_RDMA_H
#define _KIWI_BLK_MQ_RDMA_H

#include <linux/blk-mq.h>

struct ib_device;

/**
 * blk_mq_rdma_map_queues() - map hardware queues to CPUs for an RDMA device
 * @map: the queue map
 * @dev: the device whose completion vectors serve the queues
 * @first_vec: the first vector of @map's queues
 *
 * Context: process context.
 */
static inline void blk_mq_rdma_map_queues(struct blk_mq_queue_map *map,
					  struct ib_device *dev, int first_vec)
{
	blk_mq_map_queues(map);
}

#endif /* _KIWI_BLK_MQ_RDMA_H */
