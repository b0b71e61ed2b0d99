#include "appell/io/verification_writer.hpp"

#include <cmath>
#include <nlohmann/json.hpp>

namespace appell::io {

namespace {

using json = nlohmann::ordered_json;

// -0.0 printed as 0, and what JSON cannot hold (inf, NaN) as null.
json number(double x) {
  if (!std::isfinite(x)) return nullptr;
  return x == 0.0 ? 0.0 : x;
}

json numbers(const std::vector<double>& values) {
  json list = json::array();
  for (double x : values) list.push_back(number(x));
  return list;
}

json witness_json(const num::AgreementWitness& w) {
  return {{"t", number(w.t)},
          {"q", numbers(w.q)},
          {"qd", numbers(w.qd)},
          {"entry", w.entry},
          {"reference", number(w.reference)},
          {"other", number(w.other)},
          {"error", number(w.error)},
          {"bound", number(w.bound)}};
}

}  // namespace

std::string symbolic_test_name(num::SymbolicTest test) {
  switch (test) {
    case num::SymbolicTest::Zero:
      return "zero";
    case num::SymbolicTest::Inconclusive:
      return "inconclusive";
    case num::SymbolicTest::NotRun:
      return "not run";
  }
  return "not run";
}

std::string write_verification_json(const model::Model& model,
                                    const num::VerificationReport& report,
                                    const WriteOptions& options) {
  json coordinates = json::array();
  for (const auto& c : model.coordinates) coordinates.push_back(c.name);
  json rows = json::array();
  for (const auto& r : report.rows) {
    json row = {{"method", r.method},
                {"verdict", num::verdict_name(r.verdict)},
                {"agrees", r.agrees},
                {"symbolic", r.symbolic},
                {"symbolic_test", symbolic_test_name(r.symbolic_test)},
                {"max_error", number(r.max_error)},
                {"bound", number(r.bound)},
                {"states", r.states},
                {"ill_conditioned", r.ill_conditioned},
                {"first_difference", r.first_difference},
                {"witness", r.witness ? witness_json(*r.witness) : json(nullptr)},
                {"differentiations", r.differentiations},
                {"derivative_nodes", r.derivative_nodes},
                {"size_before", r.size_before},
                {"size_after", r.size_after}};
    if (options.timing) {
      row["seconds"] = r.derive_seconds;
      row["simplify_seconds"] = r.simplify_seconds;
    }
    rows.push_back(std::move(row));
  }
  const json out = {{"model", report.model},
                    {"coordinates", coordinates},
                    {"reference", report.speeds_only ? std::string("speeds-appell")
                                                     : principles::method_name(report.reference)},
                    {"states", report.options.states},
                    {"tolerance", number(report.options.tolerance)},
                    {"symbolic", report.options.symbolic},
                    {"rows", rows},
                    {"all_agree", report.all_agree},
                    {"first_disagreement", report.first_disagreement}};
  return out.dump(2);
}

}  // namespace appell::io
