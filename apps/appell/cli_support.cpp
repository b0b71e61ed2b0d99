#include "cli_support.hpp"

#include <charconv>
#include <iomanip>
#include <sstream>

#include "appell/principles/derive.hpp"

namespace appell::cli {

model::ModelError usage_error(const std::string& option, const std::string& message,
                              const std::string& offending) {
  return model::ModelError(model::SourceLocation{option, 0, 0}, message, offending);
}

model::ModelError at_option(const model::ModelError& error,
                            const std::map<std::string, std::string>& options) {
  const auto option = options.find(error.where().file);
  if (option == options.end()) return error;
  // what() is "WHERE: message", then " (offending)" when there is an offending name.
  const std::string prefix = error.where().str() + ": ";
  const std::string suffix = error.offending().empty() ? "" : " (" + error.offending() + ")";
  std::string message = error.what();
  if (message.rfind(prefix, 0) == 0) message.erase(0, prefix.size());
  if (message.size() >= suffix.size() &&
      message.compare(message.size() - suffix.size(), suffix.size(), suffix) == 0)
    message.erase(message.size() - suffix.size());
  model::SourceLocation where = error.where();
  where.file = option->second;
  return model::ModelError(where, message, error.offending());
}

double parse_number(const std::string& option, const std::string& text) {
  double value = 0.0;
  const char* begin = text.data();
  const char* end = begin + text.size();
  while (begin < end && *begin == ' ') ++begin;
  if (begin < end && *begin == '+') ++begin;
  auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec != std::errc() || ptr != end || begin == end)
    throw usage_error(option, "not a number", text);
  return value;
}

std::vector<double> parse_list(const std::string& option, const std::string& text) {
  std::vector<double> values;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) values.push_back(parse_number(option, item));
  return values;
}

model::Values parse_assignments(const std::vector<std::string>& items) {
  model::Values values;
  for (const auto& item : items) {
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0) throw usage_error("--set", "expected NAME=VALUE", item);
    // Located at the option: model::bind reports a bad name or number there.
    values.set(item.substr(0, eq), parse_number("--set", item.substr(eq + 1)),
               model::SourceLocation{"--set", 0, 0});
  }
  return values;
}

void reject_constraints(const model::Model& model, const std::string& command) {
  if (model.constraints.empty()) return;
  throw model::ModelError(model.constraints.front().where,
                          "constraints are not supported by '" + command +
                              "' yet (use derive, verify, eval, simulate or statics)",
                          model.constraints.front().name);
}

principles::Method method_option(const std::string& name) {
  auto m = principles::parse_method(name);
  if (!m)
    throw usage_error("--method",
                      "unknown method (lagrange, gibbs-appell, dalembert, gauss, nielsen)", name);
  return *m;
}

std::string format_seconds(double s) {
  std::ostringstream out;
  if (s < 1e-3)
    out << std::fixed << std::setprecision(1) << s * 1e6 << " us";
  else if (s < 1.0)
    out << std::fixed << std::setprecision(2) << s * 1e3 << " ms";
  else
    out << std::fixed << std::setprecision(3) << s << " s";
  return out.str();
}

std::string join_names(const std::vector<std::string>& names) {
  std::string text;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) text += i + 1 == names.size() ? " and " : ", ";
    text += names[i];
  }
  return text;
}

}  // namespace appell::cli
