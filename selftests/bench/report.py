#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn make bench's raw results (guest.sh's "R"/"M" lines) into tables.

usage: report.py RESULTS.txt [--json OUT.json] [--source REV] [--command CMD]

Per micro arm: ns per call (median, min..max, IQR over the measured
repetitions; the warm-up round is dropped), the overhead over the baseline
(median minus the baseline's median), its ratio to ftrace's equivalent arm
and to the empty-probe floor, and the events the reader received out of
those the calls produced. End to end: dd's own seconds, the slowdown
against the untraced dd, and dd's events delivered. Reader: CPU time per
million events and bytes per event. Then the issue's targets, each met or
not. Only ratios within one boot mean anything under TCG.

Instructions: when the guest ran under insn_plugin.so, results.txt also
holds its marker lines ("R phase=mark vcpu= mark= run= insns="): the
instruction count of the loop's vCPU before (mark 1) and after (mark 2)
the kernel loop of run R. Each micro repetition then gets its exact guest
instructions per call, and each arm the same overhead and ratios as in
time, in instructions.

System calls (the sys_* and e2e_sys_* arms): instructions per getppid()
made from a user-space loop (kpt_sysloop.c), the tracer's cost over the
untraced call and its ratios to the empty kprobe and kretprobe on
x64_sys_call and to ftrace's raw_syscalls pair; dd's slowdown under each
system-call tracer against the untraced dd and perf trace's; then the
system-call targets.
"""
import argparse
import json
import statistics
import sys

MICRO = [
    # arm, label, ftrace equivalent, floor
    ("baseline", "no probe (baseline)", None, None),
    ("floor_kprobe", "empty kprobe (floor)", None, None),
    ("floor_kretprobe", "empty kretprobe (floor)", None, None),
    ("ftrace_args", "ftrace kprobe 4 args", "ftrace_args", "floor_kprobe"),
    ("ftrace_args_rd", "  + trace_pipe reader", "ftrace_args",
     "floor_kprobe"),
    ("ftrace_stack", "ftrace 4 args + stacktrace", "ftrace_stack",
     "floor_kprobe"),
    ("ftrace_stack_rd", "  + trace_pipe reader", "ftrace_stack",
     "floor_kprobe"),
    ("ftrace_ret", "ftrace kretprobe $retval", "ftrace_ret",
     "floor_kretprobe"),
    ("ftrace_ret_rd", "  + trace_pipe reader", "ftrace_ret",
     "floor_kretprobe"),
    ("ftrace_entret", "ftrace 4 args + $retval (p+r)", "ftrace_entret",
     "floor_kretprobe"),
    ("ftrace_entret_rd", "  + trace_pipe reader", "ftrace_entret",
     "floor_kretprobe"),
    ("bpf_count", "bpftrace count()", None, "floor_kprobe"),
    ("bpf_args", "bpftrace printf 4 args", "ftrace_args_rd",
     "floor_kprobe"),
    ("bpf_kstack", "bpftrace printf 4 args + kstack", "ftrace_stack_rd",
     "floor_kprobe"),
    ("kpt_args", "kptrace args=4 stack=0, -w", "ftrace_args_rd",
     "floor_kprobe"),
    ("kpt_stack", "kptrace args=4 stack=16, -w", "ftrace_stack_rd",
     "floor_kprobe"),
    ("kpt_ret", "kptrace args=4 retprobe=1, -w", "ftrace_ret_rd",
     "floor_kretprobe"),
    ("kpt_ret1", "kptrace r: 4 args+$retval, -w", "ftrace_ret_rd",
     "floor_kretprobe"),
    ("kpt_cond", "kptrace r: 4 args+$retval if a >= 0, -w",
     "ftrace_ret_rd", "floor_kretprobe"),
    # sessions: kpt_args' probe in a session of its own (KPT_IOC_SESSION),
    # one, and eight on the one function (each with its reader)
    ("kpt_sess1", "kptrace session, args=4, kpt_read -S", "ftrace_args_rd",
     "floor_kprobe"),
    ("kpt_sess8", "8 kptrace sessions, args=4 each", None,
     "floor_kprobe"),
    # aggregations: the summary in the kernel, no reader
    ("agg_kpt_comm", "kptrace hist:keys=comm", "agg_ftrace_comm",
     "floor_kprobe"),
    ("agg_kpt_lat", "kptrace r: hist:keys=lat_ns.log2", None,
     "floor_kretprobe"),
    ("agg_kpt_stack", "kptrace hist:keys=stacktrace", "agg_ftrace_stack",
     "floor_kprobe"),
    ("agg_kpt_num", "kptrace a=$arg1 hist:keys=a.log2", None,
     "floor_kprobe"),
    ("agg_bpf_comm", "bpftrace @[comm] = count()", "agg_ftrace_comm",
     "floor_kprobe"),
    ("agg_bpf_lat", "bpftrace kprobe+kretprobe hist(lat)", None,
     "floor_kprobe"),
    ("agg_bpf_stack", "bpftrace @[kstack] = count()", "agg_ftrace_stack",
     "floor_kprobe"),
    ("agg_ftrace_comm", "ftrace hist:keys=common_pid.execname",
     "agg_ftrace_comm", "floor_kprobe"),
    ("agg_ftrace_stack", "ftrace hist:keys=stacktrace", "agg_ftrace_stack",
     "floor_kprobe"),
]

# Arms whose writer skips a record when its buffer is full (kptrace's
# lost.full, bpftrace's "Lost N events"): a repetition that lost events ran
# fewer instructions per call, so it is left out of the arm's instruction
# figures while a loss-free one exists. ftrace's overruns overwrite old
# events: every event is still written, nothing is left out.
INSN_DROP_ARMS = ("bpf_count", "bpf_args", "bpf_kstack", "kpt_args",
                  "kpt_stack", "kpt_ret", "kpt_ret1", "kpt_cond",
                  "kpt_sess1", "kpt_sess8")

E2E = [
    ("e2e_none", "dd, untraced"),
    ("e2e_kptrace", "kptrace -w (args=3 stack=0)"),
    ("e2e_ftrace", "ftrace kprobe_events + trace_pipe"),
    ("e2e_bpftrace", "bpftrace printf comm,tid,3 args"),
    ("e2e_perf", "perf trace -e read,write"),
    ("e2e_strace", "strace -e trace=read,write"),
]

# The system-call arms (guest.sh sys_*): kpt_sysloop's loop of getppid()
# in user space between the plugin's markers, so that an instruction count
# is a whole system call, kernel entry and exit included, with whatever is
# attached to x64_sys_call or to raw_syscalls. "other": the tracer
# selects another task (pid 1), this one only pays for the test.
SYS = [
    ("sys_none", "getppid(), untraced"),
    ("sys_floor_kprobe", "empty kprobe on x64_sys_call"),
    ("sys_floor_kretprobe", "empty kretprobe on x64_sys_call"),
    ("sys_ftrace_task", "ftrace raw_syscalls, this task"),
    ("sys_ftrace_other", "ftrace raw_syscalls, other task"),
    ("sys_kpt_other", "kptrace s pid=, other task"),
    ("sys_kpt_task", "kptrace s pid=, this task, -w"),
    ("sys_kpt_sum", "kptrace s pid= summary, this task"),
    # kptrace syscalls' selection modes, the spec as the tool writes it
    # (its defaults: signals denied); guest.sh sys_kpt_<mode>_*
    ("sys_kpt_pid_other", "-p: pid=1 (default opts)"),
    ("sys_kpt_pid_task", "-p: pid=LOOP, -w"),
    ("sys_kpt_tid_other", "-t: tid=1"),
    ("sys_kpt_tid_task", "-t: tid=LOOP, -w"),
    ("sys_kpt_comm_other", "-c 'kpt_oth*' (loop not)"),
    ("sys_kpt_comm_task", "-c 'kpt_sys*', -w"),
    ("sys_kpt_cgroup_other", "-G (loop in another cg)"),
    ("sys_kpt_cgroup_task", "-G (loop in it), -w"),
    ("sys_kpt_cmd_other", "COMMAND (loop not under it)"),
    ("sys_kpt_cmd_task", "COMMAND (loop its child), -w"),
    ("sys_kpt_follow_other", "-f -p P (loop not under P)"),
    ("sys_kpt_follow_task", "-f -p P (loop P's child), -w"),
    ("sys_kpt_followp_task", "-f -p LOOP (loop is P), -w"),
]

# The selection modes of kptrace syscalls the targets are stated for:
# (mode, the arm of a task outside the selection, of a recorded call)
SYS_MODES = [
    ("-p", "sys_kpt_pid_other", "sys_kpt_pid_task"),
    ("-t", "sys_kpt_tid_other", "sys_kpt_tid_task"),
    ("-c", "sys_kpt_comm_other", "sys_kpt_comm_task"),
    ("-G", "sys_kpt_cgroup_other", "sys_kpt_cgroup_task"),
    ("COMMAND", "sys_kpt_cmd_other", "sys_kpt_cmd_task"),
    ("-f -p (child)", "sys_kpt_follow_other", "sys_kpt_follow_task"),
    ("-f -p (P itself)", None, "sys_kpt_followp_task"),
]

# dd under the system-call tracers, every call of dd traced
E2E_SYS = [
    ("e2e_sys_none", "dd, untraced"),
    ("e2e_sys_strace", "strace -f -o FILE"),
    ("e2e_sys_perf_trace", "perf trace -o FILE"),
    ("e2e_sys_perf_trace_m", "perf trace -m 32M -o FILE"),
    ("e2e_sys_perf_trace_s", "perf trace -s"),
    ("e2e_sys_bpftrace", "bpftrace syscount (comm == dd)"),
    ("e2e_sys_kptrace", "kptrace syscalls -w FILE"),
    ("e2e_sys_kptrace_s", "kptrace syscalls -s"),
]


def parse(path, insn_log=None):
    rows, meta = [], {}
    lines = list(open(path))
    if insn_log:
        # insn_plugin's own log, for a run that ended before bench.sh
        # copied its marker lines into results.txt
        lines += ["R phase=mark " + x[len("kpt_insn: "):]
                  for x in open(insn_log) if x.startswith("kpt_insn: ")]
    for line in lines:
        parts = line.split()
        if not parts or parts[0] not in ("R", "M"):
            continue
        kv = {}
        for p in parts[1:]:
            if "=" in p:
                k, v = p.split("=", 1)
                kv[k] = v
        if parts[0] == "R":
            rows.append(kv)
        else:
            for k, v in kv.items():
                if k == "skipped":
                    meta.setdefault("skipped", []).append(v)
                elif k in ("order",):
                    key = ("micro_order" if "micro_round" in kv
                           else "e2e_order")
                    meta.setdefault(key, []).append(v)
                elif k not in ("micro_round", "e2e_round"):
                    meta[k] = v
    return rows, meta


def num(v, default=None):
    try:
        return float(v)
    except (TypeError, ValueError):
        return default


def quartiles(xs):
    if len(xs) < 2:
        return xs[0], xs[0]
    q = statistics.quantiles(xs, n=4, method="inclusive")
    return q[0], q[2]


def summary(xs):
    xs = sorted(xs)
    q1, q3 = quartiles(xs)
    return {"median": statistics.median(xs), "min": xs[0], "max": xs[-1],
            "q1": q1, "q3": q3, "n": len(xs)}


def insn_runs(rows):
    """insn_plugin's markers: ({run: instructions between its markers},
    [runs rejected]). A run counts when each of its two markers ran once,
    on the same vCPU."""
    marks = {}
    for r in rows:
        if r.get("phase") == "mark":
            marks.setdefault(r.get("run"), []).append(r)
    good, bad = {}, []
    for run, ms in marks.items():
        st = [m for m in ms if m.get("mark") == "1"]
        en = [m for m in ms if m.get("mark") == "2"]
        d = None
        if (len(st) == 1 and len(en) == 1 and len(ms) == 2 and
                st[0].get("vcpu") == en[0].get("vcpu")):
            d = num(en[0].get("insns"), -1) - num(st[0].get("insns"), 0)
        if d is not None and d >= 0:
            good[run] = d
        else:
            bad.append(run)
    return good, sorted(bad, key=lambda x: num(x, 0))


def micro_stats(rows):
    out = {}
    insns, _ = insn_runs(rows)
    for arm, label, _, _ in MICRO:
        rs = [r for r in rows if r.get("phase") == "micro" and
              r.get("arm") == arm and r.get("warm") == "0" and
              "failed" not in r]
        failed = sum(1 for r in rows if r.get("phase") == "micro" and
                     r.get("arm") == arm and "failed" in r)
        if not rs:
            if failed:
                out[arm] = {"label": label, "failed": failed}
            continue
        per_call = [num(r["ns"]) / num(r["calls"]) for r in rs]
        s = {"label": label, "reps": len(rs), "failed": failed,
             "ns_per_call": summary(per_call),
             "ns_per_call_all": per_call}
        chunk = [num(r.get("chunk_ns"), 0) / num(r.get("chunk"), 1024)
                 for r in rs]
        if all(c > 0 for c in chunk):
            s["chunk_ns_per_call"] = summary(chunk)
        dels = [(num(r["delivered"], -1), num(r["expected"], 0))
                for r in rs]
        if all(d >= 0 for d, _ in dels):
            fr = [d / e for d, e in dels]
            s["delivered"] = {"min_fraction": min(fr),
                              "median_fraction": statistics.median(fr),
                              "total": int(sum(d for d, _ in dels)),
                              "expected": int(sum(e for _, e in dels))}
        lost = [num(r.get("lost"), -1) for r in rs]
        if all(x >= 0 for x in lost):
            s["lost_total"] = int(sum(lost))
        ticks = [num(r.get("reader_ticks"), -1) for r in rs]
        if all(t >= 0 for t in ticks) and "delivered" in s:
            ev = s["delivered"]["total"]
            # clock ticks are 1/100 s (USER_HZ)
            s["reader_cpu_s_per_M_events"] = (
                sum(ticks) / 100.0 / ev * 1e6 if ev else None)
        nbytes = [num(r.get("bytes"), -1) for r in rs]
        if all(b > 0 for b in nbytes) and "delivered" in s:
            ev = s["delivered"]["total"]
            s["bytes_per_event"] = sum(nbytes) / ev if ev else None
        irs = [r for r in rs if r.get("run") in insns and num(r["calls"])]
        full = [r for r in irs if num(r.get("lost"), -1) == 0]
        if arm in INSN_DROP_ARMS and full and len(full) < len(irs):
            s["insn_reps_lossy"] = len(irs) - len(full)
            irs = full
        ipc = [insns[r["run"]] / num(r["calls"]) for r in irs]
        if ipc:
            s["insn_per_call"] = summary(ipc)
            s["insn_per_call_all"] = ipc
            s["insn_spread"] = ((max(ipc) - min(ipc)) /
                                statistics.median(ipc)
                                if len(ipc) > 1 and statistics.median(ipc)
                                else None)
            if len(ipc) + s.get("insn_reps_lossy", 0) < len(rs):
                s["insn_reps_missing"] = (len(rs) - len(ipc) -
                                          s.get("insn_reps_lossy", 0))
        for k in ("mech", "probes"):
            if k in rs[-1]:
                s[k] = rs[-1][k]
        out[arm] = s
    base = out.get("baseline", {}).get("ns_per_call", {}).get("median")
    cbase = out.get("baseline", {}).get("chunk_ns_per_call", {}).get("median")
    for arm, _, equiv, floor in MICRO:
        s = out.get(arm)
        if s and cbase is not None and "chunk_ns_per_call" in s:
            s["chunk_overhead_ns"] = s["chunk_ns_per_call"]["median"] - cbase
    for arm, _, equiv, floor in MICRO:
        s = out.get(arm)
        if not s or "ns_per_call" not in s or base is None:
            continue
        ns = s["ns_per_call"]
        s["overhead_ns"] = ns["median"] - base
        s["overhead_min_ns"] = ns["min"] - base
        s["overhead_max_ns"] = ns["max"] - base
        for key, ref in (("x_ftrace", equiv), ("x_floor", floor)):
            if ref and ref != arm and out.get(ref, {}).get("overhead_ns"):
                s[key] = s["overhead_ns"] / out[ref]["overhead_ns"]
                s[key + "_ref"] = ref
    # The same in instructions: exact, so the median of the repetitions
    # (they agree to a fraction of a percent: only interrupts that hit the
    # loop's vCPU differ).
    ibase = out.get("baseline", {}).get("insn_per_call", {}).get("median")
    for arm, _, equiv, floor in MICRO:
        s = out.get(arm)
        if not s or "insn_per_call" not in s or ibase is None:
            continue
        s["insn_baseline_per_call"] = ibase
        s["insn_overhead"] = s["insn_per_call"]["median"] - ibase
    for arm, _, equiv, floor in MICRO:
        s = out.get(arm)
        if not s or "insn_overhead" not in s or arm == "baseline":
            continue
        for key, ref in (("insn_x_ftrace", equiv), ("insn_x_floor", floor),
                         ("insn_x_floor_kprobe", "floor_kprobe"),
                         ("insn_x_floor_kretprobe", "floor_kretprobe")):
            if ref and ref != arm and out.get(ref, {}).get("insn_overhead"):
                s[key] = s["insn_overhead"] / out[ref]["insn_overhead"]
                if key in ("insn_x_ftrace", "insn_x_floor"):
                    s[key + "_ref"] = ref
    return out


def e2e_stats(rows, arms=E2E, base_arm="e2e_none", calls_arm="e2e_strace"):
    """dd's seconds per arm of @arms, its slowdown against @base_arm (else
    e2e_none), its events against the calls @calls_arm saw."""
    out = {}
    for arm, label in arms:
        rs = [r for r in rows if r.get("phase") == "e2e" and
              r.get("arm") == arm and r.get("warm") == "0" and
              "failed" not in r and num(r.get("secs")) is not None]
        if not rs:
            continue
        s = {"label": label, "reps": len(rs),
             "secs": summary([num(r["secs"]) for r in rs])}
        dels = [num(r.get("delivered"), -1) for r in rs]
        if all(d >= 0 for d in dels):
            s["delivered"] = summary(dels)
        lost = [num(r.get("lost"), -1) for r in rs]
        if all(x >= 0 for x in lost):
            s["lost_total"] = int(sum(lost))
        s["count"] = int(num(rs[0].get("count"), 0))
        for k in ("how",):
            if k in rs[-1]:
                s[k] = rs[-1][k]
        out[arm] = s
    base = out.get(base_arm, {}).get("secs", {}).get("median")
    if base is None and base_arm != "e2e_none":
        base = e2e_stats(rows).get("e2e_none", {}).get("secs",
                                                       {}).get("median")
    # dd's read()+write() calls (e2e_strace; e2e_sys_strace: all its
    # calls): strace sees every one of them.
    calls = None
    if calls_arm in out and "delivered" in out[calls_arm]:
        calls = out[calls_arm]["delivered"]["median"]
    for arm, s in out.items():
        if base:
            s["slowdown"] = s["secs"]["median"] / base
            s["slowdown_min"] = s["secs"]["min"] / base
            s["slowdown_max"] = s["secs"]["max"] / base
        exp = calls if calls else 2 * s["count"]
        s["expected_events"] = exp
        if "delivered" in s and arm != base_arm:
            s["delivered_fraction_min"] = s["delivered"]["min"] / exp
            s["delivered_fraction_median"] = s["delivered"]["median"] / exp
    return out


def decode_stats(rows):
    out = {}
    for r in rows:
        if r.get("phase") != "decode":
            continue
        key = "%s/%s" % (r["arm"], r["mode"])
        d = out.setdefault(key, {"arm": r["arm"], "mode": r["mode"],
                                 "events": int(num(r["events"])),
                                 "bytes": int(num(r["bytes"])),
                                 "cpu_s": [], "startup_cpu_s": []})
        d["cpu_s"].append(num(r["cpu_s"]))
        d["startup_cpu_s"].append(num(r["startup_cpu_s"]))
    for d in out.values():
        ev = d["events"] or 1
        # the least disturbed run: the host's load only ever adds time
        c = min(d["cpu_s"])
        st = min(d["startup_cpu_s"])
        d["cpu_s_median"] = c
        d["startup_cpu_s_median"] = st
        d["cpu_s_per_M_events"] = c / ev * 1e6
        d["cpu_s_per_M_events_net"] = max(c - st, 0) / ev * 1e6
        d["bytes_per_event"] = d["bytes"] / ev
    return out


def fmt(v, spec="%.0f", none="-"):
    return none if v is None else spec % v


def pct(v):
    return "-" if v is None else "%.1f%%" % (100 * v)


def paired(rows, a, b, chunk):
    """Per-round ratio of overheads (arm - baseline of the same round):
    robust against the host's load drifting between rounds."""
    per = {}
    for r in rows:
        if (r.get("phase") == "micro" and r.get("warm") == "0" and
                "failed" not in r):
            v = (num(r.get("chunk_ns"), 0) / num(r.get("chunk"), 1024)
                 if chunk
                 else num(r["ns"]) / num(r["calls"]))
            if v:
                per.setdefault(r["rep"], {})[r["arm"]] = v
    xs = []
    for d in per.values():
        if a in d and b in d and "baseline" in d:
            den = d[b] - d["baseline"]
            if den > 0:
                xs.append((d[a] - d["baseline"]) / den)
    return summary(xs) if xs else None


