// SPDX-License-Identifier: GPL-2.0
/*
 * The layout of the verbs structs Linux's ULPs embed or reach with
 * container_of(). scripts/layout_check.sh builds this file twice, against
 * Linux's <rdma/ib_verbs.h> and against kiwi's, and compares what it
 * records: for each struct its size, and for each of Linux 6.1's fields
 * its offset and size. For struct ib_qp_attr and struct ib_device_attr
 * only the names count: those the ULPs of tests/ulps read must exist.
 *
 * Each record is a line of text, "key value", that the assembler puts in
 * section .kiwi_layout of layout.o; the module is never loaded.
 */
#include <linux/module.h>
#include <linux/stddef.h>
#include <rdma/ib_verbs.h>

#define REC(key, val)							\
	({								\
		asm volatile(".pushsection .kiwi_layout\n\t"		\
			     ".ascii \"" key " %c0\\n\"\n\t"		\
			     ".popsection" : : "i" (val));		\
	})

#define SIZE(s)		REC("sizeof(" #s ")", sizeof(struct s))
#define OFFSET(s, f)	REC(#s "." #f, offsetof(struct s, f))
#define FSIZE(s, f)	REC("sizeof(" #s "." #f ")", sizeof_field(struct s, f))
#define NAME(s, f)	REC("has(" #s "." #f ")", sizeof_field(struct s, f) > 0)

/* Linux 6.1's fields, each struct's in order, as F(struct, field). */
#define FIELDS()							\
	do {								\
		F(ib_sge, addr);					\
		F(ib_sge, length);					\
		F(ib_sge, lkey);					\
									\
		F(ib_send_wr, next);					\
		F(ib_send_wr, wr_id);					\
		F(ib_send_wr, wr_cqe);					\
		F(ib_send_wr, sg_list);					\
		F(ib_send_wr, num_sge);					\
		F(ib_send_wr, opcode);					\
		F(ib_send_wr, send_flags);				\
		F(ib_send_wr, ex);					\
		F(ib_send_wr, ex.imm_data);				\
		F(ib_send_wr, ex.invalidate_rkey);			\
									\
		F(ib_rdma_wr, wr);					\
		F(ib_rdma_wr, remote_addr);				\
		F(ib_rdma_wr, rkey);					\
									\
		F(ib_reg_wr, wr);					\
		F(ib_reg_wr, mr);					\
		F(ib_reg_wr, key);					\
		F(ib_reg_wr, access);					\
									\
		F(ib_recv_wr, next);					\
		F(ib_recv_wr, wr_id);					\
		F(ib_recv_wr, wr_cqe);					\
		F(ib_recv_wr, sg_list);					\
		F(ib_recv_wr, num_sge);					\
									\
		F(ib_cqe, done);					\
									\
		F(ib_wc, wr_id);					\
		F(ib_wc, wr_cqe);					\
		F(ib_wc, status);					\
		F(ib_wc, opcode);					\
		F(ib_wc, vendor_err);					\
		F(ib_wc, byte_len);					\
		F(ib_wc, qp);						\
		F(ib_wc, ex);						\
		F(ib_wc, ex.imm_data);					\
		F(ib_wc, ex.invalidate_rkey);				\
		F(ib_wc, src_qp);					\
		F(ib_wc, slid);						\
		F(ib_wc, wc_flags);					\
		F(ib_wc, pkey_index);					\
		F(ib_wc, sl);						\
		F(ib_wc, dlid_path_bits);				\
		F(ib_wc, port_num);					\
		F(ib_wc, smac);						\
		F(ib_wc, vlan_id);					\
		F(ib_wc, network_hdr_type);				\
									\
		F(ib_qp_cap, max_send_wr);				\
		F(ib_qp_cap, max_recv_wr);				\
		F(ib_qp_cap, max_send_sge);				\
		F(ib_qp_cap, max_recv_sge);				\
		F(ib_qp_cap, max_inline_data);				\
		F(ib_qp_cap, max_rdma_ctxs);				\
									\
		F(ib_qp_init_attr, event_handler);			\
		F(ib_qp_init_attr, qp_context);				\
		F(ib_qp_init_attr, send_cq);				\
		F(ib_qp_init_attr, recv_cq);				\
		F(ib_qp_init_attr, srq);				\
		F(ib_qp_init_attr, xrcd);				\
		F(ib_qp_init_attr, cap);				\
		F(ib_qp_init_attr, sq_sig_type);			\
		F(ib_qp_init_attr, qp_type);				\
		F(ib_qp_init_attr, create_flags);			\
		F(ib_qp_init_attr, port_num);				\
		F(ib_qp_init_attr, rwq_ind_tbl);			\
		F(ib_qp_init_attr, source_qpn);				\
	} while (0)

static int __init kiwi_layout_init(void)
{
	SIZE(ib_sge);
	SIZE(ib_send_wr);
	SIZE(ib_rdma_wr);
	SIZE(ib_reg_wr);
	SIZE(ib_recv_wr);
	SIZE(ib_cqe);
	SIZE(ib_wc);
	SIZE(ib_qp_cap);
	SIZE(ib_qp_init_attr);
#define F OFFSET
	FIELDS();
#undef F
#define F FSIZE
	FIELDS();
#undef F

	/* Names only: the fields the ULPs of tests/ulps read. */
	NAME(ib_qp_attr, dest_qp_num);
	NAME(ib_device_attr, device_cap_flags);
	NAME(ib_device_attr, kernel_cap_flags);
	NAME(ib_device_attr, max_qp_wr);
	NAME(ib_device_attr, max_send_sge);
	NAME(ib_device_attr, max_recv_sge);
	NAME(ib_device_attr, max_sge_rd);
	NAME(ib_device_attr, max_qp_rd_atom);
	NAME(ib_device_attr, max_qp_init_rd_atom);
	NAME(ib_device_attr, max_srq);
	NAME(ib_device_attr, max_srq_wr);
	NAME(ib_device_attr, max_fast_reg_page_list_len);
	NAME(ib_device_attr, max_pi_fast_reg_page_list_len);
	NAME(ib_device_attr, sig_prot_cap);
	return -ENODEV;
}
module_init(kiwi_layout_init);

MODULE_DESCRIPTION("Struct layouts for scripts/layout_check.sh; not loaded");
MODULE_LICENSE("GPL");
