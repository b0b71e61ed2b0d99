#include "appell/model/model.hpp"

#include "appell/model/values.hpp"

namespace appell::model {

GiNaC::symbol Model::coordinate_symbol(std::size_t j, int order) const {
  return time_functions->derivative(coordinates.at(j).name, order);
}

GiNaC::symbol Model::speed_symbol(std::size_t k, int order) const {
  const Speed& u = speeds.at(k);
  if (u.kind == Speed::Kind::Coordinate) return coordinate_symbol(u.coordinate, order + 1);
  return time_functions->derivative(u.name, order);
}

const Quaternion* Model::quaternion_of(const std::string& frame) const {
  for (const auto& q : quaternions)
    if (q.frame == frame) return &q;
  return nullptr;
}

GiNaC::matrix quaternion_matrix(const GiNaC::ex& e0, const GiNaC::ex& e1, const GiNaC::ex& e2,
                                const GiNaC::ex& e3) {
  // R_hom = (e0² − |ε|²) 1 + 2 ε εᵀ + 2 e0 [ε]×, which is |e|² times a rotation.
  const GiNaC::ex n = e0 * e0 + e1 * e1 + e2 * e2 + e3 * e3;
  return GiNaC::matrix(
      3, 3,
      GiNaC::lst{(e0 * e0 + e1 * e1 - e2 * e2 - e3 * e3) / n, 2 * (e1 * e2 - e0 * e3) / n,
                 2 * (e1 * e3 + e0 * e2) / n, 2 * (e1 * e2 + e0 * e3) / n,
                 (e0 * e0 - e1 * e1 + e2 * e2 - e3 * e3) / n, 2 * (e2 * e3 - e0 * e1) / n,
                 2 * (e1 * e3 - e0 * e2) / n, 2 * (e2 * e3 + e0 * e1) / n,
                 (e0 * e0 - e1 * e1 - e2 * e2 + e3 * e3) / n});
}

std::optional<int> Model::frame_index(const std::string& name) const {
  if (name == "world") return -1;
  for (std::size_t i = 0; i < frames.size(); ++i)
    if (frames[i].name == name) return static_cast<int>(i);
  return std::nullopt;
}

std::vector<MassPoint> Model::mass_points() const {
  std::vector<MassPoint> points;
  for (const auto& b : bodies) points.push_back({b.mass, {b.frame, b.com}});
  for (const auto& p : particles) points.push_back({p.mass, {p.frame, p.position}});
  return points;
}

const Parameter* Model::find_parameter(const std::string& name) const {
  for (const auto& p : parameters)
    if (p.name == name) return &p;
  return nullptr;
}

std::map<std::string, double> Model::parameter_values(
    const std::map<std::string, double>& overrides) const {
  for (const auto& [name, value] : overrides) {
    (void)value;
    if (!find_parameter(name))
      throw ModelError(Values::default_location(), "unknown parameter", name);
  }
  return model::bind(*this, Values(overrides)).parameters;
}

GiNaC::exmap Model::parameter_substitution(const std::map<std::string, double>& overrides) const {
  const auto values = parameter_values(overrides);
  GiNaC::exmap m;
  for (const auto& p : parameters) m[p.symbol] = values.at(p.name);
  return m;
}

}  // namespace appell::model
