"""The compression benchmark's table and figure (bench/compression.sh).

usage: /usr/bin/python3 analysis/plot_compression.py OUT

Reads OUT/a9a/ and OUT/fmnist/ (pstwin simulate outputs whose variants are named
FORMAT-BANDWIDTH, e.g. "int8-1Gbps"), prints a Markdown table (bytes the workers sent to the
servers, final test accuracy, simulated time to target and in all) and writes OUT/compression.csv
and OUT/compression_accuracy_vs_bytes.png: test accuracy against the bytes sent so far, at 1 Gbps.
The bytes at clock c are the run's total times c / its last clock: every clock sends the same
message sizes (each format's size depends only on the number of values).
"""

import sys
from pathlib import Path

import pandas as pd

from plot_style import color_of, legend_below, plt, save

DATASETS = [("a9a", "a9a, logistic regression"), ("fmnist", "Fashion-MNIST, softmax regression")]
FORMATS = ["none", "fp16", "bf16", "int8", "onebit", "topk"]


def main(out):
    out = Path(out)
    rows = []
    for data, _ in DATASETS:
        comparison = pd.read_csv(out / data / "comparison.csv", dtype={"variant": str})
        for _, r in comparison.iterrows():
            fmt, link = r["variant"].rsplit("-", 1)
            rows.append({"data": data, "link": link, "format": fmt,
                         "bytes_to_servers": int(r["bytes_to_servers"]),
                         "final_test_metric": r["last_test_metric"],  # every run completed
                         "time_to_target_s": r["time_to_target_s"], "sim_time_s": r["sim_time_s"]})
    table = pd.DataFrame(rows)
    table.to_csv(out / "compression.csv", index=False)
    print("| data | link | push format | bytes to servers | vs none | final accuracy | time to target (s) | run time (s) |")
    print("|---|---|---|---:|---:|---:|---:|---:|")
    for (data, link), group in table.groupby(["data", "link"], sort=False):
        plain = group[group["format"] == "none"]["bytes_to_servers"].iloc[0]
        for _, r in group.iterrows():
            ttt = "-" if pd.isna(r["time_to_target_s"]) else f"{r['time_to_target_s']:.3f}"
            print(f"| {data} | {link} | {r['format']} | {r['bytes_to_servers'] / 1e6:.2f} MB | "
                  f"{r['bytes_to_servers'] / plain:.3f} | {r['final_test_metric']:.4f} | {ttt} | "
                  f"{r['sim_time_s']:.3f} |")

    fig, axes = plt.subplots(1, len(DATASETS), figsize=(11, 4.2))
    handles = []
    for ax, (data, title) in zip(axes, DATASETS):
        for i, fmt in enumerate(FORMATS):
            folder = out / data / f"{fmt}-1Gbps"
            m = pd.read_csv(folder / "metrics.csv")
            m = m[m["test_metric"].notna() & (m["clock"] > 0)]  # clock 0 sent nothing: off a log axis
            total = table[(table["data"] == data) & (table["link"] == "1Gbps") &
                          (table["format"] == fmt)]["bytes_to_servers"].iloc[0]
            last = m["clock"].max()
            x = m["clock"] / last * total / 1e6
            # fp16 and bf16 send the same bytes and land on nearly the same accuracy: fp16 is
            # dashed with open markers so that it shows under bf16.
            dashed = fmt == "fp16"
            line, = ax.plot(x, m["test_metric"], marker="o", markersize=5 if dashed else 3,
                            linestyle="--" if dashed else "-", markerfacecolor="none" if dashed else None,
                            color=color_of(i), label=fmt if fmt != "topk" else "topk 1% + error feedback")
            if ax is axes[0]:
                handles.append(line)
        ax.set_xscale("log")
        ax.set_xlabel("MB sent by the workers to the servers (log scale)")
        ax.set_ylabel("test accuracy")
        ax.set_title(title + ", BSP, 1 Gbps")
        ax.grid(True, alpha=0.3)
    legend_below(fig, handles, ncol=6)
    print(save(fig, out / "compression_accuracy_vs_bytes.png"))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
