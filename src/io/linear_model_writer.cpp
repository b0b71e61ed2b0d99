#include "appell/io/linear_model_writer.hpp"

#include <cmath>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <sstream>

#include "appell/io/equation_writer.hpp"

namespace appell::io {

namespace {

// -0.0 as 0.0: neither JSON nor the text shows a negative zero.
double number(double v) { return v == 0.0 ? 0.0 : v; }

// Matrices and eigenvalues are printed without rounding noise (num::kRoundingNoise): a reader
// should see the 0 the physics has, not -4.7e-16.
nlohmann::ordered_json rows_of(const Eigen::MatrixXd& noisy) {
  const Eigen::MatrixXd m = num::without_rounding_noise(noisy);
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    nlohmann::ordered_json row = nlohmann::ordered_json::array();
    for (Eigen::Index k = 0; k < m.cols(); ++k) row.push_back(number(m(i, k)));
    rows.push_back(row);
  }
  return rows;
}

std::string names_of(const model::Model& model, const std::vector<std::size_t>& indices,
                     const std::string& before = "", const std::string& after = "") {
  std::string out;
  for (std::size_t j : indices)
    out += (out.empty() ? "" : ", ") + before + model.coordinates[j].name + after;
  return out;
}

std::string list(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

void write_matrix(std::ostream& out, const Eigen::MatrixXd& noisy) {
  const Eigen::MatrixXd m = num::without_rounding_noise(noisy);
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    out << "  [";
    for (Eigen::Index k = 0; k < m.cols(); ++k) out << (k ? ", " : "") << number(m(i, k));
    out << "]\n";
  }
}

void write_vector(std::ostream& out, const Eigen::VectorXd& v) {
  out << "[";
  for (Eigen::Index k = 0; k < v.size(); ++k) out << (k ? ", " : "") << number(v[k]);
  out << "]";
}

std::string complex_text(std::complex<double> noisy) {
  const std::complex<double> s = num::without_rounding_noise(noisy);
  std::ostringstream out;
  out << std::setprecision(12) << number(s.real());
  if (s.imag() != 0.0) out << (s.imag() < 0 ? " - " : " + ") << std::abs(s.imag()) << "i";
  return out.str();
}

nlohmann::ordered_json complex_json(std::complex<double> noisy) {
  const std::complex<double> s = num::without_rounding_noise(noisy);
  return {number(s.real()), number(s.imag())};
}

// A group of eigenvalues as one line: "a ± bi" for a conjugate pair, "(multiplicity k)" for a
// value that occurs k > 1 times.
std::string group_text(const num::EigenvalueGroup& group) {
  std::string text;
  if (group.conjugate_pair) {
    std::ostringstream out;
    out << std::setprecision(12) << number(group.value.real()) << " ± " << group.value.imag()
        << "i";
    text = out.str();
  } else {
    text = complex_text(group.value);
  }
  if (group.count > 1) text += " (multiplicity " + std::to_string(group.count) + ")";
  return text;
}

void write_entries(std::ostream& out, const model::Model& model, const GiNaC::matrix& m,
                   const std::string& name) {
  bool any = false;
  for (unsigned i = 0; i < m.rows(); ++i)
    for (unsigned k = 0; k < m.cols(); ++k) {
      if (m(i, k).is_zero()) continue;
      out << "  " << name << "[" << i + 1 << "," << k + 1
          << "] = " << expression_text(m(i, k), model) << "\n";
      any = true;
    }
  if (!any) out << "  (every entry of " << name << " is 0)\n";
}

// 12 significant digits as the text has them, an exponent written \times 10^{k}.
std::string latex_number(double v) {
  std::ostringstream s;
  s << std::setprecision(12) << number(v);
  const std::string text = s.str();
  const auto e = text.find('e');
  if (e == std::string::npos) return text;
  return text.substr(0, e) + " \\times 10^{" + std::to_string(std::stoi(text.substr(e + 1))) + "}";
}

std::string latex_matrix(const Eigen::MatrixXd& noisy) {
  const Eigen::MatrixXd m = num::without_rounding_noise(noisy);
  std::string out = "\\begin{pmatrix}\n";
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    out += "  ";
    for (Eigen::Index k = 0; k < m.cols(); ++k) out += (k ? " & " : "") + latex_number(m(i, k));
    out += i + 1 < m.rows() ? " \\\\\n" : "\n";
  }
  return out + "\\end{pmatrix}";
}

