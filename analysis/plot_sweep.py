#!/usr/bin/python3
"""Plot a `pstwin sweep`: time to target, final metric and bytes sent against each swept value.

Usage:
    analysis/plot_sweep.py DIR [--out OUTDIR]

DIR is the output folder of `pstwin sweep` (DIR/sweep.csv, one row per run). For each swept
pointer P (the columns before "seed") this writes OUTDIR/sweep_<P>.png (default OUTDIR: DIR):
three panels against P's values, one line per variant (colour) and, when other pointers were
swept too, one line style per combination of their values. With several seeds a point is the
mean over its seeds and a band spans their minimum to maximum. A run whose target was not
reached has no time to target, so the first panel's point is the mean over the seeds that
reached it, ringed and labelled "k/n reached" when only k of its n seeds did; where none did, an
x at the top of the panel. Values too long for a tick (JSON arrays, objects) are ticked
"value 1", "value 2", ... and spelled out under the title. A line that coincides with an earlier
one on a panel is drawn narrower on top of it (outlined in white when both are one variant's)
and labelled "= <the earlier one>".
Runs that failed, and runs stopped by a signal (status "stopped": their figures are
those reached at the stop, not final ones), are left out and counted in the title. The paths written are printed;
a DIR without a readable sweep.csv, or with no run left to draw, is an error (exit 2).

Needs only matplotlib and pandas; runs with Debian's /usr/bin/python3.
"""

import argparse
import json
import math
import sys
import textwrap
from itertools import product
from pathlib import Path

import pandas as pd

from matplotlib import patheffects
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from plot_style import color_of, legend_below, plt, save, width_of
from run_data import OLD_COLUMNS

FIXED_COLUMNS = ["seed", "variant", "mode", "metric", "target_metric", "time_to_target_s",
                 "last_test_metric", "bytes_sent", "sim_time_s", "wall_time_s", "status", "run"]
# Statuses whose figures are not a run's final ones, and how the title counts them.
LEFT_OUT = {"FAILED": "failed", "stopped": "stopped"}
LINE_STYLES = ["-", "--", ":", "-."]
MARKERS = ["o", "s", "^", "D", "v", "P"]
# A swept value longer than this many characters is ticked "value N" and spelled out in a key:
# a trial's JSON array of stragglers made a tick label wider than its panel.
LONG_VALUE = 14


class SweepError(Exception):
    """A sweep folder that cannot be read; main() prints it and exits with status 2."""


def load_sweep(folder):
    """sweep.csv as a DataFrame, the swept pointer columns, and the scenario's name."""
    path = Path(folder) / "sweep.csv"
    try:
        table = pd.read_csv(path, dtype=str, keep_default_na=False).rename(columns=OLD_COLUMNS)
    except (OSError, ValueError) as e:
        raise SweepError(f"{path}: cannot read: {e}") from e
    if "seed" not in table.columns or any(c not in table.columns for c in FIXED_COLUMNS):
        raise SweepError(f"{path}: not a pstwin sweep.csv (expected columns {', '.join(FIXED_COLUMNS)})")
    pointers = list(table.columns[:list(table.columns).index("seed")])
    for col in ("time_to_target_s", "last_test_metric", "bytes_sent", "target_metric"):
        table[col] = pd.to_numeric(table[col], errors="coerce")
    scenario = Path(folder).resolve().name
    for run in table["run"]:
        try:
            scenario = json.loads((Path(folder) / run / "summary.json").read_text())["scenario"]
            break
        except (OSError, ValueError, KeyError):
            continue
    return table, pointers, scenario


def axis_positions(values):
    """x positions of a pointer's values (in the order first seen) and whether they are numbers.
    Numbers are placed at their value; anything else (strings, arrays) at 0, 1, 2, ..."""
    order = list(dict.fromkeys(values))
    try:
        numbers = [float(v) for v in order]
        return {v: x for v, x in zip(order, numbers)}, True
    except ValueError:
        return {v: float(i) for i, v in enumerate(order)}, False


def value_names(table, pointer):
    """What a pointer's values are called on ticks and in the legend, and the key that spells
    out the shortened ones: ({value: name}, ["pointer: value 1 = ..., value 2 = ..."])."""
    values = list(dict.fromkeys(table[pointer]))
    if max((len(v) for v in values), default=0) <= LONG_VALUE:
        return {v: v for v in values}, []
    names = {v: f"value {i + 1}" for i, v in enumerate(values)}
    return names, [f"{pointer}: " + "; ".join(f"{names[v]} = {v}" for v in values)]


def panel_specs(table):
    metric = next((m for m in table["metric"] if m), "metric")
    target = table["target_metric"].dropna()
    target_text = f" {target.iloc[0]:g}" if not target.empty else ""
    return [("time_to_target_s", f"time to target{target_text} (simulated s),\nmean over the seeds that reached it", 1.0),
            ("last_test_metric", f"final test {metric}", 1.0),  # only completed runs are drawn
            ("bytes_sent", "bytes sent (MB)", 1e-6)]


