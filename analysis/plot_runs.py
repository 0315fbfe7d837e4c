#!/usr/bin/python3
"""Plot the results of `pstwin simulate` runs.

Usage:
    analysis/plot_runs.py DIR... [--out OUTDIR]

DIR is a run folder written by `pstwin simulate` (DIR/comparison.csv plus one
DIR/<variant>/ folder per consistency variant holding metrics.csv, summary.json
and events.jsonl), or a single variant folder (one that holds metrics.csv).

For each DIR this writes, into OUTDIR (default: DIR itself; with several DIRs
and --out, into OUTDIR/<name of DIR>/):

    test_metric_vs_time.png   test metric (accuracy or RMSE) vs simulated time, one line per variant
    test_metric_vs_clock.png  test metric vs global clock
    loss_vs_time.png          train (solid) and test (dashed) loss vs simulated time
    loss_vs_clock.png         the same vs global clock
    staleness_hist.png        staleness histogram, one subplot per variant
    report.md                 comparison table plus links to the figures

On the time-axis figures, failures from events.jsonl are marked: a red dashed
line at each node_failed/link_failed (labelled with the node), a green dotted
line at each failover/node_rejoined/worker_rejoined/link_restored, a red band
from each failure to its recovery (the rule of summary.json's time_lost_s), and
grey ticks on the x axis at checkpoints. report.md then has a "Failures"
section per variant.

Figures whose data is entirely empty (the timing-only synthetic model has no
loss or accuracy) are skipped with a printed note. Diverged variants are drawn
up to where they stopped and labelled "(diverged)". The paths written are
printed. A DIR that does not exist or has no metrics.csv is an error (exit 2).

Needs only matplotlib and pandas; runs with Debian's /usr/bin/python3.
"""

import argparse
import json
import math
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

METRICS_COLUMNS = ["time_s", "clock", "updates", "train_loss", "test_loss", "test_metric",
                   "staleness_mean", "staleness_max"]
COMPARISON_COLUMNS = ["variant", "mode", "time_to_target_s", "final_test_metric",
                      "final_test_loss", "updates", "staleness_mean", "staleness_max",
                      "sim_time_s", "wall_time_s", "time_lost_s", "bytes_sent", "params_sha256",
                      "status"]
FAILURE_TYPES = ("node_failed", "link_failed")
RECOVERY_TYPES = ("failover", "node_rejoined", "worker_rejoined", "link_restored")
# Events listed in report.md's "Failures" section.
FAULT_EVENT_TYPES = FAILURE_TYPES + RECOVERY_TYPES + (
    "node_dead", "promoted", "backup_assigned", "replica_rebuilt", "node_restarted",
    "duplicate_push_ignored", "checkpoint", "job_lost", "node_lost")
X_AXES = {"time": ("time_s", "simulated time (s)"),
          "clock": ("clock", "global clock (iterations)")}


def x_axis(run, axis):
    """Column and label of an x axis; runs from `pstwin launch` are timed by the wall clock."""
    xcol, xlabel = X_AXES[axis]
    envs = {v["summary"].get("environment", "simulated") for v in run["variants"]}
    if axis == "time" and envs and "simulated" not in envs:
        xlabel = "wall-clock time since training began (s)"
    return xcol, xlabel


def loss_label(run):
    """What the loss column holds: mean squared error for matrix factorisation."""
    return "loss (mean squared error)" if metric_name(run) == "rmse" else "loss (cross-entropy)"


def metric_name(run):
    """The runs' test metric as summary.json names it ("accuracy", "rmse"); accuracy if unsaid."""
    for v in run["variants"]:
        if v["summary"].get("metric"):
            return v["summary"]["metric"]
    return "accuracy"


def metric_label(run):
    return "test " + ("RMSE" if metric_name(run) == "rmse" else metric_name(run))


class RunError(Exception):
    """A run folder that cannot be read; main() prints it and exits with status 2."""


# ---------------------------------------------------------------- loading


