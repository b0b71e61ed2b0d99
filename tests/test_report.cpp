// The HTML report (report/): what it computes checked against closed forms and independent
// references, and the page's promises (self-contained, small, deterministic, incomplete when a
// part fails). The page in a real browser: tests/browser/ (ctest browser.report).
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <regex>
#include <sstream>

#include "support/run_cli.hpp"

namespace {

using namespace appell;

std::shared_ptr<const model::Model> example(const std::string& name) {
  return io::read_model_file(std::string(APPELL_EXAMPLES_DIR) + "/" + name);
}

// The JSON the page carries for its script.
nlohmann::json page_data(const std::string& html) {
  const std::string open = "<script type=\"application/json\" id=\"appell-data\">";
  const auto begin = html.find(open) + open.size();
  const auto end = html.find("</script>", begin);
  return nlohmann::json::parse(html.substr(begin, end - begin));
}

// R = Rz(a) as a quaternion (x, y, z, w), w ≥ 0 for |a| < π.
std::array<double, 4> about_z(double a) { return {0, 0, std::sin(a / 2), std::cos(a / 2)}; }

std::array<double, 4> product(const std::array<double, 4>& p, const std::array<double, 4>& q) {
  return {p[3] * q[0] + p[0] * q[3] + p[1] * q[2] - p[2] * q[1],
          p[3] * q[1] - p[0] * q[2] + p[1] * q[3] + p[2] * q[0],
          p[3] * q[2] + p[0] * q[1] - p[1] * q[0] + p[2] * q[3],
          p[3] * q[3] - p[0] * q[0] - p[1] * q[1] - p[2] * q[2]};
}

void expect_same_rotation(const double* pose_quaternion, std::array<double, 4> expected) {
  if (expected[3] < 0)
    for (double& x : expected) x = -x;
  for (int k = 0; k < 4; ++k) EXPECT_NEAR(pose_quaternion[k], expected[k], 1e-12) << k;
}

TEST(ReportMotion, PlanarRobotFramesAreTheClosedFormPoses) {
  const auto model = example("planar_2r.yaml");
  const report::MotionEvaluator motion(model, {});
  std::mt19937 random(7);
  std::uniform_real_distribution<double> angle(-3, 3);
  const double l = 0.5;
  for (int k = 0; k < 10; ++k) {
    const double q1 = angle(random), q2 = angle(random);
    const auto pose = motion.poses(0.0, {q1, q2});
    ASSERT_EQ(pose.size(), 14u);
    // link1 at the origin turned by q1; link2 at l (cos q1, sin q1) turned by q1 + q2.
    for (int i = 0; i < 3; ++i) EXPECT_NEAR(pose[static_cast<std::size_t>(i)], 0.0, 1e-15);
    expect_same_rotation(&pose[3], about_z(q1));
    EXPECT_NEAR(pose[7], l * std::cos(q1), 1e-14);
    EXPECT_NEAR(pose[8], l * std::sin(q1), 1e-14);
    EXPECT_NEAR(pose[9], 0.0, 1e-15);
    expect_same_rotation(&pose[10], product(about_z(q1), about_z(q2)));
  }
}

TEST(ReportMotion, HeavyTopRotationIsTheProductOfItsEulerRotations) {
  const auto model = example("heavy_top.yaml");
  const report::MotionEvaluator motion(model, {});
  std::mt19937 random(3);
  std::uniform_real_distribution<double> angle(-3, 3);
  for (int k = 0; k < 10; ++k) {
    const double psi = angle(random), theta = angle(random), phi = angle(random);
    const auto pose = motion.poses(0.0, {psi, theta, phi});
    const std::array<double, 4> about_x{std::sin(theta / 2), 0, 0, std::cos(theta / 2)};
    expect_same_rotation(&pose[3], product(product(about_z(psi), about_x), about_z(phi)));
  }
}

TEST(ReportMotion, QuaternionRebuildsEveryRotationMatrix) {
  // Rotations about random axes by angles up to π, so that each branch of the conversion (trace
  // largest, or one of the diagonal entries) is taken.
  std::mt19937 random(11);
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> angle(0, M_PI);
  for (int k = 0; k < 200; ++k) {
    Eigen::Vector3d axis(normal(random), normal(random), normal(random));
    axis.normalize();
    const double a = angle(random);
    const Eigen::Matrix<double, 3, 3, Eigen::RowMajor> r = Eigen::AngleAxisd(a, axis).matrix();
    const auto q = report::quaternion_of(r.data());
    const Eigen::Quaterniond back(q[3], q[0], q[1], q[2]);
    EXPECT_NEAR(back.norm(), 1.0, 1e-14);
    EXPECT_GE(q[3], 0.0);
    EXPECT_LT((back.toRotationMatrix() - r).norm(), 1e-13) << "angle " << a;
  }
}

TEST(ReportMotion, ConstraintResidualsOfTheSliderCrank) {
  const auto model = example("slider_crank.yaml");
  const report::MotionEvaluator motion(model, {});
  const double r = 0.1, L = 0.3;
  const std::vector<double> q{0.7, -0.2, 0.25}, qd{1, 2, 3};
  const auto residual = motion.constraint_residuals(0.0, q, qd);
  ASSERT_EQ(residual.size(), 2u);
  EXPECT_NEAR(residual[0], r * std::cos(q[0]) + L * std::cos(q[1]) - q[2], 1e-15);
  EXPECT_NEAR(residual[1], r * std::sin(q[0]) + L * std::sin(q[1]), 1e-15);
  // The model's initial state closes the loop.
  const double q1 = 0.5, q2 = std::asin(-r * std::sin(0.5) / L);
  const auto closed =
      motion.constraint_residuals(0.0, {q1, q2, r * std::cos(q1) + L * std::cos(q2)}, {0, 0, 0});
  EXPECT_NEAR(closed[0], 0.0, 1e-15);
  EXPECT_NEAR(closed[1], 0.0, 1e-15);
}

TEST(ReportScene, SolidsComeBackFromTheirInertiaShapes) {
  model::ModelBuilder b("shapes");
  b.parameter("m", 2.0);
  b.coordinate("q");
  b.frame("f", {.rotation = model::Rotation::z("q")});
  b.body("rod",
         {.frame = "f", .mass = "m", .com = {1, 0, 0}, .inertia = model::Inertia::rod(0.8, "y")});
  b.body("disk", {.frame = "f", .mass = "m", .inertia = model::Inertia::disk(0.3, "x")});
  b.body("cylinder", {.frame = "f", .mass = 3, .inertia = model::Inertia::cylinder(0.2, 0.9, "z")});
  b.body("box", {.frame = "f", .mass = 1, .inertia = model::Inertia::box({0.1, 0.4, 0.3})});
  b.body("ball", {.frame = "f", .mass = 5, .inertia = model::Inertia::sphere(0.25)});
  b.particle("bob", {.frame = "f", .mass = 1, .position = {0, 2, 0}});
  b.spring({.from = {.on = "world"}, .to = {.on = "f", .point = {1, 0, 0}}, .stiffness = 10});
  b.gravity({0, 0, -9.81});
  const auto model = b.build();
  const report::Scene scene = report::make_scene(*model, {});
  ASSERT_EQ(scene.solids.size(), 6u);
  using Kind = report::SceneSolid::Kind;
  // The axis a solid is drawn along, in the frame: its local x (rod) or z (disk, cylinder).
  auto axis = [](const report::SceneSolid& s, int local) {
    const Eigen::Quaterniond q(s.rotation[3], s.rotation[0], s.rotation[1], s.rotation[2]);
    return Eigen::Vector3d(q.toRotationMatrix().col(local));
  };
  const auto& rod = scene.solids[0];
  EXPECT_EQ(rod.kind, Kind::Rod);
  EXPECT_NEAR(rod.size[0], 0.8, 1e-12);
  EXPECT_NEAR(std::abs(axis(rod, 0).y()), 1.0, 1e-12);
  EXPECT_TRUE(rod.stem);
  EXPECT_EQ(rod.centre[0], 1.0);
  const auto& disk = scene.solids[1];
  EXPECT_EQ(disk.kind, Kind::Disk);
  EXPECT_NEAR(disk.size[0], 0.3, 1e-12);
  EXPECT_NEAR(std::abs(axis(disk, 2).x()), 1.0, 1e-12);
  EXPECT_FALSE(disk.stem);
  const auto& cylinder = scene.solids[2];
  EXPECT_EQ(cylinder.kind, Kind::Cylinder);
  EXPECT_NEAR(cylinder.size[0], 0.2, 1e-12);
  EXPECT_NEAR(cylinder.size[1], 0.9, 1e-12);
  EXPECT_NEAR(std::abs(axis(cylinder, 2).z()), 1.0, 1e-12);
  const auto& box = scene.solids[3];
  EXPECT_EQ(box.kind, Kind::Box);
  // Edges along the principal axes, in the solid's x, y, z: the box's edges in some order,
  // each along the frame axis it was given on.
  const Eigen::Quaterniond q(box.rotation[3], box.rotation[0], box.rotation[1], box.rotation[2]);
  const Eigen::Vector3d edges(0.1, 0.4, 0.3);
  for (int i = 0; i < 3; ++i) {
    const Eigen::Vector3d along = q.toRotationMatrix().col(i).cwiseAbs();
    int frame_axis = 0;
    along.maxCoeff(&frame_axis);
    EXPECT_NEAR(along(frame_axis), 1.0, 1e-12);
    EXPECT_NEAR(box.size[static_cast<std::size_t>(i)], edges(frame_axis), 1e-12);
  }
  EXPECT_EQ(scene.solids[4].kind, Kind::Sphere);
  EXPECT_NEAR(scene.solids[4].size[0], 0.25, 1e-12);
  EXPECT_EQ(scene.solids[5].source, "particle");
  EXPECT_EQ(scene.solids[5].centre[1], 2.0);
  ASSERT_EQ(scene.lines.size(), 1u);
  EXPECT_EQ(scene.lines[0].kind, "spring");
  EXPECT_EQ(scene.lines[0].from_frame, -1);
  EXPECT_EQ(scene.lines[0].to_frame, 0);
  EXPECT_EQ(scene.gravity[2], -9.81);
}

TEST(ReportScene, HeavyTopIsTheCylinderOfItsMoments) {
  // A = m (3r² + L²)/12, C = m r²/2: r² = 2C/m, L² = 12A/m − 3r².
  const auto model = example("heavy_top.yaml");
  const report::Scene scene = report::make_scene(*model, {{"C", 0.04}});
  ASSERT_EQ(scene.solids.size(), 1u);
  const double m = 1.5, A = 0.03, C = 0.04;
  EXPECT_EQ(scene.solids[0].kind, report::SceneSolid::Kind::Cylinder);
  EXPECT_NEAR(scene.solids[0].size[0], std::sqrt(2 * C / m), 1e-12);
  EXPECT_NEAR(scene.solids[0].size[1], std::sqrt(12 * A / m - 6 * C / m), 1e-12);
  EXPECT_NEAR(scene.solids[0].centre[2], 0.2, 1e-15);
}

// Rows of a run that never happened: t = index, q = index.
void feed(report::SimulationRecording& recording, std::size_t rows) {
  Eigen::VectorXd q(1), qd(1), qdd(1), lambda(0);
  for (std::size_t i = 0; i < rows; ++i) {
    q(0) = static_cast<double>(i);
    qd(0) = 1;
    recording.add({.t = static_cast<double>(i),
                   .q = q,
                   .qd = qd,
                   .kinetic = 0,
                   .potential = 0,
                   .total = 0,
                   .qdd = qdd,
                   .lambda = lambda,
                   .v = qd,
                   .vdot = qdd});
  }
}

TEST(ReportRecording, KeepsEvenlySpacedRowsWithTheFirstAndTheLast) {
  for (const std::size_t rows : {1ul, 5ul, 2000ul, 2001ul, 100000ul, 123457ul}) {
    report::SimulationRecording recording({}, 2000);
    feed(recording, rows);
    const auto kept = recording.rows();
    EXPECT_EQ(recording.rows_delivered(), rows);
    ASSERT_FALSE(kept.empty());
    EXPECT_LE(kept.size(), 2001u) << rows;
    EXPECT_GE(kept.size(), std::min<std::size_t>(rows, 1000)) << rows;
    EXPECT_EQ(kept.front().t, 0.0);
    EXPECT_EQ(kept.back().t, static_cast<double>(rows - 1));
    // Every step between kept rows is the same, but the one to the last row.
    if (kept.size() > 2) {
      const double step = kept[1].t - kept[0].t;
      for (std::size_t i = 1; i + 1 < kept.size(); ++i)
        EXPECT_EQ(kept[i].t - kept[i - 1].t, step) << rows << " at " << i;
      EXPECT_LE(kept.back().t - kept[kept.size() - 2].t, step);
    }
    for (const auto& row : kept) EXPECT_EQ(row.q[0], row.t);
  }
}

TEST(ReportPage, IsOneSelfContainedDeterministicPage) {
  const auto model = example("slider_crank.yaml");
  report::ReportOptions options;
  options.simulation.t_end = 1.0;
  const report::Report contents = report::make_report(model, options);
  EXPECT_TRUE(contents.complete());
  const std::string html = report::write_html(contents);
  EXPECT_EQ(html, report::write_html(contents));  // the same bytes
  // Nothing is fetched: no external script, style sheet, image or font in the page's markup (the
  // scripts' own text is left out: three.js holds strings such as "<img").
  std::string markup;
  for (std::size_t at = 0; at < html.size();) {
    const auto open = html.find("<script", at);
    const auto text = open == std::string::npos ? html.size() : html.find('>', open) + 1;
    markup += html.substr(at, text - at);
    if (open == std::string::npos) break;
    at = html.find("</script>", text);
  }
  EXPECT_EQ(markup.find(" src="), std::string::npos);
  EXPECT_EQ(markup.find("<link"), std::string::npos);
  EXPECT_EQ(markup.find("<img"), std::string::npos);
  EXPECT_EQ(markup.find("<iframe"), std::string::npos);
  EXPECT_EQ(html.find("url(fonts/"), std::string::npos);
  EXPECT_EQ(html.find("@import"), std::string::npos);
  // KaTeX's fonts inlined as woff2: one per @font-face.
  std::size_t faces = 0, inlined = 0;
  for (auto at = html.find("@font-face"); at != std::string::npos;
       at = html.find("@font-face", at + 1))
    ++faces;
  for (auto at = html.find("url(data:font/woff2;base64,"); at != std::string::npos;
       at = html.find("url(data:font/woff2;base64,", at + 1))
    ++inlined;
  EXPECT_GE(faces, 19u);
  EXPECT_EQ(inlined, faces);
  // Exactly one closing tag per opened script: nothing embedded closes its element early.
  std::size_t opened = 0, closed = 0;
  for (auto at = html.find("<script"); at != std::string::npos; at = html.find("<script", at + 1))
    ++opened;
  for (auto at = html.find("</script"); at != std::string::npos; at = html.find("</script", at + 1))
    ++closed;
  EXPECT_EQ(opened, closed);
  EXPECT_EQ(opened, 7u);

  // The equations are io's LaTeX, one block per environment.
  const std::string latex = io::write_latex(*contents.derivation);
  const auto align = latex.substr(latex.find("\\begin{align}"));
  const std::string first_line = align.substr(0, align.find(" \\\\"));
  std::string escaped = std::regex_replace(first_line, std::regex("&"), "&amp;");
  EXPECT_NE(html.find(escaped), std::string::npos);
  // The verify table: every principle agrees.
  ASSERT_TRUE(contents.verification);
  EXPECT_TRUE(contents.verification->all_agree);
  EXPECT_NE(
      html.find("All 5 methods give the same equations, and the minimal form the same motion"),
      std::string::npos);

  // The plots: q, dq/dt, energies, violation and multipliers, on the rows simulated.
  const auto data = page_data(html);
  const auto& groups = data["plots"]["groups"];
  ASSERT_EQ(groups.size(), 5u);
  EXPECT_EQ(groups[3]["series"][0]["label"], "|loop_x|");
  EXPECT_EQ(groups[4]["series"][1]["label"], "lambda_loop_y");
  const auto& t = data["plots"]["t"];
  EXPECT_EQ(t.size(), 101u);
  EXPECT_EQ(t.back(), 1.0);
  // The constraints hold along the run (projection after every step).
  for (const auto& v : groups[3]["series"][0]["values"]) EXPECT_LT(v.get<double>(), 1e-6);
  // The animation: one pose per row; the slider's x follows the loop's closure r cos q1 + L cos q2.
  const auto& poses = data["animation"]["poses"];
  ASSERT_EQ(poses.size(), 101u);
  const auto& q1 = groups[0]["series"][0]["values"];
  const auto& q2 = groups[0]["series"][1]["values"];
  for (std::size_t i = 0; i < poses.size(); i += 10) {
    const double x = poses[i][14].get<double>();  // third frame (slider): origin x
    EXPECT_NEAR(x, 0.1 * std::cos(q1[i].get<double>()) + 0.3 * std::cos(q2[i].get<double>()), 1e-5);
  }
}

TEST(ReportPage, StaysSmallForAHundredThousandRows) {
  const auto model = example("double_pendulum.yaml");
  report::ReportOptions options;
  options.verify = false;
  options.simulation.t_end = 100.0;
  options.simulation.output_step = 0.001;
  options.simulation.rtol = 1e-6;
  options.simulation.atol = 1e-6;
  const report::Report contents = report::make_report(model, options);
  ASSERT_TRUE(contents.complete());
  EXPECT_EQ(contents.simulation->rows_delivered(), 100001u);
  const std::string html = report::write_html(contents);
  EXPECT_LT(html.size(), 5u << 20);
  const auto data = page_data(html);
  EXPECT_LE(data["plots"]["t"].size(), 2001u);
  EXPECT_EQ(data["plots"]["t"].back(), 100.0);
}

TEST(ReportPage, AFailedSimulationGivesAnIncompletePageWithTheReason) {
  const auto model = example("double_pendulum.yaml");
  report::ReportOptions options;
  options.verify = false;
  options.simulation.t_end = 2.0;
  options.simulation.max_steps_per_output = 3;  // CVODE gives up within the first output step
  options.simulation.output_step = 0.5;
  const report::Report contents = report::make_report(model, options);
  ASSERT_FALSE(contents.complete());
  ASSERT_TRUE(contents.simulation);
  EXPECT_FALSE(contents.simulation->complete());
  EXPECT_NE(contents.incomplete.front().find("simulation: integration stopped at t = "),
            std::string::npos)
      << contents.incomplete.front();
  const std::string html = report::write_html(contents);
  EXPECT_NE(html.find("<b>INCOMPLETE</b>"), std::string::npos);
  EXPECT_NE(html.find(contents.simulation->failure()), std::string::npos);
  // What was computed is still there: the equations, and the rows reached.
  EXPECT_NE(html.find("class=\"tex\""), std::string::npos);
  EXPECT_GE(page_data(html)["animation"]["poses"].size(), 1u);
}

TEST(ReportPage, WithoutSimulationDrawsTheInitialState) {
  const auto model = example("planar_2r.yaml");
  report::ReportOptions options;
  options.simulate = false;
  options.verify = false;
  const report::Report contents = report::make_report(model, options);
  EXPECT_TRUE(contents.complete());
  EXPECT_FALSE(contents.simulation);
  const std::string html = report::write_html(contents);
  EXPECT_NE(html.find("Not simulated: the model in its initial state."), std::string::npos);
  const auto data = page_data(html);
  EXPECT_FALSE(data.contains("plots"));
  const auto& poses = data["animation"]["poses"];
  ASSERT_EQ(poses.size(), 1u);
  // examples/planar_2r.yaml starts at q = 0: link2 at (l, 0, 0), both links unrotated.
  EXPECT_EQ(poses[0][7].get<double>(), 0.5);
  EXPECT_EQ(poses[0][13].get<double>(), 1.0);
  EXPECT_EQ(data["animation"]["solids"].size(), 2u);
  EXPECT_EQ(data["animation"]["solids"][0]["kind"], "rod");
}

TEST(ReportCli, WritesThePageAndRefusesBadInput) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "appell-report-cli";
  fs::create_directories(dir);
  const std::string examples = APPELL_EXAMPLES_DIR;
  const std::string out = (dir / "pendulum.html").string();
  auto run = test_support::run_cli("report " + examples +
                                   "/double_pendulum.yaml --t-end 0.5 --out " + out);
  EXPECT_EQ(run.code, 0) << run.out;
  EXPECT_TRUE(fs::exists(out));
  EXPECT_GT(fs::file_size(out), 100000u);

