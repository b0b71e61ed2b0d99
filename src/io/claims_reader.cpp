#include "appell/io/claims_reader.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <sstream>

#include "appell/model/expression_parser.hpp"
#include "appell/model/input_file.hpp"
#include "yaml_document.hpp"

namespace appell::io {

namespace {

using model::Claim;
using model::ModelError;
using model::SourceLocation;

class ClaimsReader {
 public:
  ClaimsReader(std::string file, const model::Model& model)
      : file_(std::move(file)), model_(model), scope_(model.time_functions) {
    for (const auto& p : model.parameters) scope_.add_parameter(p.name, p.symbol);
    for (const auto& c : model.coordinates) scope_.add_coordinate(c.name);
    for (const auto& p : model.prescribed) scope_.add_prescribed(p.name, p.expression);
    for (const auto& i : model.inputs) scope_.add_input(i.name);
    for (const auto& c : model.constraints) {
      // A multiplier is a number to the expression language, like a parameter.
      result_.multipliers.emplace_back("lambda_" + c.name);
      scope_.add_parameter("lambda_" + c.name, result_.multipliers.back());
    }
  }

  Claims read(const std::string& text) {
    YAML::Node root;
    try {
      root = detail::load_yaml_document(text, file_, "claims file");
    } catch (const YAML::Exception& e) {
      throw ModelError(at(e.mark), "malformed YAML: " + e.msg);
    }
    if (!root.IsMap()) throw ModelError({file_, 1, 1}, "a claims file is a map with `claims:`");
    for (const auto& entry : root) {
      const std::string key = key_of(entry.first);
      if (key != "claims") throw ModelError(at(entry.first.Mark()), "unknown key", key);
    }
    const YAML::Node list = root["claims"];
    if (!list) throw ModelError({file_, 1, 1}, "missing key", "claims");
    if (!list.IsSequence())
      throw ModelError(at(list.Mark()), "expected a list of claims", "claims");
    std::set<std::string> names;
    for (const YAML::Node& item : list) {
      Claim claim = read_claim(item);
      if (!names.insert(claim.name).second)
        throw ModelError(claim.where, "a claim of this name is listed already", claim.name);
      result_.claims.push_back(std::move(claim));
    }
    return result_;
  }

 private:
  SourceLocation at(const YAML::Mark& mark) const {
    if (mark.is_null()) return {file_, 0, 0};
    return {file_, mark.line + 1, mark.column + 1};
  }

  /// A key of a map: a scalar (a list or a map as a key, `{a: 1}: x`, is not a name).
  std::string key_of(const YAML::Node& key) const {
    if (!key.IsScalar()) throw ModelError(at(key.Mark()), "a key must be a plain name");
    return key.Scalar();
  }

  std::string scalar(const YAML::Node& node, const std::string& key) const {
    if (!node.IsScalar()) throw ModelError(at(node.Mark()), "expected a single value", key);
    return node.Scalar();
  }

  GiNaC::ex expression(const YAML::Node& node, const std::string& key) {
    const std::string text = scalar(node, key);
    SourceLocation start = at(node.Mark());
    // A quoted scalar's text starts one column after its mark.
    if (node.Tag() == "!") ++start.column;
    return model::parse_expression(text, scope_, model::locate_on_one_line(start));
  }

  std::size_t coordinate(const YAML::Node& node, const std::string& key) const {
    const std::string name = scalar(node, key);
    for (std::size_t j = 0; j < model_.dof(); ++j)
      if (model_.coordinates[j].name == name) return j;
    throw ModelError(at(node.Mark()), "not a coordinate of the model", name);
  }

  std::size_t index(const YAML::Node& node, std::size_t count, const std::string& key) const {
    const std::string text = scalar(node, key);
    std::size_t value = 0;
    std::istringstream in(text);
    if (!(in >> value) || !in.eof() || value < 1 || value > count)
      throw ModelError(at(node.Mark()),
                       "expected a position from 1 to " + std::to_string(count) + " (1-based)",
                       text);
    return value - 1;
  }

