#include "appell/io/derivation_writer.hpp"

#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "appell/io/equation_writer.hpp"
#include "intermediate_groups_json.hpp"

namespace appell::io {

namespace {

using principles::RelativeForm;

const model::Model& model_of(const principles::Derivation& d) {
  if (!d.model) throw std::invalid_argument("a derivation without a model");
  return *d.model;
}

// Seed 003 eqs. 55–57: the left-hand side of each form; the right-hand side is common.
const char* form_text(RelativeForm form) {
  switch (form) {
    case RelativeForm::Appell:
      return "dS_r/d(ddot q)";
    case RelativeForm::Lagrange:
      return "d/dt dT_r/d(dot q) - dT_r/dq";
    case RelativeForm::Nielsen:
      return "dTdot_r/d(dot q) - 2 dT_r/dq";
  }
  return "?";
}

const char* form_latex(RelativeForm form) {
  switch (form) {
    case RelativeForm::Appell:
      return "\\frac{\\partial S_r}{\\partial \\ddot{q}_s}";
    case RelativeForm::Lagrange:
      return "\\frac{d}{dt}\\frac{\\partial T_r}{\\partial \\dot{q}_s} - "
             "\\frac{\\partial T_r}{\\partial q_s}";
    case RelativeForm::Nielsen:
      return "\\frac{\\partial \\dot{T}_r}{\\partial \\dot{q}_s} - "
             "2\\frac{\\partial T_r}{\\partial q_s}";
  }
  return "?";
}

const char* const right_side = " = Q - d(Pi_o + Pi_omega)/dq + Q_omegadot + Gamma";

// Q_omegadot_q1 -> Q\_omegadot\_q1 inside \mathrm{}.
std::string latex_name(const std::string& name) {
  std::string out;
  for (char c : name) {
    if (c == '_') out += '\\';
    out += c;
  }
  return out;
}

std::string named_heading(const principles::IntermediateForm& named) {
  const bool recursions = named.construction == principles::IntermediateConstruction::Recursions;
  std::string text =
      "# written through " + std::to_string(named.intermediates.size()) + " named " +
      (recursions ? "quantities of the recursions over the frames (Newton-Euler for f, composite "
                    "bodies for M)"
                  : "intermediates") +
      ", each defined once in terms of those before it";
  if (!named.recursions_not_used.empty())
    text += " (common subexpressions of M and f: " + named.recursions_not_used + ")";
  if (named.automatic && named.threshold > 0)
    text += " (chosen automatically: the equations as formed have more than " +
            std::to_string(named.threshold) + " nodes)";
  else if (named.automatic)
    text += " (chosen automatically: " + std::to_string(named.over_budget) +
            " entries were too large to simplify within the budget)";
  return text;
}

// The split's equation, in words the text and JSON share.
std::string split_equation(const principles::Derivation& d) {
  const auto& s = *d.split;
  std::string text = s.moving ? "M(q, t) ddot(q) + C(q, dot(q), t) dot(q) + (dM/dt + G(q, t)) "
                                "dot(q) + p(q, t) + g(q, t) = Q(q, dot(q), t)"
                              : "M(q) ddot(q) + C(q, dot(q)) dot(q) + g(q) = Q(q, dot(q), t)";
  if (d.equations && d.equations->constraint_count() > 0) text += " + A^T lambda";
  return text;
}

// What each named matrix of the split is, its text name and LaTeX symbol, in order.
struct SplitPart {
  const char* key;      // JSON
  const char* name;     // text: "C" in C[1,2]
  const char* latex;    // LaTeX: C_{12}
  const char* heading;  // text
  const GiNaC::matrix* value;
  bool square;  // n×n (two indices, JSON rows) rather than n×1, also when n = 1
};

std::vector<SplitPart> split_parts(const principles::CoriolisSplit& s) {
  std::vector<SplitPart> parts = {
      {"coriolis", "C", "C",
       "coriolis C (Christoffel symbols of the first kind: C[i,j] = sum_k 1/2 (dM[i,j]/dq_k + "
       "dM[i,k]/dq_j - dM[j,k]/dq_i) dot(q_k))",
       &s.coriolis, true},
      {"gravity", "g", "g", "gravity g = dV/dq (gravity, springs, potential loads)", &s.gravity,
       false},
      {"loads", "Q", "Q",
       "loads Q (forces, torques, dampers, generalized loads: every load without a potential)",
       &s.loads, false}};
  if (s.moving) {
    parts.push_back({"mass_rate", "dM/dt", "\\partial_t M",
                     "mass rate dM/dt (M's rate at fixed q, through t and the prescribed "
                     "functions)",
                     &s.mass_rate, true});
    parts.push_back({"gyroscopic", "G", "G",
                     "gyroscopic G (skew-symmetric: G[i,k] = db_i/dq_k - db_k/dq_i, b = "
                     "dT/d(dot q) at dot(q) = 0)",
                     &s.gyroscopic, true});
    parts.push_back({"prescribed_motion", "p", "p",
                     "prescribed motion p = db/dt - dT0/dq (free of dot(q), T0 = T at dot(q) = "
                     "0: transport, centrifugal and Euler forces)",
                     &s.prescribed_motion, false});
  }
  return parts;
}

std::string split_text(const principles::Derivation& d, const sym::ReadableContext& context) {
  std::ostringstream out;
  out << "\nsplit: " << split_equation(d) << "\n";
  if (d.split_proved)
    out << (*d.split_proved ? "# proved: the split reproduces f (C q̇ + g - Q + ... + f "
                              "simplifies to 0)\n"
                            : "# not proved within the simplification budget that the split "
                              "reproduces f; checked at " +
                                  std::to_string(d.split_states_checked) + " numeric states\n");
  for (const auto& part : split_parts(*d.split)) {
    out << part.heading << ":\n";
    const GiNaC::matrix& m = *part.value;
    for (unsigned i = 0; i < m.rows(); ++i)
      for (unsigned j = 0; j < m.cols(); ++j) {
        out << "  " << part.name << "[" << i + 1;
        if (part.square) out << "," << j + 1;
        out << "] = " << expression_text(m(i, j), context) << "\n";
      }
  }
  return out.str();
}

std::string split_latex(const principles::Derivation& d, const sym::ReadableContext& context) {
  const auto& s = *d.split;
  std::ostringstream out;
  out << "% split: " << split_equation(d) << "\n\\begin{equation}\n  M \\ddot{q} + C \\dot{q} + "
      << (s.moving ? "\\left(\\partial_t M + G\\right) \\dot{q} + p + " : "") << "g = Q"
      << (d.equations && d.equations->constraint_count() > 0 ? " + A^{T} \\lambda" : "")
      << "\n\\end{equation}\n";
  std::vector<std::string> lines;
  for (const auto& part : split_parts(s)) {
    const GiNaC::matrix& m = *part.value;
    for (unsigned i = 0; i < m.rows(); ++i)
      for (unsigned j = 0; j < m.cols(); ++j) {
        // C_{12}; with more than nine coordinates C_{10,2}.
        std::string index = std::to_string(i + 1);
        if (part.square) index += (m.cols() > 9 ? "," : "") + std::to_string(j + 1);
        lines.push_back(std::string(part.latex) + "_{" + index +
                        "} &= " + expression_latex(m(i, j), context));
      }
  }
  out << "\\begin{align}\n";
  for (std::size_t k = 0; k < lines.size(); ++k)
    out << "  " << lines[k] << (k + 1 < lines.size() ? " \\\\" : "") << "\n";
  out << "\\end{align}\n";
  return out.str();
}

void split_json(nlohmann::ordered_json& json, const principles::Derivation& d,
                const sym::ReadableContext& context) {
  json["split_equation"] = split_equation(d);
  for (const auto& part : split_parts(*d.split)) {
    const GiNaC::matrix& m = *part.value;
    nlohmann::ordered_json value = nlohmann::ordered_json::array();
    for (unsigned i = 0; i < m.rows(); ++i) {
      if (!part.square) {
        value.push_back(expression_text(m(i, 0), context));
        continue;
      }
      nlohmann::ordered_json row = nlohmann::ordered_json::array();
      for (unsigned j = 0; j < m.cols(); ++j) row.push_back(expression_text(m(i, j), context));
      value.push_back(row);
    }
    json[part.key] = value;
  }
  if (d.split_proved) json["split_proved"] = *d.split_proved;
  if (d.split_proved && !*d.split_proved) json["split_states_checked"] = d.split_states_checked;
}

std::string equations_text(const principles::Derivation& d, const WriteOptions& options) {
  if (d.equations) return write_text(*d.equations, options);
  throw std::invalid_argument("a derivation without equations");
}

}  // namespace

std::string write_text(const principles::Derivation& d, const WriteOptions& options) {
  const model::Model& model = model_of(d);
  const auto context = readable_context(model);
  std::ostringstream out;
  if (d.named) {
    out << named_heading(*d.named) << "\nintermediates:\n";
    const auto& list = d.named->intermediates;
    if (d.named->groups.empty()) {
      for (const auto& i : list)
        out << "  " << i.name.get_name() << " = " << expression_text(i.value, context) << "\n";
    } else {
      // One quantity a line, under its section and the frame it belongs to.
      std::string part;
      for (const auto& g : d.named->groups) {
        if (!g.section.empty()) out << "  # " << g.section << "\n";
        if ((!g.section.empty() || g.part != part) && !g.part.empty())
          out << "  # " << g.part << "\n";
        part = g.part;
        out << "  ";
        for (std::size_t k = g.first; k < g.first + g.count; ++k)
          out << (k > g.first ? ";  " : "") << list[k].name.get_name() << " = "
              << expression_text(list[k].value, context);
        out << "\n";
      }
    }
    out << "\n";
  }
  out << equations_text(d, options);
  if (d.compulsion) out << "\ncompulsion Z = " << expression_text(*d.compulsion, context) << "\n";
  if (d.inertial_forces) {
    const auto& f = *d.inertial_forces;
    out << "\ninertial forces of the carrier " << f.carrier << " (relative motion in "
        << principles::relative_form_name(f.form) << " form: " << form_text(f.form) << right_side
        << "):\n";
    for (const auto& [name, e] : f.terms)
      out << "  " << name << " = " << expression_text(e, context) << "\n";
  }
  if (d.split) out << split_text(d, context);
  return out.str();
}

std::string write_latex(const principles::Derivation& d) {
  const model::Model& model = model_of(d);
  const auto context = readable_context(model);
  std::ostringstream out;
  if (d.named) {
    out << "% " << named_heading(*d.named).substr(2) << "\n";
    const auto& list = d.named->intermediates;
    if (d.named->groups.empty()) {
      out << "\\begin{align}\n";
      for (std::size_t k = 0; k < list.size(); ++k)
        out << "  " << expression_latex(list[k].name, context)
            << " &= " << expression_latex(list[k].value, context)
            << (k + 1 < list.size() ? " \\\\" : "") << "\n";
    } else {
      // An align block a section, with the section as a comment before it (no comment inside a
      // block: the names' subscripts carry their frames), a row a quantity with its components
      // side by side.
      const auto& groups = d.named->groups;
      for (std::size_t g = 0; g < groups.size(); ++g) {
        const bool opens = g == 0 || !groups[g].section.empty();
        if (opens && g > 0) out << "\n\\end{align}\n";
        if (opens && !groups[g].section.empty()) out << "% " << groups[g].section << "\n";
        if (opens) out << "\\begin{align}\n";
        if (!opens) out << " \\\\\n";
        out << "  ";
        for (std::size_t k = groups[g].first; k < groups[g].first + groups[g].count; ++k)
          out << (k > groups[g].first ? ", \\quad " : "") << expression_latex(list[k].name, context)
              << (k > groups[g].first ? " = " : " &= ") << expression_latex(list[k].value, context);
      }
      out << "\n";
    }
    out << "\\end{align}\n";
  }
  if (d.equations)
    out << write_latex(*d.equations);
  else
    throw std::invalid_argument("a derivation without equations");
  if (d.compulsion)
    out << "\\begin{equation}\nZ = " << expression_latex(*d.compulsion, context)
        << "\n\\end{equation}\n";
  if (d.inertial_forces) {
    const auto& f = *d.inertial_forces;
    out << "% relative motion in " << principles::relative_form_name(f.form)
        << " form\n\\begin{equation}\n  " << form_latex(f.form)
        << " = Q_s - \\frac{\\partial (\\Pi_o + \\Pi_\\omega)}{\\partial q_s} + "
           "Q^{\\dot{\\omega}}_s + \\Gamma_s\n\\end{equation}\n";
    out << "\\begin{align}\n";
    for (std::size_t k = 0; k < f.terms.size(); ++k)
      out << "  \\mathrm{" << latex_name(f.terms[k].first)
          << "} &= " << expression_latex(f.terms[k].second, context)
          << (k + 1 < f.terms.size() ? " \\\\" : "") << "\n";
    out << "\\end{align}\n";
  }
  if (d.split) out << split_latex(d, context);
  return out.str();
}

std::string write_json(const principles::Derivation& d, const WriteOptions& options) {
  const model::Model& model = model_of(d);
  const auto context = readable_context(model);
  nlohmann::ordered_json json;
  if (d.equations)
    json = nlohmann::ordered_json::parse(write_json(*d.equations, options));
  else
    throw std::invalid_argument("a derivation without equations");
  if (d.named) {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const auto& i : d.named->intermediates)
      list.push_back({{"name", i.name.get_name()}, {"value", expression_text(i.value, context)}});
    json["intermediates"] = list;
    json["intermediates_automatic"] = d.named->automatic;
    json["intermediates_construction"] = principles::construction_name(d.named->construction);
    if (!d.named->recursions_not_used.empty())
      json["recursions_not_used"] = d.named->recursions_not_used;
    if (!d.named->groups.empty()) {
      json["intermediate_groups"] = detail::intermediate_groups_json(*d.named);
    }
  }
  if (d.compulsion) json["compulsion"] = expression_text(*d.compulsion, context);
  if (d.inertial_forces) {
    const auto& f = *d.inertial_forces;
    nlohmann::ordered_json forces = nlohmann::ordered_json::object();
    forces["carrier"] = f.carrier;
    forces["form"] = principles::relative_form_name(f.form);
    forces["equation"] = std::string(form_text(f.form)) + right_side;
    for (const auto& [name, e] : f.terms) forces[name] = expression_text(e, context);
    json["inertial_forces"] = forces;
  }
  if (d.split) split_json(json, d, context);
  return json.dump(2);
}

}  // namespace appell::io
