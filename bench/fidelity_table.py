#!/usr/bin/python3
"""The table of bench/fidelity.sh: per-iteration time and time to target, simulated vs real.

Usage: fidelity_table.py ROWS OUT PLATFORM
  ROWS: one line per case, "NAME WORKERS SERVERS LINK LINK_BPS LATENCY_S STRAGGLER CASE_DIR LOAD",
  where CASE_DIR holds real/<variant>/ (pstwin launch) and sim/<variant>/ (pstwin simulate) and
  LOAD is the machine's 1-minute load average when the real run started.
Writes OUT/fidelity.csv and OUT/fidelity.md and prints the table. The error is
(simulated - real) / real: negative when the simulation is too fast. Exits 1 when a variant has
no result on one side (its row says which).

Time to target is compared twice. As the summaries give it (target_error_pct), it holds both
the time per clock and the clock at which the metric first reached the target. Under ASP and
SSP that clock depends on the order in which the workers' pushes reach the servers, which a
real run takes from its start-up jitter and the simulation from the workers' index order: one
sample each, and a noisy metric crosses the target one or two evaluations earlier or later with
it (README, "How accurate is the simulation"). So the table also gives the simulated time at
the clock at which the real run reached the target (target_same_clock_error_pct), which is the
timing of the same progress, and both clocks.
"""

import csv
import json
import math
import os
import statistics
import sys
from pathlib import Path

COLUMNS = ["case", "variant", "workers", "servers", "link", "link_mbps", "latency_us", "straggler",
           "real_ms_per_iter", "sim_ms_per_iter", "iter_error_pct",
           "real_time_to_target_s", "sim_time_to_target_s", "target_error_pct",
           "real_clock_at_target", "sim_clock_at_target", "sim_time_at_real_target_clock_s",
           "target_same_clock_error_pct",
           "real_compute_ms_per_iter", "sim_compute_ms_per_iter", "load1", "status"]


def per_iteration_s(folder):
    """Seconds per clock between the first and the last evaluation of metrics.csv."""
    rows = list(csv.DictReader(open(folder / "metrics.csv")))
    first, last = rows[0], rows[-1]
    clocks = int(last["clock"]) - int(first["clock"])
    if clocks <= 0:
        raise ValueError(f"{folder}/metrics.csv spans no clocks")
    return (float(last["time_s"]) - float(first["time_s"])) / clocks


def evaluations(folder):
    """{clock: time_s} of metrics.csv's rows (one per evaluation)."""
    return {int(r["clock"]): float(r["time_s"]) for r in csv.DictReader(open(folder / "metrics.csv"))}


def clock_at(times, time_s):
    """The clock of the evaluation whose time is time_s (the summary's time to target is one of
    metrics.csv's times, printed with fewer digits there), or None for None."""
    if time_s is None:
        return None
    return min(times, key=lambda c: abs(times[c] - time_s))


def side(folder):
    """(seconds per iteration, time to target or None, a worker's compute seconds per iteration,
    {clock: time_s} of the evaluations, clock at target or None), or None when the run left no
    result. The compute is the mean over workers of worker_compute_s (a real run: measured by
    each worker, parameters in to gradient out; simulate: the priced compute), so the rest of an
    iteration is waiting and messaging."""
    summary = folder / "summary.json"
    if not summary.is_file() or not (folder / "metrics.csv").is_file():
        return None
    s = json.load(open(summary))
    if not s.get("completed", False):
        return None
    compute = s.get("worker_compute_s") or []
    iterations = s.get("iterations") or 0
    compute_per_iter = statistics.mean(compute) / iterations if compute and iterations else None
    times = evaluations(folder)
    to_target = s.get("time_to_target_s")
    return per_iteration_s(folder), to_target, compute_per_iter, times, clock_at(times, to_target)


def error_pct(sim, real):
    return None if sim is None or real is None or real <= 0 else 100.0 * (sim - real) / real


def fmt(x, digits):
    return "" if x is None else f"{x:.{digits}f}"


