#!/usr/bin/python3
"""appell's readable equations against SymPy's simplification (issue 17).

For each example model, the entries of M and f as formed (`appell derive --raw`) are simplified by
SymPy (`trigsimp`, then `simplify`, Debian python3-sympy) and compared with appell's readable
entries (`appell derive`) by SymPy's own operation count (`count_ops`): the same ruler for both.
Times: appell's simplification (`simplify_seconds` of `derive --timing --format json`) and SymPy's
(wall clock of trigsimp + simplify, parsing excluded).

    /usr/bin/python3 bench/readable_vs_sympy.py [BUILD_DIR] [MODEL.yaml ...]
    SYMPY_TIMEOUT=60 /usr/bin/python3 bench/readable_vs_sympy.py build

Prints one row per model and the totals; an entry SymPy does not finish within SYMPY_TIMEOUT
seconds (default 120) counts as a timeout (its raw size is used for SymPy's count).
"""
import glob
import json
import os
import re
import signal
import subprocess
import sys
import time

import sympy

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FUNCTIONS = {"sin": sympy.sin, "cos": sympy.cos, "tan": sympy.tan, "asin": sympy.asin,
             "acos": sympy.acos, "atan": sympy.atan, "atan2": sympy.atan2, "sinh": sympy.sinh,
             "cosh": sympy.cosh, "tanh": sympy.tanh, "exp": sympy.exp, "log": sympy.log,
             "sqrt": sympy.sqrt, "abs": sympy.Abs, "pi": sympy.pi}


class Timeout(Exception):
    pass


def on_alarm(signum, frame):
    raise Timeout()


def parse(text):
    """An appell expression (model-file language) as SymPy: dot(x) -> dot_x, ^ -> **, every other
    name a plain symbol (so that I, E, beta, gamma stay symbols)."""
    text = re.sub(r"\bddot\((\w+)\)", r"ddot_\1", text)
    text = re.sub(r"\bdot\((\w+)\)", r"dot_\1", text)
    text = text.replace("^", "**")
    names = {}
    for name in set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text)):
        names[name] = FUNCTIONS.get(name, sympy.Symbol(name, real=True))
    return sympy.parse_expr(text, local_dict=names, evaluate=True)


def derive(appell, model, *args):
    out = subprocess.run([appell, "derive", model, "--format", "json", "--timing", *args],
                         capture_output=True, text=True, check=True).stdout
    data = json.loads(out)
    entries = [e for row in data["mass_matrix"] for e in row] + list(data["forcing"])
    return entries, data["cost"].get("simplify_seconds", 0.0), data


def main():
    args = sys.argv[1:]
    build = args.pop(0) if args and os.path.isdir(args[0]) else os.path.join(ROOT, "build")
    appell = os.path.join(build, "appell")
    models = args or sorted(glob.glob(os.path.join(ROOT, "examples", "*.yaml")))
    limit = int(os.environ.get("SYMPY_TIMEOUT", "120"))
    signal.signal(signal.SIGALRM, on_alarm)
    print(f"{'model':32} {'entries':>7} {'appell ops':>10} {'sympy ops':>9} {'appell>sympy':>12} "
          f"{'appell s':>9} {'sympy s':>9} {'timeouts':>8}")
    totals = [0, 0, 0, 0, 0.0, 0.0, 0]
    for model in models:
        try:
            raw, _, _ = derive(appell, model, "--raw")
            readable, appell_seconds, data = derive(appell, model)
        except subprocess.CalledProcessError as error:
            print(f"{os.path.basename(model):32} skipped: {error.stderr.strip()[:60]}")
            continue
        if "intermediates" in data:
            print(f"{os.path.basename(model):32} skipped: written through named intermediates")
            continue
        appell_ops = sympy_ops = larger = timeouts = 0
        sympy_seconds = 0.0
        for raw_text, readable_text in zip(raw, readable):
            mine = sympy.count_ops(parse(readable_text))
            expression = parse(raw_text)
            start = time.perf_counter()
            signal.alarm(limit)
            try:
                theirs = sympy.count_ops(sympy.simplify(sympy.trigsimp(expression)))
            except Timeout:
                theirs = sympy.count_ops(expression)
                timeouts += 1
            finally:
                signal.alarm(0)
            sympy_seconds += time.perf_counter() - start
            appell_ops += mine
            sympy_ops += theirs
            larger += mine > theirs
        name = os.path.basename(model)
        print(f"{name:32} {len(raw):7d} {appell_ops:10d} {sympy_ops:9d} {larger:12d} "
              f"{appell_seconds:9.3f} {sympy_seconds:9.2f} {timeouts:8d}", flush=True)
        for i, value in enumerate([len(raw), appell_ops, sympy_ops, larger, appell_seconds,
                                   sympy_seconds, timeouts]):
            totals[i] += value
    print(f"{'total':32} {totals[0]:7d} {totals[1]:10d} {totals[2]:9d} {totals[3]:12d} "
          f"{totals[4]:9.3f} {totals[5]:9.2f} {totals[6]:8d}")


if __name__ == "__main__":
    main()