def targets(micro, e2e, rows):
    """The issue's targets. Cost ratios are judged on the chunk overheads
    (the median 1024-call chunk of each run, then the median over runs):
    on a host shared with other QEMU guests the whole-run times are
    dominated by the vCPUs' stalls; the whole-run ratio is kept as well."""
    t = []

    def add(name, value, limit, ok, how, **extra):
        x = {"target": name, "value": value, "limit": limit,
             "met": ok, "how": how}
        x.update(extra)
        t.append(x)

    def ov(a, key):
        return micro.get(a, {}).get(key)

    def add_ratio(name, a, b, limit, strict=False):
        c = (ov(a, "chunk_overhead_ns") / ov(b, "chunk_overhead_ns")
             if ov(a, "chunk_overhead_ns") is not None and
             ov(b, "chunk_overhead_ns") else None)
        w = (ov(a, "overhead_ns") / ov(b, "overhead_ns")
             if ov(a, "overhead_ns") is not None and ov(b, "overhead_ns")
             else None)
        v = c if c is not None else w
        ok = v is not None and (v < limit if strict else v <= limit)
        i = (ov(a, "insn_overhead") / ov(b, "insn_overhead")
             if ov(a, "insn_overhead") is not None and
             ov(b, "insn_overhead") else None)
        add(name, v, limit, ok, "overhead %s / %s" % (a, b),
            chunk_ratio=c, total_ratio=w, insn_ratio=i,
            insn_met=(None if i is None else
                      i < limit if strict else i <= limit),
            paired=paired(rows, a, b, c is not None),
            total_paired=paired(rows, a, b, False))

    add_ratio("kptrace 4 args <= 0.5x ftrace 4 args (both with readers)",
              "kpt_args", "ftrace_args_rd", 0.5)
    add_ratio("kptrace 4 args <= 0.5x ftrace 4 args (ftrace, no reader)",
              "kpt_args", "ftrace_args", 0.5)
    add_ratio("kptrace 4 args <= 2x empty kprobe", "kpt_args",
              "floor_kprobe", 2.0)
    add_ratio("a session's probe costs what the default session's does",
              "kpt_sess1", "kpt_args", 1.02)
    add_ratio("kptrace args+16-frame stack < ftrace stacktrace trigger",
              "kpt_stack", "ftrace_stack_rd", 1.0, strict=True)
    add_ratio("kptrace args+16-frame stack < bpftrace kstack",
              "kpt_stack", "bpf_kstack", 1.0, strict=True)
    add_ratio("kptrace entry+return <= 1.5x empty kretprobe", "kpt_ret",
              "floor_kretprobe", 1.5)
    add_ratio("  same, as one r: record (args+ret+lat) <= 1.5x", "kpt_ret1",
              "floor_kretprobe", 1.5)
    add_ratio("hist by comm <= 0.5x bpftrace @[comm] = count()",
              "agg_kpt_comm", "agg_bpf_comm", 0.5)
    add_ratio("log2 latency hist <= 0.5x bpftrace kprobe+kretprobe hist()",
              "agg_kpt_lat", "agg_bpf_lat", 0.5)
    add_ratio("hist by stack <= 0.5x bpftrace @[kstack] = count()",
              "agg_kpt_stack", "agg_bpf_stack", 0.5)
    add_ratio("log2 latency hist <= kptrace's own r: record", "agg_kpt_lat",
              "kpt_ret1", 1.0)
    for a in ("kpt_args", "kpt_stack", "kpt_ret", "kpt_ret1", "agg_kpt_comm",
              "agg_kpt_lat", "agg_kpt_stack"):
        d = micro.get(a, {}).get("delivered")
        f = d["min_fraction"] if d else None
        add("%s: 100%% delivered with the reader, default ring" % a, f, 1.0,
            f is not None and f >= 1.0, "worst repetition's delivered/expected")
    k = e2e.get("e2e_kptrace")
    if k and "slowdown" in k:
        others = [(a, s["slowdown"]) for a, s in e2e.items()
                  if a not in ("e2e_none", "e2e_kptrace") and "slowdown" in s]
        best = min(others, key=lambda x: x[1]) if others else None
        ok = best is None or k["slowdown"] < best[1]
        add("dd: lowest slowdown of all tools", k["slowdown"],
            best[1] if best else None, ok,
            "best other: %s" % (best[0] if best else "none"))
        f = k.get("delivered_fraction_min")
        add("dd: every event delivered (kptrace)", f, 1.0,
            f is not None and f >= 1.0 and k.get("lost_total", 1) == 0,
            "dd's events in the saved file / dd's read+write calls")
    return t


