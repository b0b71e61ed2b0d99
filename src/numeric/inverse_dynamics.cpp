#include "appell/numeric/inverse_dynamics.hpp"

#include <charconv>
#include <cmath>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "appell/model/expression_parser.hpp"
#include "appell/model/input_file.hpp"
#include "appell/model/source_location.hpp"
#include "appell/numeric/speeds.hpp"
#include "appell/sym/differentiator.hpp"
#include "appell/sym/time_functions.hpp"
#include "dynamics_evaluator.hpp"

namespace appell::num {

namespace {

Eigen::Index to_index(std::size_t i) { return static_cast<Eigen::Index>(i); }

bool is_blank(char c) { return c == ' ' || c == '\t'; }

// [begin, end) of `text` without surrounding blanks.
std::pair<std::size_t, std::size_t> trimmed(std::string_view text, std::size_t begin,
                                            std::size_t end) {
  while (begin < end && is_blank(text[begin])) ++begin;
  while (end > begin && is_blank(text[end - 1])) --end;
  return {begin, end};
}

// Errors are located in "trajectory"; the command line relocates them at its option.
constexpr const char* trajectory_option = "trajectory";

model::SourceLocation in_trajectory(std::size_t offset) {
  return model::SourceLocation{trajectory_option, 1, static_cast<int>(offset) + 1};
}

std::optional<std::size_t> coordinate_index(const model::Model& model, const std::string& name) {
  for (std::size_t j = 0; j < model.dof(); ++j)
    if (model.coordinates[j].name == name) return j;
  return std::nullopt;
}

}  // namespace

InverseDynamics::InverseDynamics(const principles::Equations& equations,
                                 const model::Values& values)
    : evaluator_(std::make_shared<TapeDynamics>(equations, values)) {}

InverseDynamics::InverseDynamics(std::shared_ptr<const Dynamics> dynamics)
    : model_dynamics_(std::move(dynamics)) {
  if (!model_dynamics_) throw std::invalid_argument("InverseDynamics: no Dynamics");
  in_speeds_ = model_dynamics_->model().has_speeds();
  evaluator_ = std::make_shared<DynamicsOnWorkspace>(*model_dynamics_);
}

InverseDynamics::~InverseDynamics() = default;

std::size_t InverseDynamics::dof() const { return evaluator_->dof(); }
std::size_t InverseDynamics::force_count() const {
  return in_speeds_ ? model_dynamics_->speed_count() : dof();
}
const char* InverseDynamics::kind() const { return evaluator_->kind(); }

const CompiledEquations& InverseDynamics::compiled() const {
  const auto* tape = dynamic_cast<const TapeDynamics*>(evaluator_.get());
  if (!tape) throw std::logic_error("InverseDynamics::compiled: not evaluated by the tape");
  return tape->compiled();
}

Eigen::VectorXd InverseDynamics::driving_forces(double t, const Eigen::VectorXd& q,
                                                const Eigen::VectorXd& qd,
                                                const Eigen::VectorXd& qdd) const {
  const auto n = to_index(dof());
  if (q.size() != n || qd.size() != n || qdd.size() != n)
    throw std::invalid_argument("driving_forces: q, qd and qdd must have one entry per coordinate");
  if (!in_speeds_) {
    evaluator_->driving_forces(t, q, qd, qdd, forces_);
    return forces_;
  }
  // The speeds of the motion and their rates, then τ on the speeds.
  speeds_of_motion(*model_dynamics_, work_, t, q, qd, qdd, speeds_, speed_rates_);
  model_dynamics_->inverse_dynamics(t, q, speeds_, speed_rates_, forces_, work_);
  return forces_;
}

Trajectory::Trajectory(const std::string& text, const model::Model& model,
                       const model::Values& values)
    : tape_([&] {
        // A time table of its own: the trajectory has no time functions, only t and parameters,
        // and parsing it must not add anything to the model's shared table.
        auto functions = std::make_shared<sym::TimeFunctions>();
        model::ExpressionScope scope(functions);
        std::vector<GiNaC::symbol> variables{functions->time()};
        for (const auto& p : model.parameters) {
          scope.add_parameter(p.name, p.symbol);
          variables.push_back(p.symbol);
        }

        std::vector<std::optional<GiNaC::ex>> given(model.dof());
        std::size_t begin = 0;
        while (begin <= text.size()) {
          std::size_t end = text.find(';', begin);
          if (end == std::string::npos) end = text.size();
          const auto [item_begin, item_end] = trimmed(text, begin, end);
          if (item_begin < item_end) {
            const std::size_t equals = text.find('=', item_begin);
            const auto [name_begin, name_end] =
                trimmed(text, item_begin, std::min(equals, item_end));
            if (equals >= item_end || name_begin == name_end)
              throw model::ModelError(in_trajectory(item_begin), "expected COORDINATE=EXPRESSION",
                                      text.substr(item_begin, item_end - item_begin));
            const std::string name = text.substr(name_begin, name_end - name_begin);
            const auto j = coordinate_index(model, name);
            if (!j) throw model::ModelError(in_trajectory(name_begin), "unknown coordinate", name);
            if (given[*j])
              throw model::ModelError(in_trajectory(name_begin), "coordinate given twice", name);
            given[*j] =
                model::parse_expression(text.substr(equals + 1, end - equals - 1), scope,
                                        model::locate_on_one_line(in_trajectory(equals + 1)),
                                        model::Dependence::TimeAndParameters);
          }
          begin = end + 1;
        }
        for (std::size_t j = 0; j < model.dof(); ++j)
          if (!given[j])
            throw model::ModelError(model::SourceLocation{trajectory_option, 0, 0},
                                    "missing coordinate", model.coordinates[j].name);

        // Exact q̇ and q̈ once, symbolically; the tape then evaluates all three per sample.
        sym::Differentiator differentiator(functions);
        for (const auto& q : given) {
          positions_.push_back(*q);
          velocities_.push_back(differentiator.time_derivative(*q));
          accelerations_.push_back(differentiator.time_derivative(velocities_.back()));
        }
        GiNaC::exvector outputs = positions_;
        outputs.insert(outputs.end(), velocities_.begin(), velocities_.end());
        outputs.insert(outputs.end(), accelerations_.begin(), accelerations_.end());

        const auto parameters = model::bind(model, values).parameters;
        variables_.push_back(0.0);  // t, set by evaluate()
        for (const auto& p : model.parameters) variables_.push_back(parameters.at(p.name));
        return Tape(outputs, variables);
      }()) {
  outputs_.resize(3 * dof());
}

void Trajectory::evaluate(double t, Eigen::VectorXd& q, Eigen::VectorXd& qd,
                          Eigen::VectorXd& qdd) const {
  variables_[0] = t;
  tape_.evaluate(variables_.data(), outputs_.data(), workspace_);
  const std::size_t n = dof();
  q.resize(to_index(n));
  qd.resize(to_index(n));
  qdd.resize(to_index(n));
  for (std::size_t j = 0; j < n; ++j) {
    q[to_index(j)] = outputs_[j];
    qd[to_index(j)] = outputs_[n + j];
    qdd[to_index(j)] = outputs_[2 * n + j];
  }
}

TrajectorySample Trajectory::sample(double t) const {
  TrajectorySample s;
  s.t = t;
  evaluate(t, s.q, s.qd, s.qdd);
  return s;
}

std::string trajectory_csv_header(const model::Model& model) {
  std::string header = "t";
  for (const std::string_view derivative : {"", "dot", "ddot"})
    for (const auto& c : model.coordinates) {
      header += ',';
      if (derivative.empty()) {
        header += c.name;
      } else {
        header += derivative;
        header += '(';
        header += c.name;
        header += ')';
      }
    }
  return header;
}

namespace {

struct Cell {
  std::string_view text;  // without surrounding blanks
  std::size_t column;     // 1-based, of the cell's first character as written
};

std::vector<Cell> split_cells(std::string_view line) {
  std::vector<Cell> cells;
  std::size_t begin = 0;
  while (true) {
    std::size_t end = line.find(',', begin);
    if (end == std::string_view::npos) end = line.size();
    const auto [b, e] = trimmed(line, begin, end);
    cells.push_back({line.substr(b, e - b), begin + 1});
    if (end == line.size()) return cells;
    begin = end + 1;
  }
}

}  // namespace

std::vector<TrajectorySample> read_trajectory_csv(const std::string& path,
                                                  const model::Model& model) {
  std::string text = model::read_input_file(path, model::InputKind::Trajectory);
  // A byte order mark is no part of the header, and its columns count after it (as a cases file's).
  text.erase(0, model::byte_order_mark_size(text));
  std::istringstream in(std::move(text));
  auto at = [&](int line, std::size_t column) {
    return model::SourceLocation{path, line, static_cast<int>(column)};
  };

  const std::string expected_header = trajectory_csv_header(model);
  const auto expected = split_cells(expected_header);
  const std::size_t n = model.dof();
  std::vector<TrajectorySample> samples;
  bool header_seen = false;
  std::string line;
  int line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const auto [first, last] = trimmed(line, 0, line.size());
    if (first == last || line[first] == '#') continue;
    const auto cells = split_cells(line);

    if (!header_seen) {
      for (std::size_t k = 0; k < expected.size(); ++k) {
        if (k >= cells.size())
          throw model::ModelError(at(line_number, line.size() + 1),
                                  "header ends early; expected " + expected_header,
                                  std::string(expected[k].text));
        if (cells[k].text != expected[k].text)
          throw model::ModelError(at(line_number, cells[k].column),
                                  "expected column '" + std::string(expected[k].text) +
                                      "'; the header must be " + expected_header,
                                  std::string(cells[k].text));
      }
      if (cells.size() > expected.size())
        throw model::ModelError(at(line_number, cells[expected.size()].column),
                                "extra column; the header must be " + expected_header,
                                std::string(cells[expected.size()].text));
      header_seen = true;
      continue;
    }

    if (cells.size() != expected.size())
      throw model::ModelError(
          at(line_number,
             cells.size() > expected.size() ? cells[expected.size()].column : line.size() + 1),
          "expected " + std::to_string(expected.size()) + " cells, got " +
              std::to_string(cells.size()));
    std::vector<double> row(cells.size());
    for (std::size_t k = 0; k < cells.size(); ++k) {
      const auto text = cells[k].text;
      const char* begin = text.data();
      const char* end = begin + text.size();
      if (begin < end && *begin == '+') ++begin;  // from_chars refuses a leading '+'
      auto [ptr, ec] = std::from_chars(begin, end, row[k]);
      if (text.empty() || ec != std::errc() || ptr != end || !std::isfinite(row[k]))
        throw model::ModelError(at(line_number, cells[k].column), "not a finite number",
                                std::string(text));
    }
    TrajectorySample s;
    s.t = row[0];
    s.q.resize(to_index(n));
    s.qd.resize(to_index(n));
    s.qdd.resize(to_index(n));
    for (std::size_t j = 0; j < n; ++j) {
      s.q[to_index(j)] = row[1 + j];
      s.qd[to_index(j)] = row[1 + n + j];
      s.qdd[to_index(j)] = row[1 + 2 * n + j];
    }
    samples.push_back(std::move(s));
  }
  if (!header_seen)
    throw model::ModelError(at(std::max(line_number, 1), 1),
                            "empty file; the header must be " + expected_header);
  if (samples.empty()) throw model::ModelError(at(line_number + 1, 1), "no rows after the header");
  return samples;
}

}  // namespace appell::num
