#include "appell/io/regressor_writer.hpp"

#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "appell/io/equation_writer.hpp"
#include "appell/numeric/base_parameters.hpp"
#include "appell/principles/regressor.hpp"
#include "appell/sym/readable.hpp"

namespace appell::io {

namespace {

using GiNaC::ex;

double number_of(const ex& e, const GiNaC::exmap& numbers) {
  const ex v = GiNaC::evalf(e.subs(numbers));
  return GiNaC::is_a<GiNaC::numeric>(v) ? GiNaC::ex_to<GiNaC::numeric>(v).to_double() : 0.0;
}

std::string shortest(double v) {
  std::ostringstream s;
  s.precision(12);
  s << (v == 0.0 ? 0.0 : v);
  return s.str();
}

const char* role_word(num::ParameterRole role) {
  switch (role) {
    case num::ParameterRole::Kept:
      return "kept";
    case num::ParameterRole::Grouped:
      return "grouped";
    case num::ParameterRole::Vanishes:
      return "vanishes";
  }
  return "";
}

}  // namespace

std::string write_regressor(const model::Model& model, const model::Values& values, bool base,
                            RegressorFormat format) {
  // The numeric checks first: a model the regressor does not cover fails with its location.
  const num::RegressorEvaluator evaluator(model, values);
  const std::vector<principles::InertialParameter> standard =
      principles::standard_parameters(model);
  std::optional<num::BaseParameters> basis;
  if (base) basis = num::base_parameters(model, values);
  const sym::ReadableContext context = readable_context(model);
  const GiNaC::matrix raw = principles::regressor_matrix(model);
  GiNaC::exvector entries;
  for (unsigned i = 0; i < raw.rows(); ++i)
    for (unsigned c = 0; c < raw.cols(); ++c) entries.push_back(raw(i, c));
  const GiNaC::exvector Y = sym::readable_within(entries, context).entries;
  const std::size_t n = model.dof(), columns = standard.size();
  GiNaC::exmap numbers;
  const model::BoundValues bound = model::bind(model, values);
  for (const auto& p : model.parameters) numbers[p.symbol] = bound.parameters.at(p.name);

  const bool latex = format == RegressorFormat::Latex;
  auto print = [&](const ex& e) {
    return latex ? expression_latex(e, context) : expression_text(e, context);
  };
  auto entry = [&](std::size_t i, std::size_t c) -> const ex& { return Y[i * columns + c]; };
  std::vector<std::string> coordinates;
  for (const auto& q : model.coordinates) coordinates.push_back(q.name);

  if (format == RegressorFormat::Json) {
    nlohmann::ordered_json json;
    json["model"] = model.name;
    json["coordinates"] = coordinates;
    json["equation"] = "Y(q, dot(q), ddot(q)) pi = tau + Q_loads";
    json["parameters"] = nlohmann::ordered_json::array();
    for (const auto& p : standard)
      json["parameters"].push_back({{"name", p.name},
                                    {"owner", p.owner},
                                    {"kind", p.kind},
                                    {"value", print(p.value)},
                                    {"number", number_of(p.value, numbers)}});
    auto rows = [&](const std::vector<std::size_t>& cols) {
      nlohmann::ordered_json r = nlohmann::ordered_json::array();
      for (std::size_t i = 0; i < n; ++i) {
        nlohmann::ordered_json row = nlohmann::ordered_json::array();
        for (std::size_t c : cols) row.push_back(print(entry(i, c)));
        r.push_back(row);
      }
      return r;
    };
    std::vector<std::size_t> all(columns);
    for (std::size_t c = 0; c < columns; ++c) all[c] = c;
    json["regressor"] = rows(all);
    if (basis) {
      nlohmann::ordered_json b;
      b["count"] = basis->base.size();
      b["samples"] = basis->samples;
      b["tolerance"] = basis->tolerance;
      b["parameters"] = nlohmann::ordered_json::array();
      std::vector<std::size_t> kept;
      for (const auto& p : basis->base) {
        kept.push_back(p.kept);
        b["parameters"].push_back({{"column", standard[p.kept].name},
                                   {"expression", print(p.expression)},
                                   {"value", number_of(p.value, {})},
                                   {"exact", p.exact}});
      }
      b["kept"] = b["vanish"] = nlohmann::ordered_json::array();
      b["grouped"] = nlohmann::ordered_json::array();
      for (std::size_t c = 0; c < columns; ++c) {
        if (basis->roles[c] == num::ParameterRole::Kept) b["kept"].push_back(standard[c].name);
        if (basis->roles[c] == num::ParameterRole::Vanishes)
          b["vanish"].push_back(standard[c].name);
        if (basis->roles[c] == num::ParameterRole::Grouped) {
          nlohmann::ordered_json into = nlohmann::ordered_json::array();
          for (std::size_t k : basis->grouped_into[c]) into.push_back(standard[k].name);
          b["grouped"].push_back({{"name", standard[c].name}, {"into", into}});
        }
      }
      b["regressor"] = rows(kept);
      json["base"] = b;
    }
    return json.dump(2) + "\n";
  }

  std::ostringstream out;
  if (latex) {
    out << "% regressor of " << model.name
        << ": Y(q, \\dot{q}, \\ddot{q}) \\pi = \\tau + Q_{loads} (gravity in Y)\n"
        << "\\begin{align}\n";
    bool first = true;
    auto line = [&](const std::string& left, const std::string& right) {
      out << (first ? "" : " \\\\\n") << "  " << left << " &= " << right;
      first = false;
    };
    for (const auto& p : standard) line(print(p.symbol), print(p.value));
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t c = 0; c < columns; ++c)
        if (!entry(i, c).is_zero())
          line("Y_{" + std::to_string(i + 1) + "," + std::to_string(c + 1) + "} \\; (" +
                   print(standard[c].symbol) + ")",
               print(entry(i, c)));
    if (basis)
      for (const auto& p : basis->base)
        line("\\beta_{" + print(standard[p.kept].symbol) + "}", print(p.expression));
    out << "\n\\end{align}\n";
    return out.str();
  }

