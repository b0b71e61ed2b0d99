#include "appell/sweep/model_hash.hpp"

#include <charconv>

#include "appell/codegen/loadable_source.hpp"
#include "appell/model/values.hpp"
#include "appell/numeric/native_library.hpp"
#include "appell/principles/recursive_dynamics.hpp"

namespace appell::sweep {

namespace {

// The shortest text that reads back as the same double.
std::string exact(double value) {
  char buffer[32];
  const auto end = std::to_chars(buffer, buffer + sizeof buffer, value).ptr;
  return {buffer, end};
}

}  // namespace

std::string model_hash(const model::Model& model, const std::string& file_text) {
  if (!principles::recursions_alone_do_not_cover(model).empty())
    return num::sha256_hex("appell model file\n" + file_text);
  std::string content = "appell recursions\n" + codegen::loadable_c_source(model).code;
  // The code holds no numbers the values give: the defaults and the initial state are added.
  for (const auto& [name, value] : model::bind(model, {}).parameters)
    content += "\nparameter " + name + " = " + exact(value);
  for (const auto& coordinate : model.coordinates)
    content += "\ncoordinate " + coordinate.name + " " + exact(coordinate.initial) + " " +
               exact(coordinate.velocity);
  return num::sha256_hex(content);
}

}  // namespace appell::sweep
