// The report of a flexible body (appell fem --response --report, report/flexible_report.hpp): the
// mesh's surface counted against closed forms, the response against the suddenly loaded
// cantilever's closed form, the page's bounds (frames, size) and promises (deterministic, the
// amplification control, incomplete with the reason when the rigid motion fails), the CLI's
// exit codes, the one markup-escaping helper, and the user guide's screenshots. The page in a
// real browser: tests/browser/ (ctest browser.report).
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "support/run_cli.hpp"

namespace {

using namespace appell;
namespace fs = std::filesystem;

nlohmann::json page_data(const std::string& html) {
  const std::string open = "<script type=\"application/json\" id=\"appell-data\">";
  const auto begin = html.find(open) + open.size();
  const auto end = html.find("</script>", begin);
  return nlohmann::json::parse(html.substr(begin, end - begin));
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The singular slider (its mass matrix m cos²x vanishes at x = π/2, reached at t = 1/3 s) carrying
// a clamped strip: the strip's floating frame has no rigid motion past that point.
const char* singular_flexible =
    "name: singular-slider\n"
    "parameters: {m: 1}\n"
    "coordinates:\n  - {name: x, initial: 0, velocity: 3}\n"
    "frames:\n  slide: {translation: [sin(x), 0, 0]}\n"
    "particles:\n  bob: {frame: slide, mass: m}\n"
    "flexible:\n  - name: strip\n    frame: slide\n"
    "    mesh: {beam: {length: 0.5, elements: 4, planar: true, section: {area: 1e-4, Iz: 1e-9}}}\n"
    "    material: {E: 2.1e11, nu: 0.3, rho: 7850}\n"
    "    clamp: {x: 0}\n";

TEST(ReportFlexible, SurfaceOfABoxIsItsOuterFaces) {
  // nx × ny × nz hexahedra: 2(nx ny + ny nz + nz nx) outer quadrilaterals, and every node but the
  // (nx−1)(ny−1)(nz−1) inside.
  const fem::Mesh box = fem::box_mesh({1.0, 0.5, 0.25}, {2, 3, 4});
  const report::MeshSurface surface = report::mesh_surface(box);
  EXPECT_EQ(surface.faces, 2u * (6 + 12 + 8));
  EXPECT_EQ(surface.triangles.size(), 2 * surface.faces);
  EXPECT_EQ(surface.nodes.size(), 3u * 4 * 5 - 1 * 2 * 3);
  EXPECT_TRUE(surface.segments.empty());
  // Every surface node lies on the box's boundary, and every triangle's corners are distinct
  // nodes on one face plane (x, y or z constant).
  for (int n : surface.nodes) {
    const auto& x = box.nodes[std::size_t(n)];
    const bool boundary = std::abs(x(0)) < 1e-12 || std::abs(x(0) - 1.0) < 1e-12 ||
                          std::abs(std::abs(x(1)) - 0.25) < 1e-12 ||
                          std::abs(std::abs(x(2)) - 0.125) < 1e-12;
    EXPECT_TRUE(boundary) << n;
  }
  for (const auto& t : surface.triangles) {
    EXPECT_EQ(std::set<int>(t.begin(), t.end()).size(), 3u);
    bool planar = false;
    for (int c = 0; c < 3; ++c) {
      const double a = box.nodes[std::size_t(surface.nodes[std::size_t(t[0])])](c);
      planar = planar ||
               (std::abs(box.nodes[std::size_t(surface.nodes[std::size_t(t[1])])](c) - a) < 1e-12 &&
                std::abs(box.nodes[std::size_t(surface.nodes[std::size_t(t[2])])](c) - a) < 1e-12);
    }
    EXPECT_TRUE(planar);
  }

  // Two tetrahedra sharing a face: six outer triangles over five nodes.
  fem::Mesh tets;
  tets.nodes = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 1}};
  tets.elements = {{fem::ElementType::Tet4, {0, 1, 2, 3}}, {fem::ElementType::Tet4, {1, 2, 3, 4}}};
  const auto tet_surface = report::mesh_surface(tets);
  EXPECT_EQ(tet_surface.faces, 6u);
  EXPECT_EQ(tet_surface.triangles.size(), 6u);
  EXPECT_EQ(tet_surface.nodes.size(), 5u);

