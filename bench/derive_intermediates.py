#!/usr/bin/python3
"""How large and how fast `appell derive` prints big systems through named quantities (issue 17).

For spatial chains of 10 and 30 links (joints alternately about z and y, the tests' and
benchmarks' chain), a planar 10-link chain and the URDF robots of examples/urdf, runs the default
`appell derive` (the automatic switch to named quantities: the recursions over the frames for a
tree) and prints the wall time, the peak memory (GNU time), the number of named quantities, the
lines, the bytes and the longest line of what it printed.

    /usr/bin/python3 bench/derive_intermediates.py [BUILD_DIR]
"""
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def chain_yaml(n, planar=False):
    lines = ["name: chain-%d" % n, "parameters: {m: 1.0, l: 0.5, g: 9.81}",
             "coordinates: [%s]" % ", ".join("q%d" % i for i in range(1, n + 1)), "frames:"]
    for i in range(1, n + 1):
        parent = "world" if i == 1 else "link%d" % (i - 1)
        offset = "" if i == 1 else ", translation: [l, 0, 0]"
        axis = "z" if planar or i % 2 else "y"
        lines.append("  link%d: {parent: %s%s, rotation: rot_%s(q%d)}" % (i, parent, offset, axis, i))
    lines.append("bodies:")
    for i in range(1, n + 1):
        lines.append("  rod%d: {frame: link%d, mass: m, com: [l/2, 0, 0], "
                     "inertia: {rod: {length: l, axis: x}}}" % (i, i))
    lines.append("gravity: [0, 0, -g]")
    return "\n".join(lines) + "\n"


def measure(appell, path):
    run = subprocess.run(["/usr/bin/time", "-f", "%e %M", appell, "derive", path],
                         capture_output=True, text=True, check=True)
    seconds, kilobytes = run.stderr.strip().splitlines()[-1].split()
    text = run.stdout
    named = re.search(r"through (\d+) named", text)
    return (float(seconds), int(kilobytes) / 1024, int(named.group(1)) if named else 0,
            text.count("\n"), len(text.encode()), max(len(line) for line in text.splitlines()))


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build")
    appell = os.path.join(build, "appell")
    models = []
    with tempfile.TemporaryDirectory() as work:
        for name, text in [("spatial chain 10", chain_yaml(10)), ("planar chain 10",
                           chain_yaml(10, True)), ("spatial chain 30", chain_yaml(30))]:
            path = os.path.join(work, name.replace(" ", "_") + ".yaml")
            with open(path, "w") as f:
                f.write(text)
            models.append((name, path))
        for robot in ("ur5_robot", "panda", "simple_humanoid"):
            models.append((robot, os.path.join(ROOT, "examples", "urdf", robot + ".urdf")))
        print("%-18s %8s %8s %10s %7s %9s %8s" % ("model", "seconds", "MB", "quantities",
                                                 "lines", "bytes", "longest"))
        for name, path in models:
            s, mb, named, lines, size, longest = measure(appell, path)
            print("%-18s %8.2f %8.0f %10d %7d %9d %8d" % (name, s, mb, named, lines, size, longest))


if __name__ == "__main__":
    main()