def insn_table(micro, rows, meta):
    """Instructions per call per arm, with the ratios to both floors and to
    ftrace's equivalent arm."""
    p = print
    good, bad = insn_runs(rows)
    p("")
    if not good:
        p("Instructions: none counted (the guest ran without insn_plugin.so"
          ", or its log was empty)")
        return
    p("Instructions per call: exact guest instructions the loop's vCPU "
      "executed between the markers around the loop, / calls (QEMU plugin "
      "insn_plugin.so%s)" % (", qemu-plugin.h of qemu " +
                             meta["insn_qemu_plugin_h"]
                             if meta.get("insn_qemu_plugin_h") else ""))
    hdr = "%-34s %9s %21s %7s %9s %8s %8s %8s" % (
        "arm", "insn/call", "[min..max]", "spread", "overhead",
        "x kprobe", "x kretpr", "x ftrace")
    p(hdr)
    p("-" * len(hdr))
    for arm, _, _, _ in MICRO:
        s = micro.get(arm)
        if not s or "insn_per_call" not in s:
            continue
        i = s["insn_per_call"]
        p("%-34s %9.1f %21s %7s %9s %8s %8s %8s" % (
            s["label"], i["median"], "[%.1f..%.1f]" % (i["min"], i["max"]),
            pct(s.get("insn_spread")), fmt(s.get("insn_overhead"), "%.1f"),
            fmt(s.get("insn_x_floor_kprobe"), "%.2f"),
            fmt(s.get("insn_x_floor_kretprobe"), "%.2f"),
            fmt(s.get("insn_x_ftrace"), "%.2f")))
    p("spread: (max - min) / median over the repetitions. overhead: "
      "insn/call - the no-probe loop's. x kprobe, x kretpr: overhead / the "
      "empty kprobe's, empty kretprobe's; x ftrace: / ftrace's equivalent "
      "arm's (as in x ftrace above).")
    p("Instructions are not cycles (an atomic, a cache miss or an rdtsc "
      "costs more than one), but they are what the tracer's code executes, "
      "whatever the host's load; interrupts taken on the loop's vCPU "
      "count too.")
    for arm, _, _, _ in MICRO:
        s = micro.get(arm, {})
        if s.get("insn_reps_lossy"):
            p("%s: %d of %d repetitions lost events (fewer instructions per "
              "call): left out of its instructions" % (
                  arm, s["insn_reps_lossy"], s["reps"]))
        if s.get("insn_reps_missing"):
            p("%s: %d repetitions without instruction counts" % (
                arm, s["insn_reps_missing"]))
    if bad:
        p("WARNING: runs with inconsistent markers, not counted: %s"
          % ", ".join(bad))


