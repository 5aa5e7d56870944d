#!/usr/bin/env python3
"""Studies of the robotino backend (seed 000) for MODEL.md: every figure there comes from here.

    scripts/robotino_study.py [--bin build/bin] [--out DIR] STUDY...

STUDY is one or more of
  gains        plain-PID gain sweep in the seed-literal configuration (why the gains are what they are)
  start        start conditions and voltage limit: what the seed's Fig. 26c needs
  convergence  max difference to a run at tolerance 1e-12 for tolerances 1e-4 ... 1e-10
  transient    start from rest: peak current, overshoot, settling, remaining offset
  sensitivity  deviation against the assumed mass, yaw inertia, r_max and the gains
  mujoco       the Robotino in MuJoCo (scenes/robotino/mujoco/robotino.xml, issue 12) against
               the robotino backend: path difference, wall time, MuJoCo steps/s, and how the
               difference moves with MuJoCo's settings (about 4 minutes; not part of `all`)
  all          everything but mujoco (about 3 minutes on 2 cores)

Each run is `cosim-dynamics --backend robotino --channel none` over the 50 s rose at output
0.02 s; the peaks of the drives, the end of saturation, overshoot and settling come from the same
configuration run again at a fine output step (10 us over the first 0.6 s, then 1 ms): the 0.02 s
grid misses the start transients. Deviations are max |X - X_ref|, |Y - Y_ref|, |phi - phi_ref|
for t >= 5 s (after the initial transient, as seed 000 Fig. 26c), as `cosim-report --json
RUN_DIR` computes them (its "deviation").

convergence and sensitivity are sweep files (examples/sweeps/robotino_convergence.json,
robotino_sensitivity_seed.json, robotino_sensitivity.json) run by cosim-sweep, whose metrics
(differences to the run at 1e-12, peaks, energies) are the sweep's own: this script lays their
results.csv out. What a sweep cannot express (the drives at a fine output step over the start
only, the start transient's overshoot and settling, MuJoCo models made by cosim-robotino-mjcf)
is computed here from dynamics.csv. Prints Markdown tables.
"""

import argparse
import csv
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from sweep_results import sweep  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SEED_PARAMS = os.path.join(ROOT, "scenes", "robotino", "params", "seed000.params")
# The report's deviation.after_s (checked in deviation()); the tables name it, and the MuJoCo
# study cuts its run-against-run differences there too.
TRANSIENT_END_S = 5.0

# Peaks and the end of saturation are read at a fine output step, not off the 0.02 s grid: the
# start transients peak within milliseconds (the preset 0.19 A at 0.37 ms, from rest 3.88 A at
# 6.8 ms) and the current kicks after roller switches fall between samples. The first
# FINE_START_S (the start transients end by 0.29 s) at FINE_START_STEP_S: peaks within 0.05 % of
# a 1e-6 s step. The whole run at FINE_STEP_S: on the rose within 0.2 % of a 1e-4 s step. The
# output step does not change the solution (IDA's steps are its own, outputs are interpolated: the
# DAE states are bitwise the same; only the quadratures, split at outputs, differ by rounding).
FINE_START_S = 0.6
FINE_START_STEP_S = 1e-5
FINE_STEP_S = 1e-3
DRIVE_COLUMNS = tuple(f"{name}{i}{unit}" for name, unit in (("i", "_A"), ("u", "_V"), ("saturated", ""),
                                                            ("omega", "_rad_per_s"), ("omega_ref", "_rad_per_s"))
                      for i in (1, 2, 3))

# Motor and load of one drive for the gain formulas (MODEL.md §2): the closed loop of one drive
# is La·J·s³ + (Ra·J + kt·Kd)·s² + kt·(ke + Kp)·s + kt·Ki with J the effective motor-side inertia.
LA_H, RA_OHM, KT, KE, J_KG_M2 = 8.9e-3, 5.95, 0.0514, 0.0514, 4e-5


def triple_pole_gains(p):
    """Kp, Ki, Kd placing the three closed-loop poles of one drive at -p [1/s]."""
    a = LA_H * J_KG_M2
    return {
        "pid_kp_V_s_per_rad": a * 3 * p * p / KT - KE,
        "pid_ki_V_per_rad": a * p**3 / KT,
        "pid_kd_V_s2_per_rad": (a * 3 * p - RA_OHM * J_KG_M2) / KT,
    }


