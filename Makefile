# SPDX-License-Identifier: GPL-2.0
#
# kiwi: iWARP connection manager and software RNIC, as out-of-tree modules.
#
#   make demo       the sample ULPs and NVMe-oF on Debian's stock kernel in a QEMU VM
#   make            build the modules against KDIR
#   make check      static checks + KUnit suites in a QEMU test VM
#   make stress     the fuzz suites at 100,000 frames, the flood at 10,000 peers,
#                   the SMP stress for 300 s on 4 vCPUs; make stress-frames
#                   and make stress-replies run it in two halves
#   make bench      connection and data-path benchmarks: kiwi vs. TCP vs.
#                   Linux's stack, then bench-nvme
#   make bench-nvme NVMe-oF over kiwi vs. nvme-rdma over siw vs. NVMe/TCP
#   make bench-profile  the same stacks on a kernel with the function profiler
#   make htmldocs   the manual, Documentation/, as HTML in build/htmldocs/
#   make deps       install the Debian packages every target needs
#
# The kernel build system reads Kbuild; this file only drives it.

KDIR ?= $(shell sh $(CURDIR)/scripts/kdir.sh)
BUILD ?= $(CURDIR)/build

export BUILD KIWI_CACHE SUITES KIWI_SUITE_TIMEOUT KIWI_SKIP_STATIC

.PHONY: all modules deps demo demo-selftest check static htmldocs bench \
	bench-nvme bench-profile harness-selftest stress stress-frames \
	stress-replies clean help

all: modules

modules:
	@bash scripts/deps.sh build
	@test -n "$(KDIR)" || { echo "no kernel headers found; set KDIR=" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

deps:
	@bash scripts/deps.sh all

demo:
	@bash scripts/demo.sh

demo-selftest:
	@bash scripts/demo-selftest.sh

static:
	@bash scripts/deps.sh check
	@bash scripts/static.sh

htmldocs:
	@bash scripts/deps.sh docs
	@bash scripts/htmldocs.sh

check:
	@bash scripts/deps.sh check
	@bash scripts/check.sh

bench:
	@bash scripts/deps.sh bench
	@bash scripts/bench.sh
	@bash scripts/bench-nvme.sh

bench-nvme:
	@bash scripts/deps.sh bench
	@bash scripts/bench-nvme.sh

bench-profile:
	@bash scripts/deps.sh bench
	@KIWI_BENCH_PROFILE=1 KIWI_BENCH_SCRIPT=$(CURDIR)/bench/profile.sh \
		bash scripts/bench.sh

# make stress: kiwi_softiw_fuzz (Requests, FPDUs) at STRESS_ITERS mutated
# frames of each kind and kiwi_softiw_fuzz_reply at STRESS_REPLY_ITERS
# Replies, kiwi_softiw_flood at STRESS_PEERS half-open peers held at once,
# kiwi_softiw_stress for STRESS_SECS, in a VM of 4 vCPUs. About three and a
# half hours under TCG (29 Requests, 90 FPDUs and 15 Replies a second, on a
# quiet host of 2 cores), within the module's four-hour limit. stress-frames
# runs all but the Replies (about 90 minutes), stress-replies the Replies
# alone (about two hours).
STRESS_ITERS ?= 100000
STRESS_REPLY_ITERS ?= $(STRESS_ITERS)
STRESS_PEERS ?= 10000
STRESS_SECS ?= 300
STRESS_ARGS = kiwi_testlib:fuzz_iters=$(STRESS_ITERS) \
	kiwi_testlib:fuzz_reply_iters=$(STRESS_REPLY_ITERS) \
	kiwi_testlib:flood_peers=$(STRESS_PEERS) \
	kiwi_testlib:stress_secs=$(STRESS_SECS)
stress:
	@bash scripts/deps.sh check
	@KIWI_SKIP_STATIC=1 SUITES=kiwi_softiw_test \
		KIWI_TEST_ARGS="$(STRESS_ARGS)" \
		KIWI_VM_APPEND="sysctl.kernel.hung_task_timeout_secs=600" \
		KIWI_VM_CPUS=4 KIWI_SUITE_TIMEOUT=$${KIWI_SUITE_TIMEOUT:-14400} \
		bash scripts/check.sh

stress-frames:
	@$(MAKE) --no-print-directory stress STRESS_REPLY_ITERS=400

stress-replies:
	@$(MAKE) --no-print-directory stress STRESS_ITERS=400 \
		STRESS_REPLY_ITERS=$(STRESS_REPLY_ITERS) STRESS_PEERS=1000 \
		STRESS_SECS=20

harness-selftest:
	@bash scripts/deps.sh check
	@bash scripts/harness-selftest.sh

clean:
	@if [ -n "$(KDIR)" ]; then $(MAKE) -C $(KDIR) M=$(CURDIR) clean; fi
	rm -rf $(BUILD)

help:
	@sed -n '3,16p' Makefile
