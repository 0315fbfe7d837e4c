#!/usr/bin/env bash
# Bytes sent and time to target for each compressor (README, "Compression"), simulated on a9a
# (logistic regression, 124 parameters) and Fashion-MNIST (softmax regression, 7,850 parameters),
# 8 workers and 2 servers, BSP, with every link at 1 Gbps and at 25 Gbps. Pushes are compressed
# as named (topk: 1% with error feedback); pulls are not. Prints one table row per run and writes
# OUT/compression.csv and the figure OUT/compression_accuracy_vs_bytes.png (test accuracy against
# the bytes the workers sent to the servers, at 1 Gbps).
#
# usage: bench/compression.sh [OUT]    (needs build/cli/pstwin, ../shared/data/a9a and Debian's
#                                       dataset-fashion-mnist; OUT defaults to runs/compression)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-build/cli/pstwin}
OUT=${1:-runs/compression}
[ -x "$BIN" ] || { echo "no $BIN: build first" >&2; exit 2; }
mkdir -p "$OUT"
root=$(pwd)

variants() {  # the 12 runs: 6 push formats x 2 link speeds
  /usr/bin/python3 - <<'PY'
import json
runs = []
for bw in ("1Gbps", "25Gbps"):
    for name, push in [("none", None), ("fp16", {"format": "fp16"}), ("bf16", {"format": "bf16"}),
                       ("int8", {"format": "int8"}), ("onebit", {"format": "onebit"}),
                       ("topk", {"format": "topk", "ratio": 0.01})]:
        link = {"bandwidth": bw, "latency": "50us"}
        s = {"/cluster/worker/link": link, "/cluster/server/link": link}
        if push:
            s["/compression"] = {"push": push}
        runs.append({"name": f"{name}-{bw}", "consistency": {"mode": "bsp"}, "set": s})
print(json.dumps(runs))
PY
}
runs=$(variants)
link='{"bandwidth": "1Gbps", "latency": "50us"}'

cat >"$OUT/a9a.json" <<JSON
{"name": "a9a-compression", "seed": 1,
 "data": {"format": "libsvm", "train": "$root/../shared/data/a9a/a9a", "test": "$root/../shared/data/a9a/a9a.t"},
 "model": {"type": "logistic", "l2": 1e-5},
 "training": {"iterations": 300, "batch_size": 128, "learning_rate": 0.5, "eval_every": 20, "target_metric": 0.84},
 "cluster": {"workers": 8, "servers": 2, "worker": {"device": "cpu", "link": $link},
             "server": {"device": "cpu", "link": $link}},
 "variants": $runs}
JSON
cat >"$OUT/fmnist.json" <<JSON
{"name": "fmnist-compression", "seed": 1,
 "data": {"format": "idx",
          "train": "/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz",
          "train_labels": "/usr/share/datasets/fashion-mnist/train-labels-idx1-ubyte.gz",
          "test": "/usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz",
          "test_labels": "/usr/share/datasets/fashion-mnist/t10k-labels-idx1-ubyte.gz",
          "train_eval_rows": 1000},
 "model": {"type": "softmax", "l2": 1e-4},
 "training": {"iterations": 400, "batch_size": 64, "learning_rate": 0.1, "eval_every": 20, "target_metric": 0.80},
 "cluster": {"workers": 8, "servers": 2, "worker": {"device": "v100", "link": $link},
             "server": {"device": "cpu", "link": $link}},
 "variants": $runs}
JSON

for data in a9a fmnist; do
  "$BIN" simulate "$OUT/$data.json" --quiet --out "$OUT/$data" >"$OUT/$data.log" 2>&1 ||
    { echo "simulate $data failed:"; cat "$OUT/$data.log"; exit 1; }
done
/usr/bin/python3 analysis/plot_compression.py "$OUT"
