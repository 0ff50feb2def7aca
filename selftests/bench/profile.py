#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Where each micro arm's instructions go: make bench --profile's report.

usage: profile.py OUTDIR [--insn-log FILE] [--top N] [--arms REGEXP]

OUTDIR is the guest's results directory: results.txt (the arms and their
runs), kallsyms (the guest's symbols at the start) and ksyms.RUN (the
symbols of the modules loaded for run RUN: each arm loads its own). The
insn log (default OUTDIR/insn.log) holds insn_plugin's profile lines,
"kpt_prof: run=R pc=ADDR insns=N execs=E", the blocks a run's loop
executed between its marks. Each block is named by the function it starts
in; for each arm's last measured repetition the functions print with their
instructions per call, most first. The loop itself is in the figures
(kpt_bench_loop and kpt_bench_func: about 19 per call), as are interrupts
taken during the loop.
"""
import argparse
import bisect
import collections
import os
import re
import sys


def load_syms(path, syms):
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) < 3 or p[1] not in "tTwW":
                continue
            addr = int(p[0], 16)
            if addr:
                syms.append((addr, p[2] + (" " + p[3] if len(p) > 3 else "")))


def fields(line):
    return dict(kv.split("=", 1) for kv in line.split()[1:] if "=" in kv)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("outdir")
    ap.add_argument("--insn-log")
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--arms", default=".")
    a = ap.parse_args()
    log = a.insn_log or os.path.join(a.outdir, "insn.log")

    # the last measured run of each micro arm
    runs = {}
    with open(os.path.join(a.outdir, "results.txt")) as f:
        for line in f:
            if not line.startswith("R phase=micro "):
                continue
            r = fields(line[2:])
            if r.get("warm") == "1" or not re.search(a.arms, r["arm"]):
                continue
            runs[r["arm"]] = (r["run"], int(r["calls"]))
    blocks = collections.defaultdict(list)
    with open(log) as f:
        for line in f:
            if line.startswith("kpt_prof: "):
                r = fields(line)
                blocks[r["run"]].append((int(r["pc"], 16), int(r["insns"])))
    base = []
    load_syms(os.path.join(a.outdir, "kallsyms"), base)
    if not runs:
        sys.exit("profile.py: no measured micro arm in results.txt")
    for arm in sorted(runs):
        run, calls = runs[arm]
        if run not in blocks:
            print(f"{arm}: no profile of run {run} (was the plugin's "
                  "profile=on given?)\n")
            continue
        syms = list(base)
        kfile = os.path.join(a.outdir, f"ksyms.{run}")
        if os.path.exists(kfile):
            load_syms(kfile, syms)
        syms.sort()
        addrs = [s[0] for s in syms]
        per = collections.Counter()
        for pc, n in blocks[run]:
            i = bisect.bisect_right(addrs, pc) - 1
            per[syms[i][1] if i >= 0 else "?"] += n
        total = sum(per.values())
        print(f"{arm} (run {run}, {calls} calls): "
              f"{total / calls:.1f} instructions per call in the "
              "blocks logged")
        for name, n in per.most_common(a.top):
            print(f"  {n / calls:9.1f}  {100.0 * n / total:5.1f}%  {name}")
        print()


if __name__ == "__main__":
    main()
