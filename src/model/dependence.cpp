#include "appell/model/dependence.hpp"

#include <algorithm>

#include "appell/sym/dag.hpp"

namespace appell::model {

bool allows(Dependence field, SymbolKind kind) {
  switch (kind) {
    case SymbolKind::Parameter:
      return true;
    case SymbolKind::Time:
      return field != Dependence::Parameters;
    case SymbolKind::Coordinate:
    case SymbolKind::Prescribed:
    case SymbolKind::Input:
      return field != Dependence::Parameters && field != Dependence::TimeAndParameters;
    case SymbolKind::Velocity:
      return field == Dependence::Damping || field == Dependence::Loads ||
             field == Dependence::Anything;
    case SymbolKind::Acceleration:
      return field == Dependence::Anything;
    case SymbolKind::Speed:
      return field == Dependence::Loads;
    case SymbolKind::Unknown:
      return false;
  }
  return false;
}

std::string not_allowed_message(Dependence field) {
  switch (field) {
    case Dependence::Parameters:
      return "only numbers and parameters are allowed here";
    case Dependence::TimeAndParameters:
      return "only numbers, parameters and t are allowed here";
    case Dependence::Positions:
      return "positions, translations, rotations and centres of mass may depend on coordinates, "
             "prescribed functions, inputs, parameters and t, never on velocities or "
             "accelerations";
    case Dependence::Potentials:
      return "potentials and springs' stiffnesses and rest lengths may depend on coordinates, "
             "prescribed functions, inputs, parameters and t, never on velocities or "
             "accelerations";
    case Dependence::Damping:
      return "a damper's coefficient may depend on coordinates, velocities, prescribed functions, "
             "inputs, parameters and t, never on accelerations";
    case Dependence::Loads:
      return "loads may depend on coordinates, velocities, generalized speeds, prescribed "
             "functions, inputs, parameters and t, never on accelerations";
    case Dependence::Anything:
      break;
  }
  return "not allowed here";
}

std::string not_allowed_message(Dependence field, SymbolKind kind, const std::string& name) {
  // The messages the parameters' and t's fields always had, kept for scripts that match them.
  if (field == Dependence::Parameters || field == Dependence::TimeAndParameters)
    return not_allowed_message(field);
  if (kind == SymbolKind::Speed)
    return "a generalized speed's name is allowed only in the value of a force, torque or "
           "generalized load";
  const char* place = field == Dependence::Positions    ? "a position"
                      : field == Dependence::Potentials ? "a potential or spring"
                      : field == Dependence::Damping    ? "a damper"
                      : field == Dependence::Loads      ? "a load"
                                                        : "this place";
  return name + " in " + place + ": " + not_allowed_message(field);
}

std::vector<SymbolUse> symbol_uses(const GiNaC::ex& e, const Model& model) {
  std::vector<SymbolUse> uses;
  const sym::TimeFunctions& functions = *model.time_functions;
  // symbols_in, not symbols_by_name: a symbol built in code may share a name with one of the
  // model's and must still be seen (as Unknown).
  for (const auto& node : sym::symbols_in({e})) {
    const auto& symbol = GiNaC::ex_to<GiNaC::symbol>(node);
    const std::string name = symbol.get_name();
    if (symbol.is_equal(functions.time())) {
      uses.push_back({"t", SymbolKind::Time});
      continue;
    }
    if (std::any_of(model.parameters.begin(), model.parameters.end(),
                    [&](const Parameter& p) { return p.symbol.is_equal(symbol); })) {
      uses.push_back({name, SymbolKind::Parameter});
      continue;
    }
    const auto function = functions.lookup(symbol);
    if (!function) {
      uses.push_back({name, SymbolKind::Unknown});
      continue;
    }
    const std::string written = sym::TimeFunctions::text_name(function->function, function->order);
    SymbolKind kind = SymbolKind::Unknown;
    switch (functions.kind(function->function)) {
      case sym::TimeFunctionKind::Coordinate:
        kind = function->order == 0   ? SymbolKind::Coordinate
               : function->order == 1 ? SymbolKind::Velocity
                                      : SymbolKind::Acceleration;
        break;
      case sym::TimeFunctionKind::Prescribed: {
        const bool input =
            std::any_of(model.inputs.begin(), model.inputs.end(),
                        [&](const Input& u) { return u.name == function->function; });
        kind = input ? SymbolKind::Input : SymbolKind::Prescribed;
        break;
      }
      case sym::TimeFunctionKind::Speed:
        kind = function->order == 0 ? SymbolKind::Speed : SymbolKind::Acceleration;
        break;
    }
    uses.push_back({written, kind});
  }
  std::stable_sort(uses.begin(), uses.end(),
                   [](const SymbolUse& a, const SymbolUse& b) { return a.name < b.name; });
  return uses;
}

std::optional<SymbolUse> first_not_allowed(const GiNaC::ex& e, const Model& model,
                                           Dependence field) {
  for (auto& use : symbol_uses(e, model))
    if (!allows(field, use.kind)) return use;
  return std::nullopt;
}

}  // namespace appell::model
