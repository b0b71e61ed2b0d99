#include "appell/model/model.hpp"

#include "appell/sym/dag.hpp"

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
      throw ModelError(SourceLocation{"--set", 0, 0}, "unknown parameter", name);
  }
  std::map<std::string, double> values;
  GiNaC::exmap known;
  for (const auto& p : parameters) {
    double v = 0.0;
    if (auto it = overrides.find(p.name); it != overrides.end()) {
      v = it->second;
    } else {
      GiNaC::ex e = GiNaC::evalf(sym::substitute(p.default_value, known));
      if (!GiNaC::is_a<GiNaC::numeric>(e) || !GiNaC::ex_to<GiNaC::numeric>(e).is_real())
        throw ModelError(p.where, "parameter value is not a real number", p.name);
      v = GiNaC::ex_to<GiNaC::numeric>(e).to_double();
    }
    values[p.name] = v;
    known[p.symbol] = v;
  }
  return values;
}

GiNaC::exmap Model::parameter_substitution(const std::map<std::string, double>& overrides) const {
  auto values = parameter_values(overrides);
  GiNaC::exmap m;
  for (const auto& p : parameters) m[p.symbol] = values[p.name];
  return m;
}

}  // namespace appell::model
