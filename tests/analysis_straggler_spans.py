#!/usr/bin/python3
"""analysis/event_marks.py's straggler spans of a stopped variant (registered in ctest as
analysis_straggler_spans), on hand-made variants: a stop cuts events.jsonl, so a straggler's end
event may be missing although it lasted one iteration. A trial's stragglers.png drew such a
one-iteration straggler from its start to the stop, 0.86 s. Exits 77 (ctest: skipped) when this
python lacks pandas.

Usage: analysis_straggler_spans.py SOURCE_DIR
"""

import sys
from pathlib import Path

try:
    import pandas as pd
except ImportError:
    print("skipped: /usr/bin/python3 has no pandas")
    sys.exit(77)

sys.path.insert(0, str(Path(sys.argv[1]) / "analysis"))
from event_marks import straggler_spans  # noqa: E402


def variant(stopped, events):
    # Evaluations at clocks 0, 10, 20 at 0.0, 0.1, 0.2 s: 0.01 s per clock. Stopped at 0.9 s.
    metrics = pd.DataFrame({"clock": [0, 10, 20], "time_s": [0.0, 0.1, 0.2]})
    return {"summary": {"sim_time_s": 0.9}, "metrics": metrics, "events": events, "stopped": stopped}


def main():
    events = [
        {"type": "straggler_start", "worker": 2, "kind": "transient", "iterations": 3, "time_s": 0.15},
        {"type": "straggler_start", "worker": 1, "kind": "slow", "time_s": 0.05},  # slow to the end
        {"type": "straggler_start", "worker": 0, "kind": "transient", "iterations": 1, "time_s": 0.02},
        {"type": "straggler_end", "worker": 0, "kind": "transient", "time_s": 0.031},
    ]
    spans = {(w, k): (round(a, 6), round(b, 6)) for w, a, b, k in straggler_spans(variant(True, events))}
    # Three iterations of 0.01 s from 0.15 s, not to the stop at 0.9 s.
    assert spans[(2, "transient")] == (0.15, 0.18), spans
    assert spans[(1, "slow")] == (0.05, 0.9), spans  # no length given: to the end
    assert spans[(0, "transient")] == (0.02, 0.031), spans  # its own end event
    # A variant that completed lost no event: an open span lasts to its end, as before.
    spans = {(w, k): (round(a, 6), round(b, 6)) for w, a, b, k in straggler_spans(variant(False, events))}
    assert spans[(2, "transient")] == (0.15, 0.9), spans
    print("ok")


if __name__ == "__main__":
    main()
