#!/usr/bin/python3
"""appell sweep against issue 28's goals, on the Panda (a 7-DOF arm, examples/urdf/panda.urdf):

  per-case overhead beyond the integration (a case of t_end 1e-6 is all overhead: binding its
  values, setting CVODE up, writing its row and flushing the file);
  cases per second with 1 and 2 threads, 2 MPI ranks, and Dask's LocalCluster with 1 and 2
  workers, for cases of 1 s of motion;
  rank 0's peak memory for 10^5 cases with --save summary.

Usage: bench/sweep.py [BUILD_DIR] (default build/). Times are wall-clock on whatever machine
runs it: run it on an idle one. Prints a table; asserts nothing.
"""

import os
import pathlib
import resource
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
BUILD = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ROOT / "build").resolve()
CLI = str(BUILD / "appell")
PANDA = str(ROOT / "examples" / "urdf" / "panda.urdf")
SAMPLE = ["--sample", "q0.panda_joint1=-0.5:0.5", "--sample", "q0.panda_joint2=-0.5:0.5",
          "--sample", "q0.panda_joint4=-2.5:-1.5"]


def sweep(out, count, t_end, *extra, launcher=(), step=None):
    args = [*launcher, CLI, "sweep", PANDA, *SAMPLE, "--count", str(count), "--t-end", str(t_end),
            "--out", str(out), *extra]
    if step is not None:
        args += ["--output-step", str(step)]
    start = time.perf_counter()
    subprocess.run(args, check=True, capture_output=True)
    return time.perf_counter() - start


def peak_rss_mb(args):
    """The peak resident memory of a child process, from getrusage of the children."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    subprocess.run(args, check=True, capture_output=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return max(before, after) / 1024.0


def main():
    work = pathlib.Path(tempfile.mkdtemp(prefix="appell-bench-sweep-"))
    os.environ.setdefault("APPELL_CACHE_DIR", str(work / "cache"))
    rows = []
    try:
        sweep(work / "warm.h5", 4, 0.1)  # compile the model's code once (the JIT's cache)

        n = 4000
        t = sweep(work / "overhead.h5", n, 1e-6, step=1e-6)
        small = sweep(work / "overhead-small.h5", 10, 1e-6, step=1e-6)
        rows.append(("per-case overhead (t_end 1e-6; set-up excluded)",
                     f"{(t - small) / (n - 10) * 1e3:.3f} ms"))

        n = 400
        base = None
        for jobs in (1, 2):
            t = sweep(work / f"jobs{jobs}.h5", n, 1.0, "--jobs", str(jobs))
            base = base or t
            rows.append((f"{n} cases of 1 s, --jobs {jobs}",
                         f"{n / t:.1f} cases/s ({base / t:.2f}x)"))
        mpirun = shutil.which("mpirun")
        if mpirun:
            launcher = [mpirun, "-n", "2", "--oversubscribe"]
            if os.geteuid() == 0:
                launcher.append("--allow-run-as-root")
            t = sweep(work / "ranks.h5", n, 1.0, "--jobs", "1", launcher=launcher)
            rows.append((f"{n} cases of 1 s, mpirun -n 2 (1 thread each)",
                         f"{n / t:.1f} cases/s ({base / t:.2f}x)"))

        try:
            sys.path.insert(0, str(BUILD / "python"))
            import appell
            import distributed

            cases = {"q0.panda_joint1": [-0.5 + k / n for k in range(n)]}
            one = None
            for workers in (1, 2):
                with distributed.LocalCluster(n_workers=workers, threads_per_worker=1,
                                              processes=True, dashboard_address=None) as cluster, \
                        distributed.Client(cluster) as client:
                    appell.sweep(PANDA, cases={"q0.panda_joint1": [0.1] * workers * 2}, t_end=0.1,
                                 client=client, chunk=1)  # each worker prepares the model
                    start = time.perf_counter()
                    appell.sweep(PANDA, cases=cases, t_end=1.0, client=client)
                    t = time.perf_counter() - start
                one = one or t
                rows.append((f"{n} cases of 1 s, Dask LocalCluster, {workers} worker(s)",
                             f"{n / t:.1f} cases/s ({one / t:.2f}x)"))
        except ImportError as e:
            rows.append(("Dask", f"not measured ({e})"))

        n = 100_000
        args = [CLI, "sweep", PANDA, *SAMPLE, "--count", str(n), "--t-end", "1e-6",
                "--output-step", "1e-6", "--save", "summary", "--jobs", "2",
                "--out", str(work / "big.h5")]
        start = time.perf_counter()
        mb = peak_rss_mb(args)
        rows.append((f"{n} cases, --save summary: peak memory of the process",
                     f"{mb:.0f} MB ({time.perf_counter() - start:.1f} s, "
                     f"file {(work / 'big.h5').stat().st_size / 2**20:.0f} MiB)"))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    width = max(len(r[0]) for r in rows)
    for what, value in rows:
        print(f"{what:<{width}}  {value}")


if __name__ == "__main__":
    main()