  run =
      test_support::run_cli("report " + examples + "/double_pendulum.yaml --t-end -1 --out " + out);
  EXPECT_EQ(run.code, 2) << run.out;
  EXPECT_NE(run.out.find("--t-end"), std::string::npos) << run.out;
  run = test_support::run_cli("report " + examples + "/double_pendulum.yaml --set nope=1 --out " +
                              out);
  EXPECT_EQ(run.code, 2) << run.out;
  EXPECT_NE(run.out.find("nope"), std::string::npos) << run.out;
  run = test_support::run_cli("report " + examples + "/double_pendulum.yaml");
  EXPECT_EQ(run.code, 2) << run.out;
  run = test_support::run_cli("report " + examples +
                              "/double_pendulum.yaml --method newton --out " + out);
  EXPECT_EQ(run.code, 2) << run.out;
  EXPECT_NE(run.out.find("newton"), std::string::npos) << run.out;

  // A run that fails still gives its page, marked incomplete with the reason; exit 1.
  const std::string singular = (dir / "singular.yaml").string();
  std::ofstream(singular) << "name: singular-slider\n"
                             "parameters: {m: 1}\n"
                             "coordinates:\n  - {name: x, initial: 0, velocity: 3}\n"
                             "frames:\n  slide: {translation: [sin(x), 0, 0]}\n"
                             "particles:\n  bob: {frame: slide, mass: m}\n";
  const std::string failed = (dir / "singular.html").string();
  run = test_support::run_cli("report " + singular + " --t-end 2 --out " + failed);
  EXPECT_EQ(run.code, 1) << run.out;
  EXPECT_NE(run.out.find("the report is incomplete: simulation: integration stopped at t = 0.33"),
            std::string::npos)
      << run.out;
  std::ifstream failed_page(failed);
  std::stringstream failed_text;
  failed_text << failed_page.rdbuf();
  EXPECT_NE(failed_text.str().find("<b>INCOMPLETE</b><ul><li>simulation: integration stopped at t"),
            std::string::npos);

