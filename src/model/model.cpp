#include "appell/model/model.hpp"

#include "appell/model/values.hpp"

namespace appell::model {

GiNaC::symbol Model::coordinate_symbol(std::size_t j, int order) const {
  return time_functions->derivative(coordinates.at(j).name, order);
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