def sys_stats(rows):
    """The sys_* arms: instructions per getppid() (median over the
    repetitions), the tracer's cost over the untraced call, and its ratios
    to the floors and to ftrace's raw_syscalls pair."""
    insns, _ = insn_runs(rows)
    out = {}
    for arm, label in SYS:
        rs = [r for r in rows if r.get("phase") == "micro" and
              r.get("arm") == arm and r.get("warm") == "0" and
              "failed" not in r and num(r.get("calls"))]
        failed = sum(1 for r in rows if r.get("phase") == "micro" and
                     r.get("arm") == arm and "failed" in r)
        if not rs:
            if failed:
                out[arm] = {"label": label, "failed": failed}
            continue
        s = {"label": label, "reps": len(rs), "failed": failed,
             "ns_per_call": summary([num(r["ns"]) / num(r["calls"])
                                     for r in rs])}
        ipc = [insns[r["run"]] / num(r["calls"]) for r in rs
               if r.get("run") in insns]
        if ipc:
            s["insn_per_call"] = summary(ipc)
            s["insn_per_call_all"] = ipc
        if len(ipc) < len(rs):
            s["insn_reps_missing"] = len(rs) - len(ipc)
        dels = [(num(r.get("delivered"), -1), num(r.get("expected"), 0))
                for r in rs]
        if all(d >= 0 and e > 0 for d, e in dels):
            fr = [d / e for d, e in dels]
            s["delivered"] = {"min_fraction": min(fr),
                              "total": int(sum(d for d, _ in dels)),
                              "expected": int(sum(e for _, e in dels))}
        lost = [num(r.get("lost"), -1) for r in rs]
        if all(x >= 0 for x in lost):
            s["lost_total"] = int(sum(lost))
        for k in ("records", "counted", "around", "all_records",
                  "all_events", "mech", "mode", "tool_args", "depth",
                  "selected_pid", "probes", "pstats"):
            if k in rs[-1]:
                s[k] = rs[-1][k]
        out[arm] = s
    base = out.get("sys_none", {}).get("insn_per_call", {}).get("median")
    nbase = out.get("sys_none", {}).get("ns_per_call", {}).get("median")
    for arm, s in out.items():
        if "insn_per_call" in s and base is not None:
            s["insn_overhead"] = s["insn_per_call"]["median"] - base
        if "ns_per_call" in s and nbase is not None:
            s["overhead_ns"] = s["ns_per_call"]["median"] - nbase
    for arm, s in out.items():
        if "insn_overhead" not in s or arm == "sys_none":
            continue
        for key, ref in (("x_floor_kprobe", "sys_floor_kprobe"),
                         ("x_floor_kretprobe", "sys_floor_kretprobe"),
                         ("x_ftrace_task", "sys_ftrace_task"),
                         ("x_ftrace_other", "sys_ftrace_other")):
            if ref != arm and out.get(ref, {}).get("insn_overhead"):
                s[key] = s["insn_overhead"] / out[ref]["insn_overhead"]
    return out