class Runner:
    def __init__(self, bin_dir, work, keep):
        self.exe = os.path.join(bin_dir, "cosim-dynamics")
        self.report = os.path.join(bin_dir, "cosim-report")
        self.work = work
        self.keep = keep
        self.count = 0

    def run(self, params=None, seed=False, duration=50.0, mujoco_model=None, output_step=None, columns=None,
            t_after=None):
        """Runs one configuration; returns the columns of dynamics.csv, the wall time and the run
        folder (for metrics()). With mujoco_model, the mujoco backend on that model with the
        robotino scene. With columns (the fine runs), only those and t_s, only the samples after
        t_after, and dynamics.csv is removed unless the runs are kept (--out)."""
        self.count += 1
        out = os.path.join(self.work, f"run{self.count}")
        backend = ["--backend", "robotino"]
        if mujoco_model:
            backend = ["--backend", "mujoco", "--param", f"model={mujoco_model}",
                       "--scene", os.path.join(ROOT, "scenes", "robotino")]
        cmd = [self.exe, *backend, "--channel", "none", "--out", out, "-q", "--duration", str(duration)]
        if output_step:
            cmd += ["--output-step", repr(output_step)]
        if seed:
            cmd += ["--params", SEED_PARAMS]
        for key, value in (params or {}).items():
            cmd += ["--param", f"{key}={value!r}" if isinstance(value, float) else f"{key}={value}"]
        start = time.monotonic()
        done = subprocess.run(cmd, capture_output=True, text=True)
        wall = time.monotonic() - start
        if done.returncode != 0:
            return {"error": done.stderr.strip().splitlines()[-1] if done.stderr else f"exit {done.returncode}"}
        path = os.path.join(out, "dynamics.csv")
        with open(path, newline="") as f:
            reader = csv.reader(f)
            head = next(reader)
            if columns is None:
                rows = list(reader)
                cols = {name: [float(r[i]) for r in rows] for i, name in enumerate(head)}
            else:
                index = [head.index(name) for name in ("t_s", *columns)]
                cols = {name: [] for name in ("t_s", *columns)}
                for row in reader:
                    if t_after is not None and not float(row[0]) > t_after:
                        continue
                    for name, i in zip(cols, index):
                        cols[name].append(float(row[i]))
        if columns is not None and not self.keep:
            os.remove(path)
        cols["wall_s"] = wall
        cols["run_dir"] = out
        return cols

    def metrics(self, cols):
        """`cosim-report --json` of the run of cols (docs/design.md lists its keys), read once."""
        if "metrics" not in cols:
            cmd = [self.report, "--json", cols["run_dir"]]
            done = subprocess.run(cmd, capture_output=True, text=True)
            if done.returncode != 0:
                said = done.stderr.strip().splitlines()
                sys.exit(f"robotino_study: {' '.join(cmd)} failed (exit {done.returncode})"
                         + (f": {said[-1]}" if said else ""))
            try:
                cols["metrics"] = json.loads(done.stdout)
            except json.JSONDecodeError as e:
                sys.exit(f"robotino_study: {' '.join(cmd)} printed invalid JSON: {e}")
            if not isinstance(cols["metrics"], dict):
                sys.exit(f"robotino_study: {' '.join(cmd)} printed JSON that is not an object")
        return cols["metrics"]

    def many(self, jobs):
        with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            return list(pool.map(lambda job: self.run(**job), jobs))

    def fine_jobs(self, job):
        """The two runs of a job's drives at the fine output step: the start, then the rest."""
        return [dict(job, output_step=step, columns=DRIVE_COLUMNS, **extra)
                for step, extra in ((FINE_START_STEP_S, {"duration": FINE_START_S}),
                                    (FINE_STEP_S, {"t_after": FINE_START_S}))]

    def many_with_drives(self, jobs):
        """Runs each job, and its drives again at the fine output step: [(columns, fine drive
        columns or the failed run)]."""
        results = self.many([*jobs, *(run for job in jobs for run in self.fine_jobs(job))])
        joined = []
        for k, cols in enumerate(results[:len(jobs)]):
            start, rest = results[len(jobs) + 2 * k], results[len(jobs) + 2 * k + 1]
            joined.append((cols, join_fine(start, rest)))
        return joined


def join_fine(start, rest):
    """The two fine runs of one job joined (or the one that failed)."""
    failed = start if "error" in start else rest if "error" in rest else None
    return failed or {name: start[name] + rest[name] for name in ("t_s", *DRIVE_COLUMNS)}


