"""Reading pstwin run folders (comparison.csv, <variant>/metrics.csv, summary.json,
events.jsonl) into plain dicts, and the facts every figure asks of them: the metric's name, the
x axes, when a variant reached its target, the events with a time, and when a run ended.
"""

import io
import json
import math
from pathlib import Path

import pandas as pd

METRICS_COLUMNS = ["time_s", "clock", "updates", "train_loss", "test_loss", "test_metric",
                   "staleness_mean", "staleness_max"]
COMPARISON_COLUMNS = ["variant", "mode", "time_to_target_s", "last_test_metric",
                      "last_test_loss", "updates", "staleness_mean", "staleness_max",
                      "sim_time_s", "wall_time_s", "time_lost_s", "bytes_sent", "bytes_to_servers",
                      "params_sha256", "status"]
# comparison.csv columns whose summary.json key differs: the last evaluation's figures (final for
# a completed run, reached for a stopped one) keep summary.json's "final_" names.
SUMMARY_KEYS = {"last_test_metric": "final_test_metric", "last_test_loss": "final_test_loss"}
# What comparison.csv and sweep.csv named them before: folders of an older pstwin still read.
OLD_COLUMNS = {"final_test_metric": "last_test_metric", "final_test_loss": "last_test_loss"}
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


def read_summary(folder):
    """summary.json of a variant folder as a dict ({} when there is none)."""
    if not (folder / "summary.json").is_file():
        return {}
    try:
        summary = json.loads((folder / "summary.json").read_text())
    except (OSError, ValueError) as e:
        raise RunError(f"{folder / 'summary.json'}: cannot read: {e}") from e
    return summary if isinstance(summary, dict) else {}


def read_metrics(folder):
    """metrics.csv as a numeric DataFrame, and a note when its last line was cut (a process
    killed mid-write, before pstwin cut such files back itself); RunError saying why a variant
    has nothing to draw (no file, an empty one, a header alone, unreadable, columns missing)."""
    path = folder / "metrics.csv"
    if not path.is_file():
        raise RunError("no metrics.csv")
    try:
        text = path.read_text()
    except OSError as e:
        raise RunError(f"metrics.csv: cannot read: {e}") from e
    note = None
    if text and not text.endswith("\n"):
        text = text[:text.rfind("\n") + 1]
        note = "metrics.csv ended in a cut row, left out"
    if not text:
        raise RunError("metrics.csv is empty (its process ended before writing its header)")
    try:
        metrics = pd.read_csv(io.StringIO(text))
    except ValueError as e:
        raise RunError(f"metrics.csv: cannot read: {e}") from e
    missing = [c for c in METRICS_COLUMNS if c not in metrics.columns]
    if missing:
        raise RunError(f"metrics.csv: missing columns {', '.join(missing)}")
    if metrics.empty:
        raise RunError("metrics.csv has no evaluations")
    metrics = metrics.apply(pd.to_numeric, errors="coerce").replace([math.inf, -math.inf], math.nan)
    return metrics, note


def was_stopped(summary):
    """Whether the run was stopped from outside (a signal, or its launcher's death) before it
    completed: as cli/run_status.h reads stop_reason."""
    by = str(summary.get("stop_reason", ""))
    return summary.get("completed") is False and (
        by.startswith("SIG") or by == "launcher_died" or "stopped by SIG" in str(summary.get("reason", "")))


def completed(summary):
    """Whether the run completed (a summary without the key: an older pstwin's, all completed)."""
    return summary.get("completed", True) is not False


def staleness_from_metrics(variant):
    """(mean, max, gradients) of the staleness a variant's metrics.csv recorded, for a run whose
    summary has no histogram (one stopped before it could write its own): each row holds its
    evaluation window's mean and max and the gradients applied so far, so the mean is the
    windows' means weighted by the gradients each window applied. None when no gradient was."""
    m = variant["metrics"].dropna(subset=["updates", "staleness_mean", "staleness_max"])
    if m.empty or m["updates"].iloc[-1] <= 0:
        return None
    applied = m["updates"].diff().fillna(m["updates"].iloc[0]).clip(lower=0)
    mean = float((m["staleness_mean"] * applied).sum() / applied.sum()) if applied.sum() > 0 else 0.0
    return mean, int(m["staleness_max"].max()), int(m["updates"].iloc[-1])


