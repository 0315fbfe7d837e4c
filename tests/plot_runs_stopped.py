#!/usr/bin/python3
"""analysis/plot_runs.py on the folder of a stopped `pstwin simulate` (registered in ctest as
plot_runs_stopped): a variant cut short is drawn up to its last evaluation, one with no
evaluation (stopped at once, or never started) is left out with a note naming it and why, and
the script exits 0 since some variant was drawn. A trial's stopped folder (an empty metrics.csv
beside one cut mid-row) made it fail for the whole folder. A folder with nothing to draw is
still an error (exit 2) that says why for each variant.
Exits 77 (ctest: skipped) when this python lacks matplotlib or pandas.

Usage: plot_runs_stopped.py PSTWIN_BINARY SOURCE_DIR WORK_DIR
"""

import json
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
from plot_scripts_smoke import write_libsvm  # noqa: E402  (the same toy data set)

HEADER = "time_s,clock,updates,train_loss,test_loss,test_metric,staleness_mean,staleness_max\n"


def stopped_summary(variant, reason):
    """What pstwin simulate writes for a variant it stopped (unfinished_summary)."""
    return json.dumps({"variant": variant, "mode": variant, "environment": "simulated",
                       "completed": False, "reason": reason}, indent=2) + "\n"


def plot(source, folder):
    return subprocess.run([sys.executable, str(source / "analysis/plot_runs.py"), str(folder)],
                          capture_output=True, text=True)


def main():
    pstwin, source, work = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    write_libsvm(work / "train.svm", 600, 1)
    write_libsvm(work / "test.svm", 200, 2)
    (work / "s.json").write_text(json.dumps({
        "name": "stopped", "seed": 1,
        "data": {"format": "libsvm", "train": "train.svm", "test": "test.svm"},
        "model": {"type": "logistic"},
        "training": {"iterations": 60, "batch_size": 16, "learning_rate": 0.5, "eval_every": 5},
        "consistency": [{"mode": "bsp"}, {"mode": "asp"}, {"mode": "ssp", "staleness": 2},
                        {"name": "late", "mode": "asp"}],
        "cluster": {"workers": 2, "servers": 1,
                    "worker": {"device": "cpu", "link": {"bandwidth": "10Gbps", "latency": "50us"}},
                    "server": {"device": "cpu", "link": {"bandwidth": "10Gbps", "latency": "50us"}}}}))
    out = work / "out"
    run = subprocess.run([pstwin, "simulate", str(work / "s.json"), "--quiet", "--out", str(out)],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr

    # What a stop leaves, made by hand from the finished run: asp stopped after 3 evaluations
    # (its last row and event cut by a killed writer, as before pstwin cut such files back),
    # ssp2 stopped before its header reached the file (the trial's case), late never started.
    asp = out / "asp"
    rows = (asp / "metrics.csv").read_text().splitlines(keepends=True)
    (asp / "metrics.csv").write_text("".join(rows[:4]) + rows[4][:7])
    (asp / "events.jsonl").write_text((asp / "events.jsonl").read_text() + '{"time_s": 1.0, "ty')
    asp_reason = "the simulation was stopped by SIGINT at 30% (simulated time 0.5 s), before it completed"
    (asp / "summary.json").write_text(stopped_summary("asp", asp_reason))
    ssp2 = out / "ssp2"
    (ssp2 / "metrics.csv").write_text("")
    ssp2_reason = "the simulation was stopped by SIGINT at 0% (simulated time 0 s), before it completed"
    (ssp2 / "summary.json").write_text(stopped_summary("ssp2", ssp2_reason))
    late = out / "late"
    shutil.rmtree(late)
    late.mkdir()
    late_reason = "the simulation was stopped by SIGINT before it started"
    (late / "summary.json").write_text(stopped_summary("late", late_reason))

    result = plot(source, out)
    assert result.returncode == 0, f"exit {result.returncode}\n{result.stdout}\n{result.stderr}"
    expected = [f"note: {out}: skipped variant ssp2: metrics.csv is empty (its process ended before "
                f"writing its header); its summary says: {ssp2_reason}",
                f"note: {out}: skipped variant late: no metrics.csv; its summary says: {late_reason}",
                f"note: {out}: variant asp: metrics.csv ended in a cut row, left out"]
    for line in expected:
        assert line in result.stdout.splitlines(), f"{line!r} not said:\n{result.stdout}"
    for name in ("test_metric_vs_time.png", "staleness_hist.png", "report.md"):
        assert (out / name).is_file() and (out / name).stat().st_size > 0, f"{name} not written"
    report = (out / "report.md").read_text()
    assert "skipped variant late: no metrics.csv" in report, report

    # Nothing to draw at all: an error naming each variant and why.
    empty = work / "empty"
    for name, text in (("bsp", HEADER), ("asp", "")):
        (empty / name).mkdir(parents=True)
        (empty / name / "metrics.csv").write_text(text)
    result = plot(source, empty)
    assert result.returncode == 2, f"exit {result.returncode}\n{result.stdout}\n{result.stderr}"
    assert ("no variant to plot: skipped variant asp: metrics.csv is empty (its process ended before "
            "writing its header); skipped variant bsp: metrics.csv has no evaluations") in result.stderr, \
        result.stderr
    print("ok")


if __name__ == "__main__":
    main()