  out << "regressor of " << model.name << ": Y(q, dot(q), ddot(q)) pi = tau + Q_loads (" << n
      << " x " << columns << "; gravity is in Y, the loads are not)\n"
      << "standard parameters (about each body's frame origin, along its axes):\n";
  for (const auto& p : standard)
    out << "  " << p.name << " = " << print(p.value) << "  ("
        << shortest(number_of(p.value, numbers)) << ")\n";
  out << "Y (nonzero entries; row: coordinate, column: parameter):\n";
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t c = 0; c < columns; ++c)
      if (!entry(i, c).is_zero())
        out << "  Y[" << coordinates[i] << ", " << standard[c].name << "] = " << print(entry(i, c))
            << "\n";
  if (basis) {
    out << "base parameters: " << basis->base.size() << " of " << columns << " (the rank of Y at "
        << basis->samples << " random states, tolerance " << shortest(basis->tolerance) << ")\n";
    for (const auto& p : basis->base)
      out << "  " << standard[p.kept].name << "R = " << print(p.expression) << "  ("
          << shortest(number_of(p.value, {})) << (p.exact ? "" : "; coefficients at these values")
          << ")\n";
    for (auto role :
         {num::ParameterRole::Kept, num::ParameterRole::Grouped, num::ParameterRole::Vanishes}) {
      out << role_word(role) << ":";
      bool any = false;
      for (std::size_t c = 0; c < columns; ++c) {
        if (basis->roles[c] != role) continue;
        out << " " << standard[c].name;
        if (role == num::ParameterRole::Grouped) {
          out << " (into";
          for (std::size_t k : basis->grouped_into[c]) out << " " << standard[k].name;
          out << ")";
        }
        any = true;
      }
      out << (any ? "" : " none") << "\n";
    }
    out << "reduced regressor Y_b (" << n << " x " << basis->base.size()
        << ", full column rank; Y_b beta = Y pi):\n";
    for (std::size_t i = 0; i < n; ++i)
      for (const auto& p : basis->base)
        if (!entry(i, p.kept).is_zero())
          out << "  Y_b[" << coordinates[i] << ", " << standard[p.kept].name
              << "R] = " << print(entry(i, p.kept)) << "\n";
  }
  return out.str();
}

}  // namespace appell::io
