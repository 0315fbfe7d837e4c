"""Link utilisation of simulated runs: link_utilisation.png and report.md's "Busiest links".

`pstwin simulate` writes, per variant, link_load.csv (each used link's utilisation per time
window: SimGrid's link usage, which counts the modelled TCP acknowledgements of the reverse
direction too) and summary.json's "busiest_links" (the five most utilised links: share of their
capacity in use over the run). Launched runs have neither; a run without them gets no figure and
no section.
"""

import pandas as pd
from matplotlib.ticker import PercentFormatter

from plot_style import color_of, plt, save

TOP_LINKS = 5


# What a link is, from its "kind" in busiest_links (sim/link_load.h, kLinkKindProperty).
KIND_TEXT = {"nic": "NIC", "intra_host": "intra-host link (NVLink/PCIe)", "loopback": "loopback",
             "rack_uplink": "rack uplink"}


def busiest_links(variant):
    """summary.json's busiest_links of a variant, most utilised first ([] when the run has none).
    Sorted here too because an older pstwin ranked them by bytes, which put a fast link
    carrying many bytes (NVLink, 1.5% used) before the slow one that bounds the run (a NIC, 26.5%)."""
    links = variant["summary"].get("busiest_links") or []
    return sorted(links, key=lambda b: (-b["mean_utilisation"], -b["bytes"]))


def link_text(entry):
    """A link's name with what it is, where the summary says so: "link-machine-1_UP (NIC, out)".
    SimGrid names a link's two directions _UP (from the node towards the network) and _DOWN."""
    name = entry["link"]
    direction = "out" if name.endswith("_UP") else "in" if name.endswith("_DOWN") else None
    what = [t for t in (KIND_TEXT.get(entry.get("kind"), entry.get("kind")), direction) if t]
    return f"{name} ({', '.join(what)})" if what else name


def has_link_load(run):
    return any(busiest_links(v) and (v["folder"] / "link_load.csv").is_file() for v in run["variants"])


def plot_link_load(run, outpath):
    """A block per variant and in it a lane per busy link (the busiest first, at most TOP_LINKS):
    its utilisation over simulated time as a step line, in percent of its bandwidth, on a scale
    shared by the variant's lanes. A lane per link, not one panel for all, because links with the
    same load (every server's under BSP) drew over each other there and a trial's figure showed
    server 1's lines alone. A variant whose links stay far from full is scaled to its data, so
    that lightly loaded links still show; one that comes near full shows 0-100% with the full
    line dashed."""
    variants = [v for v in run["variants"] if busiest_links(v) and (v["folder"] / "link_load.csv").is_file()]
    lanes = []  # (variant, link, its rows, lane index within the variant)
    for v in variants:
        load = pd.read_csv(v["folder"] / "link_load.csv")
        used = [(b, load[load["link"] == b["link"]]) for b in busiest_links(v)[:TOP_LINKS]]
        lanes += [(v, b, rows, i) for i, (b, rows) in enumerate((b, r) for b, r in used if not r.empty)]
    fig, axes = plt.subplots(len(lanes), 1, figsize=(9, 0.95 * len(lanes) + 0.5 * len(variants) + 0.6),
                             sharex=True, squeeze=False, constrained_layout=True)
    for ax, (v, link, rows, i) in zip(axes[:, 0], lanes):
        label = f"{link_text(link)}: mean {link['mean_utilisation']:.1%}"
        peak = max(b["peak_utilisation"] for b in busiest_links(v)[:TOP_LINKS])
        top = 1.08 if peak > 0.6 else max(peak * 1.3, 1e-3)
        ax.step(rows["start_s"], rows["utilisation"], where="post", color=color_of(i), linewidth=1.0,
                label=label)
        if top > 1:
            ax.axhline(1.0, color="gray", linestyle="--", linewidth=0.8)
        ax.set_ylim(0, top)
        ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=None))
        ax.yaxis.set_major_locator(plt.MaxNLocator(2))
        ax.tick_params(axis="y", labelsize="x-small")
        ax.grid(alpha=0.3)
        ax.text(0.005, 0.93, label, transform=ax.transAxes, ha="left", va="top", fontsize="small",
                bbox={"facecolor": "white", "alpha": 0.85, "edgecolor": "none", "pad": 1})
        if i == 0:
            ax.set_title(f"{v['name']}: its most utilised links (mean over the run), utilisation of "
                         "each link's bandwidth",
                         loc="left", fontsize="medium")
    axes[-1, 0].set_xlabel("simulated time (s)")
    fig.suptitle(f"{run['scenario']}: link utilisation over time (SimGrid's link usage)")
    return save(fig, outpath)


def link_load_reading(run):
    """report.md's line for link_utilisation.png."""
    parts = [f"{v['name']}: {link_text(busiest_links(v)[0])} "
             f"(mean {busiest_links(v)[0]['mean_utilisation']:.0%}, "
             f"peak {busiest_links(v)[0]['peak_utilisation']:.0%})"
             for v in run["variants"] if busiest_links(v)]
    return ("Utilisation of each variant's most utilised links over time, a lane per link; the "
            "most utilised: " + "; ".join(parts) + ".")


def busiest_links_section(run):
    """report.md's "Busiest links" section: per variant, its most utilised links, as the figure."""
    variants = [v for v in run["variants"] if busiest_links(v)]
    if not variants:
        return []
    lines = ["", "## Busiest links", "",
             "Each variant's most utilised links (mean share of the link's bandwidth in use over "
             "the run, the order of link_utilisation.png), the bytes each carried (SimGrid's link "
             "usage, TCP acknowledgements included) and its busiest window's utilisation.", "",
             "| variant | link | bandwidth (Gbps) | GB carried | mean utilisation | peak utilisation |",
             "|---|---|---|---|---|---|"]
    for v in variants:
        for b in busiest_links(v):
            lines.append(f"| {v['name']} | {link_text(b)} | {b['bandwidth_Bps'] * 8 / 1e9:.4g} | "
                         f"{b['bytes'] / 1e9:.4g} | {b['mean_utilisation']:.1%} | "
                         f"{b['peak_utilisation']:.1%} |")
    return lines
