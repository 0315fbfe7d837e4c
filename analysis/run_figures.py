"""The figures of one run folder: test metric (with a zoom on the approach to the target) and
loss against time and clock, staleness histograms, and stragglers per worker."""

import math

from matplotlib.lines import Line2D

from event_marks import (has_failures, kind_legend, mark_failures, plot_failure_timeline,
                         plot_straggler_lanes, straggler_spans)
from plot_style import color_of, legend_below, plt, save, width_of
from run_data import (loss_label, metric_label, metric_name, staleness_from_metrics, target_row,
                      x_axis)

STRAGGLER_COLORS = {"transient": "tab:orange", "slow": "tab:purple"}


def label_of(variant):
    text = variant["name"]
    if variant.get("same_as"):
        text += f" (= {variant['same_as']})"
    if variant["diverged"]:
        text += " (diverged)"
    return text + (" (stopped)" if variant.get("stopped") else "")


def mark_stop(ax, variant, xcol, ycol, color):
    """An X at the last finite point of a diverged variant."""
    if not variant["diverged"]:
        return
    rows = variant["metrics"].dropna(subset=[xcol, ycol])
    if not rows.empty:
        ax.plot(rows[xcol].iloc[-1], rows[ycol].iloc[-1], "X", color=color, markersize=10,
                markeredgecolor="black")


def marker_entries(run, with_target):
    """Legend entries explaining the markers used."""
    entries = []
    if with_target and any(target_row(v) is not None for v in run["variants"]):
        entries.append(Line2D([], [], marker="o", color="white", markeredgecolor="black",
                              linestyle="", label="target reached"))
    if any(v["diverged"] for v in run["variants"]):
        entries.append(Line2D([], [], marker="X", color="white", markeredgecolor="black",
                              markersize=9, linestyle="", label="stopped (diverged)"))
    return entries


def zoom_window(run, xcol):
    """(x0, x1, y0, y1) around the approach to the target: from where the first variant comes
    within a quarter of its way to the target, to a quarter past the last variant's arrival;
    None when no variant reached the target (nothing to zoom on)."""
    hits = [target_row(v) for v in run["variants"]]
    hits = [h for h in hits if h is not None]
    targets = {v["summary"].get("target_metric") for v in run["variants"]} - {None}
    if not hits or len(targets) != 1:
        return None
    target = targets.pop()
    lower_better = metric_name(run) == "rmse"
    firsts = [v["metrics"]["test_metric"].dropna() for v in run["variants"]]
    firsts = [f.iloc[0] for f in firsts if not f.empty]
    margin = max(0.25 * max(abs(target - f) for f in firsts), 0.02 * abs(target) or 0.01)
    near = target + margin if lower_better else target - margin
    starts = []
    for v in run["variants"]:
        m = v["metrics"].dropna(subset=[xcol, "test_metric"]).reset_index(drop=True)
        inside = m.index[(m["test_metric"] <= near) if lower_better else (m["test_metric"] >= near)]
        if len(inside):
            starts.append(m[xcol].iloc[max(inside[0] - 1, 0)])  # the evaluation before, to show the climb
    last_hit = max(h[xcol] for h in hits)
    x0 = min(starts, default=0.0)
    x1 = last_hit + 0.25 * max(last_hit - x0, 1e-9)
    values = [y for v in run["variants"]
              for x, y in zip(v["metrics"][xcol], v["metrics"]["test_metric"])
              if x0 <= x <= x1 and not math.isnan(y)]
    if not values:
        return None
    pad = 0.08 * margin
    if lower_better:
        return x0, x1, min(values) - pad, near + pad
    return x0, x1, near - pad, max(values) + pad


def draw_metric(ax, run, xcol, zoomed):
    """The metric curves, target line and time-to-target circles on one panel."""
    targets = set()
    for i, v in enumerate(run["variants"]):
        m, color = v["metrics"].dropna(subset=[xcol, "test_metric"]), color_of(i)
        hit = target_row(v)
        label = label_of(v)
        if hit is not None:
            label += f": target at {hit[xcol]:.4g}" + (" s" if xcol == "time_s" else "")
        ax.plot(m[xcol], m["test_metric"], "-", color=color, label=label,
                linewidth=width_of(i, len(run["variants"])),
                # a variant stopped after one evaluation is a point, which a line does not draw
                marker="." if zoomed else ("o" if len(m) == 1 else None))
        mark_stop(ax, v, xcol, "test_metric", color)
        if hit is not None:
            ax.plot(hit[xcol], hit["test_metric"], "o", color=color, markersize=8,
                    markeredgecolor="black", zorder=3)
            if zoomed:
                ax.axvline(hit[xcol], color=color, linestyle=":", linewidth=1.2)
        if v["summary"].get("target_metric") is not None:
            targets.add(v["summary"]["target_metric"])
    for t in sorted(targets):
        ax.axhline(t, color="gray", linestyle="--", linewidth=1, label=f"target {t:g}")
    ax.grid(alpha=0.3)


