#include "appell/io/regressor_writer.hpp"

#include <algorithm>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "appell/io/equation_writer.hpp"
#include "appell/numeric/base_parameters.hpp"
#include "appell/principles/regressor.hpp"
#include "appell/sym/readable.hpp"
#include "intermediate_groups_json.hpp"

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

// A number of the numeric regressor's table: 6 significant digits, never "-0".
std::string cell(double v) {
  std::ostringstream s;
  s.precision(6);
  s << (v == 0.0 ? 0.0 : v);
  return s.str();
}

// `v` for nlohmann::json: -0.0 as 0.
double json_number(double v) { return v == 0.0 ? 0.0 : v; }

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

// The base parameters as the text output lists them (their expressions, values and roles).
void base_text(std::ostringstream& out, const num::BaseParameters& basis,
               const std::vector<principles::InertialParameter>& standard,
               const std::function<std::string(const ex&)>& print) {
  const std::size_t columns = standard.size();
  out << "base parameters: " << basis.base.size() << " of " << columns << " (the rank of Y at "
      << basis.samples << " random states, tolerance " << shortest(basis.tolerance) << ")\n";
  for (const auto& p : basis.base)
    out << "  " << standard[p.kept].name << "R = " << print(p.expression) << "  ("
        << shortest(number_of(p.value, {})) << (p.exact ? "" : "; coefficients at these values")
        << ")\n";
  for (auto role :
       {num::ParameterRole::Kept, num::ParameterRole::Grouped, num::ParameterRole::Vanishes}) {
    out << role_word(role) << ":";
    bool any = false;
    for (std::size_t c = 0; c < columns; ++c) {
      if (basis.roles[c] != role) continue;
      out << " " << standard[c].name;
      if (role == num::ParameterRole::Grouped) {
        out << " (into";
        for (std::size_t k : basis.grouped_into[c]) out << " " << standard[k].name;
        out << ")";
      }
      any = true;
    }
    out << (any ? "" : " none") << "\n";
  }
}

// The base parameters' object of the JSON output, Y_b's rows given.
nlohmann::ordered_json base_json(const num::BaseParameters& basis,
                                 const std::vector<principles::InertialParameter>& standard,
                                 const std::function<std::string(const ex&)>& print,
                                 nlohmann::ordered_json reduced) {
  nlohmann::ordered_json b;
  b["count"] = basis.base.size();
  b["samples"] = basis.samples;
  b["tolerance"] = basis.tolerance;
  b["parameters"] = nlohmann::ordered_json::array();
  for (const auto& p : basis.base)
    b["parameters"].push_back({{"column", standard[p.kept].name},
                               {"expression", print(p.expression)},
                               {"value", number_of(p.value, {})},
                               {"exact", p.exact}});
  b["kept"] = b["vanish"] = nlohmann::ordered_json::array();
  b["grouped"] = nlohmann::ordered_json::array();
  for (std::size_t c = 0; c < standard.size(); ++c) {
    if (basis.roles[c] == num::ParameterRole::Kept) b["kept"].push_back(standard[c].name);
    if (basis.roles[c] == num::ParameterRole::Vanishes) b["vanish"].push_back(standard[c].name);
    if (basis.roles[c] == num::ParameterRole::Grouped) {
      nlohmann::ordered_json into = nlohmann::ordered_json::array();
      for (std::size_t k : basis.grouped_into[c]) into.push_back(standard[k].name);
      b["grouped"].push_back({{"name", standard[c].name}, {"into", into}});
    }
  }
  b["regressor"] = std::move(reduced);
  return b;
}

// The first line of the named intermediates, as `derive --intermediates` writes its own.
std::string named_heading(const principles::IntermediateForm& named) {
  std::string text = "# written through " + std::to_string(named.intermediates.size()) +
                     " named quantities of the regressor's recursion over the frames, each "
                     "defined once in terms of those before it";
  if (named.automatic && named.threshold > 0)
    text += " (chosen automatically: Y as formed has more than " + std::to_string(named.threshold) +
            " nodes)";
  else if (named.automatic)
    text += " (chosen automatically: " + std::to_string(named.over_budget) +
            " entries were too large to simplify within the budget)";
  return text;
}

