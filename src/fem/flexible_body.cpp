#include "appell/fem/flexible_body.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>
#include <stdexcept>

#include "appell/sym/dag.hpp"
#include "appell/sym/differentiator.hpp"

namespace appell::fem {

namespace {

using model::ModelError;

double number(const GiNaC::ex& e, const GiNaC::exmap& numbers, const model::SourceLocation& where,
              const std::string& what) {
  const GiNaC::ex value = GiNaC::evalf(sym::substitute(e, numbers));
  if (!GiNaC::is_a<GiNaC::numeric>(value) || !GiNaC::ex_to<GiNaC::numeric>(value).is_real())
    throw ModelError(where, what + " is not a real number", what);
  return GiNaC::ex_to<GiNaC::numeric>(value).to_double();
}

void check_element_count(const model::FlexibleBody& spec, double elements,
                         std::size_t max_elements) {
  if (elements > double(max_elements)) {
    std::ostringstream message;
    message << "this mesh has " << elements << " elements, more than the limit of " << max_elements
            << " (raise it with `appell fem --max-elements N`)";
    throw ModelError(spec.mesh_where, message.str(), spec.name);
  }
}

Mesh make_mesh(const model::FlexibleBody& spec, const GiNaC::exmap& numbers,
               std::optional<BeamSection>& section, std::size_t max_elements) {
  if (const auto* box = std::get_if<model::BoxMeshSpec>(&spec.mesh)) {
    std::array<double, 3> size{};
    for (std::size_t k = 0; k < 3; ++k) {
      size[k] = number(box->size[k], numbers, spec.mesh_where, "size");
      if (size[k] <= 0) throw ModelError(spec.mesh_where, "box sizes must be positive", spec.name);
    }
    check_element_count(
        spec, double(box->divisions[0]) * double(box->divisions[1]) * double(box->divisions[2]),
        max_elements);
    try {
      return box_mesh(size, box->divisions);
    } catch (const std::invalid_argument& e) {  // more nodes than an int indexes
      throw ModelError(spec.mesh_where, e.what(), spec.name);
    }
  }
  if (const auto* beam = std::get_if<model::BeamMeshSpec>(&spec.mesh)) {
    BeamSection s;
    s.area = number(beam->area, numbers, spec.mesh_where, "area");
    s.Iz = number(beam->Iz, numbers, spec.mesh_where, "Iz");
    s.Iy = beam->planar && beam->Iy.is_zero() ? s.Iz
                                              : number(beam->Iy, numbers, spec.mesh_where, "Iy");
    s.J = beam->planar && beam->J.is_zero() ? s.Iy + s.Iz
                                            : number(beam->J, numbers, spec.mesh_where, "J");
    for (double v : {s.area, s.Iy, s.Iz, s.J})
      if (v <= 0)
        throw ModelError(spec.mesh_where, "section properties must be positive", spec.name);
    section = s;
    const double length = number(beam->length, numbers, spec.mesh_where, "length");
    if (length <= 0) throw ModelError(spec.mesh_where, "the length must be positive", spec.name);
    check_element_count(spec, double(beam->elements), max_elements);
    return beam_mesh(length, beam->elements, beam->planar);
  }
  Mesh mesh = read_gmsh(std::get<model::GmshMeshSpec>(spec.mesh).path, spec.mesh_where);
  check_element_count(spec, double(mesh.elements.size()), max_elements);
  return mesh;
}

}  // namespace

std::vector<int> select_nodes(const Mesh& mesh, const model::NodeSelection& selection,
                              const GiNaC::exmap& numbers) {
  // Planes are matched within a tolerance relative to the mesh's extent: generated and imported
  // coordinates carry rounding.
  Eigen::Vector3d low = Eigen::Vector3d::Constant(1e300), high = -low;
  for (const auto& x : mesh.nodes) {
    low = low.cwiseMin(x);
    high = high.cwiseMax(x);
  }
  const double tolerance = 1e-6 * std::max((high - low).norm(), 1e-300);
  std::array<std::optional<double>, 3> plane;
  const char* axes[] = {"x", "y", "z"};
  for (std::size_t k = 0; k < 3; ++k)
    if (selection.plane[k])
      plane[k] = number(*selection.plane[k], numbers, selection.where, axes[k]);

  std::vector<char> chosen(mesh.nodes.size(), 1);
  for (std::size_t k = 0; k < 3; ++k)
    if (plane[k])
      for (std::size_t n = 0; n < mesh.nodes.size(); ++n)
        if (std::abs(mesh.nodes[n](Eigen::Index(k)) - *plane[k]) > tolerance) chosen[n] = 0;
  if (!selection.nodes.empty()) {
    std::vector<char> listed(mesh.nodes.size(), 0);
    for (long n : selection.nodes) {
      if (n < 0 || std::size_t(n) >= mesh.nodes.size())
        throw ModelError(selection.where,
                         "node index " + std::to_string(n) + " out of range: the mesh has " +
                             std::to_string(mesh.nodes.size()) + " nodes (0 to " +
                             std::to_string(long(mesh.nodes.size()) - 1) + ")",
                         std::to_string(n));
      listed[std::size_t(n)] = 1;
    }
    for (std::size_t n = 0; n < chosen.size(); ++n) chosen[n] = chosen[n] && listed[n];
  }
  if (!selection.group.empty()) {
    const auto group = mesh.node_sets.find(selection.group);
    if (group == mesh.node_sets.end()) {
      std::string known;
      for (const auto& [name, nodes] : mesh.node_sets) known += (known.empty() ? "" : ", ") + name;
      throw ModelError(selection.where,
                       "the mesh has no node group of that name" +
                           (known.empty() ? std::string(" (it has none)") : "; it has " + known),
                       selection.group);
    }
    std::vector<char> member(mesh.nodes.size(), 0);
    for (int n : group->second) member[std::size_t(n)] = 1;
    for (std::size_t n = 0; n < chosen.size(); ++n) chosen[n] = chosen[n] && member[n];
  }
  std::vector<int> nodes;
  for (std::size_t n = 0; n < chosen.size(); ++n)
    if (chosen[n]) nodes.push_back(int(n));
  if (nodes.empty()) {
    std::ostringstream extent;
    extent << "the mesh spans x in [" << low.x() << ", " << high.x() << "], y in [" << low.y()
           << ", " << high.y() << "], z in [" << low.z() << ", " << high.z() << "]";
    throw ModelError(selection.where, "this node selection matches no node; " + extent.str());
  }
  return nodes;
}

FlexibleBodyInstance build_flexible_body(const model::Model& model, std::size_t index,
                                         const model::Values& values, std::size_t max_elements) {
  const model::FlexibleBody& spec = model.flexible.at(index);
  // The body's expressions are of the parameters (and t, for loads and supports) only.
  const GiNaC::exmap numbers = model::bind(model, values).numbers;
  FlexibleBodyInstance body{&spec, {}, {}, {}, {}, 0.0, 0.0, {}, {}, {}, {}, {}, {}};

  body.material.youngs_modulus = number(spec.youngs_modulus, numbers, spec.material_where, "E");
  body.material.poisson_ratio = number(spec.poisson_ratio, numbers, spec.material_where, "nu");
  body.material.density = number(spec.density, numbers, spec.material_where, "rho");
  if (body.material.youngs_modulus <= 0 || body.material.density <= 0)
    throw ModelError(spec.material_where, "E and rho must be positive", spec.name);
  if (body.material.poisson_ratio >= 0.5 || body.material.poisson_ratio <= -1)
    throw ModelError(spec.material_where, "Poisson's ratio must lie in (-1, 0.5)", "nu");
  body.rayleigh_alpha = number(spec.rayleigh_alpha, numbers, spec.where, "alpha");
  body.rayleigh_beta = number(spec.rayleigh_beta, numbers, spec.where, "beta");

  body.mesh = make_mesh(spec, numbers, body.section, max_elements);
  body.assembled = assemble(body.mesh, body.material, body.section);

  const int d = body.assembled.dofs_per_node;
  const std::size_t dofs = body.assembled.dof_count();
  std::vector<char> fixed(dofs, 0);
  for (const auto& clamp : spec.clamp)
    for (int n : select_nodes(body.mesh, clamp, numbers))
      for (int i = 0; i < d; ++i) fixed[std::size_t(n * d + i)] = 1;

  // Compiled expressions of t: body forces (3 per load), nodal forces (3 per load), and for
  // each prescribed displacement component d, ḋ, d̈.
  sym::Differentiator differentiator(model.time_functions);
  const GiNaC::symbol& t = model.time_functions->time();
  GiNaC::exvector outputs;
  const int translational = body.mesh.elements.front().type == ElementType::Beam2D ? 2 : 3;
  std::vector<std::pair<std::size_t, std::vector<int>>> nodal;  // output base, nodes
  for (const auto& load : spec.loads) {
    const std::size_t base = outputs.size();
    for (const auto& component : load.force) outputs.push_back(sym::substitute(component, numbers));
    if (load.at) {
      const auto nodes = select_nodes(body.mesh, *load.at, numbers);
      for (int n : nodes)
        for (int k = 0; k < translational; ++k)
          body.load_targets.push_back({n * d + k, int(base) + k});
    } else {
      // ∫ Nᵀ b dV = m_Oi b / ρ: the body force per unit volume through the first moment.
      for (int k = 0; k < 3; ++k) body.load_targets.push_back({-1 - k, int(base) + k});
    }
  }
  std::map<int, std::array<int, 3>> prescribed;
  for (const auto& p : spec.prescribed) {
    for (int k = 0; k < 3; ++k) {
      const GiNaC::ex value = sym::substitute(p.displacement[std::size_t(k)], numbers);
      if (k >= translational) {
        if (!value.is_zero())
          throw ModelError(p.where,
                           "a planar beam moves in the x-y plane: the z displacement "
                           "must be 0",
                           spec.name);
        continue;
      }
      const GiNaC::ex velocity = differentiator.time_derivative(value);
      const GiNaC::ex acceleration = differentiator.time_derivative(velocity);
      const int base = int(outputs.size());
      outputs.push_back(value);
      outputs.push_back(velocity);
      outputs.push_back(acceleration);
      for (int n : select_nodes(body.mesh, p.at, numbers)) {
        fixed[std::size_t(n * d + k)] = 1;
        prescribed[n * d + k] = {base, base + 1, base + 2};
      }
    }
  }
  try {
    body.load_tape = std::make_shared<num::Tape>(outputs, std::vector<GiNaC::symbol>{t});
  } catch (const std::invalid_argument& e) {
    throw ModelError(spec.where,
                     std::string("loads and prescribed displacements of a flexible body may use "
                                 "t and parameters only: ") +
                         e.what(),
                     spec.name);
  }
  for (const auto& [dof, outs] : prescribed) {
    body.prescribed_dofs.push_back(dof);
    body.prescribed_outputs.push_back(outs);
  }

  body.free_index.assign(dofs, -1);
  for (std::size_t i = 0; i < dofs; ++i)
    if (!fixed[i]) {
      body.free_index[i] = int(body.free_dofs.size());
      body.free_dofs.push_back(int(i));
    }
  if (body.free_dofs.empty())
    throw ModelError(spec.where, "every dof of this flexible body is clamped or prescribed",
                     spec.name);
  return body;
}

BodyLoads FlexibleBodyInstance::loads_at(double t) const {
  const Eigen::Index n = Eigen::Index(assembled.dof_count());
  BodyLoads loads{Eigen::VectorXd::Zero(n), Eigen::VectorXd::Zero(n), Eigen::VectorXd::Zero(n),
                  Eigen::VectorXd::Zero(n)};
  std::vector<double> out(load_tape->output_count()), workspace;
  if (!out.empty()) load_tape->evaluate(&t, out.data(), workspace);
  for (const auto& [dof, output] : load_targets) {
    const double value = out[std::size_t(output)];
    if (dof >= 0)
      loads.force(dof) += value;
    else if (value != 0.0)
      loads.force += (value / material.density) * assembled.first_moment.col(-1 - dof);
  }
  for (std::size_t i = 0; i < prescribed_dofs.size(); ++i) {
    const int dof = prescribed_dofs[i];
    loads.displacement(dof) = out[std::size_t(prescribed_outputs[i][0])];
    loads.velocity(dof) = out[std::size_t(prescribed_outputs[i][1])];
    loads.acceleration(dof) = out[std::size_t(prescribed_outputs[i][2])];
  }
  return loads;
}

}  // namespace appell::fem