def sys_targets(sysd, e2e_sys):
    """The system-call targets: costs in exact instructions per call over
    the untraced getppid(); dd's slowdowns of the same boot."""
    t = []

    def cost(a):
        return sysd.get(a, {}).get("insn_overhead")

    def ratio(name, a, b, limit):
        v = (cost(a) / cost(b) if cost(a) is not None and cost(b)
             else None)
        t.append({"target": name, "value": v, "limit": limit,
                  "met": None if v is None else v <= limit,
                  "how": "instructions over sys_none: %s / %s" % (a, b),
                  "num": cost(a), "den": cost(b)})

    ratio("a task outside the selection <= 1.5x one empty kprobe",
          "sys_kpt_other", "sys_floor_kprobe", 1.5)
    ratio("a recorded call <= 1.5x the empty kretprobe",
          "sys_kpt_task", "sys_floor_kretprobe", 1.5)
    ratio("a recorded call <= 0.5x ftrace's raw_syscalls pair",
          "sys_kpt_task", "sys_ftrace_task", 0.5)
    ratio("the summary (-s) <= a recorded call",
          "sys_kpt_sum", "sys_kpt_task", 1.0)
    for mode, other, task in SYS_MODES:
        if other and other in sysd:
            ratio("%s: an outsider <= 1.5x one empty kprobe" % mode,
                  other, "sys_floor_kprobe", 1.5)
        if task in sysd:
            ratio("%s: a recorded call <= 1.5x the empty kretprobe" % mode,
                  task, "sys_floor_kretprobe", 1.5)
            ratio("%s: a recorded call <= 0.5x ftrace's pair" % mode,
                  task, "sys_ftrace_task", 0.5)
    for arm in ["sys_kpt_task"] + [m[2] for m in SYS_MODES]:
        s = sysd.get(arm)
        if not s:
            continue
        d = s.get("delivered")
        f = d["min_fraction"] if d else None
        t.append({"target": "every getppid() of the task recorded, none "
                            "lost (%s)" % arm,
                  "value": f, "limit": 1.0,
                  "met": (f is not None and f >= 1.0 and
                          s.get("lost_total", 1) == 0),
                  "how": "worst repetition's loop records / N; lost %s"
                         % s.get("lost_total", "?")})
    k = e2e_sys.get("e2e_sys_kptrace", {}).get("slowdown")
    pt = e2e_sys.get("e2e_sys_perf_trace", {}).get("slowdown")
    v = k / pt if k and pt else None
    ex = (k - 1) / (pt - 1) if k and pt and pt > 1 else None
    pm = e2e_sys.get("e2e_sys_perf_trace_m", {}).get("slowdown")
    vm = k / pm if k and pm else None
    t.append({"target": "dd under kptrace syscalls <= 1/5 of perf trace's "
                        "slowdown",
              "value": v, "limit": 0.2,
              "met": None if v is None else v <= 0.2,
              "how": "slowdown (secs / untraced secs) ratio; of the time "
                     "added: %s; perf trace lost %s events; vs perf trace "
                     "-m 32M: %s" % (
                         fmt(ex, "%.3f"),
                         e2e_sys.get("e2e_sys_perf_trace",
                                     {}).get("lost_total", "?"),
                         fmt(vm, "%.3f")),
              "added_time_ratio": ex, "vs_perf_trace_m": vm})
    return t