def plot_metric(run, axis, outpath):
    """Test metric per variant against time or clock: the whole run, and beside it a zoom on
    the approach to the target; on the time axis with failures, a lane per variant below."""
    xcol, xlabel = x_axis(run, axis)
    window = zoom_window(run, xcol)
    lanes = axis == "time" and has_failures(run)
    ncols = 2 if window else 1
    heights = [4.2] + ([0.75 * len(run["variants"]) + 0.6] if lanes else [])
    fig = plt.figure(figsize=(6.2 * ncols + 1, sum(heights) + 0.8), constrained_layout=True)
    grid = fig.add_gridspec(len(heights), ncols, height_ratios=heights)
    ax = fig.add_subplot(grid[0, 0])
    draw_metric(ax, run, xcol, zoomed=False)
    if axis == "time":
        mark_failures(ax, run)
    ax.set(xlabel=xlabel, ylabel=metric_label(run), title="whole run")
    panels = [ax]
    if window:
        zoom = fig.add_subplot(grid[0, 1])
        draw_metric(zoom, run, xcol, zoomed=True)
        if axis == "time":
            mark_failures(zoom, run)
        zoom.set_xlim(window[0], window[1])
        zoom.set_ylim(window[2], window[3])
        zoom.set(xlabel=xlabel, title="approach to the target (zoom)")
        ax.add_patch(plt.Rectangle((window[0], window[2]), window[1] - window[0],
                                   window[3] - window[2], fill=False, edgecolor="gray",
                                   linestyle="-", linewidth=0.8))
        panels.append(zoom)
    if lanes:
        plot_failure_timeline(fig.add_subplot(grid[1, :], sharex=ax), run)
    fig.suptitle(f"{run['scenario']}: {metric_label(run)} vs {xlabel.split(' (')[0]}")
    handles, labels = ax.get_legend_handles_labels()
    legend_below(fig, [h for h, l in zip(handles, labels) if not l.startswith("_")]
                 + marker_entries(run, True), ncol=3)
    return save(fig, outpath)


def plot_loss(run, axis, outpath):
    """Train (solid) and test (dashed) loss per variant; log scale when the range is wide."""
    xcol, xlabel = x_axis(run, axis)
    lanes = axis == "time" and has_failures(run)
    heights = [4.5] + ([0.75 * len(run["variants"]) + 0.6] if lanes else [])
    fig = plt.figure(figsize=(9, sum(heights) + 0.8), constrained_layout=True)
    grid = fig.add_gridspec(len(heights), 1, height_ratios=heights)
    ax = fig.add_subplot(grid[0, 0])
    if lanes:
        plot_failure_timeline(fig.add_subplot(grid[1, 0], sharex=ax), run)
    values = []
    for i, v in enumerate(run["variants"]):
        color = color_of(i)
        for col, style in (("train_loss", "-"), ("test_loss", "--")):
            m = v["metrics"].dropna(subset=[xcol, col])
            if m.empty:
                continue
            ax.plot(m[xcol], m[col], style, color=color, linewidth=width_of(i, len(run["variants"])),
                    marker="o" if len(m) == 1 else None)
            mark_stop(ax, v, xcol, col, color)
            values.extend(m[col])
    positive = [x for x in values if x > 0]
    if positive and len(positive) == len(values) and max(positive) / min(positive) > 1e3:
        ax.set_yscale("log")
    if axis == "time":
        mark_failures(ax, run)
    ax.set(xlabel=xlabel, ylabel=loss_label(run),
           title=f"{run['scenario']}: loss vs {xlabel.split(' (')[0]}")
    ax.grid(alpha=0.3)
    entries = [Line2D([], [], color=color_of(i), linewidth=2.5, label=label_of(v))
               for i, v in enumerate(run["variants"])]
    entries += [Line2D([], [], color="black", linestyle="-", label="train loss"),
                Line2D([], [], color="black", linestyle="--", label="test loss")]
    handles, labels = ax.get_legend_handles_labels()  # failure bands and checkpoints
    entries += [h for h, l in zip(handles, labels) if not l.startswith("_")]
    legend_below(fig, entries + marker_entries(run, False), ncol=4)
    return save(fig, outpath)


def staleness_unit(variant):
    """What one count of the staleness histogram is: each gradient is applied by every server
    shard it touches, and each application is counted, so the counts add up to updates x shards."""
    s = variant["summary"]
    total, updates, servers = sum(s.get("staleness_histogram") or []), s.get("updates"), s.get("servers")
    if updates and servers and total == updates * servers:
        return f"{total} counts = {updates} gradients × {servers} shards"
    return f"{total} counts for {updates} gradients" if updates else f"{total} counts"


