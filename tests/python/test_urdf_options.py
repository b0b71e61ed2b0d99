"""load(..., exact_angles=) and import_urdf(..., exact_angles=): the command line's
--exact-angles. The UR5 writes pi/2 as 1.57079632679; read as pi/2 by default (no rounding terms
of pi in the equations), kept as written with exact_angles=True. The two robots differ below the
digits the file was written with: their mass matrices and forcings agree to 1e-9, and differ."""

import numpy as np
import pytest

import appell


@pytest.fixture(scope="module")
def ur5(examples):
    return examples / "urdf" / "ur5_robot.urdf"


def test_import_keeps_the_angles_as_written_only_when_asked(ur5):
    snapped = appell.import_urdf(ur5)
    assert "rot_y(pi/2)" in snapped and "1.57079632679" not in snapped
    written = appell.import_urdf(ur5, exact_angles=True)
    assert "rot_y(1.57079632679)" in written and "rot_y(pi/2)" not in written
    # The model file read back is the model load() gives with the same option.
    assert appell.Model.from_yaml(written).coordinates == appell.load(ur5).coordinates


def test_the_equations_carry_the_rounding_of_pi_only_as_written(ur5):
    snapped = appell.derive(appell.load(ur5)).text()
    written = appell.derive(appell.load(ur5, exact_angles=True)).text()
    assert "e-12" not in snapped
    assert "e-12" in written


def test_snapped_and_written_agree_to_the_files_digits(ur5):
    snapped = appell.Dynamics(appell.load(ur5))
    written = appell.Dynamics(appell.load(ur5, exact_angles=True))
    rng = np.random.default_rng(30)
    q, qd = rng.uniform(-1.5, 1.5, (10, 6)), rng.uniform(-2, 2, (10, 6))
    Ms, fs = snapped.mass_matrix_and_forcing(q, qd)
    Mw, fw = written.mass_matrix_and_forcing(q, qd)
    dM, df = np.abs(Ms - Mw).max(), np.abs(fs - fw).max()
    assert dM < 1e-9 * (1 + np.abs(Ms).max())
    assert df < 1e-9 * (1 + np.abs(fs).max())
    assert dM + df > 0.0  # the option was not ignored


def test_exact_angles_is_refused_for_a_model_file_and_must_be_a_bool(examples, ur5):
    with pytest.raises(ValueError, match="exact_angles"):
        appell.load(examples / "double_pendulum.yaml", exact_angles=True)
    with pytest.raises(TypeError, match="exact_angles"):
        appell.load(ur5, exact_angles="yes")
    with pytest.raises(TypeError, match="exact_angles"):
        appell.import_urdf(ur5, exact_angles=1)
