// SPDX-License-Identifier: GPL-2.0
/*
 * tsc_khz: the host's TSC frequency in kHz, for the QEMU guests.
 *
 * Under TCG a guest's TSC counts at the host's rate, but the guest's own
 * calibration (against an emulated PIT or HPET) goes wrong whenever the
 * host is loaded: the guest then gets a clock that runs 10x too fast, or
 * declares its TSC unstable and falls back to the emulated HPET, as no
 * real x86 machine does. run-vm.sh and bench.sh boot with
 * tsc_early_khz=<this> tsc=reliable instead (vmlib.sh: vm_tsc_append).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <x86intrin.h>

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(void)
{
	struct timespec a, b, s = { 0, 40000000 };
	double khz[7];
	int i;

	for (i = 0; i < 7; i++) {
		unsigned long long t0, t1;
		double ns;

		clock_gettime(CLOCK_MONOTONIC_RAW, &a);
		t0 = __rdtsc();
		nanosleep(&s, NULL);
		t1 = __rdtsc();
		clock_gettime(CLOCK_MONOTONIC_RAW, &b);
		ns = (b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec);
		khz[i] = (t1 - t0) / ns * 1e6;
	}
	qsort(khz, 7, sizeof(khz[0]), cmp);
	printf("%.0f\n", khz[3]);
	return 0;
}
