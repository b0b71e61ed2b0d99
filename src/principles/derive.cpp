#include "appell/principles/derive.hpp"

#include "appell/principles/gibbs_appell.hpp"
#include "appell/principles/lagrange.hpp"

namespace appell::principles {

std::string method_name(Method m) {
  switch (m) {
    case Method::Lagrange:
      return "lagrange";
    case Method::GibbsAppell:
      return "gibbs-appell";
  }
  return "?";
}

std::optional<Method> parse_method(const std::string& name) {
  if (name == "lagrange") return Method::Lagrange;
  if (name == "gibbs-appell") return Method::GibbsAppell;
  return std::nullopt;
}

Equations derive(std::shared_ptr<const model::Model> model, Method method) {
  switch (method) {
    case Method::Lagrange:
      return lagrange(std::move(model));
    case Method::GibbsAppell:
      return gibbs_appell(std::move(model));
  }
  throw std::logic_error("unknown method");
}

}  // namespace appell::principles