def main():
    rows_path, out, platform = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
    table, failed = [], False
    for line in rows_path.read_text().splitlines():
        name, workers, servers, link, link_bps, latency_s, straggler, case_dir, load = line.split()
        case_dir = Path(case_dir)
        variants = sorted({p.name for p in (case_dir / "real").glob("*/") if p.is_dir()} |
                          {p.name for p in (case_dir / "sim").glob("*/") if p.is_dir()})
        if not variants:
            failed = True
            table.append({"case": name, "variant": "", "workers": workers, "servers": servers,
                          "link": link, "link_mbps": f"{float(link_bps) * 8e-6:.0f}",
                          "latency_us": f"{float(latency_s) * 1e6:.1f}", "straggler": straggler,
                          "load1": load, "status": "no result on either side"})
        for v in variants:
            real, sim = side(case_dir / "real" / v), side(case_dir / "sim" / v)
            row = {"case": name, "variant": v, "workers": workers, "servers": servers, "link": link,
                   "link_mbps": f"{float(link_bps) * 8e-6:.0f}",
                   "latency_us": f"{float(latency_s) * 1e6:.1f}", "straggler": straggler,
                   "load1": load}
            if real is None or sim is None:
                failed = True
                row["status"] = "no real result" if real is None else "no simulated result"
            else:
                row["status"] = "ok"
                row["real_ms_per_iter"] = fmt(real[0] * 1e3, 3)
                row["sim_ms_per_iter"] = fmt(sim[0] * 1e3, 3)
                row["iter_error_pct"] = fmt(error_pct(sim[0], real[0]), 1)
                row["real_time_to_target_s"] = fmt(real[1], 3)
                row["sim_time_to_target_s"] = fmt(sim[1], 3)
                row["target_error_pct"] = fmt(error_pct(sim[1], real[1]), 1)
                row["real_clock_at_target"] = "" if real[4] is None else str(real[4])
                row["sim_clock_at_target"] = "" if sim[4] is None else str(sim[4])
                # The simulated time of the progress the real run had when it reached the
                # target: the simulated evaluation at the same clock.
                same = sim[3].get(real[4]) if real[4] is not None else None
                row["sim_time_at_real_target_clock_s"] = fmt(same, 3)
                row["target_same_clock_error_pct"] = fmt(error_pct(same, real[1]), 1)
                row["real_compute_ms_per_iter"] = fmt(real[2] and real[2] * 1e3, 3)
                row["sim_compute_ms_per_iter"] = fmt(sim[2] and sim[2] * 1e3, 3)
            table.append(row)
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "fidelity.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS)
        w.writeheader()
        for row in table:
            w.writerow({c: row.get(c, "") for c in COLUMNS})

    headers = ["case", "variant", "link", "real ms/iter", "sim ms/iter", "error",
               "real to target (s)", "sim to target (s)", "error", "clock at target real / sim",
               "error at real's clock", "compute real / sim (ms/iter)"]
    keys = ["case", "variant", "link", "real_ms_per_iter", "sim_ms_per_iter", "iter_error_pct",
            "real_time_to_target_s", "sim_time_to_target_s", "target_error_pct", "clocks",
            "target_same_clock_error_pct", "compute"]
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * 3 + "---:|" * 9]
    for row in table:
        cells = [row.get(k, "") for k in keys]
        cells[2] = f"{row['link']} ({row['link_mbps']} Mbit/s, {row['latency_us']} us)"
        cells[9] = (f"{row['real_clock_at_target'] or '-'} / {row['sim_clock_at_target'] or '-'}"
                    if row["status"] == "ok" else "")
        cells[11] = (f"{row['real_compute_ms_per_iter']} / {row['sim_compute_ms_per_iter']}"
                     if row.get("real_compute_ms_per_iter") else "")
        for i in (5, 8, 10):
            cells[i] = cells[i] + " %" if cells[i] else ("" if row["status"] == "ok" else row["status"])
        lines.append("| " + " | ".join(cells) + " |")
    loads = [float(r["load1"]) for r in table] or [math.nan]
    summary = [f"platform: {platform}; load average when the real runs started: "
               f"{min(loads):.1f} to {max(loads):.1f} (this machine has {os.cpu_count()} cores)"]
    for key, what in (("iter_error_pct", "per-iteration time"), ("target_error_pct", "time to target"),
                      ("target_same_clock_error_pct", "time to target at the real run's clock")):
        errors = [abs(float(r[key])) for r in table if r.get(key)]
        if errors:
            assert all(math.isfinite(e) for e in errors)
            summary.append(f"{what}: median |error| {statistics.median(errors):.1f} %, worst "
                           f"{max(errors):.1f} % over {len(errors)} runs")
        else:
            summary.append(f"{what}: no run to compare")
    text = "\n".join(lines + [""] + summary) + "\n"
    (out / "fidelity.md").write_text(text)
    print(text, end="")
    print(f"wrote {out / 'fidelity.csv'} and {out / 'fidelity.md'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