def fine_drives(r, job):
    """A job's drives at the fine output step."""
    return join_fine(*r.many(r.fine_jobs(job)))


def after(cols, name, t_from=TRANSIENT_END_S):
    return [v for t, v in zip(cols["t_s"], cols[name]) if t >= t_from]


def peak(values):
    return max(abs(v) for v in values)


def deviation(r, cols):
    """Max |X - X_ref|, |Y - Y_ref|, |phi - phi_ref| after the transient, from the report."""
    dev = r.metrics(cols).get("deviation") or {}
    values = tuple(dev.get(k) for k in ("max_x_m", "max_y_m", "max_phi_rad"))
    if dev.get("after_s") != TRANSIENT_END_S or any(not isinstance(v, (int, float)) for v in values):
        sys.exit(f"robotino_study: cosim-report --json {cols['run_dir']}: no deviation from the reference "
                 f"after {TRANSIENT_END_S:g} s (its \"deviation\": {json.dumps(dev)})")
    return values


# Peaks of the drives' voltages and currents: outputs of the robotino backend that the report
# does not summarise (it reports delays, probe differences, the deviation and speed errors).
def peak_wheels(cols, prefix, suffix):
    return max(peak(cols[f"{prefix}{i}{suffix}"]) for i in (1, 2, 3))


def peak_at(fine, prefix, suffix):
    """Largest |value| of the three drives and its first time, from the fine samples."""
    best = (0.0, 0.0)
    for i in (1, 2, 3):
        for t, v in zip(fine["t_s"], fine[f"{prefix}{i}{suffix}"]):
            if abs(v) > best[0]:
                best = (abs(v), t)
    return best


def when(t):
    return f"{t * 1e3:.2g} ms" if t < 0.1 else f"{t:.2g} s"


def peak_cell(fine, prefix, suffix, unit=""):
    if "error" in fine:
        return "fails: " + fine["error"][:40]
    value, t = peak_at(fine, prefix, suffix)
    return f"{value:.3g}{unit} at {when(t)}"


def g(x):
    return f"{x:.2g}" if x != 0 else "0"


def table(header, rows):
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for r in rows:
        print("| " + " | ".join(r) + " |")
    print()


def dev_cells(r, cols):
    if "error" in cols:
        return ["fails: " + cols["error"][:60], "", ""]
    return [g(v) for v in deviation(r, cols)]


def study_gains(r, tol):
    print(f"### Gain sweep: seed-literal configuration, tolerances {tol:g}\n")
    poles = [600, 1000, 1500, 2000, 2500, 3000]
    jobs = [dict(params={**triple_pole_gains(p), "solver_rtol": tol, "solver_atol": tol}, seed=True)
            for p in poles]
    rows = []
    for p, (cols, fine) in zip(poles, r.many_with_drives(jobs)):
        k = triple_pole_gains(p)
        rows.append([f"{p}", g(k["pid_kp_V_s_per_rad"]), g(k["pid_ki_V_per_rad"]), g(k["pid_kd_V_s2_per_rad"]),
                     *dev_cells(r, cols), peak_cell(fine, "u", "_V"), peak_cell(fine, "i", "_A")])
    table(["poles −p [1/s]", "Kp [V·s/rad]", "Ki [V/rad]", "Kd [V·s²/rad]", "max \\|ΔX\\| [m]", "max \\|ΔY\\| [m]",
           "max \\|Δφ\\| [rad]", "peak \\|u\\| [V]", "peak \\|i\\| [A]"], rows)


def study_start(r, tol):
    print(f"### Start and voltage limit, seed-literal gains, tolerances {tol:g}\n")
    base = {"solver_rtol": tol, "solver_atol": tol}
    rest = {"start_moving": 0}
    no_aw = {"pid_antiwindup_time_s": 0}
    ideal = {"motor_voltage_limit_V": 1000, **no_aw}
    cases = [
        ("on the reference velocity (preset)", {}),
        ("at rest, 24 V, anti-windup (T_t = 2 ms)", rest),
        ("at rest, 24 V, no anti-windup", {**rest, **no_aw}),
        ("at rest, 1000 V, no anti-windup", {**rest, **ideal}),
        ("at rest, 24 V, no anti-windup, measured heading", {**rest, **no_aw, "pid_reference_heading": 0}),
        ("at rest, 1000 V, no anti-windup, measured heading", {**rest, **ideal, "pid_reference_heading": 0}),
    ]
    results = r.many_with_drives([dict(params={**base, **extra}, seed=True) for _, extra in cases])
    rows = [[name, *dev_cells(r, cols), peak_cell(fine, "u", "_V"), peak_cell(fine, "i", "_A")]
            for (name, _), (cols, fine) in zip(cases, results)]
    table(["start", "max \\|ΔX\\| [m]", "max \\|ΔY\\| [m]", "max \\|Δφ\\| [rad]", "peak \\|u\\| [V]", "peak \\|i\\| [A]"], rows)