  // A beam: its segments, every node; a planar beam's node moves by (u, v, 0).
  const fem::Mesh beam = fem::beam_mesh(2.0, 5, true);
  const auto beam_surface = report::mesh_surface(beam);
  EXPECT_EQ(beam_surface.segments.size(), 5u);
  EXPECT_EQ(beam_surface.nodes.size(), 6u);
  Eigen::VectorXd dofs = Eigen::VectorXd::LinSpaced(18, 1, 18);  // (u, v, θz) per node
  const auto u = report::node_translation(beam, dofs, 2);
  EXPECT_EQ(u[0], 7.0);
  EXPECT_EQ(u[1], 8.0);
  EXPECT_EQ(u[2], 0.0);  // θz is a rotation, not w
}

TEST(ReportFlexible, RecordingKeepsBoundedEvenlySpacedFrames) {
  // A 20 × 4 × 4 bar: 2·(80 + 16 + 80) faces; the budget of 30000 numbers allows 30000 / (3 ·
  // surface nodes) frames; 1001 steps are thinned to at most that, evenly, first and last kept.
  auto model = io::read_model_file(std::string(APPELL_EXAMPLES_DIR) + "/fem/cantilever_box.yaml");
  const auto body = fem::build_flexible_body(*model, 0, {});
  const std::size_t surface_nodes = report::mesh_surface(body.mesh).nodes.size();
  fem::ResponseOptions options;
  options.t_end = 1.0;
  options.step = 1e-3;
  report::ResponseRecording recording(body, {40}, options, 100, 30000, 200);
  EXPECT_EQ(recording.frame_capacity(), std::max<std::size_t>(2, 30000 / (3 * surface_nodes)));
  Eigen::VectorXd u = Eigen::VectorXd::Zero(Eigen::Index(body.mesh.dof_count()));
  const Eigen::VectorXd zero = u;
  for (int k = 0; k <= 1000; ++k) {
    // Node 40 (the tip's first node) moves by t along z.
    u(3 * 40 + 2) = k * 1e-3;
    recording.add(fem::ResponseStep{k * 1e-3, u, zero, zero});
  }
  recording.finish(fem::ResponseResult{});
  const auto frames = recording.frames();
  const auto rows = recording.rows();
  EXPECT_LE(frames.size(), recording.frame_capacity());
  EXPECT_GE(frames.size(), recording.frame_capacity() / 2);
  EXPECT_LE(rows.size(), 100u);
  EXPECT_GE(rows.size(), 50u);
  EXPECT_EQ(frames.front().t, 0.0);
  EXPECT_EQ(frames.back().t, 1.0);
  EXPECT_EQ(rows.back().t, 1.0);
  const double spacing = frames[1].t - frames[0].t;
  for (std::size_t i = 1; i + 1 < frames.size(); ++i)
    EXPECT_NEAR(frames[i].t - frames[i - 1].t, spacing, 1e-12);
  // The plotted node's z and the largest displacement are the t put in.
  for (const auto& r : rows) {
    EXPECT_EQ(r.u.size(), 3u);
    EXPECT_DOUBLE_EQ(r.u[2], r.t);
    EXPECT_DOUBLE_EQ(r.max_displacement, r.t);
  }
  EXPECT_EQ(frames.back().u.size(), 3 * surface_nodes);
}

