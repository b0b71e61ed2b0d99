#include "fem_derive_output.hpp"

#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli_support.hpp"

namespace appell::cli {

namespace {

using GiNaC::ex;
using nlohmann::json;

std::string text(const ex& e) {
  std::ostringstream s;
  s << e;
  return s.str();
}

std::string line(const char* format, ...) __attribute__((format(printf, 1, 2)));
std::string line(const char* format, ...) {
  char buffer[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buffer, sizeof buffer, format, args);
  va_end(args);
  return buffer;
}

json cost_json(const fem::RouteCost& c) {
  json j = {{"differentiations", c.differentiations},
            {"derivative_nodes", c.derivative_nodes},
            {"energy_nodes", c.energy_nodes},
            {"residual_nodes", c.residual_nodes}};
  if (timing_requested()) {
    j["energy_seconds"] = c.energy_seconds;
    j["differentiation_seconds"] = c.differentiation_seconds;
    j["seconds"] = c.seconds();
  }
  return j;
}

// The time column of a table: a measured time with --timing, else a dash.
std::string time_cell(double seconds) { return timing_requested() ? format_seconds(seconds) : "-"; }

std::string chain_title(const fem::ElementChain& chain) {
  std::ostringstream s;
  s << fem::kind_name(chain.kind) << " chain of " << chain.elements
    << (chain.elements == 1 ? " element" : " elements") << ", " << chain.dofs.size()
    << " nodal dofs";
  return s.str();
}

// ----- both routes on one chain ---------------------------------------------------------------

int print_comparison(const fem::ElementComparison& c, bool as_json, std::ostream& out) {
  if (as_json) {
    json j = {{"kind", fem::kind_name(c.chain.kind)},
              {"elements", c.chain.elements},
              {"dofs", c.chain.dof_names},
              {"identical", c.identical},
              {"routes",
               {{{"route", "lagrange"}, {"cost", cost_json(c.lagrange.cost)}},
                {{"route", "gibbs-appell"}, {"cost", cost_json(c.gibbs_appell.cost)}}}}};
    if (!c.identical) j["first_difference"] = c.first_difference;
    if (timing_requested()) j["compare_seconds"] = c.compare_seconds;
    out << j.dump(2) << "\n";
    return c.identical ? 0 : 1;
  }
  out << chain_title(c.chain) << " in a moving frame (omega, vO unspecified functions of t)\n"
      << "  Lagrange:     T = 1/2 Int rho |vO + omega x p + dot(p)|^2 dV,"
         " d/dt dT/d(dot(delta)) - dT/d(delta) + k delta\n"
      << "  Gibbs-Appell: S = 1/2 Int rho |a|^2 dV, dS/d(ddot(delta)) + k delta\n\n";
  out << line("%-13s %16s %16s %13s %15s %11s\n", "route", "differentiations", "derivative nodes",
              "energy nodes", "residual nodes", "time");
  for (const auto* d : {&c.lagrange, &c.gibbs_appell})
    out << line("%-13s %16zu %16zu %13zu %15zu %11s\n", fem::route_name(d->route),
                d->cost.differentiations, d->cost.derivative_nodes, d->cost.energy_nodes,
                d->cost.residual_nodes, time_cell(d->cost.seconds()).c_str());
  out << "\ndifferentiations: scalar d/dx and d/dt requested; derivative nodes: the rules applied "
         "(shared nodes once)\n";
  if (!c.identical) {
    out << "DIFFERENT residuals: " << c.first_difference << "\n";
    return 1;
  }
  out << "The two residual vectors are symbolically identical";
  if (timing_requested()) out << " (checked in " << format_seconds(c.compare_seconds) << ")";
  out << ".\n";
  return 0;
}

// ----- the Table-1 sweep ----------------------------------------------------------------------

int print_sweep(fem::ElementKind kind, const std::vector<int>& counts, bool as_json,
                std::ostream& out) {
  json rows = json::array();
  bool all_identical = true;
  if (!as_json) {
    out << "Table 1 of Vlase et al. (2020), measured: " << fem::kind_name(kind)
        << " chains, Lagrange (L) vs Gibbs-Appell (GA)\n\n"
        << line("%8s %6s | %8s %8s %6s | %10s %10s | %10s %10s | %10s %10s | %s\n", "elements",
                "dofs", "diff L", "diff GA", "L/GA", "nodes L", "nodes GA", "resid L", "resid GA",
                "time L", "time GA", "identical");
  }
  for (int n : counts) {
    const auto c = fem::compare_routes(kind, n);
    all_identical = all_identical && c.identical;
    const auto& l = c.lagrange.cost;
    const auto& g = c.gibbs_appell.cost;
    if (as_json) {
      rows.push_back({{"elements", n},
                      {"dofs", c.chain.dofs.size()},
                      {"identical", c.identical},
                      {"lagrange", cost_json(l)},
                      {"gibbs_appell", cost_json(g)}});
      continue;
    }
    out << line("%8d %6zu | %8zu %8zu %6.2f | %10zu %10zu | %10zu %10zu | %10s %10s | %s\n", n,
                c.chain.dofs.size(), l.differentiations, g.differentiations,
                double(l.differentiations) / double(g.differentiations), l.derivative_nodes,
                g.derivative_nodes, l.residual_nodes, g.residual_nodes,
                time_cell(l.seconds()).c_str(), time_cell(g.seconds()).c_str(),
                c.identical ? "yes" : "NO");
  }
  if (as_json) {
    out << json{{"kind", fem::kind_name(kind)}, {"identical", all_identical}, {"table", rows}}.dump(
               2)
        << "\n";
  } else {
    out << "\ndiff: scalar differentiations requested; nodes: derivative rules applied (shared "
           "nodes once); resid: distinct nodes of the residuals; time: energy + "
           "differentiation\n";
  }
  return all_identical ? 0 : 1;
}

// ----- one route's element equations ----------------------------------------------------------

struct NamedMatrix {
  const char* name;
  const char* meaning;
  const GiNaC::matrix* value;
};

int print_equations(const fem::ElementChain& chain, const fem::ElementDerivation& d, bool as_json,
                    std::ostream& out) {
  const auto m = fem::extract_matrices(chain, d.residual);
  const std::vector<NamedMatrix> matrices = {
      {"m", "mass", &m.mass},
      {"c", "gyroscopic, 2 Sum [omega]_kl J_kl", &m.gyroscopic},
      {"k", "elastic", &m.stiffness},
      {"k(eps)", "from the angular acceleration", &m.stiffness_epsilon},
      {"k(omega)", "centrifugal", &m.stiffness_omega},
      {"q_i(eps)", "force from the angular acceleration", &m.force_epsilon},
      {"q_i(omega)", "centrifugal force", &m.force_omega},
      {"m_Oi", "first moment, times a_O", &m.first_moment}};
  const char* axis[3] = {"x", "y", "z"};
  auto column_name = [&](const GiNaC::matrix& mat, unsigned k) -> std::string {
    if (mat.cols() == 1) return "";
    if (mat.cols() == 3 && mat.rows() != 3) return axis[k];
    return chain.dof_names[k];
  };
  if (as_json) {
    json jm = json::object();
    for (const auto& nm : matrices) {
      json rows = json::array();
      for (unsigned i = 0; i < nm.value->rows(); ++i) {
        json row = json::array();
        for (unsigned k = 0; k < nm.value->cols(); ++k)
          row.push_back(text(fem::readable_entry((*nm.value)(i, k))));
        rows.push_back(row);
      }
      jm[nm.name] = rows;
    }
    out << json{{"kind", fem::kind_name(chain.kind)}, {"elements", chain.elements},
                {"route", fem::route_name(d.route)},  {"dofs", chain.dof_names},
                {"cost", cost_json(d.cost)},          {"matrices", jm}}
               .dump(2)
        << "\n";
    return 0;
  }
  out << chain_title(chain) << ", by " << fem::route_name(d.route) << "\n"
      << "  m ddot(delta) + c dot(delta) + (k + k(eps) + k(omega)) delta + q_i(eps) + q_i(omega)"
         " + m_Oi a_O = 0\n"
      << "  omega_k: frame angular velocity, eps_k = dot(omega_k); a_O = dot(vO) + omega x vO"
         " (frame components)\n"
      << "  delta = (";
  for (std::size_t i = 0; i < chain.dof_names.size(); ++i)
    out << (i ? ", " : "") << chain.dof_names[i];
  out << ")\n  parameters:";
  for (const auto& p : chain.parameter_order) out << " " << p;
  out << "\n  cost: " << d.cost.differentiations << " differentiations, " << d.cost.derivative_nodes
      << " derivative nodes, energy " << d.cost.energy_nodes << " nodes, residuals "
      << d.cost.residual_nodes << " nodes";
  if (timing_requested()) out << ", " << format_seconds(d.cost.seconds());
  out << "\n";
  for (const auto& nm : matrices) {
    const fem::MatrixSymmetry s = fem::symmetry_of(*nm.value);
    out << "\n" << nm.name << " (" << nm.meaning;
    if (nm.value->rows() == nm.value->cols())
      out << (s == fem::MatrixSymmetry::Symmetric ? "; symmetric: upper triangle"
              : s == fem::MatrixSymmetry::Skew    ? "; skew: upper triangle"
                                                  : "");
    out << "; nonzero entries):\n";
    bool any = false;
    for (unsigned i = 0; i < nm.value->rows(); ++i)
      for (unsigned k = (s == fem::MatrixSymmetry::None ? 0 : i); k < nm.value->cols(); ++k) {
        const ex e = (*nm.value)(i, k);
        if (e.is_zero()) continue;
        any = true;
        const std::string col = column_name(*nm.value, k);
        out << "  " << nm.name << "[" << chain.dof_names[i] << (col.empty() ? "" : "," + col)
            << "] = " << fem::readable_entry(e) << "\n";
      }
    if (!any) out << "  0\n";
  }
  return 0;
}

}  // namespace

std::vector<int> parse_element_counts(const std::string& text) {
  // The symbolic derivation grows faster than N^2 (a bar chain of 40 elements takes seconds, of
  // 200 minutes): the limits keep a sweep within a minute or so.
  std::vector<int> counts;
  for (double v : parse_list("--elements", text)) {
    if (v < 1 || v != std::floor(v) || v > max_derived_elements)
      throw usage_error(
          "--elements",
          "element counts are whole numbers from 1 to " + std::to_string(max_derived_elements),
          text);
    counts.push_back(int(v));
  }
  if (counts.empty()) throw usage_error("--elements", "no element count", text);
  if (counts.size() > max_element_counts)
    throw usage_error("--elements",
                      "at most " + std::to_string(max_element_counts) + " element counts", text);
  return counts;
}

fem::Route route_option(const std::string& name) {
  if (const auto route = fem::parse_route(name)) return *route;
  throw usage_error("--method", "unknown method for --derive-element (lagrange, gibbs-appell)",
                    name);
}

int print_element_derivation(const DeriveElementRequest& request, std::ostream& out) {
  if (request.elements.empty()) throw usage_error("--elements", "no element count");
  if (request.elements.size() > 1) {
    if (request.method)
      throw usage_error("--method", "a sweep of --elements compares both routes; drop --method",
                        fem::route_name(*request.method));
    return print_sweep(request.kind, request.elements, request.json, out);
  }
  const int n = request.elements.front();
  if (!request.method)
    return print_comparison(fem::compare_routes(request.kind, n), request.json, out);
  const auto chain = fem::make_chain(request.kind, n);
  return print_equations(chain, fem::derive_element(chain, *request.method), request.json, out);
}

}  // namespace appell::cli