def sweep_dev_cells(row):
    if row["status"] != "ok":
        return ["fails: " + row["error"][:60], "", ""]
    return [g(float(row[k])) for k in ("max_dev_x_m", "max_dev_y_m", "max_dev_phi_rad")]


def study_convergence(r, bin_dir):
    # examples/sweeps/robotino_convergence.json: both configurations at each tolerance, each
    # point's differences to its configuration's run at 1e-12 computed by the sweep, sample by
    # sample. Only the converged peaks at the fine output step (a sampling a sweep has not) are
    # run here.
    rows = sweep(bin_dir, r.work, "robotino_convergence", "robotino_study")
    half = len(rows) // 2
    for seed, label, group in ((True, "seed-literal configuration", rows[:half]),
                               (False, "default configuration", rows[half:])):
        print(f"### Convergence: {label}, difference to tolerances 1e-12 (max over the 50 s)\n")
        ref = group[-1]
        if ref["status"] != "ok":
            sys.exit(f"robotino_study: the converged run {ref['id']} failed: {ref['error']}")
        ref_fine = fine_drives(r, dict(params={"solver_rtol": 1e-12, "solver_atol": 1e-12}, seed=seed))
        # The differences are taken on the 0.02 s samples: in % of the largest value on those
        # samples (the rose's scale, as RobotinoConvergence asks); the converged peaks below are the fine ones.
        i_peak, u_peak, e_ref = (float(ref[k]) for k in ("current_peak_A", "voltage_peak_V", "energy_in_J"))
        table_rows = []
        for row in group[:-1]:
            tol = f"{float(row['solver_rtol']):g}"
            if row["status"] != "ok":
                table_rows.append([tol, "fails: " + row["error"][:50]] + [""] * 7)
                continue
            di, du, e_in = float(row["current_diff_A"]), float(row["voltage_diff_V"]), abs(float(row["energy_in_diff_J"]))
            table_rows.append([tol, g(float(row["pose_diff_m"])), g(float(row["phi_diff_rad"])),
                               f"{g(di)} ({100 * di / i_peak:.2g} %)", f"{g(du)} ({100 * du / u_peak:.2g} %)",
                               f"{g(e_in)} ({100 * e_in / abs(e_ref):.2g} %)", g(abs(float(row["balance_residual_J"]))),
                               f"{float(row['contact_samples_wrong']):.0f}", f"{float(row['wall_s']):.2f}"])
        table(["tolerance", "pose [m]", "φ [rad]", "currents [A]", "voltages [V]", "energy in [J]",
               "balance residual [J]", "contact samples wrong", "wall [s]"], table_rows)
        print(f"Converged (1e-12): peak \\|i\\| {peak_cell(ref_fine, 'i', '_A', ' A')}, peak \\|u\\| "
              f"{peak_cell(ref_fine, 'u', '_V', ' V')} (fine output step); currents and voltages "
              f"in % of their largest \\|·\\| on the 0.02 s samples compared, {g(i_peak)} A and {g(u_peak)} V; "
              f"energy in {g(e_ref)} J, deviation after 5 s: "
              f"{', '.join(sweep_dev_cells(ref))} (m, m, rad).\n")