def read_variant(folder):
    """Read one variant folder into a dict: name, metrics, summary, events, diverged."""
    try:
        metrics = pd.read_csv(folder / "metrics.csv")
    except (OSError, ValueError) as e:
        raise RunError(f"{folder / 'metrics.csv'}: cannot read: {e}") from e
    missing = [c for c in METRICS_COLUMNS if c not in metrics.columns]
    if missing:
        raise RunError(f"{folder / 'metrics.csv'}: missing columns {', '.join(missing)}")
    metrics = metrics.apply(pd.to_numeric, errors="coerce").replace([math.inf, -math.inf], math.nan)

    summary = {}
    if (folder / "summary.json").is_file():
        try:
            summary = json.loads((folder / "summary.json").read_text())
        except (OSError, ValueError) as e:
            raise RunError(f"{folder / 'summary.json'}: cannot read: {e}") from e
    events = []
    if (folder / "events.jsonl").is_file():
        for line in (folder / "events.jsonl").read_text().splitlines():
            try:
                events.append(json.loads(line))
            except ValueError:
                pass  # a truncated last line of a killed run; ignore it
    # `pstwin launch` appends the launcher's lines after the scheduler's: order by time.
    events = [e for e in events if isinstance(e, dict)]
    events.sort(key=lambda e: e["time_s"] if isinstance(e.get("time_s"), (int, float)) else math.inf)
    diverged = bool(summary.get("diverged")) or any(e.get("type") == "diverged" for e in events)
    return {"name": summary.get("variant") or folder.name, "metrics": metrics,
            "summary": summary, "events": events, "diverged": diverged}


def load_run(path):
    """Read a run folder (or a single variant folder) into a dict."""
    path = Path(path)
    if not path.is_dir():
        raise RunError(f"{path}: no such directory")
    comparison = None
    if (path / "metrics.csv").is_file():  # a variant folder given directly
        folders = [path]
    else:
        if (path / "comparison.csv").is_file():
            try:
                comparison = pd.read_csv(path / "comparison.csv", dtype={"variant": str})
            except (OSError, ValueError) as e:
                raise RunError(f"{path / 'comparison.csv'}: cannot read: {e}") from e
        subdirs = sorted(p for p in path.iterdir() if (p / "metrics.csv").is_file())
        if comparison is not None and "variant" in comparison.columns:  # keep the run's order
            order = {v: i for i, v in enumerate(comparison["variant"])}
            subdirs.sort(key=lambda p: order.get(p.name, len(order)))
        folders = subdirs
    if not folders:
        raise RunError(f"{path}: no metrics.csv found "
                       "(expected DIR/<variant>/metrics.csv or DIR/metrics.csv)")
    variants = [read_variant(f) for f in folders]
    for i, v in enumerate(variants):  # name a variant whose curves repeat an earlier one
        v["same_as"] = next((w["name"] for w in variants[:i]
                             if w["metrics"].equals(v["metrics"])), None)
    scenario = next((v["summary"]["scenario"] for v in variants
                     if v["summary"].get("scenario")), None)
    return {"path": path, "scenario": scenario or path.resolve().name,
            "variants": variants, "comparison": comparison}


# ---------------------------------------------------------------- plotting


def color_of(index):
    return plt.get_cmap("tab10")(index % 10)


def width_of(index, count):
    """Earlier variants get wider lines, so curves that coincide stay visible as stripes."""
    return 1.5 + 1.2 * (count - 1 - index)


def label_of(variant):
    text = variant["name"]
    if variant.get("same_as"):
        text += f" (= {variant['same_as']})"
    return text + (" (diverged)" if variant["diverged"] else "")


def legend_extras(ax, run, with_target):
    """Legend entries explaining the markers used."""
    if with_target and any(target_row(v) is not None for v in run["variants"]):
        ax.plot([], [], "o", color="white", markeredgecolor="black", label="target reached")
    if any(v["diverged"] for v in run["variants"]):
        ax.plot([], [], "X", color="white", markeredgecolor="black", markersize=9,
                label="stopped (diverged)")


def target_row(variant):
    """The first metrics row at or above the target (at or below it for RMSE, where lower is
    better), as pstwin defines time-to-target."""
    target = variant["summary"].get("target_metric")
    if target is None or variant["summary"].get("time_to_target_s") is None:
        return None
    metric = variant["metrics"]["test_metric"]
    lower_is_better = variant["summary"].get("metric") == "rmse"
    hits = variant["metrics"][metric <= target if lower_is_better else metric >= target]
    return None if hits.empty else hits.iloc[0]


