// The library pieces under `appell fem --response` and `appell eval --minimal`: which nodes a
// response reports (fem::farthest_node, fem::response_nodes), its CSV (io::response_csv_header,
// io::write_response_csv_row), and the independent speeds out of a full velocity vector
// (num::independent_speeds).
#include <gtest/gtest.h>

#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "appell/fem/mesh.hpp"
#include "appell/fem/response.hpp"
#include "appell/io/csv_writer.hpp"
#include "appell/io/model_reader.hpp"
#include "appell/numeric/compiled_equations.hpp"
#include "appell/numeric/speeds.hpp"

namespace {

using namespace appell;

const std::string examples = APPELL_EXAMPLES_DIR;

void expect_located(const std::function<void()>& call, const std::string& at,
                    const std::string& offending, const std::string& message) {
  try {
    call();
    ADD_FAILURE() << "accepted; expected an error at " << at;
  } catch (const model::ModelError& e) {
    EXPECT_EQ(e.where().file, at) << e.what();
    EXPECT_EQ(e.offending(), offending) << e.what();
    EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find("--"), std::string::npos) << e.what();
  }
}

TEST(ResponseNodes, TheFarthestNodeIsTheTipOfACantilever) {
  const fem::Mesh beam = fem::beam_mesh(2.0, 4, false);  // nodes at x = 0, 0.5, .., 2
  EXPECT_EQ(fem::farthest_node(beam), 4);
  // Equal distances: the first of them.
  fem::Mesh cross;
  cross.nodes = {{0, 0, 0}, {0, -1, 0}, {1, 0, 0}, {0, 0, 1}, {0.5, 0.5, 0}};
  EXPECT_EQ(fem::farthest_node(cross), 1);
  EXPECT_THROW(fem::farthest_node(fem::Mesh{}), std::invalid_argument);
}

TEST(ResponseNodes, ListedNodesOrTheFarthest) {
  const fem::Mesh beam = fem::beam_mesh(1.0, 4, true);  // 5 nodes
  EXPECT_EQ(fem::response_nodes(beam, {}), (std::vector<int>{4}));
  EXPECT_EQ(fem::response_nodes(beam, {0, 2, 4}), (std::vector<int>{0, 2, 4}));
  for (double bad : {1.5, -1.0, 5.0})
    expect_located(
        [&] {
          fem::response_nodes(beam, {0, bad});
        },
        "nodes", std::to_string(bad), "node index out of range: the mesh has 5 nodes");
}

fem::FlexibleBodyInstance beam_body(bool planar) {
  fem::FlexibleBodyInstance body;
  body.mesh = fem::beam_mesh(1.0, 2, planar);  // 3 nodes
  body.assembled.dofs_per_node = planar ? 3 : 6;
  return body;
}

TEST(ResponseCsv, HeaderNamesTheTranslationalDisplacementsOfEachNode) {
  EXPECT_EQ(io::response_csv_header(beam_body(true), {2}), "t,n2_ux,n2_uy");
  EXPECT_EQ(io::response_csv_header(beam_body(false), {0, 2}),
            "t,n0_ux,n0_uy,n0_uz,n2_ux,n2_uy,n2_uz");
  EXPECT_THROW(io::response_csv_header(beam_body(true), {3}), std::out_of_range);
}

TEST(ResponseCsv, RowsHoldTheDisplacementsWithTenDigits) {
  const fem::FlexibleBodyInstance body = beam_body(true);
  Eigen::VectorXd u(9), zero = Eigen::VectorXd::Zero(9);
  u << 0.1, 0.2, 0.3, 1.0 / 3.0, -2e-7, 5, 7, 8, 9;  // (ux, uy, rotation) per node
  std::ostringstream out;
  io::write_response_csv_row(out, body, {1, 2}, fem::ResponseStep{0.25, u, zero, zero});
  EXPECT_EQ(out.str(), "0.25,0.3333333333,-2e-07,7,8\n");
}

TEST(IndependentSpeeds, FromTheIndependentSpeedsOrFromEverySpeed) {
  // The sleigh: coordinates x, y, theta (velocity 1); independent: [x, theta].
  const auto sleigh = io::read_model_file(examples + "/chaplygin_sleigh.yaml");
  auto as_vector = [](const Eigen::VectorXd& v) {
    return std::vector<double>(v.data(), v.data() + v.size());
  };
  EXPECT_EQ(as_vector(num::independent_speeds(*sleigh, {})), (std::vector<double>{0.0, 1.0}));
  EXPECT_EQ(as_vector(num::independent_speeds(*sleigh, {1, 2})), (std::vector<double>{1, 2}));
  // Every speed: those of x and theta taken, y's (dependent) left out.
  EXPECT_EQ(as_vector(num::independent_speeds(*sleigh, {1, 2, 3})), (std::vector<double>{1, 3}));
  expect_located(
      [&] {
        num::independent_speeds(*sleigh, {1, 2.5, 3, 4});
      },
      "speeds", "1,2.5,3,4",
      "expected 2 independent speeds or 3 speeds (one per coordinate), got 4");
  expect_located([&] { num::independent_speeds(*sleigh, {0.1}); }, "speeds", "0.1", "got 1");
}

}  // namespace
