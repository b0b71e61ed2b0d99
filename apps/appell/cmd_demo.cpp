// appell demo: the seed 000 robot by Lagrange II and Gibbs–Appell, their agreement, their costs.
#include <cstdio>
#include <iostream>

#include "appell/io/equation_writer.hpp"
#include "appell/io/model_reader.hpp"
#include "appell/numeric/agreement.hpp"
#include "appell/principles/derive.hpp"
#include "cli_support.hpp"
#include "demo_model.hpp"

namespace appell::cli {

namespace {

void print_cost_table(const std::vector<principles::Equations>& all) {
  const bool timing = timing_requested();
  std::printf("%-14s %16s %16s %12s %12s", "method", "differentiations", "derivative nodes",
              "size before", "size after");
  if (timing) std::printf(" %12s %14s", "derive", "simplify");
  std::printf("\n");
  for (const auto& eq : all) {
    std::printf("%-14s %16zu %16zu %12zu %12zu", principles::method_name(eq.method).c_str(),
                eq.cost.differentiations, eq.cost.derivative_nodes, eq.cost.size_before,
                eq.cost.size_after);
    if (timing)
      std::printf(" %12s %14s", format_seconds(eq.cost.seconds).c_str(),
                  format_seconds(eq.cost.simplify_seconds).c_str());
    std::printf("\n");
  }
}

int run_demo() {
  auto model = io::parse_model(demo::planar_2r_yaml, "planar_2r.yaml (built in)");
  std::cout << "appell demo: the planar 2-DOF robot of Negrean et al. (2024, Fig. 4): two\n"
               "homogeneous rods of mass M and length l, revolute joints q1, q2, gravity g and a "
               "point force\nM_S*g at the tip P.\n\n";
  std::vector<principles::Equations> all;
  for (auto method : {principles::Method::Lagrange, principles::Method::GibbsAppell}) {
    auto eq = principles::simplify(principles::derive(model, method));
    io::WriteOptions writing;
    writing.timing = timing_requested();
    std::cout << io::write_text(eq, writing) << "\n";
    all.push_back(eq);
  }
  const auto raw_a = principles::derive(model, principles::Method::Lagrange);
  const auto raw_b = principles::derive(model, principles::Method::GibbsAppell);
  const auto agreement = num::compare(raw_a, raw_b);
  const num::AgreementVerdict verdict = num::verdict(agreement);
  std::cout << "Lagrange II and Gibbs-Appell give "
            << (verdict == num::AgreementVerdict::Equal              ? "identical equations"
                : verdict == num::AgreementVerdict::AgreeNumerically ? "the same numbers"
                                                                     : "DIFFERENT equations")
            << ": M_lagrange - M_gibbs-appell and f_lagrange - f_gibbs-appell simplify to "
            << (agreement.symbolic ? "0"
                                   : "something not shown to be 0 within the budget (" +
                                         agreement.symbolic_unresolved + ")")
            << "; largest difference at " << agreement.states
            << " random states: " << agreement.max_numeric_error << "\n\n";
  std::cout << "What each derivation cost (differentiations include the kinematics):\n";
  print_cost_table(all);
  return verdict == num::AgreementVerdict::Differ ? 1 : 0;
}

}  // namespace

void add_demo_command(CLI::App& app, Commands& commands) {
  auto* sub = app.add_subcommand(
      "demo", "the robot of Negrean et al. (2024) by Lagrange II and Gibbs-Appell: equal, costs");
  add_timing_flag(*sub);
  commands.push_back({sub, [] { return run_demo(); }});
}

}  // namespace appell::cli