std::string latex_matrix(const model::Model& model, const GiNaC::matrix& m) {
  const sym::ReadableContext context = readable_context(model);
  std::string out = "\\begin{pmatrix}\n";
  for (unsigned i = 0; i < m.rows(); ++i) {
    out += "  ";
    for (unsigned k = 0; k < m.cols(); ++k)
      out += (k ? " & " : "") + expression_latex(m(i, k), context);
    out += i + 1 < m.rows() ? " \\\\\n" : "\n";
  }
  return out + "\\end{pmatrix}";
}

}  // namespace

std::string write_symbolic_linear_model_text(const model::Model& model,
                                             const num::SymbolicLinearModel& linear) {
  std::ostringstream out;
  out << "symbolic, in the parameters: x = (" << list(linear.states) << "), u = ("
      << list(linear.inputs) << ")\n";
  write_entries(out, model, linear.A, "A");
  if (linear.B.cols() > 0) write_entries(out, model, linear.B, "B");
  return out.str();
}

std::string write_symbolic_linear_model_latex(const model::Model& model,
                                              const num::SymbolicLinearModel& linear) {
  std::ostringstream out;
  out << "% " << model.name << ": dx/dt = A x + B u, x = (" << list(linear.states) << "), u = ("
      << list(linear.inputs) << ")\n";
  out << "A = " << latex_matrix(model, linear.A) << "\n";
  if (linear.B.cols() > 0) out << "B = " << latex_matrix(model, linear.B) << "\n";
  return out.str();
}

std::string write_linear_model_latex(const model::Model& model, const num::LinearModel& linear,
                                     double t, const std::string& reason) {
  std::ostringstream out;
  out << std::setprecision(12);
  out << "% " << model.name << ": dx/dt = A x + B u, x = (" << list(linear.states) << "), u = ("
      << list(linear.inputs) << ")\n";
  out << "% numeric A and B about t = " << number(t) << ", q = ";
  write_vector(out, linear.q);
  out << ", dot(q) = ";
  write_vector(out, linear.qd);
  out << " (no symbolic model: " << reason << ")\n";
  out << "A = " << latex_matrix(linear.A) << "\n";
  if (linear.B.cols() > 0) out << "B = " << latex_matrix(linear.B) << "\n";
  return out.str();
}

std::string add_symbolic_linear_model_absent_json(const std::string& json,
                                                  const std::string& reason) {
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(json);
  j["A_symbolic"] = nullptr;
  j["B_symbolic"] = nullptr;
  j["symbolic_absent"] = reason;
  return j.dump();
}

std::string add_symbolic_linear_model_json(const std::string& json, const model::Model& model,
                                           const num::SymbolicLinearModel& linear) {
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(json);
  const auto rows = [&](const GiNaC::matrix& m) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (unsigned i = 0; i < m.rows(); ++i) {
      nlohmann::ordered_json row = nlohmann::ordered_json::array();
      for (unsigned k = 0; k < m.cols(); ++k) row.push_back(expression_text(m(i, k), model));
      out.push_back(row);
    }
    return out;
  };
  j["A_symbolic"] = rows(linear.A);
  j["B_symbolic"] = rows(linear.B);
  return j.dump();
}

