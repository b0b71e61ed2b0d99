// A body's inertia given as a shape is drawn as that shape (report/scene.hpp): the principal
// moments alone cannot tell a cube from a sphere, a square bar from a cylinder, nor a cylinder of
// length r·√3 from a sphere, so the scene takes the shape the model file declared
// (model::Body::shape), with its sizes (parameters bound) and its axis. An inertia given as a
// matrix is still read back from its moments. The browser's side: tests/browser/run_page.sh
// (ctest browser.shapes).
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <appell/appell.hpp>
#include <cmath>

namespace {

using namespace appell;
using Kind = report::SceneSolid::Kind;

const char* const kShapes = R"(name: shapes
parameters: {m: 1, a: 0.2}
coordinates: [q]
frames:
  arm: {rotation: rot_z(q)}
bodies:
  cube: {frame: arm, mass: m, inertia: {box: {size: [a, a, a]}}}
  square_bar: {frame: arm, mass: m, inertia: {box: {size: [0.1, 0.1, 0.6]}}}
  even_cylinder: {frame: arm, mass: m, inertia: {cylinder: {radius: 0.1, length: 0.1*sqrt(3), axis: x}}}
  rod: {frame: arm, mass: m, inertia: {rod: {length: 0.8, axis: z}}}
  disk: {frame: arm, mass: m, inertia: {disk: {radius: 0.25, axis: y}}}
  ball: {frame: arm, mass: m, inertia: {sphere: {radius: 0.15}}}
  cube_as_matrix: {frame: arm, mass: 1, inertia: [0.04/6, 0.04/6, 0.04/6]}
)";

const report::SceneSolid& solid(const report::Scene& scene, const std::string& name) {
  for (const auto& s : scene.solids)
    if (s.name == name) return s;
  throw std::runtime_error("no solid " + name);
}

// The frame's components of the solid's local axis `local` (0, 1, 2 for x, y, z).
Eigen::Vector3d axis(const report::SceneSolid& s, int local) {
  const Eigen::Quaterniond q(s.rotation[3], s.rotation[0], s.rotation[1], s.rotation[2]);
  return q.toRotationMatrix().col(local);
}

TEST(ReportShapes, EachInertiaShapeIsDrawnAsDeclared) {
  const auto model = io::parse_model(kShapes, "shapes.yaml");
  const report::Scene scene = report::make_scene(*model, {});
  ASSERT_EQ(scene.solids.size(), 7u);

  // Equal moments, but a box: its edges along the frame's axes.
  const auto& cube = solid(scene, "cube");
  EXPECT_EQ(cube.kind, Kind::Box);
  for (std::size_t k = 0; k < 3; ++k) EXPECT_NEAR(cube.size[k], 0.2, 1e-12) << k;
  const auto& bar = solid(scene, "square_bar");
  EXPECT_EQ(bar.kind, Kind::Box);
  EXPECT_NEAR(bar.size[0], 0.1, 1e-12);
  EXPECT_NEAR(bar.size[1], 0.1, 1e-12);
  EXPECT_NEAR(bar.size[2], 0.6, 1e-12);
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(axis(bar, k)(k), 1.0, 1e-12) << k;

  // A cylinder of three equal moments, its axis (the solid's z) along the frame's x.
  const auto& cylinder = solid(scene, "even_cylinder");
  EXPECT_EQ(cylinder.kind, Kind::Cylinder);
  EXPECT_NEAR(cylinder.size[0], 0.1, 1e-12);
  EXPECT_NEAR(cylinder.size[1], 0.1 * std::sqrt(3.0), 1e-12);
  EXPECT_NEAR(axis(cylinder, 2).x(), 1.0, 1e-12);

  // A rod along z (the solid's x), a disk about y (the solid's z), each turned right-handedly.
  const auto& rod = solid(scene, "rod");
  EXPECT_EQ(rod.kind, Kind::Rod);
  EXPECT_NEAR(rod.size[0], 0.8, 1e-12);
  EXPECT_NEAR(axis(rod, 0).z(), 1.0, 1e-12);
  const auto& disk = solid(scene, "disk");
  EXPECT_EQ(disk.kind, Kind::Disk);
  EXPECT_NEAR(disk.size[0], 0.25, 1e-12);
  EXPECT_GT(disk.size[1], 0.0);
  EXPECT_LT(disk.size[1], 0.1 * disk.size[0]);  // thin
  EXPECT_NEAR(axis(disk, 2).y(), 1.0, 1e-12);
  for (const auto* s : {&cylinder, &rod, &disk}) {
    const Eigen::Quaterniond q(s->rotation[3], s->rotation[0], s->rotation[1], s->rotation[2]);
    EXPECT_NEAR(q.norm(), 1.0, 1e-12);
    EXPECT_NEAR(q.toRotationMatrix().determinant(), 1.0, 1e-12);
  }

  const auto& ball = solid(scene, "ball");
  EXPECT_EQ(ball.kind, Kind::Sphere);
  EXPECT_NEAR(ball.size[0], 0.15, 1e-12);

  // The cube's inertia written as a matrix: no shape declared, read back from equal moments as
  // the sphere of that inertia (2/5 m r² = m a²/6).
  const auto& matrix = solid(scene, "cube_as_matrix");
  EXPECT_EQ(matrix.kind, Kind::Sphere);
  EXPECT_NEAR(matrix.size[0], std::sqrt(5.0 / 12.0) * 0.2, 1e-12);
}

// The sizes are the model's expressions: a parameter set for the page sizes the solid.
TEST(ReportShapes, DeclaredSizesFollowTheParameters) {
  const auto model = io::parse_model(kShapes, "shapes.yaml");
  const auto& cube = model->bodies.front();
  ASSERT_TRUE(cube.shape.has_value());
  EXPECT_EQ(cube.shape->kind, model::BodyShape::Kind::Box);
  const report::Scene scene = report::make_scene(*model, {{"a", 0.5}});
  for (std::size_t k = 0; k < 3; ++k) EXPECT_NEAR(solid(scene, "cube").size[k], 0.5, 1e-12);
  EXPECT_FALSE(model->bodies.back().shape.has_value());
}

}  // namespace
