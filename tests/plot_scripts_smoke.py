#!/usr/bin/python3
"""Smoke test of analysis/plot_runs.py and analysis/plot_sweep.py (registered in ctest as
plot_scripts_smoke): a tiny sweep with pstwin, then both scripts on its folders; every file they
say they write must exist and be non-empty, and report.md must state each figure's reading.
Exits 77 (ctest: skipped) when this python lacks matplotlib or pandas.

Usage: plot_scripts_smoke.py PSTWIN_BINARY SOURCE_DIR WORK_DIR
"""

import json
import random
import shutil
import subprocess
import sys
from pathlib import Path

try:
    import matplotlib  # noqa: F401
    import pandas  # noqa: F401
except ImportError:
    print("skipped: matplotlib or pandas missing")
    sys.exit(77)


def write_libsvm(path, rows, seed):
    rng = random.Random(seed)
    with open(path, "w") as out:
        for _ in range(rows):
            x = [j for j in range(1, 11) if rng.random() < 0.4]
            label = 1 if sum(1 if j % 3 == 0 else -0.6 for j in x) + 0.3 > 0 else -1
            out.write(("+1" if label > 0 else "-1") + "".join(f" {j}:1" for j in x) + "\n")


def fresh_work(argv):
    """PSTWIN_BINARY and SOURCE_DIR from `argv` (the usage above), and WORK_DIR emptied, holding
    the toy data set (train.svm, test.svm) that toy_scenario reads."""
    pstwin, source, work = argv[1], Path(argv[2]), Path(argv[3])
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    write_libsvm(work / "train.svm", 600, 1)
    write_libsvm(work / "test.svm", 200, 2)
    return pstwin, source, work


def toy_scenario(name, training, consistency, servers):
    """A logistic-regression scenario on fresh_work's toy data: 2 workers, `servers` servers on
    10 Gbps links, the `training` and `consistency` sections given, as JSON text."""
    link = {"bandwidth": "10Gbps", "latency": "50us"}
    return json.dumps({
        "name": name, "seed": 1,
        "data": {"format": "libsvm", "train": "train.svm", "test": "test.svm"},
        "model": {"type": "logistic"}, "training": training, "consistency": consistency,
        "cluster": {"workers": 2, "servers": servers, "worker": {"device": "cpu", "link": link},
                    "server": {"device": "cpu", "link": link}}})


def written(command):
    """Runs a script and returns the paths it printed, checking each is a non-empty file."""
    result = subprocess.run(command, capture_output=True, text=True)
    assert result.returncode == 0, f"{command}: exit {result.returncode}\n{result.stderr}"
    paths = [Path(line) for line in result.stdout.splitlines() if line and not line.startswith("note:")]
    for p in paths:
        assert p.is_file() and p.stat().st_size > 0, f"{p} not written"
    return paths


def main():
    pstwin, source, work = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    write_libsvm(work / "train.svm", 600, 1)
    write_libsvm(work / "test.svm", 200, 2)
    (work / "toy.json").write_text("""{
      "name": "toy", "seed": 3,
      "data": {"format": "libsvm", "train": "train.svm", "test": "test.svm"},
      "model": {"type": "logistic"},
      "training": {"iterations": 30, "batch_size": 16, "learning_rate": 0.5, "eval_every": 5,
                   "target_metric": 0.6},
      "consistency": [{"mode": "bsp"}, {"mode": "asp"}],
      "cluster": {"workers": 2, "servers": 1,
        "worker": {"device": {"preset": "cpu"}, "link": {"bandwidth": "10Gbps", "latency": "50us"}},
        "server": {"device": "cpu", "link": {"bandwidth": "10Gbps", "latency": "50us"}}},
      "stragglers": [{"type": "transient", "probability": 0.2, "factor": 4},
                     {"type": "slow", "workers": [1], "factor": 1.5}]
    }""")
    out = work / "sweep"
    run = subprocess.run([pstwin, "sweep", str(work / "toy.json"), "--quiet", "--seeds", "2",
                          "--grid", "/cluster/workers=2,4", "--out", str(out)],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    sweep_figures = written([sys.executable, str(source / "analysis/plot_sweep.py"), str(out)])
    assert [p.name for p in sweep_figures] == ["sweep_cluster.workers.png"], sweep_figures
    # Every run stopped: nothing final to draw, so no figure of empty panels but a refusal.
    stopped = work / "sweep-stopped"
    stopped.mkdir()
    lines = (out / "sweep.csv").read_text().splitlines()
    status = lines[0].split(",").index("status")
    rows = [line.split(",") for line in lines[1:]]
    for row in rows:
        row[status] = "stopped"
    (stopped / "sweep.csv").write_text("\n".join([lines[0]] + [",".join(r) for r in rows]) + "\n")
    refused = subprocess.run([sys.executable, str(source / "analysis/plot_sweep.py"), str(stopped)],
                             capture_output=True, text=True)
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert f"no run to draw ({len(rows)} stopped" in refused.stderr, refused.stderr
    assert not list(stopped.glob("*.png")), list(stopped.glob("*.png"))

    runs = [out / "cluster.workers=2_seed=3", out / "cluster.workers=4_seed=3"]
    paths = written([sys.executable, str(source / "analysis/plot_runs.py"), *map(str, runs),
                     "--out", str(work / "figures")])
    names = sorted(p.name for p in paths)
    for name in ("test_metric_vs_time.png", "loss_vs_clock.png", "staleness_hist.png",
                 "stragglers.png", "link_utilisation.png", "report.md", "across_runs.png"):
        assert name in names, f"{name} not written: {names}"
    report = (work / "figures" / runs[0].name / "report.md").read_text()
    assert "counted once per server shard" in report, report
    assert "Straggler periods per variant" in report, report
    assert "## Busiest links" in report and "link-server-0_" in report, report
    print("ok")


if __name__ == "__main__":
    main()
