"""Shared fixtures of the pytest suite of the Python package appell (run by ctest, which sets
PYTHONPATH to <build>/python, APPELL_CLI to the command line and APPELL_SOURCE_DIR)."""

import os
import pathlib
import subprocess

import pytest

SOURCE_DIR = pathlib.Path(os.environ.get("APPELL_SOURCE_DIR",
                                         pathlib.Path(__file__).resolve().parents[2]))
EXAMPLES = SOURCE_DIR / "examples"


def chain_yaml(n):
    """A planar chain of n homogeneous rods joined by revolute joints, under gravity."""
    lines = ["name: chain-%d" % n, "parameters: {m: 1.0, l: 0.5, g: 9.81}",
             "coordinates: [%s]" % ", ".join("q%d" % (i + 1) for i in range(n)), "frames:"]
    for i in range(n):
        parent = "world" if i == 0 else "link%d" % i
        translation = "[0, 0, 0]" if i == 0 else "[l, 0, 0]"
        lines.append("  link%d: {parent: %s, translation: %s, rotation: rot_z(q%d)}"
                     % (i + 1, parent, translation, i + 1))
    lines.append("bodies:")
    for i in range(n):
        lines.append("  rod%d: {frame: link%d, mass: m, com: [l/2, 0, 0], "
                     "inertia: {rod: {length: l, axis: x}}}" % (i + 1, i + 1))
    lines.append("gravity: [0, -g, 0]")
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="session")
def examples():
    return EXAMPLES


@pytest.fixture(scope="session")
def cli():
    """Runs the command line: cli("eval", model, "--json") -> CompletedProcess."""
    path = os.environ.get("APPELL_CLI")
    if not path or not os.path.exists(path):
        pytest.skip("the appell command line (APPELL_CLI) is not available")

    def run(*args, check=True):
        return subprocess.run([path, *map(str, args)], capture_output=True, text=True,
                              check=check)

    return run
