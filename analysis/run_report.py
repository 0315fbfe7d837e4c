"""report.md of a run folder: the comparison table, one line saying what each figure shows
for this run, divergence reasons and a "Failures" section when a run has failure events."""

import math

from event_marks import failure_spans, straggler_spans
from link_load import busiest_links_section, link_load_reading
from run_data import (COMPARISON_COLUMNS, FAULT_EVENT_TYPES, SUMMARY_KEYS, completed, event_node,
                      metric_label, staleness_from_metrics, target_row, timed, was_stopped)


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
    for v in run["variants"] + run["left_out"]:
        row = {c: v["summary"].get(SUMMARY_KEYS.get(c, c)) for c in COMPARISON_COLUMNS}
        row["variant"] = v["name"]
        row["status"] = "DIVERGED" if v.get("diverged") else "ok" if completed(v["summary"]) else (
            "stopped" if was_stopped(v["summary"]) else "incomplete")
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


def ranked(pairs, unit="", reverse=False):
    """"a 1.2 s, b 3.4 s" in increasing order of value (decreasing with reverse)."""
    pairs = sorted(pairs, key=lambda p: p[1], reverse=reverse)
    return ", ".join(f"{name} {value:.4g}{unit}" for name, value in pairs)


def last_values(run, col):
    """(name, value) of each variant's last evaluation of `col`; a variant that did not complete is
    named with where its value comes from ("asp (at its stop)"), since it is no final value."""
    out = []
    for v in run["variants"]:
        values = v["metrics"][col].dropna()
        if not values.empty:
            out.append((v["name"] + ending_note(v), float(values.iloc[-1])))
    return out


def ending_note(variant):
    """"" for a completed variant; else where its last values come from."""
    if completed(variant["summary"]):
        return ""
    return " (at its stop)" if variant.get("stopped") else " (when it ended, unfinished)"


def last_word(run):
    """"Final" when every variant completed, else "Last": a stopped run's values are not final."""
    return "Final" if all(completed(v["summary"]) for v in run["variants"]) else "Last"


def staleness_reading(variant):
    """"bsp mean 0.5 (max 2)" from the summary's histogram, else from the metrics.csv of a variant
    stopped before it wrote one; None when it applied no gradient."""
    counts = variant["summary"].get("staleness_histogram") or []
    total = sum(counts)
    if total:
        mean = sum(s * c for s, c in enumerate(counts)) / total
        return f"{variant['name']} mean {mean:.3g} (max {len(counts) - 1})"
    recorded = staleness_from_metrics(variant)
    if recorded is None:
        return None
    mean, top, gradients = recorded
    return (f"{variant['name']}{ending_note(variant)} mean {mean:.3g} (max {top}) over {gradients} gradients, "
            "from metrics.csv (no histogram was written)")


def reading(run, figure):
    """One line saying what `figure` (a file name written by plot_runs) shows for this run."""
    name = figure.name
    variants = run["variants"]
    if name.startswith("test_metric_vs_"):
        xcol, unit = ("time_s", " s") if name.endswith("time.png") else ("clock", " clocks")
        hits = [(v["name"], float(target_row(v)[xcol])) for v in variants if target_row(v) is not None]
        missed = [v["name"] for v in variants if target_row(v) is None and completed(v["summary"])]
        cut = [v["name"] + ending_note(v) for v in variants
               if target_row(v) is None and not completed(v["summary"])]
        if not hits:
            targeted = any(v["summary"].get("target_metric") is not None for v in variants)
            return ("No variant reached the target" if targeted else "No target was set") + \
                f"; {last_word(run).lower()} {metric_label(run)}: " + \
                ranked(last_values(run, "test_metric"), reverse=metric_label(run) != "test RMSE") + "."
        target = next(v["summary"].get("target_metric") for v in variants if target_row(v) is not None)
        text = f"Time to target {target:g}, earliest first: " + ranked(hits, unit)
        if missed:
            text += "; never by " + ", ".join(missed)
        if cut:  # no "never": it might have, had it gone on
            text += "; not yet by " + ", ".join(cut)
        return text + " (the right panel zooms on the approach)."
    if name == "loss_vs_time.png":
        return f"{last_word(run)} test loss, lowest first: " + ranked(last_values(run, "test_loss")) + "."
    if name == "loss_vs_clock.png":
        return f"{last_word(run)} train loss, lowest first: " + ranked(last_values(run, "train_loss")) + "."
    if name == "staleness_hist.png":
        parts = [p for p in map(staleness_reading, variants) if p]
        if not parts:
            return "No gradient was applied, so there is no staleness to show."
        counted = ", counted once per server shard" if any(
            v["summary"].get("staleness_histogram") for v in variants) else ""
        return f"Staleness of applied gradients{counted}: " + "; ".join(parts) + "."
    if name == "link_utilisation.png":
        return link_load_reading(run)
    if name == "stragglers.png":
        counts = [(v["name"], len(straggler_spans(v))) for v in variants]
        slow = sorted({w for v in variants for w, _, _, k in straggler_spans(v) if k == "slow"})
        text = "Straggler periods per variant: " + ", ".join(f"{n} {c}" for n, c in counts)
        if slow:
            text += "; slow all along: worker " + ", ".join(map(str, slow))
        return text + "."
    return ""


def write_report(run, outdir, figures, notes):
    columns, rows = comparison_rows(run)
    lines = [f"# {run['scenario']}", "", f"Run folder: `{run['path']}`", "",
             "| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(fmt(r.get(c)) for c in columns) + " |" for r in rows]
    reasons = [f"- {v['name']}: {v['summary'].get('reason') or 'diverged'}"
               for v in run["variants"] if v["diverged"]]
    if reasons:
        lines += ["", "Diverged:", ""] + reasons
    # A run that never finished (a launch whose nodes did not all register, a killed scheduler, a
    # stop), drawn or left out with nothing to draw (never started): its reason is the first
    # thing a reader needs.
    unfinished = [f"- {v['name']}: {v['summary'].get('reason') or 'no reason recorded'}"
                  for v in run["variants"] + run["left_out"]
                  if not v.get("diverged") and not completed(v["summary"])]
    if unfinished:
        lines += ["", "Did not complete:", ""] + unfinished
    lines += failures_section(run)
    lines += busiest_links_section(run)
    lines += ["", "## Figures"]
    for f in figures:
        lines += ["", f"**[{f.name}]({f.name})**: {reading(run, f)}", "", f"![{f.stem}]({f.name})"]
    if notes:
        lines += ["", "Skipped:", ""] + [f"- {n}" for n in notes]
    path = outdir / "report.md"
    path.write_text("\n".join(lines) + "\n")
    return path
