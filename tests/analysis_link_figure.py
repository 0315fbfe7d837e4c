#!/usr/bin/python3
"""analysis/link_load.py on a hand-made hybrid variant (ctest analysis_link_figure): its summary
lists the links by bytes, as pstwin did before: five NVLink links first (most bytes, 1.5% of
their bandwidth), the servers' NICs (26.5%, the bottleneck) after. A trial's
link_utilisation.png drew the five NVLink lanes and none of the NICs, and named
link-worker-15_UP as if it were a NIC. The figure and report.md's table must show the most
utilised links first, in the same order, each named with what it is.

Usage: analysis_link_figure.py SOURCE_DIR WORK_DIR
"""

import json
import sys
from pathlib import Path

from analysis_capture import FIGURES, keep_figures
import link_load  # noqa: E402
from run_data import load_run  # noqa: E402

NVLINK, NIC = 900e9, 12.5e9  # bytes per second: nvlink4, 100 Gbit/s


def entry(link, kind, bandwidth, utilisation, end_s=1.0):
    return {"link": link, "kind": kind, "bandwidth_Bps": bandwidth, "bytes": utilisation * bandwidth * end_s,
            "mean_utilisation": utilisation, "peak_utilisation": min(1.0, 2 * utilisation)}


def main():
    keep_figures(link_load)
    folder = Path(sys.argv[2]) / "hybrid"
    folder.mkdir(parents=True, exist_ok=True)
    nvlinks = [entry(f"link-worker-{w}_UP", "intra_host", NVLINK, 0.0152 - 0.00001 * w) for w in range(8, 13)]
    nics = [entry("link-server-0_DOWN", "nic", NIC, 0.265), entry("link-machine-1_UP", "nic", NIC, 0.2)]
    # An older summary: by bytes, NVLink first (13.5 GB each against 3.3 GB).
    summary = {"variant": "hybrid", "scenario": "hybrid-8gpu", "sim_time_s": 1.0,
               "busiest_links": nvlinks + nics}
    (folder / "summary.json").write_text(json.dumps(summary))
    (folder / "metrics.csv").write_text("time_s,clock,updates,train_loss,test_loss,test_metric,"
                                        "staleness_mean,staleness_max\n0.5,10,80,,,,0,0\n1.0,20,160,,,,0,0\n")
    rows = ["link,bandwidth_Bps,start_s,end_s,utilisation"]
    for b in nvlinks + nics:
        rows += [f"{b['link']},{b['bandwidth_Bps']},{t / 2},{t / 2 + 0.5},{b['mean_utilisation']}" for t in (0, 1)]
    (folder / "link_load.csv").write_text("\n".join(rows) + "\n")
    run = load_run(folder)
    link_load.plot_link_load(run, folder / "link_utilisation.png")
    lanes = [t.get_text() for ax in FIGURES[-1].axes for t in ax.texts]
    assert lanes == ["link-server-0_DOWN (NIC, in): mean 26.5%", "link-machine-1_UP (NIC, out): mean 20.0%",
                     "link-worker-8_UP (intra-host link (NVLink/PCIe), out): mean 1.5%",
                     "link-worker-9_UP (intra-host link (NVLink/PCIe), out): mean 1.5%",
                     "link-worker-10_UP (intra-host link (NVLink/PCIe), out): mean 1.5%"], lanes
    table = [line.split(" | ")[1] for line in link_load.busiest_links_section(run) if line.startswith("| hybrid")]
    assert table[:5] == [t.split(": mean")[0] for t in lanes], table  # the report's order is the figure's
    assert "link-server-0_DOWN (NIC, in) (mean 26%" in link_load.link_load_reading(run)
    print("ok")


if __name__ == "__main__":
    main()
