# SPDX-License-Identifier: GPL-2.0
#
# kptrace top-level Makefile.  Quiet by default, V=1 shows the commands.
#
#   make [KDIR=...]     kptrace.ko (from ./Kbuild) and tools/kptrace
#   make module         kptrace.ko only
#   make tools          tools/kptrace only
#   make test-module    selftests/test_modules/kpt_test.ko
#   make install        modules_install, tools/kptrace to /usr/local/sbin
#   make clean
#   make style          checkpatch.pl --strict: module/, include/ (with the
#                       spec parser, include/spec/), the test modules (.c
#                       and .h), tools/
#   make check          selftests in QEMU on the Debian kernel (KTAP)
#   make check ARCH=arm64   the same on Debian bookworm's arm64 kernel in
#                       qemu-system-aarch64 (TCG), everything cross-built
#                       here (gcc-aarch64-linux-gnu) against its headers
#                       (selftests/vm/arm64-root.sh makes them: mmdebstrap
#                       in KPT_CACHE); KPT_TESTS="kpt_args ..." picks tests.
#                       Also make run ARCH=arm64, make module ARCH=arm64
#                       CROSS_COMPILE=aarch64-linux-gnu- KDIR=<arm64 headers>
#   make check-debug    the same plus lockdown boots on a KASAN + lockdep
#                       kernel built from linux-source-6.1 (selftests/debug/)
#   make run            demo in QEMU: kptrace on do_sys_openat2
#   make dkms-check     dkms add + build of this tree, then remove (root)
#   make bench          kptrace vs ftrace, bpftrace, perf, strace in one QEMU
#                       guest (trixie 6.12 chroot, virtme-ng); BENCH_ARGS=
#                       passes options to selftests/bench/bench.sh (--help)
#   make check-strace   kptrace syscalls against strace in the bench guest:
#                       per-thread (call, return) sequences and -s counts
#                       of kpt_sysgen runs (selftests/bench/strace_diff.sh;
#                       STRACE_ARGS= passes bench.sh options, e.g. --rev
#                       HEAD). Not in CI: about 2 minutes. KERNELS="6.1
#                       7.2" boots that root on those Debian kernels
#                       instead (6.12 is the bench guest), with coreutils,
#                       pipeline, failing-build and threads workloads too
#   make check-kernels  every kernel of the matrix (5.10 6.1 6.1-rt 6.12
#                       6.12-rt 7.2), each in a fresh test box of its suite
#                       (mmdebstrap chroots in KPT_CACHE=/var/cache/kptrace):
#                       W=1 build of module and reader with its compiler,
#                       make install + dkms install, selftests in QEMU, a
#                       table and the total "N passed, N failed, N skipped";
#                       KERNELS="6.12 7.2" picks some (kernels.sh --help)
#   make build-kernels  the same without booting (build + installs)
#   make dkms-check-kernels   make install + dkms install only, every kernel
#   make check-mutants  do the selftests catch bugs? A few deliberate bugs,
#                       one at a time, in a copy of the module (never this
#                       tree), each built and run against its tests in QEMU;
#                       a table mutant -> killed/survived, fails if one
#                       survived (selftests/vm/mutants.sh --help; MUTANTS=
#                       picks some). Not in CI: about 6 minutes
#
# KDIR defaults to the running kernel's headers.  check, run and dkms-check
# use the Debian kernel of linux-image-amd64 (bookworm: 6.1.0-N-amd64;
# KVER= overrides, e.g. KVER=6.1.0-56-rt-amd64), and install the Debian packages they need when missing.
# VM_TIMEOUT= (seconds, default 2400) bounds one guest boot; VM_ARGS= passes
# more options to selftests/vm/run-vm.sh.

KDIR ?= /lib/modules/$(shell uname -r)/build
# arm64 from this amd64 machine (issue 36): kbuild's ARCH=arm64, Debian's
# cross compiler
ifeq ($(ARCH),arm64)
KPT_ARM64 := 1
CROSS_COMPILE ?= aarch64-linux-gnu-
export CROSS_COMPILE
endif
DESTDIR ?=
SBINDIR ?= /usr/local/sbin

ifeq ($(V),1)
Q :=
else
Q := @
endif

VM_DEBS := qemu-system-x86 busybox-static cpio kmod linux-image-amd64 \
	   linux-headers-amd64 gcc make libc6-dev