def study_transient(r):
    # Saturation, overshoot and settling of the wheel speeds: not in the report, computed here from
    # the fine samples; the offsets from the 50 s run's deviation.
    print("### Start from rest (default gains, 24 V), tolerances 1e-10\n")
    cases = [("anti-windup T_t = 2 ms (default)", {}), ("no anti-windup", {"pid_antiwindup_time_s": 0})]
    results = r.many_with_drives([dict(params={"start_moving": 0, "solver_rtol": 1e-10, "solver_atol": 1e-10,
                                               **extra}, duration=50.0) for _, extra in cases])
    rows = []
    for (name, _), (run_cols, cols) in zip(cases, results):
        if "error" in cols:
            rows.append([name, "fails: " + cols["error"][:60], "", "", "", *dev_cells(r, run_cols)])
            continue
        t = cols["t_s"]
        saturated = [max(abs(cols[f"saturated{i}"][k]) for i in (1, 2, 3)) for k in range(len(t))]
        last_sat = max((t[k] for k in range(len(t)) if saturated[k] != 0), default=0.0)
        # Wheel-speed overshoot past the reference in the first second, in % of |ω_ref|: which
        # wheel and when (a wheel with a small reference can pass it while the others saturate).
        over = (0.0, 0, 0.0)
        for i in (1, 2, 3):
            w, ref = cols[f"omega{i}_rad_per_s"], cols[f"omega_ref{i}_rad_per_s"]
            for k in range(len(t)):
                if 0 < t[k] <= 1.0 and ref[k] != 0 and (w[k] - ref[k]) * math.copysign(1, ref[k]) > 0:
                    over = max(over, (100 * abs(w[k] - ref[k]) / abs(ref[k]), i, t[k]))
        # Settling: last time a wheel speed is off its reference by more than 1 %.
        settle = 0.0
        for k in range(len(t)):
            for i in (1, 2, 3):
                w, ref = cols[f"omega{i}_rad_per_s"][k], cols[f"omega_ref{i}_rad_per_s"][k]
                if abs(w - ref) > 0.01 * max(abs(ref), 1.0):
                    settle = max(settle, t[k])
        rows.append([name, peak_cell(cols, "i", "_A"), f"{last_sat:.3f}",
                     f"{over[0]:.2g} % (wheel {over[1]} at {when(over[2])})", f"{settle:.3f}", *dev_cells(r, run_cols)])
    table(["anti-windup", "peak \\|i\\| [A]", "saturated until [s]", "speed overshoot",
           "settled to 1 % [s]", "offset \\|ΔX\\| [m]", "\\|ΔY\\| [m]", "\\|Δφ\\| [rad]"], rows)


def study_sensitivity(r, bin_dir):
    # examples/sweeps/robotino_sensitivity_seed.json (the seed-literal configuration, all the
    # changes) and robotino_sensitivity.json (ours, the plant's changes): cases axes in this order.
    print("### Sensitivity, tolerances 1e-10: max deviation after 5 s with one value changed\n")
    changes = ["as shipped", "mass 11 → 8.8 kg (−20 %)", "mass 11 → 13.2 kg (+20 %)",
               "yaw inertia 0.188 → 0.15 kg·m² (−20 %)", "yaw inertia 0.188 → 0.226 kg·m² (+20 %)",
               "r_max 12 → 9.6 mm (−20 %)", "r_max 12 → 14.4 mm (+20 %)", "wheel inertia ×2", "roller inertia 0",
               "Ki ×0.8", "Ki ×1.25", "Kp ×0.8", "Kp ×1.25"]
    seed_rows = sweep(bin_dir, r.work, "robotino_sensitivity_seed", "robotino_study")
    ours_rows = sweep(bin_dir, r.work, "robotino_sensitivity", "robotino_study")
    if len(seed_rows) != len(changes) or len(ours_rows) != len(changes) - 4:
        sys.exit("robotino_study: the sensitivity sweep files no longer have the cases this table names")
    rows = [[name, *sweep_dev_cells(seed), *(sweep_dev_cells(ours_rows[n]) if n < len(ours_rows) else ["—"] * 3)]
            for n, (name, seed) in enumerate(zip(changes, seed_rows))]
    table(["change", "seed-literal \\|ΔX\\| [m]", "\\|ΔY\\| [m]", "\\|Δφ\\| [rad]", "ours \\|ΔX\\| [m]", "\\|ΔY\\| [m]",
           "\\|Δφ\\| [rad]"], rows)


MUJOCO_MODEL = os.path.join(ROOT, "scenes", "robotino", "mujoco", "robotino.xml")


