"""Look shared by the pstwin figures: colours, figure saving, legends that never cover data.

Imported by plot_runs.py, plot_sweep.py and their modules (all in analysis/). Sets matplotlib's
Agg backend, so no display is needed.
"""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def color_of(index):
    """The colour of the index-th variant (tab10, repeating after 10)."""
    return plt.get_cmap("tab10")(index % 10)


def save(fig, outpath):
    """Lays out `fig`, writes it as a 120-dpi PNG at `outpath` and returns the path."""
    fig.savefig(outpath, dpi=120, bbox_inches="tight")
    plt.close(fig)
    return outpath


def legend_below(fig, handles, ncol=4):
    """One legend for the whole figure, below its panels (save() widens the PNG to hold it),
    so that it never covers a curve. `handles` carry their labels."""
    if handles:
        fig.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0.0),
                   ncol=min(ncol, len(handles)), frameon=False)