def plot_pointer(table, pointers, pointer, scenario, outpath):
    """The three panels against `pointer`, one line per variant and other pointers' values."""
    ok = table[~table["status"].isin(list(LEFT_OUT))]
    positions, numeric = axis_positions(list(table[pointer]))
    others = [p for p in pointers if p != pointer]
    combos = list(product(*[list(dict.fromkeys(table[p])) for p in others])) if others else [()]
    variants = list(dict.fromkeys(table["variant"]))
    seeds = ok["seed"].nunique()  # the seeds drawn: a trial's title counted its stopped runs' too
    panels = panel_specs(table)
    names = {p: value_names(table, p) for p in pointers}
    lines = list(product(variants, enumerate(combos)))
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.6), constrained_layout=True)
    extras = set()
    for (col, ylabel, scale), ax in zip(panels, axes):
        drawn = {}  # (xs, means) of each line drawn on this panel -> (its label, its variant)
        partial = []  # (x, mean, "k/n reached", colour) of points some seeds did not reach
        for k, (variant, (ci, combo)) in enumerate(lines):
            rows = ok[ok["variant"] == variant]
            for p, value in zip(others, combo):
                rows = rows[rows[p] == value]
            if rows.empty:
                continue
            color = color_of(variants.index(variant))
            points = []
            for value in dict.fromkeys(rows[pointer]):
                y = rows[rows[pointer] == value][col].dropna() * scale
                if not y.empty:
                    points.append((positions[value], y.mean(), y.min(), y.max()))
                    runs = int((rows[pointer] == value).sum())
                    if col == "time_to_target_s" and len(y) < runs:  # some seeds missed it
                        partial.append((positions[value], y.mean(), f"{len(y)}/{runs} reached", color))
                        extras.add("partial")
                elif col == "time_to_target_s":  # no seed reached the target at this point
                    # One height per line, so that the marks of several lines do not hide each other.
                    ax.plot(positions[value], 0.97 - 0.05 * (k % 8), "x", color=color, markersize=9, mew=2,
                            transform=ax.get_xaxis_transform(), clip_on=False)
                    extras.add("unreached")
            if not points:
                continue
            points.sort()
            xs, mean, low, high = zip(*points)
            label = line_label(variant, others, combo, names)
            same, same_variant = drawn.get((xs, tuple(round(m, 12) for m in mean)), (None, None))
            # Earlier lines are wider, so lines that coincide (bytes often do) stay visible as
            # stripes; over a line of its own colour (the same variant) a narrower line would not
            # show, so that one is outlined in white too.
            outline = [patheffects.Stroke(linewidth=width_of(k, len(lines)) + 2.5, foreground="white"),
                       patheffects.Normal()] if same_variant == variant else None
            ax.plot(xs, mean, LINE_STYLES[ci % len(LINE_STYLES)], marker=MARKERS[ci % len(MARKERS)],
                    color=color, linewidth=width_of(k, len(lines)), markersize=6, path_effects=outline)
            if same is not None:
                ax.annotate(f"{label} = {same}", (xs[-1], mean[-1]), xytext=(-4, -12 - 10 * (k % 3)),
                            textcoords="offset points", ha="right", fontsize="x-small", color=color)
            else:
                drawn[(xs, tuple(round(m, 12) for m in mean))] = (label, variant)
            if seeds > 1:
                ax.fill_between(xs, low, high, color=color, alpha=0.15, linewidth=0)
        ticks = sorted(positions.items(), key=lambda kv: kv[1])
        if numeric and min(positions.values()) > 0 and max(positions.values()) / min(positions.values()) >= 8:
            ax.set_xscale("log", base=2)
            ax.minorticks_off()
        ax.set_xticks([x for _, x in ticks])
        ax.set_xticklabels([names[pointer][0][v] for v, _ in ticks])
        ax.set(xlabel=pointer, ylabel=ylabel)
        ax.ticklabel_format(axis="y", useOffset=False)  # "+7.6237e1" above the axis read as a value
        ax.grid(alpha=0.3)
        ax.margins(y=0.12)
        mark_partial(ax, partial)
        if not drawn:
            # Nothing to scale the y axis by (no run reached the target): say so instead of
            # showing an axis of meaningless numbers.
            ax.set_yticks([])
            ax.set_ylim(0, 1)
            ax.text(0.5, 0.5, "no run reached the target" if col == "time_to_target_s" else "no values",
                    transform=ax.transAxes, ha="center", va="center", color="gray")
    seeds_text = f"points: mean over {seeds} seeds" if seeds > 1 else "one seed"
    title = f"{scenario}: sweep over {pointer} ({seeds_text}"
    left_out = [f"{n} {word} run{'s' if n != 1 else ''}"
                for n, word in ((int((table["status"] == status).sum()), word)
                                for status, word in LEFT_OUT.items()) if n]
    title += f"; {' and '.join(left_out)} left out)" if left_out else ")"
    if seeds > 1:
        title += ("\ntime to target: mean over the seeds that reached it"
                  + (" (ringed k/n: only k of n did)" if "partial" in extras else ""))
    key = [line for p in pointers for line in names[p][1]]
    if key:
        title += "\n" + "\n".join(textwrap.fill(line, 150) for line in key)
    fig.suptitle(title)
    legend_below(fig, legend_entries(variants, others, combos, seeds, extras, names), ncol=8)
    return save(fig, outpath)


