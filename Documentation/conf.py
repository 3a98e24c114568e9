# SPDX-License-Identifier: GPL-2.0
#
# Sphinx configuration of kiwi's manual. Build it with "make htmldocs"
# (scripts/htmldocs.sh), which extracts Linux's kernel-doc and its Sphinx
# extension from Debian's linux-source-6.1 into build/ and points
# KIWI_DOCS_TOOLS there: the .. kernel-doc:: directives of the reference
# pages (Documentation/api/) run that kernel-doc on kiwi's sources.

import os
import sys

tools = os.environ.get("KIWI_DOCS_TOOLS")
if not tools or not os.path.isdir(tools):
    sys.exit("Documentation/conf.py: KIWI_DOCS_TOOLS is not set to the "
             "extracted kernel-doc tools; build with make htmldocs")
sys.path.insert(0, tools)

project = "kiwi"
copyright = "kiwi's authors; GPL-2.0"
author = "kiwi's authors"

extensions = ["kerneldoc"]
kerneldoc_bin = os.path.join(tools, "kernel-doc")
kerneldoc_srctree = os.path.abspath(os.path.join(os.path.dirname(__file__),
                                                 ".."))
# kerneldoc.py prints kernel-doc's warnings; scripts/htmldocs.sh fails on
# them as on Sphinx's own.
kerneldoc_verbosity = 1

primary_domain = "c"
# Literal blocks are shell, C, logs and tables: highlight none of them as
# Python (Sphinx's default).
highlight_language = "none"
master_doc = "index"
exclude_patterns = []

# Kernel attributes that may stand in a prototype kernel-doc prints.
c_id_attributes = [
    "__always_inline", "__cold", "__init", "__exit", "__iomem",
    "__maybe_unused", "__must_check", "__printf", "__pure", "__rcu",
    "__user", "noinline", "notrace",
]

# nitpicky (-n, scripts/htmldocs.sh) resolves every type a prototype
# names. kiwi documents its own types (the reference pages run kernel-doc
# on its headers); these are the kernel's, Linux's to document, that
# kiwi's functions and structures take or hold.
kernel_types = """
    atomic_t bool gfp_t size_t ssize_t loff_t ktime_t dma_addr_t refcount_t
    u8 u16 u32 u64 s8 s16 s32 s64 __le16 __le32 __le64 __be16 __be32 __be64
    list_head hlist_node rb_node rb_root kref rcu_head spinlock_t mutex
    completion wait_queue_head work_struct delayed_work workqueue_struct
    timer_list module device pci_dev dma_data_direction page scatterlist
    sg_table net net_device sockaddr sockaddr_storage sockaddr_in
    sockaddr_in6 socket sock sk_buff msghdr kvec iov_iter seq_file dentry
    file inode kunit blk_mq_queue_map blk_mq_tag_set xarray
""".split()
# Linux's RDMA types that kiwi's headers name (a pointer in a prototype
# Linux's ULPs need) but, as kiwi does not implement them, never define.
linux_rdma_absent = """
    ib_sig_attrs
""".split()
nitpick_ignore = [(role, t) for t in kernel_types + linux_rdma_absent
                  for role in ("c:identifier", "c:type")]

html_theme = "alabaster"
html_title = "kiwi"
html_show_sourcelink = False
html_copy_source = False