// A matrix of numbers, a block of columns at a time so that a line stays about `width`
// characters: the row names down the left, the column names across the top, and under them a
// first row `first` (the parameters' values) named `first_name`.
void number_table(std::ostringstream& out, const std::vector<std::string>& rows,
                  const std::vector<std::string>& columns, const std::string& first_name,
                  const Eigen::VectorXd& first, const Eigen::MatrixXd& m) {
  constexpr std::size_t width = 100;
  std::size_t left = first_name.size();
  for (const auto& r : rows) left = std::max(left, r.size());
  std::vector<std::size_t> wide(columns.size());
  for (std::size_t c = 0; c < columns.size(); ++c) {
    wide[c] = std::max(columns[c].size(), cell(first(static_cast<Eigen::Index>(c))).size());
    for (std::size_t i = 0; i < rows.size(); ++i)
      wide[c] = std::max(
          wide[c], cell(m(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(c))).size());
  }
  auto pad = [](const std::string& text, std::size_t w, bool right) {
    const std::string space(w > text.size() ? w - text.size() : 0, ' ');
    return right ? space + text : text + space;
  };
  for (std::size_t begin = 0; begin < columns.size();) {
    std::size_t end = begin, used = 2 + left;
    while (end < columns.size() && (end == begin || used + 2 + wide[end] <= width))
      used += 2 + wide[end++];
    if (begin > 0) out << "\n";
    out << "  " << pad("", left, false);
    for (std::size_t c = begin; c < end; ++c) out << "  " << pad(columns[c], wide[c], true);
    out << "\n  " << pad(first_name, left, false);
    for (std::size_t c = begin; c < end; ++c)
      out << "  " << pad(cell(first(static_cast<Eigen::Index>(c))), wide[c], true);
    out << "\n";
    for (std::size_t i = 0; i < rows.size(); ++i) {
      out << "  " << pad(rows[i], left, false);
      for (std::size_t c = begin; c < end; ++c)
        out << "  "
            << pad(cell(m(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(c))), wide[c],
                   true);
      out << "\n";
    }
    begin = end;
  }
}

}  // namespace

