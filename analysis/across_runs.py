"""One figure across several run folders: every run's variants on the same axes, a colour per
run folder and a line style per variant, so that runs of different settings can be compared."""

from matplotlib.lines import Line2D

from plot_style import color_of, legend_below, plt, save
from run_data import metric_label, target_row, x_axis

STYLES = ["-", "--", ":", "-."]


def run_names(runs):
    """Each run's label: its folder name, made unique with the parent folder when two agree."""
    names = [r["path"].resolve().name for r in runs]
    return [f"{r['path'].resolve().parent.name}/{n}" if names.count(n) > 1 else n
            for r, n in zip(runs, names)]


def plot_across(runs, outpath):
    """Test metric against time (left) and clock (right) for every variant of every run."""
    variants = list(dict.fromkeys(v["name"] for r in runs for v in r["variants"]))
    names = run_names(runs)
    fig, axes = plt.subplots(1, 2, figsize=(14, 5), constrained_layout=True)
    targets = {v["summary"].get("target_metric") for r in runs for v in r["variants"]} - {None}
    for ax, axis in zip(axes, ("time", "clock")):
        xcol, xlabel = x_axis(runs[0], axis)
        for ri, run in enumerate(runs):
            for v in run["variants"]:
                m = v["metrics"].dropna(subset=[xcol, "test_metric"])
                ax.plot(m[xcol], m["test_metric"], STYLES[variants.index(v["name"]) % len(STYLES)],
                        color=color_of(ri), linewidth=1.6)
                hit = target_row(v)
                if hit is not None:
                    ax.plot(hit[xcol], hit["test_metric"], "o", color=color_of(ri), markersize=7,
                            markeredgecolor="black", zorder=3)
        for t in sorted(targets):
            ax.axhline(t, color="gray", linestyle="--", linewidth=1)
        ax.set(xlabel=xlabel, ylabel=metric_label(runs[0]))
        ax.grid(alpha=0.3)
    entries = [Line2D([], [], color=color_of(i), linewidth=3, label=n) for i, n in enumerate(names)]
    entries += [Line2D([], [], color="black", linestyle=STYLES[i % len(STYLES)], label=v)
                for i, v in enumerate(variants)]
    entries.append(Line2D([], [], marker="o", color="white", markeredgecolor="black",
                          linestyle="", label="target reached"))
    scenarios = list(dict.fromkeys(r["scenario"] for r in runs))
    fig.suptitle(f"{', '.join(scenarios)}: {metric_label(runs[0])} across {len(runs)} run folders "
                 "(colour: run, line style: variant)")
    legend_below(fig, entries, ncol=min(6, len(entries)))
    return save(fig, outpath)
