#!/usr/bin/python3
"""link_utilisation.png of analysis/plot_runs.py on a simulate run with 2 servers (registered in
ctest as plot_scripts_smoke_links): under BSP both servers' links carry nearly the same load, and
a trial's figure drew server 1's lines exactly over server 0's. Each link must have a lane of its
own, no two drawn on one another. Exits 77 (ctest: skipped) when this python lacks matplotlib or
pandas.

Usage: plot_scripts_smoke_links.py PSTWIN_BINARY SOURCE_DIR WORK_DIR
"""

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
# (exits 77 when this python lacks matplotlib or pandas)
from plot_scripts_smoke import fresh_work, toy_scenario  # noqa: E402


def main():
    pstwin, source, work = fresh_work(sys.argv)
    (work / "s.json").write_text(toy_scenario(
        "two-servers", {"iterations": 40, "batch_size": 16, "learning_rate": 0.5, "eval_every": 10},
        [{"mode": "bsp"}], servers=2))
    out = work / "out"
    run = subprocess.run([pstwin, "simulate", str(work / "s.json"), "--quiet", "--out", str(out)],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    result = subprocess.run([sys.executable, str(source / "analysis/plot_runs.py"), str(out)],
                            capture_output=True, text=True)
    assert result.returncode == 0, f"exit {result.returncode}\n{result.stdout}\n{result.stderr}"
    assert (out / "link_utilisation.png").is_file(), result.stdout

    # The figure itself, kept open: plot_link_load with save() replaced by a capture.
    sys.path.insert(0, str(source / "analysis"))
    import link_load  # noqa: E402
    from run_data import load_run  # noqa: E402
    kept = []
    link_load.save = lambda fig, path: kept.append(fig) or path
    link_load.plot_link_load(load_run(out), out / "unused.png")
    lanes = [[line.get_label() for line in ax.get_lines() if line.get_label().startswith("link-")]
             for ax in kept[0].axes]
    drawn = [label for lane in lanes for label in lane]
    assert any("server-0" in label for label in drawn) and any("server-1" in label for label in drawn), drawn
    assert all(len(lane) <= 1 for lane in lanes), f"links drawn on one another: {lanes}"
    assert len(drawn) == len(set(drawn)), drawn
    print("ok")


if __name__ == "__main__":
    main()