TEST(ReportFlexible, CantileverPageCarriesTheMeshAndTheClosedFormResponse) {
  auto model = io::read_model_file(std::string(APPELL_EXAMPLES_DIR) + "/fem/cantilever_box.yaml");
  report::FlexibleReportOptions options;
  options.response.t_end = 0.1;
  options.response.step = 5e-4;
  const report::FlexibleReport contents = report::make_flexible_report(model, {}, options);
  ASSERT_TRUE(contents.complete()) << contents.incomplete.front();
  // The first bending frequency against Euler–Bernoulli: 1.8751²/(2π) √(EI/(ρA L⁴)).
  const double E = 2.1e11, rho = 7850, a = 0.02, L = 1.0, P = -100.0;
  const double I = a * a * a * a / 12, A = a * a;
  ASSERT_TRUE(contents.modes);
  EXPECT_NEAR(contents.modes->frequencies_hz[0],
              1.875104 * 1.875104 / (2 * M_PI) * std::sqrt(E * I / (rho * A * L * L * L * L)),
              0.01 * 16.7);

  const std::string html = report::write_flexible_html(contents);
  EXPECT_EQ(html, report::write_flexible_html(contents));  // the same bytes
  EXPECT_LT(html.size(), 5u << 20);
  EXPECT_NE(html.find("id=\"amplification\""), std::string::npos);
  EXPECT_NE(html.find("id=\"amplification-slider\""), std::string::npos);
  EXPECT_NE(html.find("id=\"colour-bar\""), std::string::npos);
  EXPECT_NE(html.find("<table id=\"frequencies\">"), std::string::npos);
  EXPECT_NE(html.find("id=\"status\" class=\"complete\""), std::string::npos);
  const auto data = page_data(html);
  const auto& flex = data["flexible"];
  // 40 × 2 × 2 hexahedra: 2·(80 + 4 + 80) = 328 faces on 369 − 39 = 330 surface nodes.
  EXPECT_EQ(flex["faces"], 328);
  EXPECT_EQ(flex["mesh_nodes"], 369);
  EXPECT_EQ(flex["nodes"].size(), 3u * 330);
  EXPECT_EQ(flex["triangles"].size(), 3u * 2 * 328);
  EXPECT_TRUE(flex["segments"].empty());
  const std::size_t frames = flex["times"].size();
  EXPECT_EQ(flex["displacements"].size(), frames);
  EXPECT_GT(frames, 50u);
  EXPECT_LE(frames, 201u);
  EXPECT_EQ(flex["times"].back(), 0.1);

  // The tip swings between 0 and twice the static deflection P L³/(3EI) (no damping): the
  // plotted node 40 (the tip's first node), within the mesh's and the step's error.
  const double static_tip = P * L * L * L / (3 * E * I);
  const auto& groups = data["plots"]["groups"];
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0]["series"][2]["label"], "n40_uz");
  double lowest = 0;
  for (const auto& v : groups[0]["series"][2]["values"]) lowest = std::min(lowest, v.get<double>());
  EXPECT_NEAR(lowest, 2 * static_tip, 0.03 * std::abs(2 * static_tip));
  // The largest |u| over the mesh is the tip's, and the colour scale is its largest.
  double largest = 0;
  for (const auto& v : groups[1]["series"][0]["values"])
    largest = std::max(largest, v.get<double>());
  EXPECT_NEAR(largest, std::abs(lowest), 0.01 * std::abs(lowest));
  EXPECT_NEAR(flex["max_displacement"].get<double>(), largest, 0.02 * largest);
  // The quantized frames decode to the recorded displacements within one unit.
  const auto recorded = contents.response->frames();
  const double unit = flex["unit"];
  for (std::size_t f = 0; f < frames; f += 17)
    for (std::size_t i = 0; i < recorded[f].u.size(); i += 7)
      EXPECT_NEAR(flex["displacements"][f][i].get<double>() * unit, recorded[f].u[i], unit);
  // The default amplification makes the largest displacement at most a tenth of the bar.
  const double amplification = flex["amplification"];
  EXPECT_GE(amplification, 1.0);
  EXPECT_LE(amplification * flex["max_displacement"].get<double>(),
            0.1 * flex["extent"].get<double>());
}

TEST(ReportFlexible, FramePosesFollowTheMechanismsClosedForm) {
  // The flexible slider-crank's rod frame: origin at the crank pin (r cos ψ, r sin ψ, 0), ψ = Ω t,
  // turned about z by q2 with r sin ψ + L sin q2 = 0 (the loop, q2 on the branch through 0).
  auto model =
      io::read_model_file(std::string(APPELL_EXAMPLES_DIR) + "/fem/flexible_slider_crank.yaml");
  report::FlexibleReportOptions options;
  options.response.t_end = 0.02;
  options.response.step = 1e-4;
  options.modes = 0;
  const auto contents = report::make_flexible_report(model, {}, options);
  ASSERT_TRUE(contents.complete()) << contents.incomplete.front();
  const auto frames = contents.response->frames();
  ASSERT_EQ(contents.frame_poses.size(), frames.size());
  const double Omega = 150.0, r = 0.1524, L = 0.3048;
  for (std::size_t i = 0; i < frames.size(); ++i) {
    const double psi = Omega * frames[i].t, q2 = std::asin(-r * std::sin(psi) / L);
    const auto& pose = contents.frame_poses[i];
    EXPECT_NEAR(pose[0], r * std::cos(psi), 1e-12);
    EXPECT_NEAR(pose[1], r * std::sin(psi), 1e-12);
    EXPECT_NEAR(pose[2], 0.0, 1e-15);
    // Rz(q2): (0, 0, sin(q2/2), cos(q2/2)), to the accuracy of the integrated rigid motion.
    EXPECT_NEAR(pose[5], std::sin(q2 / 2), 1e-6) << frames[i].t;
    EXPECT_NEAR(pose[6], std::cos(q2 / 2), 1e-6) << frames[i].t;
  }
  const auto data = page_data(report::write_flexible_html(contents));
  EXPECT_EQ(data["flexible"]["poses"].size(), frames.size());

  // A frame at rest (the clamped bar's base) gives no poses, and the page no world view.
  auto bar = io::read_model_file(std::string(APPELL_EXAMPLES_DIR) + "/fem/cantilever_box.yaml");
  options.response.t_end = 0.002;
  options.response.step = 1e-3;
  const auto still = report::make_flexible_report(bar, {}, options);
  EXPECT_TRUE(still.frame_poses.empty());
  EXPECT_EQ(report::write_flexible_html(still).find("id=\"in-world\""), std::string::npos);
}

