"""Runs a sweep file of examples/sweeps/ with cosim-sweep and reads its results.csv: the study
scripts (scripts/robotino_study.py, scripts/omniwheel_study.py) lay these rows out as tables."""

import csv
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def sweep(bin_dir, work, name, caller):
    """Runs examples/sweeps/<name>.json into work/<name>; its results.csv rows (dicts, in id
    order). Exits naming `caller` and cosim-sweep's error line when the study fails."""
    out = os.path.join(work, name)
    spec = os.path.join(ROOT, "examples", "sweeps", f"{name}.json")
    done = subprocess.run([os.path.join(bin_dir, "cosim-sweep"), spec, "-o", out], capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{caller}: cosim-sweep {spec} failed (exit {done.returncode}): {done.stderr.strip()}")
    with open(os.path.join(out, "results.csv"), newline="") as f:
        return list(csv.DictReader(f))
