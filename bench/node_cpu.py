#!/usr/bin/python3
"""CPU per clock of each node of a run, from its "node_cpu" events, beside another run's.

Usage: node_cpu.py RUN_DIR [OTHER_RUN_DIR]
  RUN_DIR is a variant's output folder (events.jsonl, summary.json): a launched run, whose nodes
  measured their CPU (role thread and whole process), or a simulated one on a cluster with "cpu",
  whose nodes report the host work they were charged. With OTHER_RUN_DIR (typically the simulation
  of the same job), prints both side by side. Per clock is over the summary's "iterations" clocks.
Prints, per node and per kind of node (scheduler, servers, workers, all): role thread ms per
clock, process ms per clock (the process's other threads: ZeroMQ's I/O threads, heartbeats), and
the whole job's CPU over its wall time (cores busy). Exits 1 when a run has no node_cpu events.
"""

import json
import sys
from pathlib import Path


def node_cpu(run_dir):
    """{node: event} of run_dir's node_cpu events, and the run's clocks."""
    events = {}
    for line in (Path(run_dir) / "events.jsonl").read_text().splitlines():
        e = json.loads(line)
        if e.get("type") == "node_cpu":
            events[e["node"]] = e
    summary = json.loads((Path(run_dir) / "summary.json").read_text())
    clocks = summary.get("iterations") or summary.get("final_clock")
    if not events:
        sys.exit(f"node_cpu: {run_dir} has no node_cpu events (a run before nodes measured "
                 "their CPU, in-process nodes, or a simulation without \"cpu\")")
    return events, clocks, summary


def kind(node):
    return node.split(":")[0] + ("s" if ":" in node else "")


def rows(run_dir):
    """[(name, role ms/clock, process ms/clock)] by node then by kind, and cores busy."""
    events, clocks, summary = node_cpu(run_dir)
    order = sorted(events, key=lambda n: (kind(n) != "scheduler", kind(n), int(n.split(":")[1]) if ":" in n else 0))
    out, totals = [], {}
    for n in order:
        role = 1e3 * events[n]["role_thread_s"] / clocks
        proc = 1e3 * events[n]["process_s"] / clocks
        out.append((n, role, proc))
        t = totals.setdefault(kind(n), [0.0, 0.0])
        t[0] += role
        t[1] += proc
    all_role = sum(t[0] for t in totals.values())
    all_proc = sum(t[1] for t in totals.values())
    out += [(k + " (sum)", r, p) for k, (r, p) in totals.items()] + [("all (sum)", all_role, all_proc)]
    wall = max(e["wall_s"] for e in events.values())
    return out, all_proc * clocks / 1e3 / wall if wall > 0 else float("nan")


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    first, busy = rows(sys.argv[1])
    other, other_busy = rows(sys.argv[2]) if len(sys.argv) == 3 else ([], None)
    by_name = {r[0]: r for r in other}
    head = "node            role ms/clock  process ms/clock"
    if other:
        head += "  | other: role  process  process ratio"
    print(head)
    for name, role, proc in first:
        line = f"{name:<15} {role:13.3f}  {proc:16.3f}"
        if name in by_name:
            o = by_name[name]
            line += f"  | {o[1]:11.3f}  {o[2]:7.3f}  {proc / o[2] if o[2] else float('nan'):13.2f}"
        print(line)
    print(f"cores busy (process CPU of all nodes / wall): {busy:.2f}" +
          (f"; other: {other_busy:.2f}" if other_busy is not None else ""))


if __name__ == "__main__":
    main()
