#!/usr/bin/python3
"""analysis/plot_runs.py on a `pstwin simulate` really stopped by SIGINT (registered in ctest as
plot_scripts_smoke_stopped): one variant cut short after a few evaluations, one never started
(--jobs 1). A trial's figures of such a run were titled with the output folder's name, its
report said "no gradient was applied" beside a variant that had applied thousands and drew an
empty staleness panel, called the values at the stop "final", and left the variant never started
out of "Did not complete". Exits 77 (ctest: skipped) when this python lacks matplotlib or pandas.

Usage: plot_scripts_smoke_stopped.py PSTWIN_BINARY SOURCE_DIR WORK_DIR
"""

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
# (exits 77 when this python lacks matplotlib or pandas)
from plot_scripts_smoke import fresh_work, toy_scenario  # noqa: E402


def rows_of(path):
    """Whole evaluation rows in a metrics.csv (0 while it does not exist)."""
    try:
        return max(path.read_text().count("\n") - 1, 0)
    except OSError:
        return 0


def stopped_run(pstwin, work):
    """Runs the scenario "halted" into work/out and stops it with SIGINT once its first variant
    has written 3 evaluations; returns the output folder."""
    (work / "s.json").write_text(toy_scenario(
        "halted", {"iterations": 10000000, "batch_size": 16, "learning_rate": 0.5, "eval_every": 5},
        [{"mode": "ssp", "staleness": 2}, {"name": "late", "mode": "asp"}], servers=2))
    out = work / "out"
    log = open(work / "simulate.txt", "w")
    proc = subprocess.Popen([pstwin, "simulate", str(work / "s.json"), "--jobs", "1", "--quiet",
                             "--out", str(out)], stdout=log, stderr=subprocess.STDOUT)
    # Not a timed test: it waits for the run's own progress (rows in its metrics.csv), however
    # slow the machine, and gives up only when nothing comes for minutes.
    for _ in range(6000):
        if rows_of(out / "ssp2" / "metrics.csv") >= 3 or proc.poll() is not None:
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    code = proc.wait(timeout=300)
    log.close()
    said = (work / "simulate.txt").read_text()
    assert code == 130, f"simulate exit {code}\n{said}"
    assert rows_of(out / "ssp2" / "metrics.csv") >= 3, said
    return out


def section(report, title):
    """The lines of report.md from `title` to the next blank-line-separated heading."""
    lines = report.splitlines()
    start = lines.index(title)
    body = []
    for line in lines[start + 2:]:
        if not line.startswith("- "):
            break
        body.append(line)
    return body


def main():
    pstwin, source, work = fresh_work(sys.argv)
    out = stopped_run(pstwin, work)
    result = subprocess.run([sys.executable, str(source / "analysis/plot_runs.py"), str(out)],
                            capture_output=True, text=True)
    assert result.returncode == 0, f"exit {result.returncode}\n{result.stdout}\n{result.stderr}"
    report = (out / "report.md").read_text()

    # The scenario's name, not the folder's, though no variant completed.
    sys.path.insert(0, str(source / "analysis"))
    from run_data import load_run  # noqa: E402
    assert load_run(out)["scenario"] == "halted", load_run(out)["scenario"]
    assert report.startswith("# halted\n"), report[:200]

    # Both variants did not complete, the one never started included, each with its reason.
    unfinished = section(report, "Did not complete:")
    assert any(line.startswith("- ssp2: the simulation was stopped by SIGINT at ") for line in unfinished), report
    assert "- late: the simulation was stopped by SIGINT before it started" in unfinished, report

    # Staleness from what the run recorded: ssp2 applied gradients (its metrics.csv says how many).
    summary = json.loads((out / "ssp2" / "summary.json").read_text())
    assert summary["updates"] > 0 and not summary.get("staleness_histogram"), summary
    staleness = next(line for line in report.splitlines() if line.startswith("**[staleness_hist.png]"))
    assert "No gradient was applied" not in staleness, staleness
    assert "ssp2 (at its stop) mean " in staleness and f"over {summary['updates']} gradients" in staleness, \
        staleness

    # Values at a stop are not "final": not in the figures' lines, not in the table's columns.
    figures = report[report.index("## Figures"):]
    assert "final" not in figures.lower(), figures
    assert "Last test loss, lowest first: ssp2 (at its stop) " in figures, figures
    assert "last_test_metric" in report and "final_test_metric" not in report, report
    for name in ("test_metric_vs_time.png", "loss_vs_clock.png", "staleness_hist.png"):
        assert (out / name).is_file() and (out / name).stat().st_size > 0, f"{name} not written"
    print("ok")


if __name__ == "__main__":
    main()