def mark_partial(ax, points):
    """Points whose mean is over some of their seeds only: a ring around each, and its text
    ("1/2 reached", in the line's colour) to the right, at its height unless the text of a lower
    point at the same x is there: then just above that one, so that close points' texts never
    overlap. Call it once the axes' limits are final (heights are measured in points)."""
    ax.autoscale_view()
    points_per_pixel = 72 / ax.figure.dpi
    for x in dict.fromkeys(p[0] for p in points):
        below = -math.inf  # where the last text placed at this x sits, in points
        for _, y, text, color in sorted((p for p in points if p[0] == x), key=lambda p: p[1]):
            ax.plot(x, y, "o", markersize=14, markerfacecolor="none", markeredgecolor=color, mew=1.5)
            height = ax.transData.transform((x, y))[1] * points_per_pixel
            at = max(height - 4, below + 12)
            ax.annotate(text, (x, y), xytext=(11, at - height), textcoords="offset points",
                        fontsize="x-small", color=color, fontweight="bold")
            below = at


def combo_text(others, combo, names):
    """"bandwidth=1Gbps, stragglers=value 2": the other swept pointers' values of a line."""
    return ", ".join(f"{p.rsplit('/', 1)[-1]}={names[p][0][v]}" for p, v in zip(others, combo))


def line_label(variant, others, combo, names):
    return f"{variant}, {combo_text(others, combo, names)}" if others else variant


def legend_entries(variants, others, combos, seeds, extras, names):
    """Proxy entries: a colour per variant, a line style per combination of the other swept
    values, the seed band and the not-reached mark, so the legend stays short and in order."""
    entries = [Line2D([], [], color=color_of(i), linewidth=2.5, label=v) for i, v in enumerate(variants)]
    if others:
        for ci, combo in enumerate(combos):
            text = combo_text(others, combo, names)
            entries.append(Line2D([], [], color="black", linestyle=LINE_STYLES[ci % len(LINE_STYLES)],
                                  marker=MARKERS[ci % len(MARKERS)], label=text))
    if seeds > 1:
        entries.append(Patch(color="gray", alpha=0.3, label=f"min–max over {seeds} seeds"))
    if "unreached" in extras:
        entries.append(Line2D([], [], color="gray", marker="x", linestyle="", markersize=9, mew=2,
                              label="target not reached"))
    if "partial" in extras:
        entries.append(Line2D([], [], color="gray", marker="o", markerfacecolor="none", linestyle="",
                              markersize=12, label="k/n: only k of n seeds reached the target"))
    return entries


def file_name(pointer):
    return "sweep_" + pointer.strip("/").replace("/", ".") + ".png"


def main(argv=None):
    parser = argparse.ArgumentParser(description="Plot a pstwin sweep folder (sweep.csv).")
    parser.add_argument("dir", metavar="DIR", help="output folder of pstwin sweep")
    parser.add_argument("--out", metavar="OUTDIR", help="where to write (default: DIR)")
    args = parser.parse_args(argv)
    try:
        table, pointers, scenario = load_sweep(args.dir)
    except SweepError as e:
        print(f"{parser.prog}: error: {e}", file=sys.stderr)
        return 2
    # Every run failed or was stopped: three empty panels would say nothing (plot_runs.py
    # refuses the same case), so say why instead and draw none.
    drawable = int((~table["status"].isin(list(LEFT_OUT))).sum())
    if drawable == 0:
        counts = table["status"].value_counts()
        said = " and ".join(f"{int(counts[s])} {w}" for s, w in LEFT_OUT.items() if s in counts)
        print(f"{parser.prog}: error: {args.dir}: no run to draw ({said}: their figures are not "
              "final ones)", file=sys.stderr)
        return 2
    outdir = Path(args.out or args.dir)
    outdir.mkdir(parents=True, exist_ok=True)
    if not pointers:
        print(f"note: {args.dir}: no swept pointer (seeds only): nothing to plot against")
    for pointer in pointers:
        print(plot_pointer(table, pointers, pointer, scenario, outdir / file_name(pointer)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
