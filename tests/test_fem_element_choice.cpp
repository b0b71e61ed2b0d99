// Which symbolic element stands for a flexible body's mesh, and the names of kinds and routes
// (fem/element_derivation.hpp), as `appell fem --derive-element` chooses them.
#include <gtest/gtest.h>

#include <string>

#include "appell/fem/element_derivation.hpp"
#include "appell/io/model_reader.hpp"

namespace {

using namespace appell;
using fem::ElementKind;

model::FlexibleBody body_with(model::MeshSpec mesh) {
  model::FlexibleBody body;
  body.name = "body";
  body.mesh = std::move(mesh);
  return body;
}

TEST(ElementChoice, KindOfEachMesh) {
  model::BoxMeshSpec box;
  box.divisions = {4, 1, 1};
  EXPECT_EQ(fem::element_kind_of(body_with(box)), ElementKind::Hex8);

  model::BeamMeshSpec beam;
  beam.elements = 10;
  EXPECT_EQ(fem::element_kind_of(body_with(beam)), ElementKind::Beam3D);
  beam.planar = true;
  EXPECT_EQ(fem::element_kind_of(body_with(beam)), ElementKind::Beam2D);

  // Tetrahedra have no symbolic counterpart: the hexahedron stands for every solid mesh.
  EXPECT_EQ(fem::element_kind_of(body_with(model::GmshMeshSpec{"part.msh"})), ElementKind::Hex8);
}

TEST(ElementChoice, KindOfTheShippedExamples) {
  const std::string dir = std::string(APPELL_EXAMPLES_DIR) + "/fem/";
  const auto box = io::read_model_file(dir + "cantilever_box.yaml");
  ASSERT_FALSE(box->flexible.empty());
  EXPECT_EQ(fem::element_kind_of(box->flexible.front()), ElementKind::Hex8);
  const auto blade = io::read_model_file(dir + "rotating_blade.yaml");
  ASSERT_FALSE(blade->flexible.empty());
  const auto* beam = std::get_if<model::BeamMeshSpec>(&blade->flexible.front().mesh);
  ASSERT_NE(beam, nullptr) << "the blade is meshed with beams";
  EXPECT_EQ(fem::element_kind_of(blade->flexible.front()),
            beam->planar ? ElementKind::Beam2D : ElementKind::Beam3D);
}

TEST(ElementChoice, KindNamesRoundTrip) {
  for (auto kind : {ElementKind::Bar, ElementKind::Beam2D, ElementKind::Beam3D, ElementKind::Hex8})
    EXPECT_EQ(fem::parse_element_kind(fem::kind_name(kind)), kind) << fem::kind_name(kind);
  EXPECT_EQ(fem::parse_element_kind("beam2d"), ElementKind::Beam2D);
  EXPECT_FALSE(fem::parse_element_kind("tet4").has_value());
  EXPECT_FALSE(fem::parse_element_kind("Hex8").has_value()) << "names are lower case";
  EXPECT_FALSE(fem::parse_element_kind("").has_value());

  EXPECT_EQ(fem::parse_route("lagrange"), fem::Route::Lagrange);
  EXPECT_EQ(fem::parse_route("gibbs-appell"), fem::Route::GibbsAppell);
  EXPECT_EQ(fem::parse_route(fem::route_name(fem::Route::GibbsAppell)), fem::Route::GibbsAppell);
  EXPECT_FALSE(fem::parse_route("gauss").has_value());
}

TEST(ElementChoice, SymmetryOfTheBarsMatrices) {
  // One bar by Gibbs–Appell: m and k are symmetric, the gyroscopic c = 2Σ[ω]J is skew, and
  // m_Oi (dofs × 3) is not square.
  const auto chain = fem::make_chain(ElementKind::Bar, 1);
  const auto m =
      fem::extract_matrices(chain, fem::derive_element(chain, fem::Route::GibbsAppell).residual);
  EXPECT_EQ(fem::symmetry_of(m.mass), fem::MatrixSymmetry::Symmetric);
  EXPECT_EQ(fem::symmetry_of(m.stiffness), fem::MatrixSymmetry::Symmetric);
  EXPECT_EQ(fem::symmetry_of(m.gyroscopic), fem::MatrixSymmetry::Skew);
  EXPECT_EQ(fem::symmetry_of(m.first_moment), fem::MatrixSymmetry::None);

  GiNaC::symbol a("a"), b("b");
  EXPECT_EQ(fem::symmetry_of(GiNaC::matrix(2, 2)), fem::MatrixSymmetry::Symmetric);
  EXPECT_EQ(fem::symmetry_of(GiNaC::matrix(2, 2, GiNaC::lst{a, b, a, b})),
            fem::MatrixSymmetry::None);
}

TEST(ElementChoice, ReadableEntryIsOneFactoredFraction) {
  GiNaC::symbol rho("rho"), A("A"), L("L"), w("w"), v("v");
  const GiNaC::ex entry = rho * A * L / 6 * w * w + rho * A * L / 6 * v * v;
  const GiNaC::ex readable = fem::readable_entry(entry);
  EXPECT_TRUE((readable - entry).expand().is_zero());
  EXPECT_TRUE(GiNaC::is_a<GiNaC::mul>(readable)) << readable;  // ρAL/6·(w² + v²)
  EXPECT_TRUE(fem::readable_entry(GiNaC::ex(0)).is_zero());
}

}  // namespace