def draw_recorded_staleness(ax, variant, color):
    """The panel of a variant whose summary has no histogram (stopped before it wrote its own):
    what its metrics.csv recorded, each evaluation window's mean (line) and max (steps) staleness
    against the clock, with the whole run's mean and max. False when it applied no gradient."""
    recorded = staleness_from_metrics(variant)
    if recorded is None:
        return False
    mean, top, gradients = recorded
    m = variant["metrics"].dropna(subset=["clock", "staleness_mean", "staleness_max"])
    ax.plot(m["clock"], m["staleness_mean"], "-", marker="o" if len(m) <= 60 else None, color=color,
            markersize=3, label="window mean")
    ax.step(m["clock"], m["staleness_max"], where="post", color="black", linestyle="--",
            linewidth=1, label="window max")
    ax.set_ylim(-0.05 * max(top, 1), max(top, 1) * 1.35)
    ax.text(0.97, 0.95, f"mean {mean:.3g}\nmax {top}\n{gradients} gradients", ha="right", va="top",
            transform=ax.transAxes, bbox={"facecolor": "white", "alpha": 0.8, "edgecolor": "gray"})
    ax.legend(loc="upper left", fontsize="x-small")
    ax.set(xlabel="global clock (iterations)", ylabel="staleness (clocks)")
    return True


def plot_staleness(run, outpath):
    """One bar chart per variant: shard updates applied s clocks stale, mean annotated; for a
    variant stopped before it wrote a histogram, what its metrics.csv recorded instead."""
    variants = run["variants"]
    ncols = min(3, len(variants))
    nrows = math.ceil(len(variants) / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.8 * ncols, 4.0 * nrows), squeeze=False,
                             constrained_layout=True)
    for i, v in enumerate(variants):
        ax = axes[i // ncols][i % ncols]
        counts = v["summary"].get("staleness_histogram") or []
        total = sum(counts)
        if total:
            bars = ax.bar(range(len(counts)), counts, color=color_of(i), edgecolor="black")
            ax.bar_label(bars, fontsize="x-small", rotation=90 if len(counts) > 6 else 0, padding=2)
            mean = sum(s * c for s, c in enumerate(counts)) / total
            ax.text(0.97, 0.95, f"mean {mean:.3g}\nmax {len(counts) - 1}", ha="right",
                    va="top", transform=ax.transAxes,
                    bbox={"facecolor": "white", "alpha": 0.8, "edgecolor": "gray"})
            ax.set_xticks(range(len(counts)))
            ax.set_xlim(-0.6, max(len(counts), 3) - 0.4)
            ax.margins(y=0.25)
            ax.set(xlabel="staleness (clocks)", ylabel="shard updates applied")
            unit = staleness_unit(v)
        elif draw_recorded_staleness(ax, v, color_of(i)):
            unit = "no histogram written: per evaluation window, from metrics.csv"
        else:
            # A stopped variant may have applied gradients that no evaluation recorded yet.
            none = "none recorded before the stop" if v.get("stopped") else "no gradient applied"
            ax.text(0.5, 0.5, none, ha="center", va="center", transform=ax.transAxes)
            ax.set(xlabel="staleness (clocks)", ylabel="shard updates applied")
            unit = staleness_unit(v)
        ax.set(title=f"{label_of(v)}\n({unit})")
        ax.title.set_fontsize("medium")
    for j in range(len(variants), nrows * ncols):
        axes[j // ncols][j % ncols].set_visible(False)
    fig.suptitle(f"{run['scenario']}: staleness of applied gradients"
                 + (", counted once per server shard" if any(v["summary"].get("staleness_histogram")
                                                             for v in variants) else ""))
    return save(fig, outpath)


def plot_stragglers(run, outpath):
    """A panel per variant, a lane per worker: when each worker was a straggler, coloured by
    kind, with the variant's time to target as a dashed line."""
    variants = run["variants"]
    workers = max((v["summary"].get("workers") or 0 for v in variants), default=0)
    workers = max([workers] + [w + 1 for v in variants for w, _, _, _ in straggler_spans(v)])
    kinds = {}
    for v in variants:
        for _, _, _, kind in straggler_spans(v):
            kinds.setdefault(kind, STRAGGLER_COLORS.get(kind, "gray"))
    lane_height = min(0.25, 3.0 / max(workers, 1))
    fig, axes = plt.subplots(len(variants), 1, sharex=True, squeeze=False, constrained_layout=True,
                             figsize=(10, sum(1.0 + lane_height * workers for _ in variants) + 0.6))
    xcol, xlabel = x_axis(run, "time")
    for i, (v, ax) in enumerate(zip(variants, axes[:, 0])):
        plot_straggler_lanes(ax, v, workers, kinds)
        count = len(straggler_spans(v))
        title = f"{label_of(v)}: {count} straggler period{'s' if count != 1 else ''}"
        hit = target_row(v)
        if hit is not None:
            ax.axvline(hit[xcol], color=color_of(i), linestyle="--", linewidth=1.5)
            title += f"; target reached at {hit[xcol]:.4g} s (dashed)"
        ax.set_title(title, loc="left", fontsize="medium")
    axes[-1, 0].set_xlabel(xlabel)
    fig.suptitle(f"{run['scenario']}: stragglers per worker over time")
    legend_below(fig, kind_legend(kinds), ncol=4)
    return save(fig, outpath)
