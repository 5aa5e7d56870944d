#!/usr/bin/env python3
"""Writes a URDF robot of 1.5 million triangles into FOLDER (bench/render/render_bench.sh):
six links in a chain of revolute joints, each a binary STL torus of 250 000 triangles, as
detailed as the CAD exports of downloaded robots. Usage: big_robot.py FOLDER"""
import math
import os
import struct
import sys

RINGS, SIDES = 500, 250  # 2 * 500 * 250 = 250 000 triangles per torus


def torus_stl(path, major_m, minor_m):
    def point(i, j):
        u, v = 2 * math.pi * i / RINGS, 2 * math.pi * j / SIDES
        r = major_m + minor_m * math.cos(v)
        return (r * math.cos(u), r * math.sin(u), minor_m * math.sin(v))

    with open(path, "wb") as out:
        out.write(b"cosim bench torus".ljust(80, b" "))
        out.write(struct.pack("<I", 2 * RINGS * SIDES))
        for i in range(RINGS):
            for j in range(SIDES):
                a, b = point(i, j), point(i + 1, j)
                c, d = point(i + 1, j + 1), point(i, j + 1)
                for tri in ((a, b, c), (a, c, d)):
                    out.write(struct.pack("<12fH", 0, 0, 0, *tri[0], *tri[1], *tri[2], 0))


def main(folder):
    os.makedirs(os.path.join(folder, "meshes"), exist_ok=True)
    torus_stl(os.path.join(folder, "meshes", "torus.stl"), 0.12, 0.03)
    links = ['<link name="base"/>']
    joints = []
    for k in range(6):
        links.append(f'<link name="l{k}"><visual><geometry><mesh filename="meshes/torus.stl"/></geometry></visual></link>')
        parent = "base" if k == 0 else f"l{k - 1}"
        joints.append(f'<joint name="j{k}" type="revolute"><parent link="{parent}"/><child link="l{k}"/>'
                      f'<origin xyz="0.25 0 {0.3 if k == 0 else 0}"/><axis xyz="0 0 1"/>'
                      '<limit lower="-3" upper="3" effort="1" velocity="1"/></joint>')
    with open(os.path.join(folder, "big.urdf"), "w") as out:
        out.write('<robot name="big">\n' + "\n".join(links + joints) + "\n</robot>\n")


if __name__ == "__main__":
    main(sys.argv[1])
