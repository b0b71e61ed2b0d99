// Fuzzes the expression parser: one expression (model::parse_expression) or, when the input
// starts with "R:", a frame rotation (model::parse_rotation), in a scope with parameters, two
// coordinates, a prescribed function of t, an unspecified one and an input. Every rejection must
// be a model::ModelError located at FILE:LINE:COLUMN (fuzz_support.hpp). Seeds: the expressions
// of the examples' model files (scripts/fuzz.sh).
#include "appell/model/expression_parser.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "appell/sym/time_functions.hpp"
#include "fuzz_support.hpp"

namespace {

appell::model::ExpressionScope make_scope() {
  auto functions = std::make_shared<appell::sym::TimeFunctions>();
  appell::model::ExpressionScope scope(functions);
  for (const char* name : {"m", "l", "g", "k"}) scope.add_parameter(name, GiNaC::symbol(name));
  scope.add_coordinate("q1");
  scope.add_coordinate("q2");
  scope.add_prescribed("phi", GiNaC::ex(3) * GiNaC::sin(GiNaC::ex(scope.time())));
  scope.add_prescribed("psi", std::nullopt);
  scope.add_input("u");
  return scope;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text = appell::fuzz::text_of(data, size);
  const bool rotation = text.rfind("R:", 0) == 0;
  if (rotation) text.erase(0, 2);
  // A fresh scope for every input, so that no input's derivatives accumulate for the next.
  appell::model::ExpressionScope scope = make_scope();
  const auto locate = appell::model::locate_on_one_line({"fuzz.yaml", 3, 7});
  appell::fuzz::expect_located_errors([&] {
    if (rotation)
      appell::model::parse_rotation(text, scope, locate);
    else
      appell::model::parse_expression(text, scope, locate);
  });
  return 0;
}