  Claim read_claim(const YAML::Node& item) {
    if (!item.IsMap()) throw ModelError(at(item.Mark()), "a claim is a map of keys");
    static const std::set<std::string> known = {
        "name",           "coordinate", "equation",           "mass_matrix",
        "value",          "forcing",    "generalized_force",  "load",
        "kinetic_energy", "multiplier", "acceleration_energy"};
    static const std::vector<std::string> kinds = {
        "equation",       "mass_matrix",         "forcing",   "generalized_force",
        "kinetic_energy", "acceleration_energy", "multiplier"};
    for (const auto& entry : item) {
      const std::string key = key_of(entry.first);
      if (known.count(key) == 0) throw ModelError(at(entry.first.Mark()), "unknown key", key);
    }
    Claim claim;
    claim.where = at(item.Mark());
    if (!item["name"]) throw ModelError(claim.where, "a claim needs a name", "name");
    claim.name = scalar(item["name"], "name");
    std::string kind;
    for (const auto& k : kinds) {
      if (!item[k]) continue;
      if (!kind.empty())
        throw ModelError(at(item[k].Mark()),
                         "a claim is of one kind; this one is also `" + kind + "`", k);
      kind = k;
    }
    if (kind.empty())
      throw ModelError(claim.where,
                       "a claim says what it is: equation, mass_matrix, forcing, "
                       "generalized_force, kinetic_energy, acceleration_energy or multiplier",
                       claim.name);
    const auto require = [&](const std::string& key) {
      if (!item[key])
        throw ModelError(claim.where, "a `" + kind + "` claim needs `" + key + "`", key);
      return item[key];
    };
    const auto forbid = [&](const std::string& key) {
      if (item[key])
        throw ModelError(at(item[key].Mark()), "a `" + kind + "` claim has no `" + key + "`", key);
    };
    const std::size_t n = model_.dof();
    if (kind == "equation") {
      claim.kind = Claim::Kind::Equation;
      claim.coordinate = coordinate(require("coordinate"), "coordinate");
      forbid("value");
      forbid("load");
      const YAML::Node node = item["equation"];
      const std::string text = scalar(node, "equation");
      const auto equals = text.find('=');
      if (equals == std::string::npos || text.find('=', equals + 1) != std::string::npos)
        throw ModelError(at(node.Mark()), "an equation is written LHS = RHS, with one '='", text);
      SourceLocation start = at(node.Mark());
      if (node.Tag() == "!") ++start.column;
      const auto shifted = [start](std::size_t offset) {
        return SourceLocation{start.file, start.line, start.column + static_cast<int>(offset)};
      };
      claim.left = model::parse_expression(text.substr(0, equals), scope_,
                                           model::locate_on_one_line(shifted(0)));
      claim.value = model::parse_expression(text.substr(equals + 1), scope_,
                                            model::locate_on_one_line(shifted(equals + 1)));
      return claim;
    }
    forbid("coordinate");
    if (kind != "generalized_force") forbid("load");
    if (kind == "mass_matrix") {
      claim.kind = Claim::Kind::MassMatrix;
      const YAML::Node at_node = item["mass_matrix"];
      if (!at_node.IsSequence() || at_node.size() != 2)
        throw ModelError(at(at_node.Mark()), "expected [row, column], 1-based", "mass_matrix");
      claim.coordinate = index(at_node[0], n, "mass_matrix");
      claim.column = index(at_node[1], n, "mass_matrix");
      claim.value = expression(require("value"), "value");
    } else if (kind == "forcing") {
      claim.kind = Claim::Kind::Forcing;
      claim.coordinate = index(item["forcing"], n, "forcing");
      claim.value = expression(require("value"), "value");
    } else if (kind == "generalized_force") {
      claim.kind = Claim::Kind::GeneralizedForce;
      claim.coordinate = coordinate(item["generalized_force"], "generalized_force");
      const YAML::Node load = require("load");
      const std::string which = scalar(load, "load");
      const auto named = std::find_if(model_.loads.begin(), model_.loads.end(),
                                      [&](const model::Load& l) { return l.name == which; });
      if (named != model_.loads.end()) {
        claim.load = static_cast<std::size_t>(named - model_.loads.begin());
      } else if (which != "gravity") {
        if (which.empty() || !std::isdigit(static_cast<unsigned char>(which.front())))
          throw ModelError(at(load.Mark()),
                           "not a load of the model: expected gravity, a load's 1-based position "
                           "in `loads`, or its `name`",
                           which);
        claim.load = index(load, model_.loads.size(), "load");
      } else if (!model_.gravity) {
        throw ModelError(at(load.Mark()), "the model has no gravity", "gravity");
      }
      claim.value = expression(require("value"), "value");
    } else if (kind == "kinetic_energy" || kind == "acceleration_energy") {
      forbid("value");
      claim.kind =
          kind == "kinetic_energy" ? Claim::Kind::KineticEnergy : Claim::Kind::AccelerationEnergy;
      claim.value = expression(item[kind], kind);
    } else {
      claim.kind = Claim::Kind::Multiplier;
      const YAML::Node node = item["multiplier"];
      const std::string name = scalar(node, "multiplier");
      bool found = false;
      for (std::size_t i = 0; i < model_.constraints.size() && !found; ++i)
        if (name == model_.constraints[i].name || name == "lambda_" + model_.constraints[i].name) {
          claim.multiplier = i;
          found = true;
        }
      if (!found) throw ModelError(at(node.Mark()), "not a constraint of the model", name);
      claim.value = expression(require("value"), "value");
    }
    return claim;
  }

  std::string file_;
  const model::Model& model_;
  model::ExpressionScope scope_;
  Claims result_;
};

}  // namespace

Claims parse_claims(const std::string& yaml_text, const std::string& source_name,
                    const model::Model& model) {
  return ClaimsReader(source_name, model).read(yaml_text);
}

Claims read_claims_file(const std::string& path, const model::Model& model) {
  return parse_claims(model::read_input_file(path, model::InputKind::Claims), path, model);
}

}  // namespace appell::io
