#include "appell/principles/derive.hpp"

#include <chrono>

#include "appell/principles/dalembert.hpp"
#include "appell/principles/derivation.hpp"
#include "appell/principles/gauss.hpp"
#include "appell/principles/gibbs_appell.hpp"
#include "appell/principles/higher_order_gibbs_appell.hpp"
#include "appell/principles/lagrange.hpp"
#include "appell/principles/nielsen.hpp"
#include "appell/sym/dag.hpp"
#include "appell/sym/progress.hpp"
#include "appell/sym/readable.hpp"
#include "readable_step.hpp"

namespace appell::principles {

std::string form_name(Form form) {
  switch (form) {
    case Form::Coordinates:
      return "coordinates";
    case Form::Speeds:
      return "speeds";
    case Form::Minimal:
      return "minimal";
  }
  return "coordinates";
}

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

// A model of flexible bodies on prescribed frames (`coordinates: []`) has no rigid equations;
// say so where the user asked for them instead of returning an empty system.
void require_coordinates(const model::Model& model) {
  if (model.dof() == 0)
    throw model::ModelError(model.flexible.empty() ? model::SourceLocation{model.source, 0, 0}
                                                   : model.flexible.front().where,
                            "this model has no coordinates, so no rigid-body equations; its "
                            "flexible bodies are analysed by `appell fem`");
  // A quaternion's four coordinates carry three degrees of freedom: M q̈ = f in them is singular
  // (nothing fixes the rate of |e|), and only the equations in the speeds are well posed.
  if (!model.quaternions.empty())
    throw model::ModelError(model.quaternions.front().where,
                            "the frame turns by rot_quat, so the equations are formed in the "
                            "model's speeds (appell derive and simulate); this computation needs "
                            "them in the coordinates and does not handle quaternions yet",
                            model.quaternions.front().frame);
}

Equations derive(std::shared_ptr<const model::Model> model, Method method) {
  require_coordinates(*model);
  const sym::ProgressStep step("forming the equations by " + method_name(method));
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

Equations derive_gibbs_appell(std::shared_ptr<const model::Model> model, int order) {
  require_coordinates(*model);
  const sym::ProgressStep step("forming the equations of order " + std::to_string(order));
  return gibbs_appell_of_order(std::move(model), order);
}

GiNaC::exvector readable_entries(const model::Model& m, const GiNaC::exvector& entries) {
  const auto context = readable_context(m);
  // Every expression in one column, so that work on nodes they share is done once.
  GiNaC::matrix all(static_cast<unsigned>(entries.size()), 1);
  for (std::size_t k = 0; k < entries.size(); ++k) all(static_cast<unsigned>(k), 0) = entries[k];
  const GiNaC::matrix simple = sym::readable(all, context);
  GiNaC::exvector simplified;
  for (std::size_t k = 0; k < entries.size(); ++k)
    simplified.push_back(simple(static_cast<unsigned>(k), 0));
  return simplified;
}

Equations simplify(const Equations& equations) { return detail::made_readable(equations); }

}  // namespace appell::principles
