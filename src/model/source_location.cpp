#include "appell/model/source_location.hpp"

namespace appell::model {

std::string SourceLocation::str() const {
  if (line <= 0) return file;
  return file + ":" + std::to_string(line) + ":" + std::to_string(column);
}

namespace {
std::string compose(const SourceLocation& where, const std::string& message,
                    const std::string& offending) {
  // A place nobody knows (a model built in code, no file) is left out rather than shown as "".
  const std::string place = where.str();
  std::string text = place.empty() ? message : place + ": " + message;
  if (!offending.empty()) text += " (" + offending + ")";
  return text;
}
}  // namespace

ModelError::ModelError(SourceLocation where, const std::string& message,
                       const std::string& offending)
    : std::runtime_error(compose(where, message, offending)),
      where_(std::move(where)),
      offending_(offending) {}

}  // namespace appell::model
