#!/usr/bin/python3
"""analysis/plot_runs.py's across_runs.png on hand-made run folders (ctest analysis_across_runs):
one simulated run of five variants and two launched runs whose BSP curves are identical (a parity
check). A trial's figure said "simulated time (s)" for all three, drew two of the five variants
alike, hid the identical curves under each other with nothing said, and listed "target reached"
when no run had. Also: a line of events.jsonl that is not JSON is named in a note, as a cut
metrics.csv row is, not dropped silently.

Usage: analysis_across_runs.py SOURCE_DIR WORK_DIR
"""

import contextlib
import io
import json
import sys
from pathlib import Path

from analysis_capture import FIGURES, keep_figures, texts
import across_runs  # noqa: E402
import plot_runs  # noqa: E402
import run_figures  # noqa: E402

VARIANTS = ["bsp", "bsp-no-ft", "asp", "ssp", "hybrid"]


def write_variant(folder, name, environment, accuracies, events=""):
    """A variant folder: metrics.csv of evaluations every 10 clocks, 0.1 s apart, a summary whose
    target (0.99) was not reached, and events.jsonl (`events`, as written)."""
    folder.mkdir(parents=True, exist_ok=True)
    rows = ["time_s,clock,updates,train_loss,test_loss,test_metric,staleness_mean,staleness_max"]
    rows += [f"{0.1 * i:.1f},{10 * i},{40 * i},0.5,0.5,{a},0,0" for i, a in enumerate(accuracies)]
    (folder / "metrics.csv").write_text("\n".join(rows) + "\n")
    summary = {"variant": name, "scenario": "toy", "metric": "accuracy", "target_metric": 0.99,
               "time_to_target_s": None, "completed": True}
    if environment:
        summary["environment"] = environment
    (folder / "summary.json").write_text(json.dumps(summary))
    (folder / "events.jsonl").write_text(events)


def main():
    keep_figures(across_runs, run_figures, plot_runs)
    work = Path(sys.argv[2])
    for k, name in enumerate(VARIANTS):
        write_variant(work / "sim" / name, name, None, [0.5, 0.61 + 0.01 * k, 0.71 + 0.01 * k])
    for run in ("l1", "l2"):
        write_variant(work / run / "bsp", "bsp", "zeromq", [0.5, 0.6, 0.7],
                      '{"type":"started","time_s":0}\n{"type":"checkp\n{"type":"done","time_s":0.2}\n')
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert plot_runs.main([str(work / d) for d in ("sim", "l1", "l2")] + ["--out", str(work / "out")]) == 0
    # The damaged second line of l1's events.jsonl is named; its other events are kept.
    assert f"note: {work / 'l1'}: variant bsp: events.jsonl line 2 not a JSON object, left out" \
        in printed.getvalue(), printed.getvalue()
    fig = FIGURES[-1]
    time_axis, clock_axis = fig.axes
    assert time_axis.get_xlabel() == "time (s): simulated for sim, wall-clock for l1, l2", time_axis.get_xlabel()
    assert clock_axis.get_xlabel() == "global clock (iterations)"
    # The five variants of one run: five different looks (dash pattern and marker).
    looks = {(str(line._unscaled_dash_pattern), line.get_marker())
             for line in time_axis.get_lines()[:len(VARIANTS)]}
    assert len(looks) == len(VARIANTS), looks
    legend = texts(fig)
    # l2's BSP curve is l1's: said in the legend, and drawn narrower on top of it.
    assert "l2: bsp (= l1: bsp)" in legend, legend
    l1, l2 = time_axis.get_lines()[len(VARIANTS):len(VARIANTS) + 2]  # then the target line
    assert l1.get_linewidth() > l2.get_linewidth()
    assert "target reached" not in legend, legend  # no run reached 0.99
    print("ok")


if __name__ == "__main__":
    main()
