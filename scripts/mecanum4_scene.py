#!/usr/bin/env python3
"""Writes scenes/mecanum4/ (seed 002's platform, spec seeds_002_004 §A.5): the floor with a 1 m
grid, the chassis on x, y, z, phi, pitch, roll, four suspension carriers, four Mecanum wheels
with 16 rollers each (gamma = -45, +45, -45, +45 deg) and, on each carrier, the reduced model's
translucent sphere on three Euler joints. 90 joints, in the order of the mecanum4 backend.

    scripts/mecanum4_scene.py      (rewrites the XML files; they are checked in)
"""

import math
import os

ROOT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scenes", "mecanum4")
R, RS, ROLLERS, S_MAX = 0.076, 0.0125, 16, 0.022   # wheel radius, roller sphere radius, rollers, half-length
LX, LY = 0.294, 0.200
WHEELS = [(-LX, -LY, -45, "rear left"), (-LX, LY, 45, "front left"), (LX, LY, -45, "front right"), (LX, -LY, 45, "rear right")]


def wheel_file(gamma):
    name = "MecanumWheelL" if gamma > 0 else "MecanumWheelR"
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<!-- Mecanum wheel of seed 002 with its contact rollers at gamma = {gamma:+d} deg (spec seeds_002_004 §A.5),',
        '     written by scripts/mecanum4_scene.py. Wheel frame: origin at the hub, x along the axle. R = 0.076 m,',
        '     16 rollers; roller j sits at zeta_j = 22.5 j deg about x, its centre R - r_s = 0.0635 m from the hub,',
        '     its axis turned by gamma about the radius; it spins about its own x. Barrel',
        '     r(s) = sqrt(R^2 - s^2 sin^2 45) - (R - r_s), |s| <= 0.022 m: the rollers together trace the wheel',
        '     circle seen along the axle. The thin red ring at each roller centre is the roller-level model\'s',
        '     contact sphere (radius r_s = 0.0125 m), the paper\'s "red rings". -->',
        f'<object name="{name}">',
        '  <cylinder id="hub" radius="0.0585" height="0.045" axis="x" resolution="48"/>',
        '  <cylinder id="plate_out" radius="0.066" height="0.004" axis="x" resolution="48">',
        '    <translate x="0.026"/>',
        '  </cylinder>',
        '  <cylinder id="plate_in" radius="0.066" height="0.004" axis="x" resolution="48">',
        '    <translate x="-0.026"/>',
        '  </cylinder>',
        '  <assembly id="wheel_body" refs="hub plate_out plate_in"/>',
        '  <render ref="wheel_body" color="0.75 0.55 0.1"/>',
        '  <probe name="hub" x="0" y="0" z="0"/>',
    ]
    profile = []
    for k in range(13):
        s = -S_MAX + 2 * S_MAX * k / 12
        r = math.sqrt(R * R - s * s * 0.5) - (R - RS)
        profile.append(f'      <point r="{r:.6f}" a="{s:.6f}"/>')
    for j in range(ROLLERS):
        color = "0.15 0.15 0.17" if j % 2 == 0 else "0.45 0.45 0.5"
        lines += [
            f'  <joint name="roller{j + 1}">',
            '    <link>',
            '      <pre>',
            f'        <rotate axis="x" deg="{22.5 * j:g}"/>',
            f'        <translate z="{-(R - RS):.4f}"/>',
            f'        <rotate axis="z" deg="{gamma}"/>',
            '      </pre>',
            '      <drive type="revolute" axis="x"/>',
            '    </link>',
            f'    <revolution id="barrel{j + 1}" axis="x" resolution="20">',
            f'      <point r="0" a="{-S_MAX:.6f}"/>',
            *profile,
            f'      <point r="0" a="{S_MAX:.6f}"/>',
            '    </revolution>',
            f'    <render ref="barrel{j + 1}" color="{color}"/>',
            f'    <cylinder id="ring{j + 1}" radius="{RS + 0.0005:.4f}" height="0.0015" axis="x" resolution="24"/>',
            f'    <render ref="ring{j + 1}" color="red"/>',
            '  </joint>',
        ]
    lines.append('</object>')
    return name, "\n".join(lines) + "\n"


