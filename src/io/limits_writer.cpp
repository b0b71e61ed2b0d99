#include "appell/io/limits_writer.hpp"

#include <sstream>
#include <vector>

namespace appell::io {

std::string write_limits_text(const model::Model& model) {
  std::ostringstream out;
  out.precision(12);
  for (const auto& c : model.coordinates) {
    if (!c.limits) continue;
    if (out.tellp() == 0) out << "limits (reported, not enforced):\n";
    const model::CoordinateLimits& l = *c.limits;
    std::vector<std::string> parts;
    std::ostringstream range;
    range.precision(12);
    if (l.lower) range << *l.lower << " <= ";
    if (l.lower || l.upper) range << c.name;
    if (l.upper) range << " <= " << *l.upper;
    if (l.lower || l.upper) parts.push_back(range.str());
    auto bound = [&](const std::string& what, const std::optional<double>& value) {
      if (!value) return;
      std::ostringstream b;
      b.precision(12);
      b << what << " <= " << *value;
      parts.push_back(b.str());
    };
    bound("|dot(" + c.name + ")|", l.velocity);
    bound("|Q_" + c.name + "|", l.effort);
    out << "  " << c.name << ": ";
    for (std::size_t k = 0; k < parts.size(); ++k) out << (k ? ", " : "") << parts[k];
    out << "\n";
  }
  return out.str();
}

}  // namespace appell::io