def mark_stop(ax, variant, xcol, ycol, color):
    """An X at the last finite point of a diverged variant."""
    if not variant["diverged"]:
        return
    rows = variant["metrics"].dropna(subset=[xcol, ycol])
    if not rows.empty:
        ax.plot(rows[xcol].iloc[-1], rows[ycol].iloc[-1], "X", color=color, markersize=10,
                markeredgecolor="black")


# ---------------------------------------------------------------- failures


def event_node(event):
    """The node an event is about ("worker:0", "server:1", "scheduler"), or None."""
    if isinstance(event.get("node"), str):
        return event["node"]
    worker = event.get("worker")
    if isinstance(worker, int):
        return f"worker:{worker}"
    return worker if isinstance(worker, str) else None


def timed(events):
    """Events with a numeric time_s (already sorted by read_variant)."""
    return [e for e in events if isinstance(e.get("time_s"), (int, float))]


def run_end(variant):
    """When the run ended: summary.json's sim_time_s, else its last evaluation or event."""
    end = variant["summary"].get("sim_time_s")
    if isinstance(end, (int, float)):
        return float(end)
    times = list(variant["metrics"]["time_s"].dropna()) + [e["time_s"] for e in timed(variant["events"])]
    return max(times, default=0.0)


def recovers(event, node):
    """Whether `event` ends the failure of `node`; the rule of runtime/output/
    failure_accounting.h (time_lost_s in summary.json)."""
    kind = event.get("type")
    if kind in ("node_dead", "link_restored", "node_rejoined"):
        return event_node(event) == node
    if kind == "worker_rejoined":
        return node.startswith("worker:") and event_node(event) == node
    return kind == "failover" and node.startswith("server:")


def failure_spans(variant):
    """(failure event, recovery event or None, end time) per node_failed/link_failed."""
    events, spans = timed(variant["events"]), []
    for i, e in enumerate(events):
        if e.get("type") not in FAILURE_TYPES:
            continue
        node = event_node(e) or "?"
        rec = next((r for r in events[i + 1:] if recovers(r, node)), None)
        end = rec["time_s"] if rec is not None else max(run_end(variant), e["time_s"])
        spans.append((e, rec, end))
    return spans


def mark_failures(ax, run):
    """Failures (red dashed, node named), recoveries (green dotted), the time lost between them
    (red band) and checkpoints (grey ticks on the x axis), with one legend entry each."""
    failures, recoveries, bands, checkpoints = {}, set(), set(), set()
    for v in run["variants"]:
        for e in timed(v["events"]):
            if e.get("type") in FAILURE_TYPES:
                failures.setdefault(e["time_s"], set()).add(event_node(e) or "?")
            elif e.get("type") in RECOVERY_TYPES:
                recoveries.add(e["time_s"])
            elif e.get("type") == "checkpoint":
                checkpoints.add(e["time_s"])
        bands.update((f["time_s"], end) for f, _, end in failure_spans(v))
    if not (failures or recoveries or checkpoints):
        return
    xaxis = ax.get_xaxis_transform()  # x in data, y in axes fraction
    for i, (start, end) in enumerate(sorted(b for b in bands if b[1] > b[0])):
        ax.axvspan(start, end, color="red", alpha=0.08, linewidth=0,
                   label="time lost to failure" if i == 0 else "_time lost")
    for i, (t, nodes) in enumerate(sorted(failures.items())):
        ax.axvline(t, color="red", linestyle="--", linewidth=1,
                   label="failure" if i == 0 else "_failure")
        ax.text(t, 0.98, " " + ", ".join(sorted(nodes)), transform=xaxis, rotation=90,
                ha="right", va="top", fontsize="x-small", color="red")
    for i, t in enumerate(sorted(recoveries)):
        ax.axvline(t, color="green", linestyle=":", linewidth=1.2,
                   label="recovery" if i == 0 else "_recovery")
    if checkpoints:
        ts = sorted(checkpoints)
        ax.plot(ts, [0.0] * len(ts), "|", color="gray", markersize=10, markeredgewidth=1.5,
                transform=xaxis, clip_on=False, label="checkpoint")


def save(fig, outpath):
    fig.tight_layout()
    fig.savefig(outpath, dpi=120)
    plt.close(fig)
    return outpath