  // simulate --report writes the CSV and the page of the same run.
  const std::string csv = (dir / "run.csv").string(), page = (dir / "run.html").string();
  run = test_support::run_cli("simulate " + examples + "/double_pendulum.yaml --t-end 0.5 --out " +
                              csv + " --report " + page);
  EXPECT_EQ(run.code, 0) << run.out;
  std::ifstream in(page);
  std::stringstream text;
  text << in.rdbuf();
  const auto data = page_data(text.str());
  EXPECT_EQ(data["plots"]["t"].size(), 51u);
  EXPECT_NE(text.str().find("id=\"status\" class=\"complete\""), std::string::npos);
  fs::remove_all(dir);
}

// A model with generalized speeds is integrated in them and drawn turning by its quaternion:
// the free box spun mostly about its intermediate axis flips (w2 changes sign) while its energy
// stays; the page plots the speeds by their names and each frame's pose is the quaternion's
// rotation, normalized.
TEST(ReportSpeeds, TheFreeBoxIsIntegratedInItsSpeedsAndDrawnByItsQuaternion) {
  const auto model =
      io::read_model_file(std::string(APPELL_EXAMPLES_DIR) + "/speeds/free_box_quaternion.yaml");
  report::ReportOptions options;
  options.simulation.t_end = 12.0;
  options.simulation.rtol = options.simulation.atol = 1e-10;
  options.simulation.u0 = {0, 0, 0, 0.02, 3.0, 0.02};
  const report::Report contents = report::make_report(model, options);
  ASSERT_TRUE(contents.complete()) << (contents.incomplete.empty() ? "" : contents.incomplete[0]);
  const auto rows = contents.simulation->rows();
  ASSERT_GT(rows.size(), 100u);
  double lowest_w2 = 3.0;
  for (const auto& row : rows) {
    ASSERT_EQ(row.u.size(), 6u);
    lowest_w2 = std::min(lowest_w2, row.u[4]);
    EXPECT_NEAR(row.total, rows.front().total, 1e-7 * rows.front().total);
    const double length =
        std::hypot(std::hypot(row.q[3], row.q[4]), std::hypot(row.q[5], row.q[6]));
    EXPECT_NEAR(length, 1.0, 1e-9);
  }
  EXPECT_LT(lowest_w2, -2.9);  // flipped
  const std::string html = report::write_html(contents);
  const auto data = page_data(html);
  bool speeds = false;
  for (const auto& group : data["plots"]["groups"])
    if (group["id"] == "u") {
      speeds = true;
      ASSERT_EQ(group["series"].size(), 6u);
      EXPECT_EQ(group["series"][4]["label"], "w2");
    }
  EXPECT_TRUE(speeds) << "no plot of the speeds";
  // The box's pose at a row is its quaternion (x, y, z, w order, w >= 0).
  const report::MotionEvaluator motion(model, contents.values);
  const auto& row = rows[rows.size() / 2];
  const auto pose = motion.poses(row.t, row.q);
  std::array<double, 4> expected{row.q[4], row.q[5], row.q[6], row.q[3]};
  expect_same_rotation(pose.data() + 3, expected);

  // The command line: report --u0 and simulate --report for a model with speeds; --u0 refused for
  // a model without.
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "appell-report-speeds";
  fs::create_directories(dir);
  const std::string box = std::string(APPELL_EXAMPLES_DIR) + "/speeds/free_box_quaternion.yaml";
  const std::string page = (dir / "box.html").string(), csv = (dir / "box.csv").string();
  auto run = test_support::run_cli("report " + box + " --t-end 1 --u0 0,0,0,0.5,1,2 --out " + page);
  EXPECT_EQ(run.code, 0) << run.out;
  EXPECT_TRUE(fs::exists(page));
  run = test_support::run_cli("simulate " + box + " --t-end 1 --u0 0,0,0,0.5,1,2 --out " + csv +
                              " --report " + page);
  EXPECT_EQ(run.code, 0) << run.out;
  EXPECT_NE(run.out.find("report written to"), std::string::npos) << run.out;
  run = test_support::run_cli("report " + std::string(APPELL_EXAMPLES_DIR) +
                              "/double_pendulum.yaml --u0 1 --out " + page);
  EXPECT_EQ(run.code, 2) << run.out;
  EXPECT_NE(run.out.find("--u0"), std::string::npos) << run.out;
}

}  // namespace