STYLE_FILES = $(filter-out %.mod.c module/compat.h,$(wildcard module/*.[ch] \
		selftests/test_modules/*.[ch] include/*.h include/uapi/*.h \
		include/spec/*.[ch]))
CHECKPATCH ?= $(firstword $(wildcard \
	$(KDIR)/scripts/checkpatch.pl \
	$(KDIR)/source/scripts/checkpatch.pl \
	/usr/src/linux-headers-*/scripts/checkpatch.pl \
	/usr/src/linux-source-*/scripts/checkpatch.pl))

# The Debian kernel linux-image-amd64 installs (evaluated when used, so
# after vm-deps installed it).
debian_kver = $(shell $(CURDIR)/selftests/vm/default-kver.sh)

all: module tools

kdir-ok:
	@[ -f "$(KDIR)/Makefile" ] || { \
	  echo "No kernel headers at KDIR=$(KDIR)."; \
	  echo "Install linux-headers-$$(uname -r), or pass KDIR=/lib/modules/<version>/build"; \
	  echo "(installed: $$(ls -d /lib/modules/*/build 2>/dev/null | tr '\n' ' '))"; \
	  exit 1; }

module: kdir-ok
	$(Q)$(MAKE) $(if $(Q),--no-print-directory) -C $(KDIR) M=$(CURDIR) modules

tools:
	@$(if $(Q),echo "  MAKE    tools/kptrace")
	$(Q)$(MAKE) $(if $(Q),-s) -C tools

test-module: kdir-ok
	$(Q)$(MAKE) $(if $(Q),--no-print-directory) -C $(KDIR) M=$(CURDIR)/selftests/test_modules modules

# The selftests' own static helpers, when their Makefile has them.
selftests-helpers:
	@$(if $(Q),echo "  MAKE    selftests/helpers")
	$(Q)if [ -f selftests/Makefile ]; then \
		$(MAKE) $(if $(Q),-s) -C selftests helpers; fi

install: all
	$(Q)$(MAKE) $(if $(Q),--no-print-directory) -C $(KDIR) M=$(CURDIR) modules_install
	$(Q)install -D -m 0755 tools/kptrace $(DESTDIR)$(SBINDIR)/kptrace

clean:
	$(Q)if [ -f "$(KDIR)/Makefile" ]; then \
		$(MAKE) -C $(KDIR) M=$(CURDIR) clean; \
		$(MAKE) -C $(KDIR) M=$(CURDIR)/selftests/test_modules clean; \
	else \
		find . -path ./.git -prune -o \( -name '*.o' -o -name '*.ko' \
		  -o -name '*.mod' -o -name '*.mod.c' -o -name '.*.cmd' \
		  -o -name '*.o.d' -o -name Module.symvers \
		  -o -name modules.order \) -type f -print0 | xargs -0 rm -f; \
	fi
	$(Q)if [ -f tools/Makefile ]; then $(MAKE) -C tools clean; fi
	$(Q)if [ -f selftests/Makefile ]; then \
		rm -f selftests/helpers/kpt_read selftests/helpers/kpt_insmod \
		      selftests/helpers/kpt_spec selftests/helpers/kpt_epoll \
		      selftests/helpers/kpt_sysgen; fi