def sphere_file():
    return "\n".join([
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<!-- The reduced model\'s wheel (seed 002 §V, Fig. 5: "Mecanum wheel and circumscribed sphere"): a',
        '     sphere of the wheel radius on a ball joint at the hub, shown translucent on three joints rz, ry,',
        '     rx (its Z-Y-X Euler angles relative to the carrier), with an equator band and a meridian band so',
        '     that its turning shows. They stay at 0 in the rollers model. Written by scripts/mecanum4_scene.py. -->',
        '<object name="ReducedSphere">',
        '  <joint name="rz">',
        '    <link>',
        '      <drive type="revolute" axis="z"/>',
        '    </link>',
        '    <joint name="ry">',
        '      <link>',
        '        <drive type="revolute" axis="y"/>',
        '      </link>',
        '      <joint name="rx">',
        '        <link>',
        '          <drive type="revolute" axis="x"/>',
        '        </link>',
        '        <sphere id="ball" radius="0.076" resolution="32"/>',
        '        <render ref="ball" color="0.55 0.75 0.95" opacity="0.15"/>',
        '        <cylinder id="equator" radius="0.0765" height="0.004" axis="x" resolution="48"/>',
        '        <cylinder id="meridian" radius="0.0765" height="0.004" axis="z" resolution="48"/>',
        '        <assembly id="bands" refs="equator meridian"/>',
        '        <render ref="bands" color="0.1 0.3 0.7" opacity="0.35"/>',
        '      </joint>',
        '    </joint>',
        '  </joint>',
        '</object>',
    ]) + "\n"


def ground_file():
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<!-- Floor, 6 m x 6 m, top face at z = 0, with a 1 m grid that makes the manoeuvre\'s 1 m legs',
        '     visible (spec A.5). Written by scripts/mecanum4_scene.py. -->',
        '<object name="Ground">',
        '  <cuboid id="floor" lx="6" ly="6" lz="0.02">',
        '    <translate z="-0.01"/>',
        '  </cuboid>',
        '  <render ref="floor" color="wheat"/>',
    ]
    ids = []
    for k in range(7):
        c = -3 + k
        lines.append(f'  <cuboid id="gx{k}" lx="0.01" ly="6" lz="0.001"><translate x="{c}" z="0.0005"/></cuboid>')
        lines.append(f'  <cuboid id="gy{k}" lx="6" ly="0.01" lz="0.001"><translate y="{c}" z="0.0005"/></cuboid>')
        ids += [f"gx{k}", f"gy{k}"]
    lines += [f'  <assembly id="grid" refs="{" ".join(ids)}"/>', '  <render ref="grid" color="0.45 0.40 0.32"/>', '</object>']
    return "\n".join(lines) + "\n"


