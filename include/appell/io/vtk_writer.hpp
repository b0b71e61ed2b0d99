// ParaView output of finite-element results: VTK XML unstructured grids (.vtu) and the
// collections (.pvd) that make a time series of them.
//
// The files are ASCII, which ParaView and VTK read directly; numbers are written in their
// shortest round-trip form, so a .vtu holds exactly the doubles that were computed.
#pragma once

#include <Eigen/Core>
#include <string>
#include <utility>
#include <vector>

#include "appell/fem/mesh.hpp"

namespace appell::io {

/// Writes `mesh` (undeformed node positions) with the point vector "displacement": the first
/// three dofs of each node for solids and 3-D beams, (u, v, 0) for planar beams. `dofs` has
/// mesh.dof_count() entries, or none for an undeformed mesh. `cell_stress`, when given, is
/// elements×6 (σxx, σyy, σzz, σxy, σyz, σzx), ParaView's order of a symmetric tensor, written as
/// the cell array "stress". Cells are VTK hexahedra (12), tetrahedra (10), quadratic tetrahedra
/// (24) and lines (3). Throws std::invalid_argument on wrongly sized inputs and
/// model::ComputationError (naming the path) when the file cannot be written. The file is
/// replaced if it exists.
void write_vtu(const std::string& path, const fem::Mesh& mesh, const Eigen::VectorXd& dofs,
               const Eigen::MatrixXd* cell_stress = nullptr);

/// Writes a ParaView collection of (time, file) steps, in the order given; the file names are
/// written as given (XML-escaped), so they should be relative to the directory of the .pvd.
/// Throws model::ComputationError (naming the path) when the file cannot be written.
void write_pvd(const std::string& path, const std::vector<std::pair<double, std::string>>& steps);

}  // namespace appell::io