def plot_metric(run, axis, outpath):
    """Test metric (accuracy or RMSE) per variant, with the target line and time-to-target
    markers."""
    xcol, xlabel = x_axis(run, axis)
    fig, ax = plt.subplots(figsize=(8, 5))
    targets = set()
    for i, v in enumerate(run["variants"]):
        m, color = v["metrics"].dropna(subset=[xcol, "test_metric"]), color_of(i)
        ax.plot(m[xcol], m["test_metric"], "-", color=color, label=label_of(v),
                linewidth=width_of(i, len(run["variants"])))
        mark_stop(ax, v, xcol, "test_metric", color)
        hit = target_row(v)
        if hit is not None:
            ax.plot(hit[xcol], hit["test_metric"], "o", color=color, markersize=8,
                    markeredgecolor="black", zorder=3)
        if v["summary"].get("target_metric") is not None:
            targets.add(v["summary"]["target_metric"])
    for t in sorted(targets):
        ax.axhline(t, color="gray", linestyle="--", linewidth=1, label=f"target {t:g}")
    legend_extras(ax, run, with_target=True)
    if axis == "time":
        mark_failures(ax, run)
    ax.set(xlabel=xlabel, ylabel=metric_label(run),
           title=f"{run['scenario']}: {metric_label(run)} vs {xlabel.split(' (')[0]}")
    ax.grid(alpha=0.3)
    ax.legend()
    return save(fig, outpath)


def plot_loss(run, axis, outpath):
    """Train (solid) and test (dashed) loss per variant; log scale when the range is wide."""
    xcol, xlabel = x_axis(run, axis)
    fig, ax = plt.subplots(figsize=(8, 5))
    values = []
    for i, v in enumerate(run["variants"]):
        color = color_of(i)
        for col, style, suffix in (("train_loss", "-", "train"), ("test_loss", "--", "test")):
            m = v["metrics"].dropna(subset=[xcol, col])
            if m.empty:
                continue
            ax.plot(m[xcol], m[col], style, color=color, label=f"{label_of(v)} {suffix}",
                    linewidth=width_of(i, len(run["variants"])))
            mark_stop(ax, v, xcol, col, color)
            values.extend(m[col])
    positive = [x for x in values if x > 0]
    if positive and len(positive) == len(values) and max(positive) / min(positive) > 1e3:
        ax.set_yscale("log")
    legend_extras(ax, run, with_target=False)
    if axis == "time":
        mark_failures(ax, run)
    ax.set(xlabel=xlabel, ylabel=loss_label(run),
           title=f"{run['scenario']}: loss vs {xlabel.split(' (')[0]}")
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small", ncol=2)
    return save(fig, outpath)


