"""appell sweep end to end: the HDF5 file read back with h5py and pandas; the same datasets
whatever the threads, MPI ranks, shards or restarts; a failing case among good ones; Dask's
LocalCluster against the command line; physics of the cases (each one is its own simulation)."""

import os
import shutil
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from conftest import EXAMPLES

h5py = pytest.importorskip("h5py")

CLI = os.environ.get("APPELL_CLI", "appell")
CART = str(EXAMPLES / "spring_damper_cart.yaml")
PENDULUM = str(EXAMPLES / "double_pendulum.yaml")
# 12 cases: the cart's mass and the pendulum's start, a force on the cart driven by the wind F_w.
GRID = ["--grid", "mc=1:0.5:2.5", "--grid", "q0.theta=0.1,0.4,0.8"]


def sweep(*args, check=True, env=None):
    run = subprocess.run([CLI, "sweep", *args], capture_output=True, text=True, env=env)
    if check:
        assert run.returncode == 0, run.stderr
    return run


def datasets(path):
    """Every dataset of a results file by name (wall_time, which is a clock, left out), and the
    root attributes (command_line left out)."""
    out = {}
    with h5py.File(path, "r") as f:
        def visit(name, item):
            if isinstance(item, h5py.Dataset) and name != "wall_time":
                out[name] = item[()]
        f.visititems(visit)
        attrs = {k: v for k, v in f.attrs.items() if k != "command_line"}
    return out, attrs


def assert_same(a, b):
    data_a, attrs_a = datasets(a)
    data_b, attrs_b = datasets(b)
    assert sorted(data_a) == sorted(data_b)
    for name in data_a:
        x, y = data_a[name], data_b[name]
        if x.dtype.kind in "fc":
            np.testing.assert_array_equal(x, y, err_msg=name)  # NaN == NaN here, bit for bit
        else:
            assert (x == y).all(), name
    assert sorted(attrs_a) == sorted(attrs_b)
    for key in attrs_a:
        assert np.array_equal(np.asarray(attrs_a[key]), np.asarray(attrs_b[key])), key


def test_series_read_back_with_h5py_and_pandas(tmp_path):
    out = tmp_path / "cart.h5"
    run = sweep(CART, *GRID, "--t-end", "2", "--output-step", "0.05", "--save", "series",
                "--input", "u=10*F_w*sin(2*t)", "--set", "F_w=0.3", "--out", str(out))
    assert "12 cases; ok 12, failed 0" in run.stdout
    pd = pytest.importorskip("pandas")
    with h5py.File(out, "r") as f:
        assert f.attrs["format"] == "appell-sweep"
        columns = [c.decode() if isinstance(c, bytes) else c for c in f["cases"].attrs["columns"]]
        assert columns == ["mc", "q0.theta"]
        cases = pd.DataFrame({c: f["cases"][c][:] for c in columns})
        assert list(cases["mc"]) == [1, 1, 1, 1.5, 1.5, 1.5, 2, 2, 2, 2.5, 2.5, 2.5]
        t = f["t"][:]
        np.testing.assert_allclose(t, np.arange(41) * 0.05, atol=1e-12)
        assert t[-1] == 2.0
        status = [s.decode() if isinstance(s, bytes) else s for s in f["status"][:]]
        assert status == ["ok"] * 12
        theta = f["series/q/theta"][:]
        assert theta.shape == (12, 41)
        np.testing.assert_array_equal(theta[:, 0], cases["q0.theta"])  # each case's start
        T, V, E = f["series/T"][:], f["series/V"][:], f["series/E"][:]
        np.testing.assert_allclose(T + V, E, rtol=1e-12, atol=1e-12)
        # The heavier cart moves less under the same force and spring.
        x = f["series/q/x"][:]
        assert np.ptp(x[9]) < np.ptp(x[0])
        assert (f["steps"][:] > 0).all()


def test_each_case_is_its_own_simulation(tmp_path):
    """A sweep's case ends where `appell simulate` with the same values ends."""
    out = tmp_path / "p.h5"
    sweep(PENDULUM, "--grid", "m2=0.5,2", "--grid", "qd0.q1=0,1.5", "--t-end", "3",
          "--save", "final", "--rtol", "1e-10", "--atol", "1e-10", "--out", str(out))
    csv = tmp_path / "one.csv"
    subprocess.run([CLI, "simulate", PENDULUM, "--t-end", "3", "--set", "m2=2",
                    "--qd0", "1.5,1.0", "--rtol", "1e-10", "--atol", "1e-10", "--out", str(csv)],
                   check=True, capture_output=True)
    last = np.genfromtxt(csv, delimiter=",", skip_header=1)[-1]
    with h5py.File(out, "r") as f:
        # case 3: m2 = 2, qd0.q1 = 1.5 (the first --grid varies slowest)
        np.testing.assert_allclose([f["final/q/q1"][3], f["final/q/q2"][3]], last[1:3],
                                   rtol=1e-6, atol=1e-7)
        # A conservative model: its energy stays to the tolerances in every case.
        assert (f["energy_drift"][:] < 1e-6).all()
        E0 = f["final/E"][:]
        assert np.isfinite(E0).all()


