"""Link utilisation of simulated runs: link_utilisation.png and report.md's "Busiest links".

`pstwin simulate` writes, per variant, link_load.csv (each used link's utilisation per time
window: SimGrid's link usage, which counts the modelled TCP acknowledgements of the reverse
direction too) and summary.json's "busiest_links" (the five links that carried the most bytes).
Launched runs have neither; a run without them gets no figure and no section.
"""

import pandas as pd
from matplotlib.ticker import PercentFormatter

from plot_style import color_of, plt, save

TOP_LINKS = 5


def busiest_links(variant):
    """summary.json's busiest_links of a variant ([] when the run has none)."""
    return variant["summary"].get("busiest_links") or []


def has_link_load(run):
    return any(busiest_links(v) and (v["folder"] / "link_load.csv").is_file() for v in run["variants"])


def plot_link_load(run, outpath):
    """A panel per variant: utilisation over simulated time of its busiest links (step lines,
    one colour per link, the busiest first), in percent of the link's bandwidth. A panel whose
    links stay far from full is scaled to its data, so that lightly loaded links still show;
    one that comes near full shows 0-100% with the full line dashed."""
    variants = [v for v in run["variants"] if busiest_links(v) and (v["folder"] / "link_load.csv").is_file()]
    fig, axes = plt.subplots(len(variants), 1, figsize=(9, 3.2 * len(variants)), squeeze=False,
                             constrained_layout=True)
    for ax, v in zip(axes[:, 0], variants):
        load = pd.read_csv(v["folder"] / "link_load.csv")
        peak = max(b["peak_utilisation"] for b in busiest_links(v)[:TOP_LINKS])
        for i, link in enumerate(b["link"] for b in busiest_links(v)[:TOP_LINKS]):
            rows = load[load["link"] == link]
            if rows.empty:
                continue
            ax.step(rows["start_s"], rows["utilisation"], where="post", color=color_of(i),
                    label=link, linewidth=1.4 if i == 0 else 1.0)
        top = 1.08 if peak > 0.6 else max(peak * 1.3, 1e-3)
        if top > 1:
            ax.axhline(1.0, color="gray", linestyle="--", linewidth=0.8)
        ax.set(title=f"{v['name']}: the {TOP_LINKS} busiest links", xlabel="simulated time (s)",
               ylabel="utilisation (of bandwidth)", ylim=(0, top))
        ax.yaxis.set_major_formatter(PercentFormatter(1.0))
        ax.title.set_fontsize("medium")
        ax.grid(alpha=0.3)
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small", frameon=False)
    fig.suptitle(f"{run['scenario']}: link utilisation over time (SimGrid's link usage)")
    return save(fig, outpath)


def link_load_reading(run):
    """report.md's line for link_utilisation.png."""
    parts = [f"{v['name']}: {busiest_links(v)[0]['link']} "
             f"(mean {busiest_links(v)[0]['mean_utilisation']:.0%}, "
             f"peak {busiest_links(v)[0]['peak_utilisation']:.0%})"
             for v in run["variants"] if busiest_links(v)]
    return ("Utilisation of each variant's busiest links over time (links with the same load draw "
            "over each other); the busiest: " + "; ".join(parts) + ".")


def busiest_links_section(run):
    """report.md's "Busiest links" section: per variant, the links that carried the most bytes."""
    variants = [v for v in run["variants"] if busiest_links(v)]
    if not variants:
        return []
    lines = ["", "## Busiest links", "",
             "Bytes each link carried over the run (SimGrid's link usage, TCP acknowledgements "
             "included), its mean utilisation over the run and its busiest window's.", "",
             "| variant | link | bandwidth (Gbps) | GB carried | mean utilisation | peak utilisation |",
             "|---|---|---|---|---|---|"]
    for v in variants:
        for b in busiest_links(v):
            lines.append(f"| {v['name']} | {b['link']} | {b['bandwidth_Bps'] * 8 / 1e9:.4g} | "
                         f"{b['bytes'] / 1e9:.4g} | {b['mean_utilisation']:.1%} | "
                         f"{b['peak_utilisation']:.1%} |")
    return lines
