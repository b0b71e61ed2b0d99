#include "appell/sweep/sweep_settings.hpp"

#include "appell/numeric/simulate.hpp"

namespace appell::sweep {

std::string save_name(Save save) {
  switch (save) {
    case Save::Series:
      return "series";
    case Save::Final:
      return "final";
    case Save::Summary:
      return "summary";
  }
  return "summary";
}

std::optional<Save> parse_save(const std::string& name) {
  if (name == "series") return Save::Series;
  if (name == "final") return Save::Final;
  if (name == "summary") return Save::Summary;
  return std::nullopt;
}

std::vector<double> output_times(const SweepSettings& settings) {
  return num::output_times(0.0, settings.t_end, settings.output_step);
}

}  // namespace appell::sweep