std::string write_linear_model_json(const num::LinearModel& linear, bool with_modes) {
  nlohmann::ordered_json j;
  j["states"] = linear.states;
  j["inputs"] = linear.inputs;
  j["A"] = rows_of(linear.A);
  j["B"] = rows_of(linear.B);
  j["eigenvalues"] = nlohmann::ordered_json::array();
  for (Eigen::Index k = 0; k < linear.eigenvalues.size(); ++k)
    j["eigenvalues"].push_back(complex_json(linear.eigenvalues[k]));
  // The same eigenvalues as the text lists them: a conjugate pair once (Im >= 0), repeats counted.
  j["eigenvalue_groups"] = nlohmann::ordered_json::array();
  for (const auto& group : num::eigenvalue_groups(linear)) {
    nlohmann::ordered_json entry;
    entry["eigenvalue"] = complex_json(group.value);
    entry["conjugate_pair"] = group.conjugate_pair;
    entry["count"] = group.count;
    j["eigenvalue_groups"].push_back(entry);
  }
  if (with_modes) {
    j["modes"] = nlohmann::ordered_json::array();
    for (const auto& mode : num::modes(linear)) {
      nlohmann::ordered_json entry;
      entry["eigenvalue"] = complex_json(mode.eigenvalue);
      entry["natural_frequency"] = number(mode.natural_frequency);
      if (std::isnan(mode.damping_ratio))
        entry["damping_ratio"] = nullptr;
      else
        entry["damping_ratio"] = number(mode.damping_ratio);
      entry["unstable"] = mode.unstable;
      j["modes"].push_back(entry);
    }
  }
  return j.dump();
}

std::string write_linear_model_text(const model::Model& model, const num::LinearModel& linear,
                                    double t, bool with_modes) {
  std::ostringstream out;
  out << std::setprecision(12);
  out << model.name << ": linearized about t = " << number(t) << ", q = ";
  write_vector(out, linear.q);
  out << ", dot(q) = ";
  write_vector(out, linear.qd);
  out << "\n";
  if (linear.completed)
    out << "  (the dependent coordinates and speeds solved from the constraints)\n";
  out << "x = (" << list(linear.states) << "), the deviations from the operating point\n";
  out << "u = (" << list(linear.inputs) << ")\n";
  if (!linear.dependent_coordinates.empty() || !linear.dependent_speeds.empty()) {
    out << "independent coordinates: " << names_of(model, linear.independent_coordinates);
    if (!linear.dependent_coordinates.empty())
      out << "; dependent (holonomic constraints): "
          << names_of(model, linear.dependent_coordinates);
    out << "\nindependent speeds: " << names_of(model, linear.independent_speeds, "dot(", ")");
    if (!linear.dependent_speeds.empty())
      out << "; dependent (constraints): " << names_of(model, linear.dependent_speeds, "dot(", ")");
    out << "\n";
  }
  out << "dx/dt = A x + B u\nA =\n";
  write_matrix(out, linear.A);
  if (linear.B.cols() == 0) {
    out << "B = (no inputs)\n";
  } else {
    out << "B =\n";
    write_matrix(out, linear.B);
  }
  const auto groups = num::eigenvalue_groups(linear);
  out << "eigenvalues of A:\n";
  for (const auto& group : groups) out << "  " << group_text(group) << "\n";
  if (with_modes) {
    out << "modes (natural frequency |s|, damping ratio -Re(s)/|s|):\n";
    const auto modes = num::modes(linear);
    for (const auto& group : groups) {
      const num::Mode& mode = modes[group.first];  // a pair's members have the same mode
      out << "  s = " << group_text(group) << ": " << number(mode.natural_frequency) << " rad/s ("
          << number(mode.natural_frequency / (2.0 * M_PI)) << " Hz), damping ratio ";
      if (std::isnan(mode.damping_ratio))
        out << "- (s = 0)";
      else
        out << number(mode.damping_ratio);
      if (mode.unstable) out << " (unstable)";
      out << "\n";
    }
  }
  return out.str();
}

}  // namespace appell::io
