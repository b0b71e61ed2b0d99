#include "appell/principles/derive.hpp"

#include <chrono>

#include "appell/principles/dalembert.hpp"
#include "appell/principles/gauss.hpp"
#include "appell/principles/gibbs_appell.hpp"
#include "appell/principles/lagrange.hpp"
#include "appell/principles/nielsen.hpp"
#include "appell/sym/dag.hpp"
#include "appell/sym/readable.hpp"

namespace appell::principles {

std::string method_name(Method m) {
  switch (m) {
    case Method::Lagrange:
      return "lagrange";
    case Method::GibbsAppell:
      return "gibbs-appell";
    case Method::Dalembert:
      return "dalembert";
    case Method::Gauss:
      return "gauss";
    case Method::Nielsen:
      return "nielsen";
  }
  return "?";
}

std::optional<Method> parse_method(const std::string& name) {
  if (name == "lagrange") return Method::Lagrange;
  if (name == "gibbs-appell") return Method::GibbsAppell;
  if (name == "dalembert") return Method::Dalembert;
  if (name == "gauss") return Method::Gauss;
  if (name == "nielsen") return Method::Nielsen;
  return std::nullopt;
}

Equations derive(std::shared_ptr<const model::Model> model, Method method) {
  switch (method) {
    case Method::Lagrange:
      return lagrange(std::move(model));
    case Method::GibbsAppell:
      return gibbs_appell(std::move(model));
    case Method::Dalembert:
      return dalembert(std::move(model));
    case Method::Gauss:
      return gauss(std::move(model));
    case Method::Nielsen:
      return nielsen(std::move(model));
  }
  throw std::logic_error("unknown method");
}

Equations simplify(const Equations& equations) {
  const auto start = std::chrono::steady_clock::now();
  const model::Model& m = *equations.model;
  std::vector<std::string> functions;
  for (const auto& c : m.coordinates) functions.push_back(c.name);
  for (const auto& p : m.prescribed)
    if (!p.expression) functions.push_back(p.name);
  std::vector<GiNaC::symbol> parameters;
  for (const auto& p : m.parameters) parameters.push_back(p.symbol);
  const auto context =
      sym::ReadableContext::for_functions(*m.time_functions, functions, std::move(parameters));

  // M and f side by side, so that work on nodes they share is done once.
  const unsigned n = static_cast<unsigned>(equations.dof());
  GiNaC::matrix both(n, n + 1);
  for (unsigned i = 0; i < n; ++i) {
    for (unsigned k = 0; k < n; ++k) both(i, k) = equations.mass_matrix(i, k);
    both(i, n) = equations.forcing(i, 0);
  }
  const GiNaC::matrix simple = sym::readable(both, context);

  Equations result = equations;
  for (unsigned i = 0; i < n; ++i) {
    for (unsigned k = 0; k < n; ++k) result.mass_matrix(i, k) = simple(i, k);
    result.forcing(i, 0) = simple(i, n);
  }
  result.simplified = true;
  result.cost.size_after = sym::dag_size(result.entries());
  result.cost.simplify_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace appell::principles
