// appell check MODEL CLAIMS.yaml [--json]: is a published equation right? (num::check_claims;
// io/claims_reader.hpp reads the claims, io/check_writer.hpp prints the verdicts.) Exit 0 when
// every claim holds (an equation up to a factor), 1 when one differs, 2 on bad input.
#include <iostream>

#include "appell/io/check_writer.hpp"
#include "appell/io/claims_reader.hpp"
#include "appell/numeric/claim_check.hpp"
#include "cli_support.hpp"

namespace appell::cli {

namespace {

struct CheckOptions {
  UrdfFlags urdf;  // how a URDF model is read
  std::string model, claims;
  bool json = false;
};

int run_check(const CheckOptions& o) {
  auto model = read_model(o.model, o.urdf);
  const io::Claims claims = io::read_claims_file(o.claims, *model);
  const auto results = num::check_claims(model, claims.claims, claims.multipliers);
  if (o.json)
    std::cout << io::write_check_json(*model, results) << "\n";
  else
    std::cout << io::write_check_text(*model, results);
  for (const auto& r : results)
    if (r.verdict == num::Verdict::Differs) return 1;
  return 0;
}

}  // namespace

void add_check_command(CLI::App& app, Commands& commands) {
  auto o = std::make_shared<CheckOptions>();
  auto* c = app.add_subcommand(
      "check", "check published equations (a claims file) against the model's equations");
  c->add_option("MODEL", o->model, "model file (YAML or URDF)")->required();
  c->add_option("CLAIMS", o->claims, "claims file (YAML: claims: [{name, ...}])")->required();
  add_urdf_options(*c, o->urdf);
  c->add_flag("--json", o->json,
              "print {\"claims\": [{\"name\", \"verdict\", \"factor\", \"difference\", "
              "\"witness\"}]}");
  commands.push_back({c, [o] { return run_check(*o); }});
}

}  // namespace appell::cli
