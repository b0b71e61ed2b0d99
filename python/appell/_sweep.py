"""appell.sweep: many simulations of one model, on this process's threads or a Dask cluster.

The C++ runner (appell._SweepRunner, sweep/sweep_runner.hpp) prepares the model once (its
recursions with the swept parameters read at run time, its generated code compiled once) and runs
cases on threads. With a dask.distributed Client the cases go to the cluster's workers in chunks;
each worker keeps its runner for the sweep, so it prepares and compiles once however many chunks
it runs. Results depend on the case alone: the same numbers whatever the threads, workers or
chunks, and the same as `appell sweep` writes into its HDF5 file.
"""

import hashlib
import itertools
import os

from . import _appell

_SAVES = ("series", "final", "summary")

# Per process (a Dask worker included): the runners of the sweeps run here, by their key.
_RUNNERS = {}


class SweepResult:
    """What appell.sweep ran: numpy arrays with one row per case, in the cases' order.

    cases: {column: values}; status: list of "ok", "failed: REASON" or "not run"; steps,
    wall_time, t_reached, energy_drift (cases,); t: the common output grid (times,);
    coordinates: their names. With save="series": series["q"], series["qd"] (cases, times, n),
    series["T"], ["V"], ["E"] (cases, times). Always: final["q"], final["qd"] (cases, n) and
    final["T"|"V"|"E"] (cases,), and the extrema over the rows, min[...] and max[...], of the same
    shapes. NaN where a case has no value. evaluator: "jit", "recursions" or "equations".
    """

    def __init__(self, columns, rows, data):
        self.cases = {c: [row[k] for row in rows] for k, c in enumerate(columns)}
        self.__dict__.update({k: v for k, v in data.items() if k != "index"})

    def __repr__(self):
        ok = sum(1 for s in self.status if s == "ok")
        return (f"<appell.SweepResult cases={len(self.status)} ok={ok} "
                f"failed={sum(1 for s in self.status if s.startswith('failed'))} "
                f"t={self.t.shape}>")


def _case_rows(cases):
    """(columns, rows) from a dict of equal-length sequences, a pandas DataFrame or a list of
    dicts with the same keys."""
    if hasattr(cases, "to_dict") and hasattr(cases, "columns"):  # a pandas DataFrame
        cases = {str(c): list(cases[c]) for c in cases.columns}
    if isinstance(cases, dict):
        columns = [str(c) for c in cases]
        lengths = {len(cases[c]) for c in cases}
        if len(lengths) > 1:
            raise ValueError(f"cases: the columns have different lengths {sorted(lengths)}")
        count = lengths.pop() if lengths else 0
        rows = [[_cell(cases[c][k]) for c in cases] for k in range(count)]
        return columns, rows
    if isinstance(cases, (list, tuple)) and all(isinstance(r, dict) for r in cases):
        columns = list(cases[0]) if cases else []
        for k, row in enumerate(cases):
            if list(row) != columns:
                raise ValueError(f"cases[{k}]: keys {list(row)} differ from {columns}")
        return columns, [[_cell(row[c]) for c in columns] for row in cases]
    raise TypeError("cases: expected a dict of columns, a pandas DataFrame or a list of dicts")


# The most cases one sweep may hold, as the command line's (sweep::kMaxCases).
_MAX_CASES = 10_000_000


def _grid_rows(grid):
    """(columns, rows) of the Cartesian product of {column: values}, the first column varying
    slowest: the cases of `appell sweep --grid` given in the same order."""
    if not isinstance(grid, dict):
        raise TypeError("grid: expected a dict {column: values}, one list of values per column")
    columns = [str(c) for c in grid]
    values = []
    for column in grid:
        v = grid[column]
        if isinstance(v, (str, bytes)) or not hasattr(v, "__iter__"):
            raise TypeError(f"grid[{column!r}]: expected a list of values, got {v!r}")
        v = list(v)
        if any(isinstance(x, (str, bytes)) for x in v):
            raise TypeError(f"grid[{column!r}]: numbers only (an input's expression of t goes "
                            "in cases=)")
        v = [float(x) for x in v]
        if not v:
            raise ValueError(f"grid[{column!r}]: no value")
        values.append(v)
    count = 1
    for v in values:
        count *= len(v)
    if count > _MAX_CASES:
        raise ValueError(f"grid: {count} cases, more than {_MAX_CASES}")
    return columns, [list(row) for row in itertools.product(*values)] if values else []


def _cell(value):
    if isinstance(value, str):
        return value
    return float(value)


def _chunk(key, path, columns, rows, settings, indices, jobs):
    """Runs `indices` on a worker, preparing the sweep's runner the first time (a Dask task)."""
    runner = _RUNNERS.get(key)
    if runner is None:
        from . import load

        runner = _appell._SweepRunner(load(path), columns, rows, **settings)
        _RUNNERS.clear()  # one sweep's runner per worker at a time: bounded memory
        _RUNNERS[key] = runner
    return runner.run(indices, jobs)


