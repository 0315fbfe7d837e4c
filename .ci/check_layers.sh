#!/usr/bin/env bash
# Checks that includes point down the layers only (docs/DESIGN.md, "Layers", rules 1 and 4):
#   kernels/ < runtime/ < sim/, net/ (side by side) < cli/
# and, inside runtime/, the order of the table LAYERS below. Every #include of the source files
# under kernels/ runtime/ sim/ net/ cli/ (*.h *.cc *.cu *.cuh) is read; tests/ and bench/ may
# include anything. A violation is printed as
#   file:line: #include <what>: rule broken
# and the script exits 1 if there is any (0 otherwise); exits 2 when a folder is missing.
#
# Usage: .ci/check_layers.sh [ROOT]    (ROOT defaults to this repository)
set -euo pipefail
root="${1:-$(cd "$(dirname "$0")/.." && pwd)}"
exec python3 - "$root" <<'PY'
import os
import re
import sys

root = sys.argv[1]
TOP = ("kernels", "runtime", "sim", "net", "cli")
EXTENSIONS = (".h", ".cc", ".cu", ".cuh")

# Inside runtime/, from the bottom: a file may include its own layer and the ones below.
# Each file of runtime/ must match one prefix (the first that matches wins): a new file or folder
# gets a line here, which is where its layer is decided.
LAYERS = [
    ("base", 0, ["runtime/message.", "runtime/codec.", "runtime/codec_", "runtime/frame_checksum.", "runtime/packed_values.", "runtime/errors.", "runtime/rng.", "runtime/job_layout.",
                 "runtime/metrics.", "runtime/byte_order.", "runtime/optimizer_state.", "runtime/wire_json.", "runtime/sha256_hex.",
                 "runtime/seconds_text.", "runtime/count_text.", "runtime/edit_distance."]),
    ("checkpoint", 1, ["runtime/checkpoint/"]),
    ("env", 2, ["runtime/env.", "runtime/span_scope."]),
    ("math and state", 3, ["runtime/data/", "runtime/model/", "runtime/optimizer.",
                           "runtime/consistency/", "runtime/partition.",
                           "runtime/hash_ring.", "runtime/key_placement."]),
    ("roles", 4, ["runtime/roles/"]),
    ("setup and results", 5, ["runtime/scenario/", "runtime/job_setup.", "runtime/job_resume.",
                              "runtime/job_checks.", "runtime/wire_limit_check.", "runtime/model_size_checks.", "runtime/memory_estimate.", "runtime/data_check.", "runtime/straggler_schedule.",
                              "runtime/output/"]),
]

SIMGRID = re.compile(r"^(simgrid|xbt|smpi)(/|\.h)")
ZEROMQ = re.compile(r"^zmq(\.h|\.hpp|_addon\.hpp|_utils\.h)$|^czmq")
CUDA = re.compile(r"^(cuda|cublas|curand|cusparse|cufft|cudnn|nvml|nvrtc|nccl|cooperative_groups)"
                  r"[^/]*\.h(pp)?$|^(thrust|cub|cuda|cooperative_groups|nv)/|^kernels/cuda/")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


def runtime_layer(path):
    for name, rank, prefixes in LAYERS:
        if any(path.startswith(p) for p in prefixes):
            return name, rank
    return None


def top_of(path):
    first = path.split("/", 1)[0]
    return first if first in TOP and "/" in path else None


def problems(rel, target):
    """The rules that `rel` including `target` breaks (an empty list when it breaks none)."""
    top, found = rel.split("/", 1)[0], []
    to = top_of(target)
    if top in ("kernels", "runtime"):
        if SIMGRID.search(target):
            found.append(f"{top}/ includes SimGrid (rule 1)")
        if ZEROMQ.search(target):
            found.append(f"{top}/ includes ZeroMQ (rule 1)")
        if CUDA.search(target) and top == "runtime":
            found.append("runtime/ includes CUDA (rule 1)")
        if CUDA.search(target) and top == "kernels" and not rel.startswith("kernels/cuda/"):
            found.append("kernels/ includes CUDA outside kernels/cuda/ (rule 3)")
        if to in ("sim", "net"):
            found.append(f"{top}/ includes {to}/: nothing below cli/ includes sim/ or net/ "
                         "(rule 4)")
        if to == "cli":
            found.append(f"{top}/ includes cli/, the top layer (rule 4)")
    if top == "kernels" and to == "runtime":
        found.append("kernels/ includes runtime/: kernels/ is the bottom layer (rule 4)")
    if top in ("sim", "net") and to == "cli":
        found.append(f"{top}/ includes cli/, the top layer (rule 4)")
    if top == "sim" and to == "net":
        found.append("sim/ includes net/: the two never include each other (rule 4)")
    if top == "sim" and ZEROMQ.search(target):
        found.append("sim/ includes ZeroMQ, which belongs to net/ (rule 4)")
    if top == "net" and to == "sim":
        found.append("net/ includes sim/: the two never include each other (rule 4)")
    if top == "net" and SIMGRID.search(target):
        found.append("net/ includes SimGrid, which belongs to sim/ (rule 4)")
    if top == "runtime" and to == "runtime":
        mine, theirs = runtime_layer(rel), runtime_layer(target)
        # A file without a layer is reported once, as a file, below.
        if mine is not None and theirs is not None and theirs[1] > mine[1]:
            found.append(f"runtime layer '{mine[0]}' includes layer '{theirs[0]}' above it "
                         "(rule 4; DESIGN.md, \"Layers\")")
    return found


violations, includes = [], 0
for top in TOP:
    base = os.path.join(root, top)
    if not os.path.isdir(base):
        print(f"check_layers: {base} does not exist", file=sys.stderr)
        sys.exit(2)
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames.sort()
        for name in sorted(filenames):
            if not name.endswith(EXTENSIONS):
                continue
            rel = os.path.relpath(os.path.join(dirpath, name), root)
            if top == "runtime" and runtime_layer(rel) is None:
                violations.append(f"{rel}:1: has no layer in .ci/check_layers.sh's LAYERS table "
                                  "(add its prefix to the layer it belongs to)")
            with open(os.path.join(dirpath, name), encoding="utf-8", errors="replace") as f:
                for number, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    includes += 1
                    bracket, target = m.group(1), m.group(2)
                    shown = f"<{target}>" if bracket == "<" else f'"{target}"'
                    for why in problems(rel, target):
                        violations.append(f"{rel}:{number}: #include {shown}: {why}")

for v in violations:
    print(v)
if violations:
    print(f"check_layers: {len(violations)} violations in {includes} includes", file=sys.stderr)
    sys.exit(1)
print(f"check_layers: all {includes} includes point down the layers")
PY
