/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kiwi RDMA CM: the API kernel ULPs call, under the names they know from
 * Linux's <rdma/rdma_cm.h>.
 *
 * Every function is exported with a kiwi_ prefix so that kiwi loads next to
 * the distribution's own rdma_cm. The defines below rename the familiar
 * names at compile time (as the kernel backports project does); a ULP
 * switches stacks by changing its include line and nothing else. A ULP
 * must not include both this header and <rdma/rdma_cm.h>.
 */
#ifndef _KIWI_RDMA_CM_H
#define _KIWI_RDMA_CM_H

#define rdma_create_id			kiwi_rdma_create_id
#define rdma_destroy_id			kiwi_rdma_destroy_id
#define rdma_bind_addr			kiwi_rdma_bind_addr
#define rdma_resolve_addr		kiwi_rdma_resolve_addr
#define rdma_resolve_route		kiwi_rdma_resolve_route
#define rdma_listen			kiwi_rdma_listen
#define rdma_connect			kiwi_rdma_connect
#define rdma_accept			kiwi_rdma_accept
#define rdma_reject			kiwi_rdma_reject
#define rdma_disconnect			kiwi_rdma_disconnect
#define rdma_create_qp			kiwi_rdma_create_qp
#define rdma_destroy_qp			kiwi_rdma_destroy_qp
#define rdma_init_qp_attr		kiwi_rdma_init_qp_attr
#define rdma_set_service_type		kiwi_rdma_set_service_type
#define rdma_event_msg			kiwi_rdma_event_msg
#define rdma_reject_msg			kiwi_rdma_reject_msg
#define rdma_consumer_reject_data	kiwi_rdma_consumer_reject_data

#endif /* _KIWI_RDMA_CM_H */