def _merge(parts, count):
    """The parts of a sweep run in chunks, put back in the order of the cases."""
    import numpy as np

    order = np.concatenate([p["index"] for p in parts]) if parts else np.zeros(0, dtype=np.int64)
    where = np.empty(count, dtype=np.int64)
    where[order] = np.arange(len(order))
    first = parts[0]
    merged = {"index": np.arange(count, dtype=np.int64), "t": first["t"],
              "coordinates": first["coordinates"], "evaluator": first["evaluator"],
              "note": first["note"]}
    statuses = [s for p in parts for s in p["status"]]
    merged["status"] = [statuses[i] for i in where]
    for key in ("steps", "wall_time", "t_reached", "energy_drift"):
        merged[key] = np.concatenate([p[key] for p in parts])[where]
    for group in ("series", "final", "min", "max"):
        if group in first:
            merged[group] = {k: np.concatenate([p[group][k] for p in parts])[where]
                             for k in first[group]}
    return merged


def sweep(model, *given, grid=None, cases=None, t_end, output_step=0.01, rtol=1e-8, atol=1e-8,
          integrator="bdf", save="summary", values=None, inputs=None, jobs=1, jit=True,
          client=None, chunk=None, out=None):
    """Many simulations of one model (`appell sweep`), the results as numpy arrays.

    model: a path to a model file (YAML or URDF), or a Model (not with `client`: the workers load
    the model from its file). The cases, named by keyword, one of:
      grid={column: values}: every combination of the values, the first column varying slowest
        (`appell sweep --grid`; {"m": [1, 2], "l": [1, 2, 3]} is 6 cases);
      cases={column: values} (or a pandas DataFrame, or a list of dicts): one case per row, the
        columns of equal length (a cases file, `appell sweep --cases`; {"m": [1, 2], "l": [1, 2]}
        is 2 cases).
    Columns as in a cases file (docs/sweep.md): NAME (a parameter), q0.NAME, qd0.NAME, u0.NAME,
    input.NAME (a number, or in cases= an expression of t, str). Every case runs from t = 0 to
    t_end with rows every output_step; rtol, atol and integrator as appell.simulate; values and
    inputs are shared by every case (as --set and --input), a case's columns replace them.
    save: "series", "final" or "summary" (what the result and the file keep of each case's
    motion).
    jobs: threads per process (or per Dask worker). jit: compiled generated code.
    client: a dask.distributed.Client: the cases run on its workers in chunks of `chunk` cases
    (default: about four chunks per worker), each worker preparing the model once.
    out: also write the HDF5 results file of `appell sweep` there (it must not exist).
    A case that fails has status "failed: REASON" and NaN values; the others go on.
    Returns a SweepResult.
    """
    if save not in _SAVES:
        raise ValueError(f"save: expected one of {_SAVES}, got {save!r}")
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ValueError("jobs: expected a whole number >= 1")
    if given:
        # A bare dict could mean either; the two differ in every case but the first, so the
        # call names which.
        raise TypeError("sweep: give the cases by keyword: grid={column: values} for every "
                        "combination (as `appell sweep --grid`) or cases={column: values} for one "
                        "case per row (as a cases file)")
    if (grid is None) == (cases is None):
        raise TypeError("sweep: give exactly one of grid= (every combination) and cases= (one "
                        "case per row)")
    columns, rows = _grid_rows(grid) if grid is not None else _case_rows(cases)
    settings = dict(t_end=float(t_end), output_step=float(output_step), rtol=float(rtol),
                    atol=float(atol), integrator=integrator, save=save, values=values,
                    inputs=inputs, jit=bool(jit))
    path = os.fspath(model) if isinstance(model, (str, os.PathLike)) else None
    count = len(rows)
    if client is None:
        from . import load

        runner = _appell._SweepRunner(load(path) if path else model, columns, rows, **settings)
        parts = [runner.run(list(range(count)), jobs)] if count else []
    else:
        if path is None:
            raise TypeError("model: with a Dask client, give the model file's path (the workers "
                            "load it)")
        path = os.path.abspath(path)
        with open(path, "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()
        key = repr((path, digest, columns, rows, sorted(settings.items(), key=str)))
        key = hashlib.sha256(key.encode()).hexdigest()
        workers = max(1, len(client.scheduler_info().get("workers", {})))
        size = chunk or max(1, -(-count // (4 * workers)))
        chunks = [list(range(i, min(i + size, count))) for i in range(0, count, size)]
        futures = client.map(_chunk, [key] * len(chunks), [path] * len(chunks),
                             [columns] * len(chunks), [rows] * len(chunks),
                             [settings] * len(chunks), chunks, [jobs] * len(chunks), pure=False)
        parts = client.gather(futures)
        runner = None
    if not parts:
        raise ValueError("cases: no case")
    data = _merge(parts, count)
    if out is not None:
        if runner is None:
            from . import load

            runner = _appell._SweepRunner(load(path), columns, rows, **settings)
        text = ""
        if path is not None:
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
        _appell._sweep_write(runner, os.fspath(out), [data], text, "appell.sweep (Python)")
    return SweepResult(columns, rows, data)
