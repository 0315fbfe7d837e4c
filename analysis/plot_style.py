"""Look shared by the pstwin figures: colours, figure saving, legends that never cover data.

Imported by plot_runs.py, plot_sweep.py and their modules (all in analysis/). Sets matplotlib's
Agg backend, so no display is needed.
"""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


# tab10, then the 40 shades of tab20b and tab20c: 50 distinct colours before one repeats (a
# sweep or a scenario with many variants ran out of tab10's ten).
_PALETTE = ([plt.get_cmap("tab10")(i) for i in range(10)]
            + [plt.get_cmap(name)(i) for name in ("tab20b", "tab20c") for i in range(20)])


def color_of(index):
    """The colour of the index-th variant: 50 distinct ones, then they repeat."""
    return _PALETTE[index % len(_PALETTE)]


def width_of(index, count):
    """The line width of the index-th of `count` curves on one axes: earlier curves get wider
    lines, so curves that coincide stay visible as stripes; the widest stays under 9 points
    however many there are (a dozen buried the axes)."""
    step = min(1.2, 7.5 / max(count - 1, 1))
    return 1.5 + step * (count - 1 - index)


def save(fig, outpath):
    """Lays out `fig`, writes it as a 120-dpi PNG at `outpath` and returns the path."""
    fig.savefig(outpath, dpi=120, bbox_inches="tight")
    plt.close(fig)
    return outpath


def legend_below(fig, handles, ncol=4):
    """One legend for the whole figure, below its panels (save() widens the PNG to hold it),
    so that it never covers a curve. `handles` carry their labels."""
    if handles:
        # As many columns as fit the figure's width at the longest label (about 6 points a
        # character, plus the line sample), so that many variants make the legend taller rather
        # than wider than the panels; a smaller font from a dozen entries on.
        many = len(handles) > 12
        longest = max(len(h.get_label()) for h in handles)
        fit = int(fig.get_figwidth() * 72 / (longest * (5.5 if many else 6.5) + 40))
        fig.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0.0),
                   ncol=max(1, min(ncol, fit, len(handles))), frameon=False,
                   fontsize="small" if many else None)