def study_mujoco(r, bin_dir):
    """The MuJoCo Robotino (same plant parameters, same PID, contacts instead of constraints)
    against the robotino DAE, both in the default configuration over the 50 s rose."""
    print("### The Robotino in MuJoCo against the robotino backend, default configuration, 50 s rose\n")
    print("Differences are max |MuJoCo - robotino| of X, Y, phi for t >= 5 s; the robotino run itself is "
          "within 6e-8 m of the reference. Steps/s: MuJoCo steps (50 s / h) per second of wall time, "
          "alone (cosim-dynamics --channel none), this machine.\n")
    dae = r.run()
    t = dae["t_s"]
    path_m = sum(math.hypot(dae["Robotino/x_m"][k] - dae["Robotino/x_m"][k - 1],
                            dae["Robotino/y_m"][k] - dae["Robotino/y_m"][k - 1]) for k in range(1, len(t)))
    print(f"Path length of the rose in 50 s: {path_m:.1f} m.\n")
    variants = [("committed: 256 facets, contact time 4 ms, noslip 0, h = 0.2 ms", None, 2e-4)]
    for facets, contact, noslip, h in [(64, 0.004, 0, 2e-4), (1024, 0.004, 0, 2e-4), (256, 0.02, 0, 2e-4),
                                       (256, 0.002, 0, 2e-4), (256, 0.004, 20, 2e-4), (256, 0.004, 0, 1e-4)]:
        variants.append((f"{facets} facets, contact time {contact * 1e3:g} ms, noslip {noslip}, h = {h * 1e3:g} ms",
                         ["--facets", str(facets), "--contact-time", str(contact), "--noslip-iterations",
                          str(noslip), "--timestep", str(h)], h))
    models = []
    for i, (label, args, h) in enumerate(variants):
        model = MUJOCO_MODEL
        if args:
            model = os.path.join(r.work, f"robotino_{i}.xml")
            subprocess.run([os.path.join(bin_dir, "cosim-robotino-mjcf"), *args, "-o", model], check=True)
        models.append(model)
    runs = [r.run(mujoco_model=m) for m in models]  # one at a time: the wall times are compared
    # MuJoCo against the DAE run by run, and the slip (a mujoco output): not in the report.
    rows = []
    for (label, _, h), m in zip(variants, runs):
        if "error" in m:
            rows.append([label, "fails: " + m["error"][:60], "", "", "", "", ""])
            continue
        diffs = [peak([a - b for t, a, b in zip(m["t_s"], m[f"Robotino/{q}"], dae[f"Robotino/{q}"]) if t >= TRANSIENT_END_S])
                 for q in ("x_m", "y_m", "phi_rad")]
        slip = max(peak(after(m, f"slip{i}_m_per_s")) for i in (1, 2, 3))
        rows.append([label, *[g(v) for v in diffs], g(slip), f"{m['wall_s']:.1f}", f"{50.0 / h / m['wall_s']:.3g}"])
    rows.append(["robotino backend (IDA, tolerance 1e-6)", "", "", "", "0", f"{dae['wall_s']:.2f}", ""])
    table(["model", "max \\|dX\\| [m]", "max \\|dY\\| [m]", "max \\|dphi\\| [rad]", "max slip [m/s]", "wall [s]",
           "MuJoCo steps/s"],
          rows)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"),
                        help="folder of cosim-dynamics and cosim-report")
    parser.add_argument("--out", help="keep the run folders here (default: a temporary folder)")
    parser.add_argument("study", nargs="+",
                        choices=["gains", "start", "convergence", "transient", "sensitivity", "mujoco", "all"])
    args = parser.parse_args()
    for program in ("cosim-dynamics", "cosim-report"):
        if not os.access(os.path.join(args.bin, program), os.X_OK):
            sys.exit(f"robotino_study: no {program} in {args.bin} (build first: scripts/setup.sh)")
    studies = set(args.study)
    if "all" in studies:
        studies = (studies - {"all"}) | {"gains", "start", "convergence", "transient", "sensitivity"}
    with tempfile.TemporaryDirectory(prefix="cosim-study-") as tmp:
        work = args.out or tmp
        os.makedirs(work, exist_ok=True)
        r = Runner(args.bin, work, keep=bool(args.out))
        if "gains" in studies:
            study_gains(r, 1e-10)
        if "start" in studies:
            study_start(r, 1e-10)
        if "convergence" in studies:
            study_convergence(r, args.bin)
        if "transient" in studies:
            study_transient(r)
        if "sensitivity" in studies:
            study_sensitivity(r, args.bin)
        if "mujoco" in studies:
            study_mujoco(r, args.bin)


if __name__ == "__main__":
    main()