TEST(ReportFlexible, AFailedRigidMotionGivesAnIncompletePageWithTheReason) {
  const fs::path dir = fs::temp_directory_path() / "appell-report-flexible";
  fs::create_directories(dir);
  const fs::path file = dir / "singular_flexible.yaml";
  std::ofstream(file) << singular_flexible;
  auto model = io::read_model_file(file.string());
  report::FlexibleReportOptions options;
  options.response.t_end = 2.0;
  options.response.step = 1e-3;
  const auto contents = report::make_flexible_report(model, {}, options);
  ASSERT_FALSE(contents.complete());
  EXPECT_NE(contents.incomplete.front().find("rigid motion of frame slide: "), std::string::npos)
      << contents.incomplete.front();
  EXPECT_FALSE(contents.response);
  const std::string html = report::write_flexible_html(contents);
  EXPECT_NE(html.find("<b>INCOMPLETE</b><ul><li>rigid motion of frame slide: "), std::string::npos);
  // What is known is still there: the model and the body.
  EXPECT_NE(html.find("<section id=\"model\">"), std::string::npos);
  EXPECT_NE(html.find("<section id=\"flexible\">"), std::string::npos);
  EXPECT_FALSE(page_data(html).contains("flexible"));
  fs::remove_all(dir);
}

// A response that diverges (the frame's prescribed height sqrt(0.0025 - t) is not a number after
// t = 0.0025) stops there: exit 1 with the reason, the CSV keeps the rows reached and is marked
// incomplete, the page is written and marked INCOMPLETE.
TEST(ReportFlexible, ADivergingResponseGivesAnIncompletePageAndCsv) {
  const fs::path dir = fs::temp_directory_path() / "appell-report-flexible-diverging";
  fs::create_directories(dir);
  const fs::path file = dir / "diverging.yaml";
  std::ofstream(file) << "name: diverging\ncoordinates: []\nframes:\n"
                         "  base: {translation: [0, 0, \"sqrt(0.0025 - t)\"]}\n"
                         "flexible:\n  - name: bar\n    frame: base\n"
                         "    mesh: {box: {size: [1.0, 0.02, 0.02], divisions: [10, 1, 1]}}\n"
                         "    material: {E: 2.1e11, nu: 0.3, rho: 7850}\n    clamp: {x: 0}\n";
  const std::string page = (dir / "diverging.html").string(), csv = (dir / "d.csv").string();
  const auto run = test_support::run_cli("fem " + file.string() +
                                         " --response --t-end 0.005 --step 0.001 --csv " + csv +
                                         " --report " + page);
  EXPECT_EQ(run.code, 1) << run.out;
  EXPECT_NE(run.out.find("the elastic response diverged at t = 0.003"), std::string::npos)
      << run.out;
  const std::string html = read_text(page);
  EXPECT_NE(html.find("<b>INCOMPLETE</b><ul><li>response: the elastic response diverged at t = "
                      "0.003"),
            std::string::npos);
  const std::string rows = read_text(csv);
  EXPECT_NE(rows.find("\n0.002,"), std::string::npos) << rows;  // the rows reached
  EXPECT_EQ(rows.find("\n0.003,"), std::string::npos) << rows;
  EXPECT_NE(rows.find("incomplete"), std::string::npos) << rows;
  fs::remove_all(dir);
}

