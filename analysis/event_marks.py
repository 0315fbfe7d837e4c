"""Events of a run drawn against time: failures and their recoveries (per variant, in the
variant's colour), checkpoints, and stragglers per worker (from events.jsonl)."""

from matplotlib.patches import Patch

from plot_style import color_of
from run_data import FAILURE_TYPES, RECOVERY_TYPES, event_node, run_end, timed, x_axis

# What the scheduler concluded, drawn on the lanes too: a node declared dead (a failure the
# scenario injected, or a live node whose heartbeats came late) and the job given up.
VERDICT_TYPES = ("node_dead", "job_lost")


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


def has_failures(run):
    """Whether the run has a failure or a verdict on one (node_dead, job_lost) to draw."""
    return any(e.get("type") in FAILURE_TYPES + VERDICT_TYPES for v in run["variants"] for e in v["events"])


def mark_failures(ax, run):
    """On a metric or loss panel: a light grey band where any variant was losing time to a
    failure (the failure lanes below say which variant and node, in the variant's colour:
    plot_failure_timeline), and checkpoints as grey ticks along the x axis."""
    spans, checkpoints = set(), set()
    for v in run["variants"]:
        spans.update((f["time_s"], end) for f, _, end in failure_spans(v) if end > f["time_s"])
        checkpoints.update(e["time_s"] for e in timed(v["events"]) if e.get("type") == "checkpoint")
    for i, (start, end) in enumerate(sorted(spans)):
        ax.axvspan(start, end, color="black", alpha=0.08, linewidth=0,
                   label="time lost to a failure (lanes below)" if i == 0 else "_lost")
    if checkpoints:
        ts = sorted(checkpoints)
        ax.plot(ts, [0.02] * len(ts), "|", color="gray", markersize=10, markeredgewidth=1.5,
                transform=ax.get_xaxis_transform(), label="checkpoint")


def plot_failure_timeline(ax, run):
    """One lane per variant: a bar in the variant's colour from each failure to its recovery
    (the time lost, as summary.json counts it), an x at the failure, a dot at the recovery, and
    the nodes named once per lane where labels would not run into each other."""
    variants = run["variants"]
    end = max((run_end(v) for v in variants), default=1.0) or 1.0
    for lane, v in enumerate(variants):
        y, color = len(variants) - 1 - lane, color_of(lane)
        label_ends = [-1.0, -1.0]  # where the last label above / below the bar ends
        for f, rec, stop in failure_spans(v):
            ax.broken_barh([(f["time_s"], max(stop - f["time_s"], end * 1e-3))], (y - 0.17, 0.34),
                           color=color, alpha=0.55)
            ax.plot(f["time_s"], y, "x", color="black", markersize=6)
            if rec is not None:
                ax.plot(rec["time_s"], y, "o", color="black", markersize=4)
            # Labels go left to right, above the bar, else below it when the one above would run
            # into the previous label; when both would, the report's Failures section names it.
            node = event_node(f) or "?"
            level = next((k for k in (0, 1) if f["time_s"] > label_ends[k]), None)
            if level is not None:
                ax.text(f["time_s"], y + (0.19 if level == 0 else -0.19), node, fontsize="x-small",
                        va="bottom" if level == 0 else "top", ha="left")
                label_ends[level] = f["time_s"] + end * 0.0065 * len(node)
    for lane, v in enumerate(variants):  # recovery of everything else (rejoin, restore)
        y = len(variants) - 1 - lane
        rejoins = [e["time_s"] for e in timed(v["events"]) if e.get("type") in RECOVERY_TYPES]
        ax.plot(rejoins, [y] * len(rejoins), "o", color="black", markersize=4)
        # The scheduler's verdicts: a red tick per node declared dead, a red X where the job was lost.
        dead = [e["time_s"] for e in timed(v["events"]) if e.get("type") == "node_dead"]
        ax.plot(dead, [y] * len(dead), "|", color="tab:red", markersize=14, markeredgewidth=2)
        lost = [e["time_s"] for e in timed(v["events"]) if e.get("type") == "job_lost"]
        ax.plot(lost, [y] * len(lost), "X", color="tab:red", markersize=11, markeredgecolor="black")
        for t in lost[:1]:
            ax.text(t, y - 0.22, " job lost", color="tab:red", fontsize="x-small", va="top", ha="left")
    ax.set_yticks(range(len(variants)))
    ax.set_yticklabels([v["name"] for v in reversed(variants)])
    ax.set_ylim(-0.5, len(variants) - 0.5)
    ax.set_xlabel(x_axis(run, "time")[1])  # wall-clock time for a launched run
    ax.set_title("failures per variant: x a node failed (named), bar the time lost until its "
                 "recovery, o a recovery (failover, rejoin, link restored),\n"
                 "red | a node declared dead, red X the job lost", fontsize="small", loc="left")
    ax.grid(axis="x", alpha=0.3)


def seconds_per_clock(variant):
    """The variant's mean time per clock between its first and last evaluation, or None."""
    rows = variant["metrics"][["clock", "time_s"]].dropna()
    if len(rows) < 2 or rows["clock"].iloc[-1] <= rows["clock"].iloc[0]:
        return None
    return float((rows["time_s"].iloc[-1] - rows["time_s"].iloc[0]) / (rows["clock"].iloc[-1] - rows["clock"].iloc[0]))


def straggler_spans(variant):
    """(worker, start, end, kind) per straggler_start, ended by the worker's next straggler_end
    of the same kind, else by the end of the run (a "slow" worker stays slow). In a stopped
    variant an end may be missing because the stop cut events.jsonl, not because the straggler
    lasted: one whose start says how many iterations it lasts ends after that many of the
    variant's mean clocks (a trial's one-iteration straggler was drawn to the stop)."""
    events, spans = timed(variant["events"]), []
    open_spans = {}
    for e in events:
        worker, kind = e.get("worker"), e.get("kind", "?")
        if not isinstance(worker, int):
            continue
        if e.get("type") == "straggler_start":
            open_spans.setdefault((worker, kind), []).append((e["time_s"], e.get("iterations")))
        elif e.get("type") == "straggler_end" and open_spans.get((worker, kind)):
            spans.append((worker, open_spans[(worker, kind)].pop(0)[0], e["time_s"], kind))
    end = run_end(variant)
    per_clock = seconds_per_clock(variant) if variant.get("stopped") else None
    for (worker, kind), starts in open_spans.items():
        for start, iterations in starts:
            stop = end
            if per_clock is not None and isinstance(iterations, int) and iterations > 0:
                stop = min(end, start + iterations * per_clock)
            spans.append((worker, start, max(stop, start), kind))
    return spans


def has_stragglers(run):
    return any(straggler_spans(v) for v in run["variants"])


def plot_straggler_lanes(ax, variant, workers, kinds):
    """One lane per worker: a bar for each time it was a straggler, coloured by kind
    (transient, slow, ...; `kinds` maps a kind to its colour)."""
    by_worker = {}
    for worker, start, end, kind in straggler_spans(variant):
        by_worker.setdefault((worker, kind), []).append((start, max(end - start, 0.0)))
    for (worker, kind), bars in by_worker.items():
        ax.broken_barh(bars, (worker - 0.4, 0.8), color=kinds[kind], linewidth=0)
    ax.set_ylim(workers - 0.5, -0.5)
    step = max(1, workers // 8)
    ax.set_yticks(range(0, workers, step))
    ax.set_ylabel("worker")
    ax.grid(axis="x", alpha=0.3)


def kind_legend(kinds):
    return [Patch(color=c, label=f"{k} straggler") for k, c in kinds.items()]