def read_events(folder):
    """events.jsonl's events (dicts) and a note per line left out because it is not a JSON
    object: a cut last line of a process killed before pstwin cut such files back, or a damaged
    one, named by its line number as a cut metrics.csv row is. No file: no events."""
    path = folder / "events.jsonl"
    if not path.is_file():
        return [], []
    try:
        text = path.read_text()
    except OSError as e:
        return [], [f"events.jsonl: cannot read: {e}; no events drawn"]
    events, bad = [], []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except ValueError:
            event = None
        if isinstance(event, dict):
            events.append(event)
        else:
            bad.append(number)
    if not bad:
        return events, []
    cut = bad == [len(text.splitlines())] and not text.endswith("\n")
    what = "ended in a cut line" if cut else \
        f"line{'s' if len(bad) > 1 else ''} {', '.join(map(str, bad))} not a JSON object"
    return events, [f"events.jsonl {what}, left out"]


def read_variant(folder):
    """Read one variant folder into a dict: name, metrics, summary, events, diverged, stopped,
    notes (what was left out). RunError says why it has nothing to draw."""
    summary = read_summary(folder)
    try:
        metrics, note = read_metrics(folder)
    except RunError as e:
        why = str(e)
        if summary.get("completed") is False and summary.get("reason"):
            why += f"; its summary says: {summary['reason']}"
        raise RunError(why) from e
    events, notes = read_events(folder)
    if note:
        notes.insert(0, note)
    # `pstwin launch` appends the launcher's lines after the scheduler's: order by time.
    events.sort(key=lambda e: e["time_s"] if isinstance(e.get("time_s"), (int, float)) else math.inf)
    diverged = bool(summary.get("diverged")) or any(e.get("type") == "diverged" for e in events)
    name = summary.get("variant") or folder.name
    return {"name": name, "folder": folder, "metrics": metrics, "summary": summary,
            "events": events, "diverged": diverged, "stopped": was_stopped(summary),
            "notes": [f"variant {name}: {n}" for n in notes]}


def load_run(path):
    """Read a run folder (or a single variant folder) into a dict. A variant with nothing to
    draw (stopped before its first evaluation, never started) is left out, named in the run's
    "skipped" notes and kept, with its summary, in "left_out" (report.md lists it among the
    runs that did not complete); RunError when no variant is left to draw."""
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
                comparison = comparison.rename(columns=OLD_COLUMNS)
            except (OSError, ValueError) as e:
                raise RunError(f"{path / 'comparison.csv'}: cannot read: {e}") from e
        # A variant folder holds metrics.csv, or only summary.json when it never started.
        subdirs = sorted(p for p in path.iterdir()
                         if (p / "metrics.csv").is_file() or (p / "summary.json").is_file())
        if comparison is not None and "variant" in comparison.columns:  # keep the run's order
            order = {v: i for i, v in enumerate(comparison["variant"])}
            subdirs.sort(key=lambda p: order.get(p.name, len(order)))
        folders = subdirs
    if not folders:
        raise RunError(f"{path}: no metrics.csv found "
                       "(expected DIR/<variant>/metrics.csv or DIR/metrics.csv)")
    variants, skipped, left_out = [], [], []
    for f in folders:
        try:
            variants.append(read_variant(f))
        except RunError as e:
            skipped.append(f"skipped variant {f.name}: {e}")
            summary = read_summary(f)
            left_out.append({"name": summary.get("variant") or f.name, "summary": summary})
    if not variants:
        raise RunError(f"{path}: no variant to plot: " + "; ".join(skipped))
    for i, v in enumerate(variants):  # name a variant whose curves repeat an earlier one
        v["same_as"] = next((w["name"] for w in variants[:i]
                             if w["metrics"].equals(v["metrics"])), None)
    # Every summary names its scenario (a stopped or never-started variant's too, since pstwin
    # wrote it in theirs); the folder's name only for folders of an older pstwin.
    scenario = next((v["summary"]["scenario"] for v in variants + left_out
                     if v["summary"].get("scenario")), None)
    return {"path": path, "scenario": scenario or path.resolve().name,
            "variants": variants, "comparison": comparison, "left_out": left_out,
            "skipped": skipped + [n for v in variants for n in v["notes"]]}


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