TEST(ReportFlexible, CliWritesThePageAndRefusesBadInput) {
  const fs::path dir = fs::temp_directory_path() / "appell-report-flexible-cli";
  fs::create_directories(dir);
  const std::string blade = std::string(APPELL_EXAMPLES_DIR) + "/fem/rotating_blade.yaml";
  const std::string page = (dir / "blade.html").string(), csv = (dir / "blade.csv").string();
  auto run = test_support::run_cli("fem " + blade + " --response --t-end 0.05 --step 1e-3 --csv " +
                                   csv + " --report " + page);
  EXPECT_EQ(run.code, 0) << run.out;
  const std::string html = read_text(page);
  const auto data = page_data(html);
  // 20 beam3d elements: 20 segments over 21 nodes; 51 steps, all plotted.
  EXPECT_EQ(data["flexible"]["segments"].size(), 40u);
  EXPECT_EQ(data["flexible"]["nodes"].size(), 63u);
  EXPECT_EQ(data["plots"]["t"].size(), 51u);
  // The CSV and the page hold the same run: the tip's last row.
  std::ifstream rows(csv);
  std::string line, last;
  while (std::getline(rows, line)) last = line;
  const double tip_uz = std::stod(last.substr(last.rfind(',') + 1));
  EXPECT_NEAR(data["plots"]["groups"][0]["series"][2]["values"].back().get<double>(), tip_uz,
              1e-6 * std::abs(tip_uz) + 1e-300);

  // --report needs --response; a path that cannot be written is named with the flag (exit 2).
  run = test_support::run_cli("fem " + blade + " --report " + page);
  EXPECT_EQ(run.code, 2) << run.out;
  EXPECT_NE(run.out.find("--report"), std::string::npos) << run.out;
  run = test_support::run_cli("fem " + blade + " --response --t-end 0.01 --csv " + csv +
                              " --report " + (dir / "no" / "such" / "dir.html").string());
  EXPECT_EQ(run.code, 2) << run.out;
  EXPECT_NE(run.out.find("--report: cannot write the file"), std::string::npos) << run.out;
  run = test_support::run_cli("fem " + blade + " --response --t-end 0.01 --nodes 99 --report " +
                              page);
  EXPECT_EQ(run.code, 2) << run.out;
  EXPECT_NE(run.out.find("--nodes"), std::string::npos) << run.out;

  // A rigid motion that fails: the page, incomplete with the reason, and exit 1.
  const fs::path model = dir / "singular_flexible.yaml";
  std::ofstream(model) << singular_flexible;
  const std::string failed = (dir / "failed.html").string();
  run = test_support::run_cli("fem " + model.string() + " --response --t-end 2 --step 1e-3 --csv " +
                              csv + " --report " + failed);
  EXPECT_EQ(run.code, 1) << run.out;
  EXPECT_NE(read_text(failed).find("<b>INCOMPLETE</b><ul><li>rigid motion of frame slide: "),
            std::string::npos);
  fs::remove_all(dir);
}

TEST(ReportFlexible, MarkupIsEscapedByOneHelper) {
  EXPECT_EQ(io::markup_escape("O'Brien <tip> & \"root\""),
            "O&#39;Brien &lt;tip&gt; &amp; &quot;root&quot;");
  EXPECT_EQ(io::markup_escape("plain"), "plain");
  // The VTK collection's file names and the page's text go through it.
  const fs::path dir = fs::temp_directory_path() / "appell-markup-escape";
  fs::create_directories(dir);
  io::write_pvd((dir / "series.pvd").string(), {{0.0, "a'b&<c>.vtu"}});
  EXPECT_NE(read_text(dir / "series.pvd").find("file=\"a&#39;b&amp;&lt;c&gt;.vtu\""),
            std::string::npos);
  fs::remove_all(dir);
}

TEST(ReportDocs, TheUserGuidesScreenshotsExistAndAreSmallPngs) {
  // Every picture docs/user-guide.md shows (made by the browser test,
  // scripts/report_screenshot.sh).
  const fs::path docs = fs::path(APPELL_SOURCE_DIR) / "docs";
  const std::string guide = read_text(docs / "user-guide.md");
  const std::regex image(R"(!\[[^\]]*\]\((images/[^)]+)\))");
  std::set<std::string> pictures;
  for (std::sregex_iterator it(guide.begin(), guide.end(), image), end; it != end; ++it)
    pictures.insert((*it)[1]);
  EXPECT_TRUE(pictures.count("images/report.png"));
  EXPECT_TRUE(pictures.count("images/report-flexible.png"));
  for (const auto& picture : pictures) {
    const fs::path path = docs / picture;
    ASSERT_TRUE(fs::exists(path)) << path;
    EXPECT_LT(fs::file_size(path), 300u * 1024) << path;
    EXPECT_EQ(read_text(path).substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8)) << path;
  }
}