def sys_tables(sysd, e2e_sys, sys_tg, meta):
    """The system-call tables: instructions per getppid(), dd, targets."""
    p = print
    p("")
    p("System calls: getppid() from a user-space loop (kpt_sysloop, pinned "
      "to CPU 0), %s calls per repetition; exact guest instructions per "
      "call between the plugin's markers, user loop, kernel entry and exit "
      "included; median [min..max] of the repetitions" % meta.get("calls"))
    hdr = "%-36s %9s %17s %8s %8s %8s %8s %8s %9s %s" % (
        "arm", "insn/call", "[min..max]", "cost", "x kprobe", "x kretpr",
        "x ftr tk", "ns/call", "delivered", "lost")
    p(hdr)
    p("-" * len(hdr))
    for arm, _ in SYS:
        s = sysd.get(arm)
        if not s:
            continue
        if "ns_per_call" not in s:
            p("%-36s FAILED (%d)" % (s["label"], s.get("failed", 0)))
            continue
        i = s.get("insn_per_call")
        d = s.get("delivered")
        p("%-36s %9s %17s %8s %8s %8s %8s %8.0f %9s %s" % (
            s["label"], fmt(i and i["median"], "%.1f"),
            "[%.1f..%.1f]" % (i["min"], i["max"]) if i else "-",
            fmt(s.get("insn_overhead"), "%.1f"),
            fmt(s.get("x_floor_kprobe"), "%.2f"),
            fmt(s.get("x_floor_kretprobe"), "%.2f"),
            fmt(s.get("x_ftrace_task"), "%.2f"),
            s["ns_per_call"]["median"],
            pct(d["min_fraction"]) if d else "-",
            s.get("lost_total", "-")))
    p("cost: insn/call - the untraced getppid()'s, the tracer's "
      "instructions per call. x kprobe, x kretpr, x ftr tk: cost / the "
      "empty kprobe's, the empty kretprobe's, ftrace raw_syscalls' for the "
      "task (sys_enter + sys_exit). other task: the tracer selects pid 1, "
      "the loop only pays for the test. -p ... -f: kptrace syscalls' "
      "selection modes, the spec lines its --dry-run prints (signals "
      "denied by default), the loop selected (-w reader) or not (guest.sh "
      "sys_kpt_<mode>_*). delivered: the loop's getppid() "
      "calls in the reader's file / N, worst repetition (%s). lost: the "
      "floors' calls missed (no instance), ftrace's overruns, kptrace's "
      "lost records, the summary's calls without room (summary_full)." %
      ", ".join("%s: %s %s, %s beyond the loop's" % (
          a, sysd[a].get(k, "?"), k, sysd[a].get("around", "?"))
          for a, k in (("sys_kpt_task", "records"),
                       ("sys_kpt_sum", "counted")) if a in sysd))
    for arm, _ in SYS:
        s = sysd.get(arm, {})
        if s.get("insn_reps_missing"):
            p("%s: %d repetitions without instruction counts" % (
                arm, s["insn_reps_missing"]))
    if e2e_sys:
        p("")
        p("System calls end to end: dd if=/dev/zero of=/dev/null bs=1 "
          "count=%s on CPU 0, every call of dd traced, the tool on CPU 1; "
          "dd's own seconds" % meta.get("dd_count"))
        hdr = "%-36s %8s %19s %9s %9s %9s %s" % (
            "tool", "secs", "[min..max]", "slowdown", "x perf tr",
            "calls", "lost")
        p(hdr)
        p("-" * len(hdr))
        pt = e2e_sys.get("e2e_sys_perf_trace", {}).get("slowdown")
        for arm, label in E2E_SYS:
            s = e2e_sys.get(arm)
            if not s:
                continue
            if arm == "e2e_sys_kptrace" and s.get("how", "").startswith(
                    "probe_s"):
                label = "kptrace s comm=dd, -w FILE"
            sl = s.get("slowdown")
            p("%-36s %8.3f %19s %9s %9s %9s %s" % (
                label, s["secs"]["median"],
                "[%.3f..%.3f]" % (s["secs"]["min"], s["secs"]["max"]),
                fmt(sl, "%.2fx"),
                fmt(sl / pt if sl and pt and arm != "e2e_sys_none"
                    else None, "%.3f"),
                fmt(s.get("delivered", {}).get("median"))
                if arm != "e2e_sys_none" else "-",
                s.get("lost_total", "-") if arm != "e2e_sys_none" else "-"))
        p("slowdown: dd's median seconds / the untraced dd's; x perf tr: / "
          "perf trace's slowdown. calls: the calls the tool reported "
          "(median; strace, perf trace and kptrace syscalls, with -s "
          "too, count taskset's few before it execs dd, bpftrace and an s "
          "probe with comm=dd only dd's). lost: events the tool said it "
          "lost (perf: LOST lines, a call is two events)")
    p("")
    p("System-call targets (instructions exact; dd's times of this boot)")
    for x in sys_tg:
        v = x["value"]
        p("  %-4s %-62s %6s %s" % (
            "n/a" if v is None else "MET" if x["met"] else "MISS",
            x["target"], "-" if v is None else "%.3f" % v, x["how"]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("results")
    ap.add_argument("--json")
    ap.add_argument("--json-shown", help="the JSON's path to print")
    ap.add_argument("--source", default="")
    ap.add_argument("--command", default="make bench")
    ap.add_argument("--insn-log", help="insn_plugin's log, when RESULTS "
                    "lacks its marker lines")
    a = ap.parse_args()

    rows, meta = parse(a.results, a.insn_log)
    micro = micro_stats(rows)
    e2e = e2e_stats(rows)
    dec = decode_stats(rows)
    tg = targets(micro, e2e, rows)
    sysd = sys_stats(rows)
    e2e_sys = e2e_stats(rows, E2E_SYS, "e2e_sys_none", "e2e_sys_strace")
    sys_tg = sys_targets(sysd, e2e_sys)

    p = print
    p("kptrace make bench: %s" % a.command)
    p("kernel %s, %s vCPUs under QEMU TCG, source %s, seed %s, %s reps "
      "(+1 warm-up), %s calls per micro rep, dd count=%s"
      % (meta.get("kernel"), meta.get("cpus"), a.source or "?",
         meta.get("seed"), meta.get("reps"), meta.get("calls"),
         meta.get("dd_count")))
    if meta.get("host_loadavg_before"):
        p("host load average (1/5/15 min) before %s, after %s, on %s host "
          "CPUs" % (meta["host_loadavg_before"],
                    meta.get("host_loadavg_after"), meta.get("host_cpus")))
    p("UNDER QEMU TCG TIME IS NOT MODELLED: absolute ns mean nothing, only "
      "ratios between arms of this one boot do.")
    if meta.get("skipped"):
        p("skipped (tool missing): %s" % ", ".join(meta["skipped"]))
    if micro or e2e or dec:
        kpt_tables(micro, e2e, dec, tg, rows, meta)
    if sysd or e2e_sys:
        sys_tables(sysd, e2e_sys, sys_tg, meta)

    if a.json:
        good, bad = insn_runs(rows)
        doc = {"command": a.command, "source": a.source, "meta": meta,
               "caveat": "QEMU TCG: only ratios within one boot mean "
                         "anything; absolute ns do not. insn_* figures "
                         "are exact guest instructions per call (the loop's "
                         "vCPU, interrupts included).",
               "insn": {"runs_counted": len(good), "runs_rejected": bad},
               "micro": micro, "e2e": e2e, "decode": dec, "targets": tg,
               "sys": sysd, "e2e_sys": e2e_sys, "sys_targets": sys_tg,
               "raw": rows}
        with open(a.json, "w") as f:
            json.dump(doc, f, indent=1, sort_keys=True)
        p("")
        p("JSON: %s" % (a.json_shown or a.json))
    return 0


def kpt_tables(micro, e2e, dec, tg, rows, meta):
    """The tables of the kernel-loop (micro), dd (e2e), reader and target
    arms."""
    p = print
    p("")
    p("Micro: kpt_bench_func(a, b, c, d) from a kernel loop; ns per call "
      "median [min..max], overhead = median - baseline median")
    hdr = "%-34s %8s %17s %8s %8s %7s %7s %7s %7s %9s %7s %s" % (
        "arm", "ns/call", "[min..max]", "overhd", "x ftrace", "x floor",
        "insn", "i x ftr", "i x flr", "delivered", "chunk", "lost")
    p(hdr)
    p("-" * len(hdr))
    for arm, _, _, _ in MICRO:
        s = micro.get(arm)
        if not s:
            continue
        if "ns_per_call" not in s:
            p("%-34s FAILED (%d)" % (s["label"], s.get("failed", 0)))
            continue
        ns = s["ns_per_call"]
        d = s.get("delivered")
        p("%-34s %8.0f %17s %8s %8s %7s %7s %7s %7s %9s %7s %s" % (
            s["label"], ns["median"],
            "[%.0f..%.0f]" % (ns["min"], ns["max"]),
            fmt(s.get("overhead_ns")),
            fmt(s.get("x_ftrace"), "%.2f"), fmt(s.get("x_floor"), "%.2f"),
            fmt(s.get("insn_overhead"), "%.1f"),
            fmt(s.get("insn_x_ftrace"), "%.2f"),
            fmt(s.get("insn_x_floor"), "%.2f"),
            pct(d["min_fraction"]) if d else "-",
            fmt(s.get("chunk_overhead_ns")),
            s.get("lost_total", "-")))
    p("x ftrace: overhead / ftrace's equivalent arm's (kptrace and bpftrace "
      "arms: the one with a trace_pipe reader; kpt_ret: the ftrace "
      "kretprobe).")
    p("x floor: overhead / the empty kprobe's (entry arms) or empty "
      "kretprobe's (return arms). delivered: worst repetition.")
    p("chunk: overhead from the median %s-call chunk of each run, median "
      "over the runs (robust to host stalls, blind to costs paid once every "
      "few chunks)." % next((r.get("chunk", "1024") for r in rows
                              if r.get("chunk")), "1024"))
    p("insn: guest instructions per call over the no-probe loop, exact "
      "(below); i x ftr, i x flr: the same ratios as x ftrace, x floor, in "
      "instructions.")
    insn_table(micro, rows, meta)
    if e2e:
        p("")
        p("End to end: dd if=/dev/zero of=/dev/null bs=1 count=%s, %s/%s "
          "traced; dd's own seconds" % (meta.get("dd_count"),
                                         *meta.get("e2e_funcs",
                                                   "?,?").split(",")))
        hdr = "%-36s %8s %19s %9s %9s %s" % (
            "tool", "secs", "[min..max]", "slowdown", "delivered", "lost")
        p(hdr)
        p("-" * len(hdr))
        for arm, _ in E2E:
            s = e2e.get(arm)
            if not s:
                continue
            p("%-36s %8.3f %19s %9s %9s %s" % (
                s["label"], s["secs"]["median"],
                "[%.3f..%.3f]" % (s["secs"]["min"], s["secs"]["max"]),
                fmt(s.get("slowdown"), "%.2fx"),
                pct(s.get("delivered_fraction_min"))
                if arm != "e2e_none" else "-",
                s.get("lost_total", "-") if arm != "e2e_none" else "-"))
        p("delivered: dd's events received / dd's read+write calls (%s, "
          "strace's count), worst repetition"
          % fmt(next(iter(e2e.values()))["expected_events"]))
    p("")
    p("Reader cost (kptrace)")
    hdr = "%-40s %12s %14s %12s" % ("", "events", "CPU s/M ev", "bytes/ev")
    p(hdr)
    p("-" * len(hdr))
    for arm in ("kpt_args", "kpt_stack", "kpt_ret", "kpt_ret1"):
        s = micro.get(arm)
        if s and s.get("reader_cpu_s_per_M_events") is not None:
            p("%-40s %12d %14.2f %12.1f" % (
                "live -w FILE, " + arm, s["delivered"]["total"],
                s["reader_cpu_s_per_M_events"], s.get("bytes_per_event", 0)))
    for arm in ("ftrace_args_rd", "ftrace_stack_rd"):
        s = micro.get(arm)
        if s and s.get("reader_cpu_s_per_M_events") is not None:
            p("%-40s %12d %14.2f %12.1f" % (
                "cat trace_pipe > FILE, " + arm, s["delivered"]["total"],
                s["reader_cpu_s_per_M_events"], s.get("bytes_per_event", 0)))
    for d in sorted(dec.values(), key=lambda d: (d["arm"], d["mode"])):
        p("%-40s %12d %14.2f %12.1f" % (
            "kptrace -r FILE%s > /dev/null, %s" % (
                " -j" if d["mode"] == "json" else "", d["arm"]),
            d["events"], d["cpu_s_per_M_events"], d["bytes_per_event"]))
    p("(-r: fastest of the repetitions, whole run incl. the kallsyms load; "
      "net of a -n 1 run: %s)" % ", ".join(
        "%s %.2f" % (k, d["cpu_s_per_M_events_net"])
        for k, d in sorted(dec.items())))
    p("")
    p("Targets (issue 4). Cost ratios: of the chunk overheads (see above), "
      "then the per-round paired ratio median [min..max], then the ratio of "
      "whole-run overheads")
    for x in tg:
        v = x["value"]
        pr = x.get("paired")
        if v is None:
            x["met"] = None
        extra = ""
        if pr:
            extra = "paired %.2f [%.2f..%.2f]" % (pr["median"], pr["min"],
                                                 pr["max"])
        if x.get("total_ratio") is not None:
            extra += ", whole-run %.2f" % x["total_ratio"]
        if x.get("insn_ratio") is not None:
            extra += ", insn %.3f (%s)" % (
                x["insn_ratio"], "met" if x["insn_met"] else "miss")
        p("  %-4s %-60s %6s %s" % (
            "n/a" if v is None else "MET" if x["met"] else "MISS",
            x["target"], "-" if v is None else "%.3f" % v, extra))


if __name__ == "__main__":
    sys.exit(main())
