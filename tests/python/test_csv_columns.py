"""simulate's CSV read by numpy and pandas with its column names as written (docs/user-guide.md,
"Reading the CSV in Python"): numpy.genfromtxt(names=True) deletes the parentheses of `dot(q1)`
unless it is given deletechars='', and the documented call must keep every name."""

import numpy as np
import pytest


def simulate(cli, examples, tmp_path):
    out = tmp_path / "pendulum.csv"
    cli("simulate", examples / "double_pendulum.yaml", "--t-end", "1", "--out", out)
    header = out.read_text().splitlines()[0].split(",")
    return out, header


def check_columns(names, column, header):
    # Every name as the header writes it, and dot(q1) really the rate of q1: its integral over
    # the run (trapezoids on the 0.01 s rows) is the change of q1.
    assert list(names) == header
    assert "dot(q1)" in names and "dot(q2)" in names
    t, q1, rate = column("t"), column("q1"), column("dot(q1)")
    integral = np.sum(0.5 * (rate[1:] + rate[:-1]) * np.diff(t))
    assert abs(integral - (q1[-1] - q1[0])) < 1e-3 * max(1.0, np.max(np.abs(q1)))
    assert abs(q1[-1] - q1[0]) > 0.1  # the pendulum moved: the check above is not 0 = 0


def test_numpy_genfromtxt_keeps_the_names_with_deletechars(cli, examples, tmp_path):
    out, header = simulate(cli, examples, tmp_path)
    data = np.genfromtxt(out, delimiter=",", names=True, deletechars="")
    check_columns(data.dtype.names, lambda name: data[name], header)
    # Without deletechars='' numpy drops the parentheses: the reason the guide says so.
    plain = np.genfromtxt(out, delimiter=",", names=True)
    assert "dotq1" in plain.dtype.names and "dot(q1)" not in plain.dtype.names


def test_pandas_read_csv_keeps_the_names(cli, examples, tmp_path):
    pandas = pytest.importorskip("pandas")
    out, header = simulate(cli, examples, tmp_path)
    frame = pandas.read_csv(out)
    check_columns(frame.columns, lambda name: frame[name].to_numpy(), header)
