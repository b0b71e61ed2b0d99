#!/usr/bin/python3
"""How long a new user waits for the first number (issue 26): `appell eval --json` in a fresh
process, nothing cached, for the URDF robots and spatial chains of 30 to 1000 links; wall time
and peak memory (GNU time). With --formed, the same through the formed equations
(`eval --method gibbs-appell --no-jit`, what every eval did before num::Dynamics) up to a size
where that stays reasonable.

    /usr/bin/python3 bench/first_number.py [BUILD_DIR] [--formed]
"""
import os
import subprocess
import sys
import tempfile

from derive_intermediates import chain_yaml  # the benchmarks' spatial chain

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def measure(command):
    run = subprocess.run(["/usr/bin/time", "-f", "%e %M"] + command, capture_output=True,
                         text=True)
    if run.returncode != 0:
        return None
    seconds, kilobytes = run.stderr.strip().splitlines()[-1].split()
    return float(seconds), int(kilobytes) / 1024


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    formed = "--formed" in sys.argv
    build = args[0] if args else os.path.join(ROOT, "build")
    appell = os.path.join(build, "appell")
    with tempfile.TemporaryDirectory() as work:
        models = [(robot, os.path.join(ROOT, "examples", "urdf", robot + ".urdf"), 40)
                  for robot in ("ur5_robot", "panda", "simple_humanoid")]
        for n in (30, 100, 1000):
            path = os.path.join(work, "chain%d.yaml" % n)
            with open(path, "w") as f:
                f.write(chain_yaml(n))
            models.append(("spatial chain %d" % n, path, n))
        print("%-20s %10s %8s %14s %8s" % ("model", "seconds", "MB", "formed: s", "MB"))
        for name, path, size in models:
            new = measure([appell, "eval", path, "--json"])
            old = None
            if formed and size <= 30:
                old = measure([appell, "eval", path, "--json", "--method", "gibbs-appell",
                               "--no-jit"])
            cells = ["%10.2f %8.0f" % new if new else "%10s %8s" % ("failed", "")]
            cells.append("%14.2f %8.0f" % old if old else "%14s %8s" % ("", ""))
            print("%-20s %s %s" % (name, cells[0], cells[1]))


if __name__ == "__main__":
    main()
