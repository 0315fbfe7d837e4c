#!/usr/bin/python3
"""Test of bench/fidelity_table.py (ctest: fidelity_table): the table's time-to-target columns on
made-up runs whose right values are computed by hand below.

A real run at 10 ms per clock that reaches the target at clock 80 and a simulated one at 12 ms
per clock that reaches it at clock 100 (under ASP the clock depends on the order of the pushes,
one sample per side). Per iteration the simulation is 20% slow; the summaries' times to target
(0.805 s and 1.205 s) are 49.7% apart; at the real run's clock the simulated time is
0.005 + 80 x 0.012 = 0.965 s, 19.9% above the real 0.805 s: the timing error alone.

Usage: fidelity_table_test.py SOURCE_DIR WORK_DIR
"""

import csv
import json
import shutil
import subprocess
import sys
from pathlib import Path


def write_run(folder, s_per_clock, target_clock, target_reached=True):
    """metrics.csv every 10 clocks from 0 to 200 (time 5 ms + clock x s_per_clock; accuracy
    0.5 below the target clock, 0.8 from it on) and a summary.json as pstwin writes them."""
    folder.mkdir(parents=True)
    times = {c: 0.005 + c * s_per_clock for c in range(0, 201, 10)}
    with open(folder / "metrics.csv", "w") as f:
        f.write("time_s,clock,updates,train_loss,test_loss,test_metric,staleness_mean,staleness_max\n")
        for c, t in times.items():
            metric = 0.8 if target_reached and c >= target_clock else 0.5
            f.write(f"{t:.6f},{c},{4 * c},1,1,{metric},0,0\n")
    summary = {"completed": True, "iterations": 200, "worker_compute_s": [0.04, 0.04],
               # pstwin's summary has the time with all its digits, metrics.csv with six.
               "time_to_target_s": times[target_clock] + 1e-9 if target_reached else None}
    (folder / "summary.json").write_text(json.dumps(summary))


def main():
    source, work = Path(sys.argv[1]), Path(sys.argv[2])
    shutil.rmtree(work, ignore_errors=True)
    case = work / "case"
    write_run(case / "real/asp", 0.010, 80)
    write_run(case / "sim/asp", 0.012, 100)
    # A variant whose real run never reached the target: no clock, no error at it.
    write_run(case / "real/bsp", 0.010, 80, target_reached=False)
    write_run(case / "sim/bsp", 0.012, 100)
    rows = work / "rows.txt"
    rows.write_text(f"toy 2 1 100mbit 12000000 1e-05 none {case} 1.0\n")
    result = subprocess.run(["/usr/bin/python3", str(source / "bench/fidelity_table.py"), str(rows),
                             str(work / "out"), "test"], capture_output=True, text=True)
    print(result.stdout + result.stderr)
    assert result.returncode == 0, result.returncode
    with open(work / "out/fidelity.csv") as f:
        table = {r["variant"]: r for r in csv.DictReader(f)}

    asp = table["asp"]
    assert asp["iter_error_pct"] == "20.0", asp
    assert (asp["real_time_to_target_s"], asp["sim_time_to_target_s"]) == ("0.805", "1.205"), asp
    assert asp["target_error_pct"] == "49.7", asp  # (1.205 - 0.805) / 0.805
    assert (asp["real_clock_at_target"], asp["sim_clock_at_target"]) == ("80", "100"), asp
    assert asp["sim_time_at_real_target_clock_s"] == "0.965", asp
    assert asp["target_same_clock_error_pct"] == "19.9", asp  # (0.965 - 0.805) / 0.805

    bsp = table["bsp"]
    assert bsp["status"] == "ok", bsp
    assert (bsp["real_clock_at_target"], bsp["sim_clock_at_target"]) == ("", "100"), bsp
    assert bsp["target_same_clock_error_pct"] == "" and bsp["target_error_pct"] == "", bsp

    text = (work / "out/fidelity.md").read_text()
    assert "| 80 / 100 | 19.9 % |" in text, text
    assert "time to target at the real run's clock: median |error| 19.9 %" in text, text
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