TEST(ReportVerify, AboveTheLimitTheTableIsNumericAndSaysWhy) {
  const auto model = io::read_model_file(std::string(APPELL_EXAMPLES_DIR) + "/three_link_arm.yaml");
  report::ReportOptions options;
  options.simulate = false;
  const report::Report full = report::make_report(model, options);
  ASSERT_TRUE(full.verification);
  EXPECT_TRUE(full.verification->options.symbolic);  // 310 nodes: under the default limit
  EXPECT_TRUE(full.verification_note.empty());
  for (const auto& row : full.verification->rows) EXPECT_GT(row.size_after, 0u);

  options.symbolic_verify_limit = 100;
  const report::Report numeric = report::make_report(model, options);
  ASSERT_TRUE(numeric.verification);
  const auto& v = *numeric.verification;
  EXPECT_FALSE(v.options.symbolic);
  EXPECT_TRUE(v.all_agree);
  ASSERT_EQ(v.rows.size(), full.verification->rows.size());
  for (std::size_t i = 0; i < v.rows.size(); ++i) {
    EXPECT_FALSE(v.rows[i].symbolic);
    EXPECT_EQ(v.rows[i].size_after, 0u);
    EXPECT_TRUE(v.rows[i].agrees);
    // The same random states, the same numbers as the full verification's.
    EXPECT_EQ(v.rows[i].max_error, full.verification->rows[i].max_error) << v.rows[i].method;
    EXPECT_EQ(v.rows[i].size_before, full.verification->rows[i].size_before);
  }
  const std::size_t size = numeric.derivation->equations->cost.size_before;
  EXPECT_NE(numeric.verification_note.find("the equations have " + std::to_string(size) +
                                           " distinct nodes as formed, more than the report's "
                                           "limit of 100"),
            std::string::npos)
      << numeric.verification_note;
  const std::string html = report::write_html(numeric);
  EXPECT_NE(html.find("Numerically only: the equations have"), std::string::npos);
  EXPECT_NE(html.find("<td>not compared</td>"), std::string::npos);
  EXPECT_NE(html.find("give the same numbers at every state"), std::string::npos);
}

TEST(ReportVerify, TheNumericComparisonCatchesADifferentModel) {
  // The compiled comparison the numeric verification uses: equal equations agree to rounding,
  // a changed mass is found, and it gives compare()'s numbers.
  const auto model =
      io::read_model_file(std::string(APPELL_EXAMPLES_DIR) + "/double_pendulum.yaml");
  const auto lagrange = principles::derive(model, principles::Method::Lagrange);
  const auto gibbs = principles::derive(model, principles::Method::GibbsAppell);
  const num::CompiledEquations a(lagrange), b(gibbs);
  const num::Agreement same = num::compare_numerically(a, b);
  EXPECT_LT(same.max_numeric_error, 1e-12);
  EXPECT_TRUE(same.first_difference.empty());
  EXPECT_FALSE(same.symbolic);
  EXPECT_EQ(same.states, 20u);
  EXPECT_EQ(same.max_numeric_error, num::compare(lagrange, gibbs, 20, false).max_numeric_error);
  model::Values heavier;
  heavier.set("m2", 0.75);
  const num::CompiledEquations c(gibbs, heavier);
  const num::Agreement differs = num::compare_numerically(a, c);
  EXPECT_GT(differs.max_numeric_error, 1e-3);
  EXPECT_FALSE(differs.first_difference.empty());
}

TEST(ReportVerify, CliRefusesAnUnknownVerifyMode) {
  const std::string pendulum = std::string(APPELL_EXAMPLES_DIR) + "/double_pendulum.yaml";
  const auto run = test_support::run_cli("report " + pendulum + " --verify maybe --out " +
                                         (fs::temp_directory_path() / "never.html").string());
  EXPECT_EQ(run.code, 2) << run.out;
  EXPECT_NE(run.out.find("--verify: expected auto, full, numeric or none (maybe)"),
            std::string::npos)
      << run.out;
  EXPECT_FALSE(fs::exists(fs::temp_directory_path() / "never.html"));
}

}  // namespace
