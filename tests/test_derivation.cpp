// What `appell derive` prints, formed by the library: principles::derive(model, request) chooses
// the equations by method, order and minimal form, substitutes the given numbers, makes them
// readable or not, and forms Gauss's compulsion or the carrier's inertial forces beside them;
// io/derivation_writer.hpp prints the result.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "appell/io/derivation_writer.hpp"
#include "appell/io/equation_writer.hpp"
#include "appell/io/model_reader.hpp"
#include "appell/principles/derivation.hpp"
#include "appell/principles/derive.hpp"

namespace {

using namespace appell;

const std::string examples = APPELL_EXAMPLES_DIR;

std::shared_ptr<const model::Model> example(const std::string& name) {
  return io::read_model_file(examples + "/" + name);
}

// readable(e) is 0 exactly when e is 0 up to polynomial and sin/cos identities.
bool vanishes(const model::Model& model, const GiNaC::ex& e) {
  return principles::readable_entries(model, {e}).front().is_zero();
}

GiNaC::symbol parameter(const model::Model& model, const std::string& name) {
  const model::Parameter* p = model.find_parameter(name);
  EXPECT_NE(p, nullptr) << name;
  return p->symbol;
}

bool mentions(const GiNaC::ex& e, const GiNaC::symbol& s) { return e.has(s); }

const GiNaC::ex& term(const principles::InertialForceTerms& forces, const std::string& name) {
  for (const auto& [n, e] : forces.terms)
    if (n == name) return e;
  ADD_FAILURE() << "no term " << name;
  static const GiNaC::ex zero = 0;
  return zero;
}

TEST(Derivation, TheCompulsionsHessianInTheAccelerationsIsTheMassMatrix) {
  const auto model = example("planar_2r.yaml");
  principles::DerivationRequest request;
  request.method = principles::Method::Gauss;
  request.compulsion = true;
  const principles::Derivation d = principles::derive(model, request);
  ASSERT_TRUE(d.equations && d.compulsion);
  EXPECT_EQ(d.equations->form, principles::Form::Coordinates);
  EXPECT_FALSE(d.inertial_forces);
  EXPECT_TRUE(d.equations->simplified);
  EXPECT_EQ(d.equations->method, principles::Method::Gauss);
  // Z = ½ q̈ᵀ M q̈ + (terms linear in q̈) + ...: ∂²Z/∂q̈_i∂q̈_j = M_ij (seed 003 eq. 11).
  for (unsigned i = 0; i < 2; ++i)
    for (unsigned j = 0; j < 2; ++j) {
      const GiNaC::ex hessian =
          d.compulsion->diff(model->coordinate_symbol(i, 2)).diff(model->coordinate_symbol(j, 2));
      EXPECT_TRUE(vanishes(*model, hessian - d.equations->mass_matrix(i, j)))
          << "i=" << i << " j=" << j << ": " << hessian;
    }
}

TEST(Derivation, GivenNumbersAreSubstitutedWholeNumbersExactly) {
  const auto model = example("planar_2r.yaml");
  const GiNaC::symbol M = parameter(*model, "M"), l = parameter(*model, "l");
  principles::DerivationRequest request;
  request.method = principles::Method::Lagrange;
  request.values.set("M", 2.0).set("l", 1.5);
  const principles::Derivation d = principles::derive(model, request);
  ASSERT_TRUE(d.equations);
  for (const auto& e : d.equations->entries()) {
    EXPECT_FALSE(mentions(e, M)) << e;
    EXPECT_FALSE(mentions(e, l)) << e;
  }
  // The same as substituting into the equations formed without values: M[2,2] = 1/3 M l².
  const auto formed = principles::derive(model, principles::Method::Lagrange);
  const GiNaC::ex expected = formed.mass_matrix(1, 1).subs(GiNaC::lst{M == 2, l == 1.5});
  EXPECT_TRUE(vanishes(*model, d.equations->mass_matrix(1, 1) - expected))
      << d.equations->mass_matrix(1, 1);

  const GiNaC::exmap numbers = principles::printed_numbers(*model, request.values);
  ASSERT_EQ(numbers.size(), 2u);
  const GiNaC::numeric two = GiNaC::ex_to<GiNaC::numeric>(numbers.at(M));
  EXPECT_TRUE(two.is_integer());  // exact: 1/3*2 stays 2/3
  EXPECT_EQ(two.to_int(), 2);
  const GiNaC::numeric one_and_a_half = GiNaC::ex_to<GiNaC::numeric>(numbers.at(l));
  EXPECT_FALSE(one_and_a_half.is_rational());
  EXPECT_DOUBLE_EQ(one_and_a_half.to_double(), 1.5);

  // No values: nothing bound, the equations unchanged.
  const auto same = principles::with_values(formed, model::Values{});
  for (std::size_t k = 0; k < formed.entries().size(); ++k)
    EXPECT_TRUE((same.entries()[k] - formed.entries()[k]).is_zero());
}

TEST(Derivation, AnUnknownValueIsLocatedWhereItWasGiven) {
  const auto model = example("planar_2r.yaml");
  principles::DerivationRequest request;
  request.values.set("nosuch", 1.0, model::SourceLocation{"here", 3, 4});
  try {
    principles::derive(model, request);
    FAIL() << "an unknown name was accepted";
  } catch (const model::ModelError& e) {
    EXPECT_EQ(e.where().file, "here");
    EXPECT_EQ(e.offending(), "nosuch");
  }
}

TEST(Derivation, RawLeavesTheEquationsAsFormed) {
  const auto model = example("planar_2r.yaml");
  principles::DerivationRequest request;
  request.readable = false;
  const principles::Derivation raw = principles::derive(model, request);
  ASSERT_TRUE(raw.equations);
  EXPECT_FALSE(raw.equations->simplified);
  EXPECT_EQ(raw.equations->cost.size_after, 0u);
  request.readable = true;
  const principles::Derivation simple = principles::derive(model, request);
  for (unsigned i = 0; i < 2; ++i)
    EXPECT_TRUE(vanishes(*model, raw.equations->forcing(i, 0) - simple.equations->forcing(i, 0)));
}

TEST(Derivation, HigherOrderAndMinimalFormsAreChosenByTheRequest) {
  const auto model = example("planar_2r.yaml");
  principles::DerivationRequest request;
  request.order = 2;
  const principles::Derivation second = principles::derive(model, request);
  ASSERT_TRUE(second.equations);
  EXPECT_EQ(second.equations->order, 2);

  const auto sleigh = example("chaplygin_sleigh.yaml");
  principles::DerivationRequest minimal;
  minimal.minimal = true;
  const principles::Derivation m = principles::derive(sleigh, minimal);
  ASSERT_TRUE(m.equations);
  EXPECT_EQ(m.equations->form, principles::Form::Minimal);
  EXPECT_EQ(m.equations->size(), 2u);  // x and theta
  EXPECT_TRUE(m.equations->simplified);
}

TEST(Derivation, InertialForcesOfARotatingCarrier) {
  // Seed 003, example 2: the rod's ends slide on Oz and on Ox, which turns at omega about Oz.
  const auto model = example("rod_on_rotating_axes.yaml");
  const GiNaC::symbol m = parameter(*model, "m"), l = parameter(*model, "l"),
                      omega = parameter(*model, "omega");
  const GiNaC::ex theta = model->coordinate_symbol(0), theta_dot = model->coordinate_symbol(0, 1);

  principles::DerivationRequest request;
  request.method = principles::Method::Nielsen;
  request.inertial_forces = true;
  const principles::Derivation d = principles::derive(model, request);
  ASSERT_TRUE(d.inertial_forces);
  const auto& forces = *d.inertial_forces;
  EXPECT_EQ(forces.carrier, "arm");
  EXPECT_EQ(forces.form, principles::RelativeForm::Nielsen);
  std::vector<std::string> names;
  for (const auto& [name, e] : forces.terms) names.push_back(name);
  EXPECT_EQ(names, (std::vector<std::string>{"T_r", "Tdot_r", "Pi_o", "Pi_omega",
                                             "Q_omegadot_theta", "Gamma_theta"}));
  // T_r = ½ m (l/2)² θ̇² + ½ (m l²/12) θ̇² = m l² θ̇²/6; Π_ω = −½ ω² (m l² sin²θ / 3), the rod's
  // moment of inertia about Oz; the carrier turns steadily and its origin stays: Q^ω̇ = Π_o = 0.
  EXPECT_TRUE(vanishes(*model, term(forces, "T_r") - m * l * l * theta_dot * theta_dot / 6))
      << term(forces, "T_r");
  EXPECT_TRUE(vanishes(
      *model, term(forces, "Pi_omega") + m * omega * omega * l * l * GiNaC::pow(sin(theta), 2) / 6))
      << term(forces, "Pi_omega");
  EXPECT_TRUE(term(forces, "Q_omegadot_theta").is_zero()) << term(forces, "Q_omegadot_theta");
  EXPECT_TRUE(term(forces, "Pi_o").is_zero()) << term(forces, "Pi_o");

  // Appell's form shows the relative acceleration energy first; omega = 0 leaves no
  // centrifugal or gyroscopic force.
  request.method = principles::Method::GibbsAppell;
  request.values.set("omega", 0.0);
  const principles::Derivation at_rest = principles::derive(model, request);
  ASSERT_TRUE(at_rest.inertial_forces);
  EXPECT_EQ(at_rest.inertial_forces->form, principles::RelativeForm::Appell);
  EXPECT_EQ(at_rest.inertial_forces->terms.front().first, "S_r");
  EXPECT_TRUE(term(*at_rest.inertial_forces, "Pi_omega").is_zero());
  EXPECT_TRUE(term(*at_rest.inertial_forces, "Gamma_theta").is_zero());
  EXPECT_FALSE(mentions(term(*at_rest.inertial_forces, "S_r"), omega));
}

TEST(Derivation, RelativeFormsBelongToThreePrinciples) {
  EXPECT_EQ(principles::relative_form(principles::Method::GibbsAppell),
            principles::RelativeForm::Appell);
  EXPECT_EQ(principles::relative_form(principles::Method::Lagrange),
            principles::RelativeForm::Lagrange);
  EXPECT_EQ(principles::relative_form(principles::Method::Nielsen),
            principles::RelativeForm::Nielsen);
  EXPECT_FALSE(principles::relative_form(principles::Method::Dalembert));
  EXPECT_FALSE(principles::relative_form(principles::Method::Gauss));
  EXPECT_EQ(principles::relative_form_name(principles::RelativeForm::Appell), "appell");
  EXPECT_EQ(principles::relative_form_name(principles::RelativeForm::Nielsen), "nielsen");
}

// A bad request is located at the request's field, names what is wrong, and never a CLI flag.
void expect_request_error(std::shared_ptr<const model::Model> model,
                          const principles::DerivationRequest& request, const std::string& field,
                          const std::string& offending) {
  try {
    principles::derive(model, request);
    ADD_FAILURE() << "accepted; expected an error at " << field;
  } catch (const model::ModelError& e) {
    EXPECT_EQ(e.where().file, field) << e.what();
    EXPECT_EQ(e.offending(), offending) << e.what();
    EXPECT_EQ(std::string(e.what()).find("--"), std::string::npos) << e.what();
  }
}

TEST(Derivation, BadRequestsAreLocatedAtTheirField) {
  const auto robot = example("planar_2r.yaml");
  const auto rod = example("rod_on_rotating_axes.yaml");
  const auto sleigh = example("chaplygin_sleigh.yaml");
  using principles::Method;
  principles::DerivationRequest r;

  r = {};
  r.order = 0;
  expect_request_error(robot, r, "order", "0");
  r = {};
  r.order = 2;
  r.method = Method::Lagrange;
  expect_request_error(robot, r, "order", "lagrange");
  r = {};
  r.compulsion = true;
  expect_request_error(robot, r, "compulsion", "gibbs-appell");
  r = {};
  r.inertial_forces = true;
  expect_request_error(robot, r, "inertial_forces", "planar-2r");
  r.method = Method::Dalembert;
  expect_request_error(rod, r, "method", "dalembert");
  r = {};
  r.minimal = true;
  expect_request_error(robot, r, "minimal", robot->source);
  r.method = Method::Lagrange;
  expect_request_error(sleigh, r, "minimal", "lagrange");
  r.method = Method::GibbsAppell;
  r.order = 2;
  expect_request_error(sleigh, r, "minimal", "2");
}

TEST(DerivationWriter, TextIsTheEquationsThenWhatWasAsked) {
  const auto model = example("planar_2r.yaml");
  principles::DerivationRequest request;
  request.method = principles::Method::Gauss;
  request.compulsion = true;
  const principles::Derivation d = principles::derive(model, request);
  EXPECT_EQ(io::write_text(d), io::write_text(*d.equations) + "\ncompulsion Z = " +
                                   io::expression_text(*d.compulsion, *model) + "\n");
  const std::string latex = io::write_latex(d);
  EXPECT_EQ(latex.rfind(io::write_latex(*d.equations), 0), 0u);
  EXPECT_NE(latex.find("\\begin{equation}\nZ = "), std::string::npos);
  const auto json = nlohmann::json::parse(io::write_json(d));
  EXPECT_EQ(json.at("compulsion"), io::expression_text(*d.compulsion, *model));
  EXPECT_EQ(json.at("method"), "gauss");
  EXPECT_FALSE(json.contains("inertial_forces"));

  // Only the equations: exactly what the equations' writers print.
  const principles::Derivation plain = principles::derive(model, principles::DerivationRequest{});
  EXPECT_EQ(io::write_text(plain), io::write_text(*plain.equations));
  EXPECT_EQ(io::write_json(plain), io::write_json(*plain.equations));

  const auto sleigh = example("chaplygin_sleigh.yaml");
  principles::DerivationRequest minimal;
  minimal.minimal = true;
  const principles::Derivation m = principles::derive(sleigh, minimal);
  EXPECT_EQ(io::write_text(m), io::write_text(*m.equations));
  EXPECT_EQ(io::write_latex(m), io::write_latex(*m.equations));
}

TEST(DerivationWriter, InertialForcesWithTheirForm) {
  const auto model = example("rod_on_rotating_axes.yaml");
  principles::DerivationRequest request;
  request.method = principles::Method::Nielsen;
  request.inertial_forces = true;
  const principles::Derivation d = principles::derive(model, request);

  const std::string text = io::write_text(d);
  EXPECT_NE(text.find("\ninertial forces of the carrier arm (relative motion in nielsen form: "
                      "dTdot_r/d(dot q) - 2 dT_r/dq = Q - d(Pi_o + Pi_omega)/dq + Q_omegadot + "
                      "Gamma):\n  T_r = "),
            std::string::npos)
      << text;
  for (const auto& [name, e] : d.inertial_forces->terms)
    EXPECT_NE(text.find("\n  " + name + " = " + io::expression_text(e, *model) + "\n"),
              std::string::npos)
        << name;

  const auto json = nlohmann::ordered_json::parse(io::write_json(d));
  const auto& forces = json.at("inertial_forces");
  EXPECT_EQ(forces.at("carrier"), "arm");
  EXPECT_EQ(forces.at("form"), "nielsen");
  std::vector<std::string> keys;
  for (const auto& [key, value] : forces.items()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"carrier", "form", "equation", "T_r", "Tdot_r", "Pi_o",
                                            "Pi_omega", "Q_omegadot_theta", "Gamma_theta"}));

  const std::string latex = io::write_latex(d);
  EXPECT_NE(latex.find("% relative motion in nielsen form\n"), std::string::npos);
  EXPECT_NE(latex.find("\\mathrm{Q\\_omegadot\\_theta} &= "), std::string::npos) << latex;
  EXPECT_NE(latex.find("\\mathrm{Gamma\\_theta} &= "), std::string::npos) << latex;
}

}  // namespace