# module/, include/ and the test module here; tools/ through its own
# style target, which knows its exceptions (the signal flag's volatile).
# LINE_SPACING: checkpatch wants a blank line between a function and the
# NOKPROBE_SYMBOL() that follows it, which kernel style (kernel/kprobes.c)
# puts right after the closing brace, as for EXPORT_SYMBOL(). Version
# tests are allowed in module/compat.h only, and nowhere else.
STYLE_IGNORE := --ignore LINE_SPACING,FILE_PATH_CHANGES
style:
	@if [ -z "$(CHECKPATCH)" ]; then \
	  echo "style: checkpatch.pl not found in $(KDIR)/scripts or"; \
	  echo "style: /usr/src/linux-{headers,source}-*/scripts. Debian ships it"; \
	  echo "style: only in linux-source-X.Y; for example:"; \
	  echo "style:   apt-get install linux-source-6.1 && tar -C /usr/src -xJf \\"; \
	  echo "style:   /usr/src/linux-source-6.1.tar.xz linux-source-6.1/scripts"; \
	  echo "style: or pass CHECKPATCH=/path/to/checkpatch.pl"; \
	  exit 1; fi
	$(Q)rc=0; \
	$(CHECKPATCH) --no-tree --strict --terse $(STYLE_IGNORE) \
		-f $(STYLE_FILES) || rc=1; \
	$(CHECKPATCH) --no-tree --strict --terse $(STYLE_IGNORE) \
		--ignore LINUX_VERSION_CODE,CONSTANT_COMPARISON \
		-f module/compat.h || rc=1; \
	if grep -n LINUX_VERSION_CODE module/*.c include/spec/*.c; then \
		echo "style: version tests belong in module/compat.h"; rc=1; fi; \
	$(MAKE) $(if $(Q),-s) -C tools style CHECKPATCH=$(CHECKPATCH) || rc=1; \
	if [ $$rc = 0 ]; then echo "style: clean"; else echo "style: FAILED"; fi; \
	exit $$rc

vm-deps:
	$(Q)selftests/vm/install-deps.sh $(VM_DEBS)

# The hazard tests' module and static helper (selftests/hazard_modules/).
hazard-module: kdir-ok
	$(Q)$(MAKE) $(if $(Q),--no-print-directory) -C $(KDIR) M=$(CURDIR)/selftests/hazard_modules modules
	$(Q)$(MAKE) $(if $(Q),-s) -C selftests/hazard_modules helper

# Everything the guest needs, built against KDIR (given by check and run).
vm-build: module tools test-module selftests-helpers hazard-module

ifdef KPT_ARM64
# arm64: no hazard module yet (it is x86's: NMI, APIC), no kpt_sysgen;
# an x86-64 build's hazard modules would be packed (and fail arm64's
# strip), so they go
vm-build-arm64: module tools test-module selftests-helpers
	$(Q)rm -f selftests/hazard_modules/*.ko

check run:
	$(Q)kdir=$$(selftests/vm/arm64-root.sh --kdir) || exit 2; \
	$(MAKE) --no-print-directory KDIR=$$kdir vm-build-arm64 && \
	V='$(V)' VM_TIMEOUT='$(VM_TIMEOUT)' selftests/vm/run-vm.sh \
		--arch arm64 --mode $@ $(VM_ARGS)
else
check run: vm-deps
	$(Q)kver='$(KVER)'; [ -n "$$kver" ] || kver='$(debian_kver)'; \
	[ -n "$$kver" ] || { echo "no /boot/vmlinuz-*-amd64"; exit 2; }; \
	$(MAKE) --no-print-directory KDIR=/lib/modules/$$kver/build vm-build && \
	V='$(V)' VM_TIMEOUT='$(VM_TIMEOUT)' selftests/vm/run-vm.sh \
		--kernel /boot/vmlinuz-$$kver --mode $@ $(VM_ARGS)
endif

dkms-check:
	$(Q)V='$(V)' selftests/vm/dkms-check.sh $(KVER)

check-debug: vm-deps
	$(Q)V='$(V)' VM_TIMEOUT='$(VM_TIMEOUT)' selftests/debug/check-debug.sh $(VM_ARGS)

# The kernel matrix; KERNELS= picks some, VM_TIMEOUT= bounds each boot,
# KERNELS_BUDGET= (seconds) the whole run.
KERNELS_ENV = V='$(V)' VM_TIMEOUT='$(VM_TIMEOUT)' VM_ARGS='$(VM_ARGS)' \
	KERNELS='$(KERNELS)' KERNELS_BUDGET='$(KERNELS_BUDGET)'
check-kernels:
	$(Q)$(KERNELS_ENV) selftests/vm/kernels.sh
build-kernels:
	$(Q)$(KERNELS_ENV) selftests/vm/kernels.sh --build-only
dkms-check-kernels:
	$(Q)$(KERNELS_ENV) selftests/vm/kernels.sh --dkms-only

# Mutation testing of the selftests (selftests/vm/mutants.sh).
check-mutants: vm-deps
	$(Q)kver='$(KVER)'; [ -n "$$kver" ] || kver='$(debian_kver)'; \
	V='$(V)' VM_TIMEOUT='$(VM_TIMEOUT)' selftests/vm/mutants.sh \
		--kver "$$kver" $(MUTANTS)

# The benchmark builds in its own chroot, against the 6.12 headers: it
# needs no KDIR and leaves this tree's build products alone.
bench:
	$(Q)selftests/bench/bench.sh $(BENCH_ARGS)

# strace in the same guest: the differential tests of kptrace syscalls.
check-strace:
	$(Q)selftests/bench/strace_diff.sh --boot $(if $(KERNELS),--kernels "$(KERNELS)") $(STRACE_ARGS)

.PHONY: all kdir-ok module tools test-module selftests-helpers install \
	clean style vm-deps vm-build vm-build-arm64 check run dkms-check bench hazard-module \
	check-debug check-kernels check-mutants \
	build-kernels dkms-check-kernels check-strace
