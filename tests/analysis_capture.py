"""Shared by the tests/analysis_*.py tests: imports analysis/ from SOURCE_DIR (argv[1]), exits 77
(ctest: skipped) when this python lacks matplotlib or pandas, and keeps the figures the analysis
modules draw (their save() replaced) so that tests can read titles, labels, texts and lines."""

import sys
from pathlib import Path

try:
    import matplotlib  # noqa: F401
    import pandas  # noqa: F401
except ImportError:
    print("skipped: /usr/bin/python3 has no matplotlib or pandas")
    sys.exit(77)

sys.path.insert(0, str(Path(sys.argv[1]) / "analysis"))

FIGURES = []


def keep_figures(*modules):
    """Replaces each module's save(fig, outpath) by one that keeps the figure in FIGURES."""
    def keep(fig, outpath):
        fig.canvas.draw()  # lays it out, as savefig would
        FIGURES.append(fig)
        return outpath
    for m in modules:
        m.save = keep


def texts(fig):
    """Every text a figure shows: suptitle, axes' titles, labels, tick labels, texts, annotations
    and legend entries."""
    out = [fig._suptitle.get_text()] if fig._suptitle else []
    for ax in fig.axes:
        out += [ax.get_title(), ax.get_title(loc="left"), ax.get_xlabel(), ax.get_ylabel()]
        out += [t.get_text() for t in ax.get_xticklabels() + ax.texts]
    for legend in fig.legends:
        out += [t.get_text() for t in legend.get_texts()]
    return out