std::string write_regressor(const model::Model& model, const model::Values& values, bool base,
                            RegressorFormat format, const principles::RegressorRequest& request) {
  // The numeric checks first: a model the regressor does not cover fails with its location.
  const num::RegressorEvaluator evaluator(model, values);
  const std::vector<principles::InertialParameter> standard =
      principles::standard_parameters(model);
  std::optional<num::BaseParameters> basis;
  if (base) basis = num::base_parameters(model, values);
  const sym::ReadableContext context = readable_context(model);
  const principles::ReadableRegressor readable = principles::readable_regressor(model, request);
  GiNaC::exvector Y;
  for (unsigned i = 0; i < readable.regressor.rows(); ++i)
    for (unsigned c = 0; c < readable.regressor.cols(); ++c) Y.push_back(readable.regressor(i, c));
  const std::size_t n = model.dof(), columns = standard.size();
  GiNaC::exmap numbers;
  const model::BoundValues bound = model::bind(model, values);
  for (const auto& p : model.parameters) numbers[p.symbol] = bound.parameters.at(p.name);

  const bool latex = format == RegressorFormat::Latex;
  const std::function<std::string(const ex&)> print = [&](const ex& e) {
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
    if (const auto& named = readable.named) {
      nlohmann::ordered_json list = nlohmann::ordered_json::array();
      for (const auto& i : named->intermediates)
        list.push_back({{"name", i.name.get_name()}, {"value", print(i.value)}});
      json["intermediates"] = list;
      json["intermediates_automatic"] = named->automatic;
      json["intermediates_construction"] = principles::construction_name(named->construction);
      json["intermediate_groups"] = detail::intermediate_groups_json(*named);
    }
    std::vector<std::size_t> all(columns);
    for (std::size_t c = 0; c < columns; ++c) all[c] = c;
    json["regressor"] = rows(all);
    if (basis) {
      std::vector<std::size_t> kept;
      for (const auto& p : basis->base) kept.push_back(p.kept);
      json["base"] = base_json(*basis, standard, print, rows(kept));
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
    if (readable.named) {
      // The names before the entries that use them, a line a quantity (as derive's).
      for (const auto& g : readable.named->groups) {
        std::string left, right;
        for (std::size_t k = g.first; k < g.first + g.count; ++k) {
          const auto& i = readable.named->intermediates[k];
          if (k == g.first) {
            left = print(i.name);
            right = print(i.value);
          } else {
            right += ", \\quad " + print(i.name) + " = " + print(i.value);
          }
        }
        line(left, right);
      }
    }
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
  if (const auto& named = readable.named) {
    // One quantity a line, under its section and the frame it belongs to (as derive's).
    out << named_heading(*named) << "\nintermediates:\n";
    std::string part;
    for (const auto& g : named->groups) {
      if (!g.section.empty()) out << "  # " << g.section << "\n";
      if ((!g.section.empty() || g.part != part) && !g.part.empty())
        out << "  # " << g.part << "\n";
      part = g.part;
      out << "  ";
      for (std::size_t k = g.first; k < g.first + g.count; ++k)
        out << (k > g.first ? ";  " : "") << named->intermediates[k].name.get_name() << " = "
            << print(named->intermediates[k].value);
      out << "\n";
    }
  }
  out << "Y (nonzero entries; row: coordinate, column: parameter):\n";
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t c = 0; c < columns; ++c)
      if (!entry(i, c).is_zero())
        out << "  Y[" << coordinates[i] << ", " << standard[c].name << "] = " << print(entry(i, c))
            << "\n";
  if (basis) {
    base_text(out, *basis, standard, print);
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

std::string write_regressor_numbers(const model::Model& model, const num::RegressorState& state,
                                    const num::RegressorNumbers& numbers, RegressorFormat format) {
  if (format == RegressorFormat::Latex)
    throw std::invalid_argument("the regressor's numbers are written as text or JSON");
  const sym::ReadableContext context = readable_context(model);
  const std::function<std::string(const ex&)> print = [&](const ex& e) {
    return expression_text(e, context);
  };
  const std::vector<principles::InertialParameter>& standard = numbers.standard;
  const Eigen::MatrixXd& Y = numbers.regressor;
  const auto n = static_cast<std::size_t>(Y.rows());
  auto vector = [](const Eigen::VectorXd& v) {
    nlohmann::ordered_json a = nlohmann::ordered_json::array();
    for (Eigen::Index i = 0; i < v.size(); ++i) a.push_back(json_number(v(i)));
    return a;
  };
  auto rows = [&](const Eigen::MatrixXd& m) {
    nlohmann::ordered_json r = nlohmann::ordered_json::array();
    for (Eigen::Index i = 0; i < m.rows(); ++i) r.push_back(vector(m.row(i).transpose()));
    return r;
  };

  if (format == RegressorFormat::Json) {
    nlohmann::ordered_json json;
    json["model"] = model.name;
    json["coordinates"] = numbers.coordinates;
    json["equation"] = "Y(q, dot(q), ddot(q)) pi = tau + Q_loads";
    json["state"] = {{"t", json_number(state.t)},
                     {"q", vector(state.q)},
                     {"qd", vector(state.qd)},
                     {"qdd", vector(state.qdd)}};
    json["parameters"] = nlohmann::ordered_json::array();
    for (std::size_t k = 0; k < standard.size(); ++k)
      json["parameters"].push_back(
          {{"name", standard[k].name},
           {"owner", standard[k].owner},
           {"kind", standard[k].kind},
           {"value", print(standard[k].value)},
           {"number", json_number(numbers.values(static_cast<Eigen::Index>(k)))}});
    json["regressor"] = rows(Y);
    if (numbers.base)
      json["base"] = base_json(*numbers.base, standard, print, rows(numbers.base_regressor));
    return json.dump(2) + "\n";
  }

  std::ostringstream out;
  auto list = [](const Eigen::VectorXd& v) {
    std::string text = "[";
    for (Eigen::Index i = 0; i < v.size(); ++i) text += (i > 0 ? ", " : "") + shortest(v(i));
    return text + "]";
  };
  out << "regressor of " << model.name << " at a state: Y(q, dot(q), ddot(q)) pi = tau + Q_loads ("
      << n << " x " << standard.size() << "; gravity is in Y, the loads are not)\n"
      << "  t = " << shortest(state.t) << "\n  q = " << list(state.q)
      << "\n  dot(q) = " << list(state.qd) << "\n  ddot(q) = " << list(state.qdd) << "\n";
  std::vector<std::string> names;
  for (const auto& p : standard) names.push_back(p.name);
  out << "Y (row: coordinate; column: standard parameter, about its body's frame origin along its "
         "axes; pi: its value):\n";
  number_table(out, numbers.coordinates, names, "pi", numbers.values, Y);
  out << "Y pi = " << list(Y * numbers.values)
      << "  (tau + Q_loads: the inverse dynamics of the model without its loads)\n";
  if (numbers.base) {
    const num::BaseParameters& basis = *numbers.base;
    base_text(out, basis, standard, print);
    std::vector<std::string> base_names;
    for (const auto& p : basis.base) base_names.push_back(standard[p.kept].name + "R");
    out << "reduced regressor Y_b (" << n << " x " << basis.base.size()
        << ", full column rank; Y_b beta = Y pi; beta: the base parameters' values):\n";
    number_table(out, numbers.coordinates, base_names, "beta", numbers.base_values,
                 numbers.base_regressor);
  }
  return out.str();
}

}  // namespace appell::io
