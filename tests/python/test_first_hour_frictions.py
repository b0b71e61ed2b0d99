"""The first hour, second round (issue 43), in Python: linearize's modes one per mode as the
command line lists them; sweep's cases named grid= (every combination, as --grid) or cases= (one
per row, as a cases file), a bare dict refused; did-you-mean by case through the library."""

import os
import re
import subprocess

import numpy as np
import pytest

import appell


def test_modes_are_one_per_mode_as_the_command_line_lists_them(cli, examples):
    pendulum = examples / "double_pendulum.yaml"
    r = appell.linearize(appell.load(pendulum))
    text = cli("linearize", pendulum, "--modes").stdout
    listed = re.findall(r"^  s = (.*): ([0-9.e+-]+) rad/s", text, re.M)
    # Two conjugate pairs: two modes, four eigenvalues.
    assert len(listed) == 2 and len(r.modes) == 2 and len(r.eigenvalues) == 4
    for mode, (value, frequency) in zip(r.modes, listed):
        assert mode["conjugate_pair"] and mode["count"] == 1
        assert mode["eigenvalue"].imag > 0
        assert mode["eigenvalue"] in r.eigenvalues
        assert mode["eigenvalue"].conjugate() in r.eigenvalues
        assert float(frequency) == pytest.approx(mode["natural_frequency"], rel=1e-11)
        assert mode["natural_frequency"] == pytest.approx(abs(mode["eigenvalue"]), rel=1e-14)
        assert value.startswith(f"{mode['eigenvalue'].real:.12g} ± ")
    assert [m["unstable"] for m in r.modes] == [False, True]  # as the text: the second grows
    assert r.modes[1]["damping_ratio"] < 0

    # A free, undamped cart: the eigenvalue 0 twice is one mode, counted twice.
    b = appell.ModelBuilder("free-cart").parameter("m", 2)
    b.coordinate("x").frame("cart", translation=["x", 0, 0]).particle("p", "cart", mass="m")
    free = appell.linearize(b.build())
    assert len(free.eigenvalues) == 2
    assert free.modes == [{"eigenvalue": 0j, "conjugate_pair": False, "count": 2,
                           "natural_frequency": 0.0, "damping_ratio": None, "unstable": False}]


CART = "spring_damper_cart.yaml"


def test_sweep_grid_is_the_product_as_the_command_line(tmp_path, examples):
    cart = str(examples / CART)
    grid = appell.sweep(cart, grid={"mc": [1, 2], "q0.theta": [0.1, 0.4, 0.8]}, t_end=0.2,
                        save="final")
    # The first column varies slowest, as `--grid mc=1,2 --grid q0.theta=0.1,0.4,0.8`.
    assert grid.cases == {"mc": [1.0, 1.0, 1.0, 2.0, 2.0, 2.0],
                          "q0.theta": [0.1, 0.4, 0.8, 0.1, 0.4, 0.8]}
    assert grid.status == ["ok"] * 6
    rows = appell.sweep(cart, cases=grid.cases, t_end=0.2, save="final")
    np.testing.assert_array_equal(rows.final["q"], grid.final["q"])
    paired = appell.sweep(cart, cases={"mc": [1, 2], "q0.theta": [0.1, 0.4]}, t_end=0.2,
                          save="final")
    assert paired.cases == {"mc": [1.0, 2.0], "q0.theta": [0.1, 0.4]}  # rows: two cases
    np.testing.assert_array_equal(paired.final["q"], grid.final["q"][[0, 4]])

    h5py = pytest.importorskip("h5py")
    out = tmp_path / "cli.h5"
    cli = os.environ.get("APPELL_CLI")
    if not cli:
        pytest.skip("the appell command line (APPELL_CLI) is not available")
    subprocess.run([cli, "sweep", cart, "--grid", "mc=1,2", "--grid", "q0.theta=0.1,0.4,0.8",
                    "--t-end", "0.2", "--save", "final", "--out", str(out)], check=True,
                   capture_output=True)
    with h5py.File(out, "r") as f:
        for index, name in enumerate(grid.coordinates):
            np.testing.assert_array_equal(grid.final["q"][:, index], f[f"final/q/{name}"][:])


def test_sweep_refuses_a_dict_that_does_not_say_grid_or_cases(examples):
    cart = str(examples / CART)
    with pytest.raises(TypeError) as e:
        appell.sweep(cart, {"mc": [1, 2], "q0.theta": [0.1, 0.4]}, t_end=0.2)
    assert str(e.value) == (
        "sweep: give the cases by keyword: grid={column: values} for every combination (as "
        "`appell sweep --grid`) or cases={column: values} for one case per row (as a cases file)")
    with pytest.raises(TypeError, match="exactly one of grid= .* and cases="):
        appell.sweep(cart, grid={"mc": [1]}, cases={"mc": [1]}, t_end=0.2)
    with pytest.raises(TypeError, match="exactly one of grid="):
        appell.sweep(cart, t_end=0.2)
    with pytest.raises(TypeError, match=r"grid\['mc'\]: expected a list of values"):
        appell.sweep(cart, grid={"mc": 1.5}, t_end=0.2)
    with pytest.raises(TypeError, match=r"grid\['input.u'\]: numbers only"):
        appell.sweep(cart, grid={"input.u": ["sin(t)"]}, t_end=0.2)


def test_a_name_in_another_case_is_suggested_through_the_library(examples):
    turntable = appell.load(examples / "turntable_pendulum.yaml")
    with pytest.raises(Exception) as e:
        appell.linearize(turntable, values={"L": 0.5})
    assert "did you mean 'l'?" in str(e.value)
