#!/usr/bin/python3
"""analysis/plot_sweep.py on hand-made sweep.csv files (ctest analysis_sweep_figure): what a
trial found misleading. (1) A time to target averaged over the seeds that reached it drew one
seed's value under "mean of 2 seeds" with no mark: such points must say "1/2 reached", and the
title over what the mean is. (2) A JSON grid value made a tick label wider than its panel: long
values are ticked "value N" and spelled out in the title. (3) Two lines with the same values hid
one another: the later is narrower and labelled "= <the earlier>".

Usage: analysis_sweep_figure.py SOURCE_DIR WORK_DIR
"""

import csv
import sys
from pathlib import Path

from analysis_capture import FIGURES, keep_figures, texts
import plot_sweep  # noqa: E402

FIXED = plot_sweep.FIXED_COLUMNS
SLOW = '[{"type":"transient","worker":0,"at_iteration":5,"iterations":3,"slowdown":4}]'


def write_sweep(folder, pointers, rows):
    """sweep.csv with `pointers` then the fixed columns; each row: pointer values, seed, variant,
    time to target ('' when not reached), bytes."""
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "sweep.csv", "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(pointers + FIXED)
        for *values, seed, variant, ttt, sent in rows:
            out.writerow(values + [seed, variant, "bsp", "accuracy", 0.8, ttt, 0.81, sent, 1.0, 1.0,
                                   "ok", f"run-{len(values)}-{seed}"])


def check_partial_reach(work):
    # At 4 workers bsp reached the target in seed 1 only; at 8 asp in seed 2 only.
    write_sweep(work / "partial", ["/cluster/workers"], [
        ["4", 1, "bsp", 1.0, 100], ["4", 2, "bsp", "", 100],
        ["8", 1, "bsp", 2.0, 100], ["8", 2, "bsp", 3.0, 100],
        ["4", 1, "asp", 1.5, 100], ["4", 2, "asp", 2.5, 100],
        ["8", 1, "asp", "", 100], ["8", 2, "asp", 4.0, 100]])
    FIGURES.clear()
    assert plot_sweep.main([str(work / "partial"), "--out", str(work / "out")]) == 0
    fig = FIGURES[-1]
    marks = [t.get_text() for t in fig.axes[0].texts]
    assert sorted(marks) == ["1/2 reached", "1/2 reached"], marks  # exactly the two points
    # The mark sits at the mean of the seeds that reached: bsp at 4 workers, 1.0 s.
    spots = sorted(t.xy for t in fig.axes[0].texts)
    assert spots == [(4.0, 1.0), (8.0, 4.0)], spots
    title = fig._suptitle.get_text()
    assert "mean over the seeds that reached it" in title, title
    assert any("only k of n seeds reached" in t for t in texts(fig)), texts(fig)


def check_long_values_and_coincident_lines(work):
    rows = []
    for bandwidth in ("1Gbps", "10Gbps"):
        for stragglers in ("[]", SLOW):  # the same figures with and without: lines coincide
            rows.append([bandwidth, stragglers, 1, "bsp", 2.0 if bandwidth == "1Gbps" else 1.0, 100])
    write_sweep(work / "long", ["/cluster/worker/link/bandwidth", "/stragglers"], rows)
    FIGURES.clear()
    assert plot_sweep.main([str(work / "long"), "--out", str(work / "out2")]) == 0
    by_bandwidth, by_stragglers = FIGURES
    ticks = [t.get_text() for t in by_stragglers.axes[0].get_xticklabels()]
    assert ticks == ["value 1", "value 2"], ticks
    assert f"value 2 = {SLOW}".replace(" ", "") in by_stragglers._suptitle.get_text().replace("\n", "").replace(" ", "")
    # No tick label wider than its panel: each tick's box inside its axes' width.
    for ax in by_stragglers.axes:
        for t in ax.get_xticklabels():
            assert t.get_window_extent().width < ax.get_window_extent().width / 2, t.get_text()
    # Against bandwidth the two stragglers lines coincide on every panel: the later one says so
    # and is narrower, so the earlier shows around it.
    legend = [t.get_text() for t in by_bandwidth.legends[0].get_texts()]
    assert "stragglers=value 1" in legend and "stragglers=value 2" in legend, legend
    for ax in by_bandwidth.axes:
        notes = [t.get_text() for t in ax.texts]
        assert notes == ["bsp, stragglers=value 2 = bsp, stragglers=value 1"], notes
        first, second = [line for line in ax.get_lines() if len(line.get_xdata()) == 2]
        assert first.get_linewidth() > second.get_linewidth(), (first.get_linewidth(), second.get_linewidth())


def main():
    keep_figures(plot_sweep)
    work = Path(sys.argv[2])
    check_partial_reach(work)
    check_long_values_and_coincident_lines(work)
    print("ok")


if __name__ == "__main__":
    main()