def wait_for(path, process):
    """Until `path` exists (the sweep has started writing) and a moment more."""
    deadline = time.monotonic() + 30
    while not path.exists() and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(0.6)


def mpirun():
    launcher = shutil.which("mpirun")
    if launcher is None:
        return None
    extra = ["--allow-run-as-root"] if os.geteuid() == 0 else []
    return [launcher, "-n", "2", "--oversubscribe", *extra]


def test_the_same_datasets_whatever_threads_ranks_shards_or_restarts(tmp_path):
    common = [CART, *GRID, "--t-end", "1.5", "--save", "series", "--input", "u=10*F_w*sin(2*t)"]
    one = tmp_path / "one.h5"
    sweep(*common, "--jobs", "1", "--out", str(one))
    threads = tmp_path / "threads.h5"
    sweep(*common, "--jobs", "3", "--out", str(threads))
    assert_same(one, threads)

    # Two shards joined.
    s1, s2, merged = tmp_path / "s1.h5", tmp_path / "s2.h5", tmp_path / "merged.h5"
    run = sweep(*common, "--shard", "1/2", "--out", str(s1))
    assert "6 cases (shard 1/2)" in run.stdout
    sweep(*common, "--shard", "2/2", "--out", str(s2))
    merge = subprocess.run([CLI, "sweep-merge", str(merged), str(s1), str(s2)],
                           capture_output=True, text=True)
    assert merge.returncode == 0, merge.stderr
    assert_same(one, merged)

    # A first run that stops after some cases (SIGINT), completed by --resume.
    stopped = tmp_path / "stopped.h5"
    # (36 cases of about 0.1 s each: a signal a moment after the file appears finds it mid-way)
    slow = [CART, "--grid", "mc=1:0.25:3.75", "--grid", "q0.theta=0.1,0.4,0.8", "--t-end", "3000",
            "--output-step", "2", "--save", "summary", "--input", "u=10*F_w*sin(2*t)"]
    process = subprocess.Popen([CLI, "sweep", *slow, "--out", str(stopped)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_for(stopped, process)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=120)
    assert process.returncode in (0, 130), err
    if process.returncode == 130:
        assert "not run" in out and "--resume completes them" in out
    sweep(*slow, "--resume", "--out", str(stopped))
    whole = tmp_path / "whole.h5"
    sweep(*slow, "--jobs", "2", "--out", str(whole))
    assert_same(whole, stopped)

    # A run killed outright (SIGKILL): what it wrote reads back, --resume completes it.
    killed = tmp_path / "killed.h5"
    process = subprocess.Popen([CLI, "sweep", *slow, "--out", str(killed)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_for(killed, process)
    process.kill()
    process.wait()
    if killed.exists():
        sweep(*slow, "--resume", "--out", str(killed))
    else:
        sweep(*slow, "--out", str(killed))
    assert_same(whole, killed)

    # Two MPI ranks, two threads each.
    launcher = mpirun()
    if launcher is None:
        pytest.skip("no mpirun (Debian's openmpi-bin)")
    ranks = tmp_path / "ranks.h5"
    run = subprocess.run([*launcher, CLI, "sweep", *common, "--jobs", "2", "--out", str(ranks)],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert run.stdout.count("swept") == 1  # rank 0 alone reports
    assert "2 ranks" in run.stderr
    assert_same(one, ranks)


def test_a_failing_case_is_recorded_and_the_others_go_on(tmp_path):
    out = tmp_path / "f.h5"
    run = sweep(CART, "--grid", "mc=1,-1,2", "--t-end", "0.5", "--out", str(out))
    assert "ok 2, failed 1" in run.stdout
    with h5py.File(out, "r") as f:
        status = [s.decode() if isinstance(s, bytes) else s for s in f["status"][:]]
        assert status[0] == "ok" and status[2] == "ok"
        assert status[1].startswith("failed: ") and "mass must be positive" in status[1], status
        assert np.isnan(f["final/q/x"][1]) and np.isfinite(f["final/q/x"][0])


def test_bad_input_exits_2_located(tmp_path):
    cases = tmp_path / "cases.csv"
    cases.write_text("mc, q0.thta\n1.0, 0.2\n")
    run = sweep(CART, "--cases", str(cases), "--t-end", "1", "--out", str(tmp_path / "x.h5"),
                check=False)
    assert run.returncode == 2
    assert f"{cases}:1:5:" in run.stderr and "did you mean 'q0.theta'" in run.stderr
    run = sweep(CART, "--t-end", "1", "--out", str(tmp_path / "x.h5"), check=False)
    assert run.returncode == 2 and "--cases" in run.stderr
    out = tmp_path / "y.h5"
    sweep(CART, "--grid", "mc=1,2", "--t-end", "0.2", "--out", str(out))
    run = sweep(CART, "--grid", "mc=1,2", "--t-end", "0.2", "--out", str(out), check=False)
    assert run.returncode == 2 and "exists" in run.stderr
    run = sweep(CART, "--grid", "mc=1,3", "--t-end", "0.2", "--resume", "--out", str(out),
                check=False)
    assert run.returncode == 2 and "--resume" in run.stderr


def test_python_sweep_and_dask_match_the_command_line(tmp_path):
    appell = pytest.importorskip("appell")
    out = tmp_path / "cli.h5"
    sweep(CART, *GRID, "--t-end", "1", "--save", "series", "--set", "F_w=0.2",
          "--input", "u=10*F_w*sin(2*t)", "--out", str(out))
    cases = {"mc": [1, 1, 1, 1.5, 1.5, 1.5, 2, 2, 2, 2.5, 2.5, 2.5],
             "q0.theta": [0.1, 0.4, 0.8] * 4}
    local = appell.sweep(CART, cases=cases, t_end=1, save="series", values={"F_w": 0.2},
                         inputs={"u": "10*F_w*sin(2*t)"}, jobs=2, out=tmp_path / "py.h5")
    with h5py.File(out, "r") as f:
        for name, index in (("x", 0), ("theta", 1)):
            np.testing.assert_array_equal(local.series["q"][:, :, index], f[f"series/q/{name}"][:])
        np.testing.assert_array_equal(local.series["E"], f["series/E"][:])
        np.testing.assert_array_equal(local.t, f["t"][:])
    assert local.status == ["ok"] * 12
    data_cli, _ = datasets(out)
    data_py, _ = datasets(tmp_path / "py.h5")
    for name in data_cli:
        if data_cli[name].dtype.kind == "f":
            np.testing.assert_array_equal(data_cli[name], data_py[name], err_msg=name)

    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        remote = appell.sweep(CART, cases=cases, t_end=1, save="series", values={"F_w": 0.2},
                              inputs={"u": "10*F_w*sin(2*t)"}, client=client, chunk=5)
    np.testing.assert_array_equal(remote.series["q"], local.series["q"])
    np.testing.assert_array_equal(remote.final["E"], local.final["E"])
    assert remote.status == local.status


def test_initial_speeds_of_a_quaternion_body(tmp_path):
    """u0 columns of a model with speeds: the free box spun about its intermediate axis with a
    small perturbation flips (the tennis-racket theorem) and keeps its energy; a case ends where
    `appell simulate --u0` ends."""
    box = str(EXAMPLES / "speeds" / "free_box_quaternion.yaml")
    out = tmp_path / "box.h5"
    sweep(box, "--grid", "u0.w2=3", "--grid", "u0.w1=0,0.02", "--t-end", "6", "--save", "series",
          "--out", str(out))
    csv = tmp_path / "box.csv"
    subprocess.run([CLI, "simulate", box, "--t-end", "6", "--u0", "0,0,0,0.02,3,0",
                    "--out", str(csv)], check=True, capture_output=True)
    names = open(csv).readline().strip().split(",")
    last = np.genfromtxt(csv, delimiter=",", skip_header=1)[-1]
    with h5py.File(out, "r") as f:
        speeds = [s.decode() if isinstance(s, bytes) else s for s in f.attrs["speeds"]]
        assert speeds[-3:] == ["w1", "w2", "w3"]
        w2 = f["series/u/w2"][:]
        np.testing.assert_array_equal(w2[:, 0], [3.0, 3.0])
        assert np.ptp(w2[0]) < 1e-9          # unperturbed: a steady spin
        assert w2[1].min() < 0               # perturbed: it flips
        assert (f["energy_drift"][:] < 1e-6).all()
        np.testing.assert_allclose(w2[1, -1], last[names.index("w2")], rtol=1e-6,
                                   atol=1e-7)
