#include "appell/io/csv_writer.hpp"

#include <iomanip>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

#include "appell/numeric/interruption.hpp"

namespace appell::io {

namespace {

// Enough digits that every double reads back as itself.
constexpr int kDigits = std::numeric_limits<double>::max_digits10;

}  // namespace

// ----- the simulation -------------------------------------------------------------------------

std::string simulation_csv_header(const model::Model& model) {
  std::string header = "t";
  for (const auto& c : model.coordinates) header += "," + c.name;
  if (model.has_speeds())
    for (const auto& u : model.speeds) header += "," + u.name;
  else
    for (const auto& c : model.coordinates) header += ",dot(" + c.name + ")";
  header += ",T,V,E";
  for (const auto& c : model.constraints) header += ",lambda_" + c.name;
  return header;
}

void write_simulation_csv_row(std::ostream& out, const num::SimulationRow& r) {
  out << std::setprecision(kDigits) << r.t;
  for (Eigen::Index j = 0; j < r.q.size(); ++j) out << ',' << r.q[j];
  for (Eigen::Index j = 0; j < r.qd.size(); ++j) out << ',' << r.qd[j];
  out << ',' << r.kinetic << ',' << r.potential << ',' << r.total;
  for (Eigen::Index k = 0; k < r.lambda.size(); ++k) out << ',' << r.lambda[k];
  out << '\n';
}

void write_simulation_csv_row(std::ostream& out, const num::SimulationRow& r,
                              const Eigen::VectorXd& speeds) {
  out << std::setprecision(kDigits) << r.t;
  for (Eigen::Index j = 0; j < r.q.size(); ++j) out << ',' << r.q[j];
  for (Eigen::Index k = 0; k < speeds.size(); ++k) out << ',' << speeds[k];
  out << ',' << r.kinetic << ',' << r.potential << ',' << r.total;
  for (Eigen::Index k = 0; k < r.lambda.size(); ++k) out << ',' << r.lambda[k];
  out << '\n';
}

void write_incomplete_mark(std::ostream& out, std::string reason) {
  for (char& c : reason)
    if (c == '\n' || c == '\r') c = ' ';  // one comment line, whatever the reason says
  out << "# incomplete: " << reason << '\n';
}

ExtraColumns momentum_columns(std::shared_ptr<const num::CompiledMomenta> momenta) {
  ExtraColumns columns;
  columns.names = {"p_x", "p_y", "p_z", "L_x", "L_y", "L_z"};
  columns.values = [momenta](const num::SimulationRow& row, std::vector<double>& out) {
    const num::Momenta m = momenta->evaluate(row.t, row.q, row.qd);
    for (Eigen::Index i = 0; i < 3; ++i) out.push_back(m.linear[i]);
    for (Eigen::Index i = 0; i < 3; ++i) out.push_back(m.angular[i]);
  };
  return columns;
}

ExtraColumns reaction_columns(std::shared_ptr<const num::CompiledReactions> reactions) {
  ExtraColumns columns;
  for (const auto& frame : reactions->frames())
    for (const char* kind : {"F_", "M_"})
      for (const char* axis : {"_x", "_y", "_z"}) columns.names.push_back(kind + frame + axis);
  columns.values = [reactions](const num::SimulationRow& row, std::vector<double>& out) {
    for (const auto& r : reactions->evaluate(row.t, row.q, row.qd, row.qdd)) {
      for (Eigen::Index i = 0; i < 3; ++i) out.push_back(r.force[i]);
      for (Eigen::Index i = 0; i < 3; ++i) out.push_back(r.moment[i]);
    }
  };
  return columns;
}

SimulationCsvFile::SimulationCsvFile(std::string path, const model::Model& model)
    : path_(std::move(path)), header_(simulation_csv_header(model)) {}

SimulationCsvFile::SimulationCsvFile(std::string path, const model::Model& model,
                                     std::vector<ExtraColumns> extra)
    : path_(std::move(path)), header_(simulation_csv_header(model)), extra_(std::move(extra)) {
  for (const auto& columns : extra_)
    for (const auto& name : columns.names) header_ += "," + name;
}

void SimulationCsvFile::open() {
  if (file_) return;
  file_.emplace(path_);
  file_->stream() << header_ << '\n';
}

void SimulationCsvFile::row(const num::SimulationRow& r) { write(r, nullptr); }

void SimulationCsvFile::row(const num::SimulationRow& r, const Eigen::VectorXd& speeds) {
  write(r, &speeds);
}

void SimulationCsvFile::write(const num::SimulationRow& r, const Eigen::VectorXd* speeds) {
  open();
  std::ostream& out = file_->stream();
  auto own_columns = [&](std::ostream& to) {
    if (speeds)
      write_simulation_csv_row(to, r, *speeds);
    else
      write_simulation_csv_row(to, r);
  };
  if (extra_.empty()) {
    own_columns(out);
  } else {
    std::ostringstream line;
    own_columns(line);
    std::string text = line.str();
    text.pop_back();  // the '\n' ending the simulation's own columns
    out << text << std::setprecision(kDigits);
    for (const auto& columns : extra_) {
      extra_values_.clear();
      columns.values(r, extra_values_);
      for (const double v : extra_values_) out << ',' << (v == 0.0 ? 0.0 : v);  // no -0
    }
    out << '\n';
  }
  ++rows_;
  file_->check();
}

void SimulationCsvFile::mark_incomplete(const std::string& reason) {
  open();
  write_incomplete_mark(file_->stream(), reason);
  file_->stream().flush();
  file_->check();
}

void SimulationCsvFile::close() {
  if (file_) file_->close();
}

// ----- inverse dynamics -----------------------------------------------------------------------

std::string driving_forces_csv_header(const model::Model& model, bool in_speeds) {
  std::string header = "t";
  // In generalized speeds the forces act on the speeds (num::InverseDynamics of a Dynamics).
  if (in_speeds)
    for (const auto& speed : model.speeds) header += ",Q_" + speed.name;
  else
    for (const auto& c : model.coordinates) header += ",Q_" + c.name;
  return header;
}

std::size_t write_driving_forces_csv(
    std::ostream& out, const model::Model& model, const num::InverseDynamics& inverse,
    std::size_t count, const std::function<num::TrajectorySample(std::size_t)>& sample) {
  out << std::setprecision(kDigits) << driving_forces_csv_header(model, inverse.in_speeds())
      << "\n";
  for (std::size_t k = 0; k < count; ++k) {
    const num::TrajectorySample s = sample(k);
    Eigen::VectorXd Q;
    try {
      Q = inverse.driving_forces(s.t, s.q, s.qd, s.qdd);
    } catch (const model::ComputationError& e) {
      // A state the forces are not defined at (the speeds of a motion where W is singular): the
      // rows so far are kept, the file says where it stopped.
      std::ostringstream reason;
      reason << std::setprecision(kDigits) << e.what() << " (t = " << s.t << ")";
      write_incomplete_mark(out, reason.str());
      throw IncompleteCsvError(reason.str(), k);
    }
    if (!Q.allFinite() || !s.q.allFinite() || !s.qd.allFinite() || !s.qdd.allFinite()) {
      std::ostringstream reason;
      reason << std::setprecision(kDigits)
             << "the motion or the driving forces are not finite at t = " << s.t;
      write_incomplete_mark(out, reason.str());
      throw IncompleteCsvError(reason.str(), k);
    }
    out << s.t;
    for (Eigen::Index j = 0; j < Q.size(); ++j) out << "," << Q[j];
    out << "\n";
    if (!out) return k;  // the caller's check of the stream names the file
    if (const int signal = num::interruption_signal(); signal != 0 && k + 1 < count) {
      std::ostringstream what;
      what << std::setprecision(kDigits) << "interrupted at t = " << s.t;
      write_incomplete_mark(out, what.str());
      out.flush();
      throw num::Interrupted(signal, what.str());
    }
  }
  return count;
}

std::size_t write_driving_forces_csv(std::ostream& out, const model::Model& model,
                                     const num::InverseDynamics& inverse,
                                     const num::Trajectory& trajectory, std::size_t count,
                                     double step) {
  return write_driving_forces_csv(out, model, inverse, count, [&](std::size_t k) {
    return trajectory.sample(static_cast<double>(k) * step);
  });
}

std::size_t write_driving_forces_csv(std::ostream& out, const model::Model& model,
                                     const num::InverseDynamics& inverse,
                                     const std::vector<num::TrajectorySample>& samples) {
  return write_driving_forces_csv(out, model, inverse, samples.size(),
                                  [&](std::size_t k) { return samples[k]; });
}

// ----- the elastic response of a flexible body -------------------------------------------------

namespace {

// The translational displacements of a node: ux, uy (planar beams), ux, uy, uz (otherwise).
int translational_components(const fem::FlexibleBodyInstance& body) {
  return body.mesh.elements.front().type == fem::ElementType::Beam2D ? 2 : 3;
}

}  // namespace

std::string response_csv_header(const fem::FlexibleBodyInstance& body,
                                const std::vector<int>& nodes) {
  const char* axes[] = {"ux", "uy", "uz"};
  std::string header = "t";
  for (int n : nodes) {
    if (n < 0 || std::size_t(n) >= body.mesh.nodes.size())
      throw std::out_of_range("node " + std::to_string(n) + " is not in the mesh");
    for (int k = 0; k < translational_components(body); ++k)
      header += ",n" + std::to_string(n) + "_" + axes[k];
  }
  return header;
}

void write_response_csv_row(std::ostream& out, const fem::FlexibleBodyInstance& body,
                            const std::vector<int>& nodes, const fem::ResponseStep& step) {
  const int d = body.assembled.dofs_per_node;
  const int components = translational_components(body);
  out << std::setprecision(10) << step.t;
  for (int n : nodes)
    for (int k = 0; k < components; ++k) out << ',' << step.u(n * d + k);
  out << '\n';
}

}  // namespace appell::io
