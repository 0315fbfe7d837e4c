#!/usr/bin/python3
"""Plot the results of `pstwin simulate` runs.

Usage:
    analysis/plot_runs.py DIR... [--out OUTDIR]

DIR is a run folder written by `pstwin simulate` (DIR/comparison.csv plus one
DIR/<variant>/ folder per consistency variant holding metrics.csv, summary.json
and events.jsonl), or a single variant folder (one that holds metrics.csv).

For each DIR this writes, into OUTDIR (default: DIR itself; with several DIRs
and --out, into OUTDIR/<name of DIR>/):

    test_metric_vs_time.png   test metric (accuracy or RMSE) vs simulated time, one line per
                              variant, and a zoom panel on the approach to the target
    test_metric_vs_clock.png  the same vs global clock
    loss_vs_time.png          train (solid) and test (dashed) loss vs simulated time
    loss_vs_clock.png         the same vs global clock
    staleness_hist.png        staleness histogram, one subplot per variant (counted per shard)
    stragglers.png            when each worker was a straggler, one panel per variant
    link_utilisation.png      simulated runs: the busiest links' utilisation over time
    report.md                 comparison table, one line per figure saying what it shows

With several DIRs it also writes across_runs.png (into OUTDIR, default the
DIRs' common parent): every run's test metric on one pair of axes.

On the time-axis figures, a light grey band spans each node_failed/link_failed
to its recovery (the rule of summary.json's time_lost_s); below the metric, a
lane per variant shows each failure as an x naming the node, the time lost as a
bar in the variant's colour and recoveries as dots. Checkpoints are grey ticks
on the x axis. report.md
then has a "Failures" section per variant. The modules beside this script do
the work: run_data (reading), run_figures, event_marks, across_runs, run_report.

Figures whose data is entirely empty (the timing-only synthetic model has no
loss or accuracy) are skipped with a printed note. Diverged variants are drawn
up to where they stopped and labelled "(diverged)", and variants stopped by a
signal up to their last evaluation, labelled "(stopped)". A cut metrics.csv row
or an events.jsonl line that is not JSON is left out with a note. A variant with no
evaluation to draw (stopped before its first, or never started) is left out
with a note naming it and why (also in report.md). The paths written are
printed. A DIR that does not exist or has no variant to draw is an error
(exit 2).

Needs only matplotlib and pandas; runs with Debian's /usr/bin/python3.
"""

import argparse
import os
import sys
from pathlib import Path

from across_runs import plot_across
from event_marks import has_stragglers
from link_load import has_link_load, plot_link_load
from run_data import X_AXES, RunError, load_run
from run_figures import plot_loss, plot_metric, plot_staleness, plot_stragglers
from run_report import write_report


def has_data(run, *columns):
    return any(v["metrics"][c].notna().any() for v in run["variants"] for c in columns)


def plot_run(run, outdir):
    """Write all figures and the report for one run; return the paths written."""
    outdir.mkdir(parents=True, exist_ok=True)
    figures, notes = [], list(run["skipped"])
    if has_data(run, "test_metric"):
        for axis in X_AXES:
            figures.append(plot_metric(run, axis, outdir / f"test_metric_vs_{axis}.png"))
    else:
        notes.append("test_metric_vs_*.png skipped: test_metric is empty (timing-only model?)")
    if has_data(run, "train_loss", "test_loss"):
        for axis in X_AXES:
            figures.append(plot_loss(run, axis, outdir / f"loss_vs_{axis}.png"))
    else:
        notes.append("loss_vs_*.png skipped: train_loss and test_loss are empty")
    figures.append(plot_staleness(run, outdir / "staleness_hist.png"))
    if has_stragglers(run):
        figures.append(plot_stragglers(run, outdir / "stragglers.png"))
    if has_link_load(run):
        figures.append(plot_link_load(run, outdir / "link_utilisation.png"))
    for n in notes:
        print(f"note: {run['path']}: {n}")
    return figures + [write_report(run, outdir, figures, notes)]


def output_dirs(dirs, out):
    """DIR itself by default; OUTDIR for one DIR; OUTDIR/<name> (made unique) for several."""
    if out is None:
        return [Path(d) for d in dirs]
    if len(dirs) == 1:
        return [Path(out)]
    result, used = [], set()
    for d in dirs:
        name, k = Path(d).resolve().name, 2
        candidate = name
        while candidate in used:
            candidate, k = f"{name}-{k}", k + 1
        used.add(candidate)
        result.append(Path(out) / candidate)
    return result


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Plot pstwin simulate run folders (accuracy, loss, staleness) "
                    "and write a markdown report.")
    parser.add_argument("dirs", nargs="+", metavar="DIR",
                        help="run folder (DIR/comparison.csv, DIR/<variant>/metrics.csv) "
                             "or a variant folder holding metrics.csv")
    parser.add_argument("--out", metavar="OUTDIR",
                        help="where to write (default: each DIR itself; with several DIRs, "
                             "OUTDIR/<name of DIR>)")
    args = parser.parse_args(argv)

    runs, errors = [], []
    for d in args.dirs:  # read everything first, so a bad DIR writes nothing
        try:
            runs.append(load_run(d))
        except RunError as e:
            errors.append(str(e))
    if errors:
        for e in errors:
            print(f"{parser.prog}: error: {e}", file=sys.stderr)
        return 2
    for run, outdir in zip(runs, output_dirs(args.dirs, args.out)):
        for path in plot_run(run, outdir):
            print(path)
    if len(runs) > 1:
        across = Path(args.out) if args.out else Path(os.path.commonpath([str(Path(d).resolve()) for d in args.dirs]))
        across.mkdir(parents=True, exist_ok=True)
        print(plot_across(runs, across / "across_runs.png"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