def robot_file():
    L = ['<?xml version="1.0" encoding="UTF-8"?>',
         '<!-- The four-Mecanum-wheel platform of seed 002 (spec seeds_002_004 §A.1, A.5), written by',
         '     scripts/mecanum4_scene.py. Body frame B (after x, y, z, phi, pitch, roll): origin at hub height,',
         '     x lateral (to the right), y forward, z up; z is the height of B\'s origin (R - 0.36 mm at rest).',
         '     Wheels at (-l_x, -l_y) rear left, (-l_x, l_y) front left, (l_x, l_y) front right, (l_x, -l_y)',
         '     rear right, l_x = 0.294 m, l_y = 0.200 m, contact rollers at -45, +45, -45, +45 deg; each on a',
         '     suspension carrier (prismatic along z_B, up = compression) and a wheel joint about x_B. Joint',
         '     conventions are shared with the mecanum4 backend. -->',
         '<robot name="Mecanum4">']
    ind = "  "
    chain = [("x", "prismatic", "x"), ("y", "prismatic", "y"), ("z", "prismatic", "z"), ("phi", "revolute", "z"),
             ("pitch", "revolute", "x"), ("roll", "revolute", "y")]
    for depth, (name, kind, axis) in enumerate(chain):
        p = ind * (depth + 1)
        L += [f'{p}<joint name="{name}">', f'{p}  <link>', f'{p}    <drive type="{kind}" axis="{axis}"/>', f'{p}  </link>']
    p = ind * 7
    L += [f'{p}<!-- Chassis: a 0.50 x 0.60 x 0.10 m box centred 0.044 m above B (its COM 0.12 m above the floor). -->',
          f'{p}<cuboid id="chassis" lx="0.50" ly="0.60" lz="0.10">',
          f'{p}  <translate z="0.044"/>',
          f'{p}</cuboid>',
          f'{p}<render ref="chassis" color="silver"/>',
          f'{p}<cuboid id="nose" lx="0.10" ly="0.02" lz="0.02">',
          f'{p}  <translate y="0.30" z="0.085"/>',
          f'{p}</cuboid>',
          f'{p}<render ref="nose" color="orangered"/>',
          f'{p}<probe name="center" x="0" y="0" z="-0.076"/>',
          f'{p}<probe name="front" x="0" y="0.30" z="0"/>',
          f'{p}<probe name="corner_fl" x="-0.25" y="0.30" z="0.094"/>']
    for i, (x, y, gamma, where) in enumerate(WHEELS, start=1):
        side = -1 if x < 0 else 1
        L += [f'{p}<!-- Wheel {i}: {where}, contact rollers at {gamma:+d} deg. -->',
              f'{p}<joint name="susp{i}">',
              f'{p}  <link>',
              f'{p}    <pre>',
              f'{p}      <translate x="{x:.3f}" y="{y:.3f}"/>',
              f'{p}    </pre>',
              f'{p}    <drive type="prismatic" axis="z"/>',
              f'{p}  </link>',
              f'{p}  <cylinder id="motor{i}" radius="0.025" height="0.03" axis="x" resolution="24">',
              f'{p}    <translate x="{-side * 0.045:.4f}"/>',
              f'{p}  </cylinder>',
              f'{p}  <render ref="motor{i}" color="0.2 0.2 0.25"/>',
              f'{p}  <object name="Sphere_{i}" file="ReducedSphere"/>',
              f'{p}  <joint name="wheel{i}">',
              f'{p}    <link>',
              f'{p}      <drive type="revolute" axis="x"/>',
              f'{p}    </link>',
              f'{p}    <object name="Wheel_{i}" file="{"MecanumWheelL" if gamma > 0 else "MecanumWheelR"}"/>',
              f'{p}  </joint>',
              f'{p}</joint>']
    for depth in reversed(range(6)):
        L.append(f'{ind * (depth + 1)}</joint>')
    L.append('</robot>')
    return "\n".join(L) + "\n"


def main():
    for sub in ("projects", "objects", "robots"):
        os.makedirs(os.path.join(ROOT, sub), exist_ok=True)
    files = {os.path.join("objects", "Ground.xml"): ground_file(),
             os.path.join("objects", "ReducedSphere.xml"): sphere_file(),
             os.path.join("robots", "Mecanum4.xml"): robot_file(),
             os.path.join("projects", "Mecanum4.xml"): '<?xml version="1.0" encoding="UTF-8"?>\n'
             '<!-- Seed 002\'s platform on its floor (spec seeds_002_004 §A.5). -->\n'
             '<project name="Mecanum4">\n  <object name="Ground"/>\n  <robot name="Mecanum4"/>\n</project>\n'}
    for gamma in (45, -45):
        name, text = wheel_file(gamma)
        files[os.path.join("objects", name + ".xml")] = text
    for rel, text in files.items():
        with open(os.path.join(ROOT, rel), "w") as f:
            f.write(text)
    print(f"wrote {len(files)} files under {ROOT}")


if __name__ == "__main__":
    main()