def plot_staleness(run, outpath):
    """One bar chart per variant: gradients applied s clocks stale, mean annotated."""
    variants = run["variants"]
    ncols = min(3, len(variants))
    nrows = math.ceil(len(variants) / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.5 * ncols, 3.8 * nrows), squeeze=False)
    for i, v in enumerate(variants):
        ax = axes[i // ncols][i % ncols]
        counts = v["summary"].get("staleness_histogram") or []
        total = sum(counts)
        if total:
            bars = ax.bar(range(len(counts)), counts, color=color_of(i), edgecolor="black")
            ax.bar_label(bars, fontsize="small")
            mean = sum(s * c for s, c in enumerate(counts)) / total
            ax.text(0.97, 0.95, f"mean {mean:.3g}\nmax {len(counts) - 1}", ha="right",
                    va="top", transform=ax.transAxes,
                    bbox={"facecolor": "white", "alpha": 0.8, "edgecolor": "gray"})
            ax.set_xticks(range(len(counts)))
            ax.set_xlim(-0.6, max(len(counts), 3) - 0.4)
            ax.margins(y=0.15)
        else:
            ax.text(0.5, 0.5, "no staleness histogram", ha="center", va="center",
                    transform=ax.transAxes)
        ax.set(title=label_of(v), xlabel="staleness (clocks)", ylabel="gradients applied")
    for j in range(len(variants), nrows * ncols):
        axes[j // ncols][j % ncols].set_visible(False)
    fig.suptitle(f"{run['scenario']}: staleness of applied gradients")
    return save(fig, outpath)


def has_data(run, *columns):
    return any(v["metrics"][c].notna().any() for v in run["variants"] for c in columns)


# ---------------------------------------------------------------- report


def fmt(value):
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if isinstance(value, float):
        return f"{value:.4g}"
    text = str(value)
    return text[:12] if len(text) == 64 else text  # shorten sha256 digests


def comparison_rows(run):
    """comparison.csv as a list of row dicts, or rebuilt from summary.json files without it."""
    if run["comparison"] is not None:
        table = run["comparison"].astype(object).where(run["comparison"].notna(), None)
        return list(table.columns), table.to_dict("records")
    rows = []
    for v in run["variants"]:
        row = {c: v["summary"].get(c) for c in COMPARISON_COLUMNS}
        row["variant"] = v["name"]
        row["status"] = "DIVERGED" if v["diverged"] else (
            "ok" if v["summary"].get("completed", True) else "incomplete")
        rows.append(row)
    return COMPARISON_COLUMNS, rows


def event_subject(event):
    """What a failure-related event is about, for the report: node, range, server and details."""
    parts = [event_node(event)] if event_node(event) else []
    if "range" in event:
        parts.append(f"range {event['range']}")
    for key in ("server", "from", "clock", "epoch", "silent_s", "reason", "ranges", "error"):
        if key in event:
            parts.append(f"{key} {fmt(event[key])}")
    return ", ".join(parts)


def failures_section(run):
    """report.md lines: per variant, its failure-related events and the time lost to failures;
    nothing when no variant has any."""
    if not any(e.get("type") in FAULT_EVENT_TYPES and e.get("type") != "checkpoint"
               for v in run["variants"] for e in v["events"]):
        return []  # checkpoints alone are no failure
    lines = ["", "## Failures"]
    for v in run["variants"]:
        events = [e for e in timed(v["events"]) if e.get("type") in FAULT_EVENT_TYPES]
        lines += ["", f"### {v['name']}", ""]
        if all(e["type"] == "checkpoint" for e in events):
            lines.append("none")
            continue
        spans = failure_spans(v)
        lost = v["summary"].get("time_lost_s")
        computed = sum(end - f["time_s"] for f, _, end in spans)
        if not isinstance(lost, (int, float)):
            lost = computed
        text = f"{len(spans)} failure{'' if len(spans) == 1 else 's'}, time lost {lost:.4g} s"
        if abs(lost - computed) > 1e-6 * max(1.0, abs(computed)):
            text += f" (summary.json; {computed:.4g} s from events.jsonl)"
        lines += [text, ""]
        for f, rec, end in spans:
            how = f"recovered by {rec['type']} at {rec['time_s']:.4g} s" if rec is not None \
                else "not recovered before the end"
            lines.append(f"- {f['type']} {event_node(f) or '?'} at {f['time_s']:.4g} s: "
                         f"{end - f['time_s']:.4g} s lost, {how}")
        # Duplicate pushes can be many (every resend after a failover): counted, not listed.
        duplicates = [e for e in events if e["type"] == "duplicate_push_ignored"]
        if duplicates:
            lines.append(f"- {len(duplicates)} duplicate push(es) ignored, "
                         f"{duplicates[0]['time_s']:.4g}–{duplicates[-1]['time_s']:.4g} s")
        lines += ["", "| time (s) | event | node / range |", "|---|---|---|"]
        lines += [f"| {e['time_s']:.6g} | {e['type']} | {event_subject(e)} |" for e in events
                  if e["type"] != "duplicate_push_ignored"]
    return lines


def write_report(run, outdir, figures, notes):
    columns, rows = comparison_rows(run)
    lines = [f"# {run['scenario']}", "", f"Run folder: `{run['path']}`", "",
             "| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(fmt(r.get(c)) for c in columns) + " |" for r in rows]
    reasons = [f"- {v['name']}: {v['summary'].get('reason') or 'diverged'}"
               for v in run["variants"] if v["diverged"]]
    if reasons:
        lines += ["", "Diverged:", ""] + reasons
    lines += failures_section(run)
    lines += ["", "## Figures", ""] + [f"- [{f.name}]({f.name})" for f in figures]
    for f in figures:
        lines += ["", f"![{f.stem}]({f.name})"]
    if notes:
        lines += ["", "Skipped:", ""] + [f"- {n}" for n in notes]
    path = outdir / "report.md"
    path.write_text("\n".join(lines) + "\n")
    return path


# ---------------------------------------------------------------- main


def plot_run(run, outdir):
    """Write all figures and the report for one run; return the paths written."""
    outdir.mkdir(parents=True, exist_ok=True)
    figures, notes = [], []
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
