"""One figure across several run folders: every run's variants on the same axes, a colour per
run folder and a line style per variant, so that runs of different settings can be compared."""

from matplotlib.lines import Line2D

from plot_style import color_of, legend_below, plt, save, width_of
from run_data import metric_label, target_row, x_axis

# A variant's look: a dash pattern, then a marker on top of it once the patterns run out, so
# that no two of the first 28 variants look alike (a trial's fifth variant repeated the first).
DASHES = ["-", "--", ":", "-.", (0, (6, 2, 1, 2, 1, 2)), (0, (1, 1)), (0, (8, 3))]
MARKERS = [None, "o", "s", "^"]


def variant_style(index):
    """(line style, marker) of the index-th variant, distinct for the first 28."""
    return DASHES[index % len(DASHES)], MARKERS[(index // len(DASHES)) % len(MARKERS)]


def run_names(runs):
    """Each run's label: its folder name, made unique with the parent folder when two agree."""
    names = [r["path"].resolve().name for r in runs]
    return [f"{r['path'].resolve().parent.name}/{n}" if names.count(n) > 1 else n
            for r, n in zip(runs, names)]


def time_label(runs, names):
    """The time axis's label: simulated, wall-clock, or, for a mix of simulated and launched
    runs, which runs are which ("time (s): simulated for a, wall-clock for b, c")."""
    labels = [x_axis(r, "time")[1] for r in runs]
    if len(set(labels)) == 1:
        return labels[0]
    simulated = [n for n, label in zip(names, labels) if label.startswith("simulated")]
    wall = [n for n, label in zip(names, labels) if not label.startswith("simulated")]
    return f"time (s): simulated for {', '.join(simulated)}, wall-clock for {', '.join(wall)}"


def plot_across(runs, outpath):
    """Test metric against time (left) and clock (right) for every variant of every run. Earlier
    runs' curves are drawn wider, and a curve identical to an earlier one is named in the legend as
    "run: variant (= other run: variant)", so that runs that agree (BSP parity) stay visible."""
    variants = list(dict.fromkeys(v["name"] for r in runs for v in r["variants"]))
    names = run_names(runs)
    curves = [(ri, v) for ri, r in enumerate(runs) for v in r["variants"]]
    fig, axes = plt.subplots(1, 2, figsize=(14, 5), constrained_layout=True)
    targets = {v["summary"].get("target_metric") for r in runs for v in r["variants"]} - {None}
    reached = False
    for ax, axis in zip(axes, ("time", "clock")):
        xcol = x_axis(runs[0], axis)[0]
        for ri, v in curves:
            m = v["metrics"].dropna(subset=[xcol, "test_metric"])
            dash, marker = variant_style(variants.index(v["name"]))
            ax.plot(m[xcol], m["test_metric"], linestyle=dash, marker=marker, markevery=0.1,
                    color=color_of(ri), linewidth=width_of(ri, len(runs)))
            hit = target_row(v)
            if hit is not None:
                reached = True
                ax.plot(hit[xcol], hit["test_metric"], "o", color=color_of(ri), markersize=7,
                        markeredgecolor="black", zorder=3)
        for t in sorted(targets):
            ax.axhline(t, color="gray", linestyle="--", linewidth=1)
        ax.set(xlabel=time_label(runs, names) if axis == "time" else x_axis(runs[0], axis)[1],
               ylabel=metric_label(runs[0]))
        ax.grid(alpha=0.3)
    entries = [Line2D([], [], color=color_of(i), linewidth=3, label=n) for i, n in enumerate(names)]
    entries += [Line2D([], [], color="black", linestyle=variant_style(i)[0], marker=variant_style(i)[1],
                       label=v) for i, v in enumerate(variants)]
    entries += same_curve_entries(curves, names, variants)
    if reached:
        entries.append(Line2D([], [], marker="o", color="white", markeredgecolor="black",
                              linestyle="", label="target reached"))
    scenarios = list(dict.fromkeys(r["scenario"] for r in runs))
    fig.suptitle(f"{', '.join(scenarios)}: {metric_label(runs[0])} across {len(runs)} run folders "
                 "(colour: run, line style: variant)")
    legend_below(fig, entries, ncol=min(6, len(entries)))
    return save(fig, outpath)


def same_curve_entries(curves, names, variants):
    """A legend entry for each curve whose metrics equal an earlier curve's, which it hides:
    "b: bsp (= a: bsp)" in its colour and style."""
    entries = []
    for k, (ri, v) in enumerate(curves):
        same = next(((rj, w) for rj, w in curves[:k] if w["metrics"].equals(v["metrics"])), None)
        if same is not None:
            dash, marker = variant_style(variants.index(v["name"]))
            entries.append(Line2D([], [], color=color_of(ri), linestyle=dash, marker=marker,
                                  label=f"{names[ri]}: {v['name']} (= {names[same[0]]}: {same[1]['name']})"))
    return entries
