#include "appell/report/flexible_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "appell/fem/mesh.hpp"
#include "appell/report/motion.hpp"
#include "page.hpp"

namespace appell::report {

using nlohmann::json;

FlexibleReport describe_flexible_body(std::shared_ptr<const model::Model> model,
                                      const model::Values& values,
                                      std::shared_ptr<const fem::FlexibleBodyInstance> body,
                                      const fem::FrameMotion* motion, int modes, bool stiffening,
                                      const std::string& motion_failure) {
  FlexibleReport report;
  report.model = std::move(model);
  report.values = values;
  report.body = std::move(body);
  if (!motion_failure.empty())
    report.incomplete.push_back("rigid motion of frame " + report.body->spec->frame + ": " +
                                motion_failure);
  if (motion && modes > 0) {
    fem::ModalOptions options;
    options.modes = std::min<int>(modes, int(report.body->free_dofs.size()));
    options.stiffening = stiffening;
    try {
      report.modes = fem::modal_analysis(*report.body, motion->at(0.0), options);
    } catch (const model::ComputationError& e) {
      report.incomplete.push_back(std::string("frequencies: ") + e.what());
    }
  }
  return report;
}

void add_response(FlexibleReport& report, ResponseRecording recorded,
                  const fem::FrameMotion* motion) {
  if (!recorded.complete()) report.incomplete.push_back("response: " + recorded.failure());
  const auto& frames = report.model->frames;
  const auto frame = std::find_if(frames.begin(), frames.end(), [&](const auto& f) {
    return f.name == report.body->spec->frame;
  });
  if (motion && frame != frames.end()) {
    const std::size_t index = std::size_t(frame - frames.begin());
    try {
      const MotionEvaluator poses(report.model, report.values);
      for (const auto& f : recorded.frames()) {
        const std::vector<double> all = poses.poses(f.t, motion->coordinates(f.t));
        std::array<double, 7> pose{};
        std::copy_n(all.begin() + std::ptrdiff_t(7 * index), 7, pose.begin());
        report.frame_poses.push_back(pose);
      }
      // A frame that does not move adds nothing to see.
      if (std::all_of(report.frame_poses.begin(), report.frame_poses.end(),
                      [&](const auto& pose) { return pose == report.frame_poses.front(); }))
        report.frame_poses.clear();
    } catch (const model::ComputationError& e) {
      report.frame_poses.clear();
      report.incomplete.push_back(std::string("the frame's motion in the world: ") + e.what());
    }
  }
  report.response = std::move(recorded);
}

FlexibleReport make_flexible_report(std::shared_ptr<const model::Model> model,
                                    const model::Values& values,
                                    const FlexibleReportOptions& options) {
  auto body = std::make_shared<const fem::FlexibleBodyInstance>(
      fem::build_flexible_body(*model, options.body, values, options.max_elements));
  const std::vector<int> nodes = fem::response_nodes(body->mesh, options.nodes);
  fem::ResponseOptions response = options.response;
  response.stiffening = response.stiffening && body->spec->stiffening;
  std::optional<fem::FrameMotion> motion;
  std::string failure;
  try {
    motion.emplace(model, body->spec->frame, values, response.t_end, response.step,
                   body->spec->where);
  } catch (const model::ComputationError& e) {
    failure = e.what();
  }
  FlexibleReport report = describe_flexible_body(model, values, body, motion ? &*motion : nullptr,
                                                 options.modes, response.stiffening, failure);
  if (!motion) return report;
  ResponseRecording recording(*body, nodes, response);
  try {
    recording.finish(fem::elastic_response(
        *body, *motion, response, [&](const fem::ResponseStep& step) { recording.add(step); }));
  } catch (const model::ComputationError& e) {
    recording.fail(e.what());
  }
  add_response(report, std::move(recording), &*motion);
  return report;
}

namespace {

using namespace detail;

// The largest of 1, 2, 5 × 10^k not above x (x > 0).
double nice_below(double x) {
  const double decade = std::pow(10.0, std::floor(std::log10(x)));
  for (double m : {5.0, 2.0, 1.0})
    if (m * decade <= x) return m * decade;
  return decade;
}

std::string speed_options(double t_end) {
  // The default plays the whole response in at least four seconds.
  const double speeds[] = {0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2, 4};
  double chosen = speeds[0];
  for (double s : speeds)
    if (s <= t_end / 4) chosen = s;
  std::string out;
  for (double s : speeds)
    out += "<option value=\"" + number_text(s) + "\"" + (s == chosen ? " selected" : "") + ">" +
           number_text(s) + "×</option>";
  return out;
}

std::string body_section(const FlexibleReport& report) {
  const auto& body = *report.body;
  const auto& mesh = body.mesh;
  const std::size_t fixed = body.assembled.dof_count() - body.free_dofs.size();
  Table table{{"", ""}, {}};
  table.rows.push_back({"floating frame", body.spec->frame});
  table.rows.push_back(
      {"mesh", std::to_string(mesh.elements.size()) + " " +
                   (mesh.elements.empty() ? "" : fem::type_name(mesh.elements.front().type)) +
                   " elements, " + std::to_string(mesh.nodes.size()) + " nodes, " +
                   std::to_string(body.assembled.dof_count()) + " dofs (" +
                   std::to_string(body.free_dofs.size()) + " free)"});
  table.rows.push_back({"material", "E = " + number_text(body.material.youngs_modulus) +
                                        " Pa, nu = " + number_text(body.material.poisson_ratio) +
                                        ", rho = " + number_text(body.material.density) +
                                        " kg/m^3"});
  if (body.section)
    table.rows.push_back({"beam section", "A = " + number_text(body.section->area) +
                                              " m^2, Iy = " + number_text(body.section->Iy) +
                                              ", Iz = " + number_text(body.section->Iz) +
                                              ", J = " + number_text(body.section->J) + " m^4"});
  table.rows.push_back({"mass", number_text(body.assembled.total_mass) + " kg"});
  table.rows.push_back({"supports", std::to_string(fixed) + " dofs fixed, " +
                                        std::to_string(body.prescribed_dofs.size()) +
                                        " of them prescribed functions of t"});
  if (body.rayleigh_alpha != 0 || body.rayleigh_beta != 0)
    table.rows.push_back({"damping", "C_R = " + number_text(body.rayleigh_alpha) + " m + " +
                                         number_text(body.rayleigh_beta) + " k"});
  std::string out = "<section id=\"flexible\"><h2>Flexible body " + escape(body.spec->name) +
                    "</h2>\n" + table_html("body", table);
  out +=
      "<p>The elastic displacements δ in the floating frame (Vlase et al., 2020), under its rigid "
      "motion (ω, ε, a_O), by Newmark's average-acceleration method:</p>\n";
  out += "<div class=\"tex\" data-tex=\"" +
         escape(
             "m\\,\\ddot{\\delta} + (C_R + c)\\,\\dot{\\delta} + \\left(k + k(\\varepsilon) + "
             "k(\\omega) + k_G\\right)\\delta = q + q^{*} - q_i(\\varepsilon) - q_i(\\omega) - "
             "m_{Oi}\\,a_O") +
         "\"></div>\n";
  if (report.modes) {
    out +=
        "<h3>Natural frequencies</h3>\n<p>About the frame's state at t = 0, geometric "
        "stiffening " +
        std::string(report.modes->stiffened ? "on" : "off") +
        (report.modes->note.empty() ? "" : " (" + escape(report.modes->note) + ")") + ".</p>\n";
    Table modes{{"mode", "frequency (Hz)"}, {}};
    for (std::size_t i = 0; i < report.modes->frequencies_hz.size(); ++i) {
      char text[32];
      std::snprintf(text, sizeof text, "%.8g", report.modes->frequencies_hz[i]);
      modes.rows.push_back(
          {std::to_string(i + 1),
           std::string(text) + (report.modes->frequencies_hz[i] < 0 ? " (unstable)" : "")});
    }
    out += table_html("frequencies", modes);
  }
  return out + "</section>\n";
}

}  // namespace

std::string write_flexible_html(const FlexibleReport& report) {
  const model::Model& model = *report.model;
  const model::BoundValues bound = model::bind(model, report.values);
  const fem::FlexibleBodyInstance& body = *report.body;
  const fem::Mesh& mesh = body.mesh;
  const bool planar =
      !mesh.elements.empty() && mesh.elements.front().type == fem::ElementType::Beam2D;
  std::vector<double> q0, qd0;
  for (const auto& c : model.coordinates) {
    q0.push_back(c.initial);
    qd0.push_back(c.velocity);
  }

  json data;
  data["model"] = model.name;
  const ResponseRecording* response = report.response ? &*report.response : nullptr;
  const std::vector<ResponseRow> rows = response ? response->rows() : std::vector<ResponseRow>{};
  const std::vector<ResponseFrame> frames =
      response ? response->frames() : std::vector<ResponseFrame>{};
  data["simulated"] = !rows.empty();
  if (!rows.empty()) {
    std::vector<double> t;
    for (const auto& r : rows) t.push_back(rounded(r.t));
    json groups = json::array();
    const char* axes[] = {"ux", "uy", "uz"};
    for (std::size_t k = 0; k < response->nodes().size(); ++k) {
      const int node = response->nodes()[k];
      json group = json::array();
      for (std::size_t c = 0; c < (planar ? 2u : 3u); ++c) {
        std::vector<double> v;
        for (const auto& r : rows) v.push_back(r.u.at(3 * k + c));
        group.push_back(series("n" + std::to_string(node) + "_" + axes[c], v));
      }
      groups.push_back({{"id", "node-" + std::to_string(node)},
                        {"title", "displacement of node " + std::to_string(node) + " (m)"},
                        {"series", group}});
    }
    std::vector<double> largest;
    for (const auto& r : rows) largest.push_back(r.max_displacement);
    groups.push_back({{"id", "largest"},
                      {"title", "largest displacement over the mesh max|u| (m)"},
                      {"series", json::array({series("max|u|", largest)})}});
    data["plots"] = {{"t", t}, {"groups", groups}};
  }

  std::string view_note;
  if (!frames.empty()) {
    const MeshSurface& surface = response->surface();
    std::vector<double> positions;
    Eigen::Vector3d low = Eigen::Vector3d::Constant(INFINITY), high = -low;
    for (int n : surface.nodes) {
      const Eigen::Vector3d& x = mesh.nodes[std::size_t(n)];
      low = low.cwiseMin(x);
      high = high.cwiseMax(x);
      for (int c = 0; c < 3; ++c) positions.push_back(rounded(x(c)));
    }
    const double extent = surface.nodes.empty() ? 1.0 : (high - low).norm();
    double scale = 0.0, largest = 0.0;
    for (const auto& f : frames) {
      for (std::size_t i = 0; i + 2 < f.u.size(); i += 3) {
        scale = std::max({scale, std::abs(f.u[i]), std::abs(f.u[i + 1]), std::abs(f.u[i + 2])});
        largest = std::max(largest, std::hypot(f.u[i], f.u[i + 1], f.u[i + 2]));
      }
    }
    // Each frame's translations in units of scale/10⁴: integers, a third of the bytes of
    // 7-digit decimals, and finer than a pixel at any amplification the reader chooses.
    const double unit = scale > 0 && std::isfinite(scale) ? scale / 1e4 : 1.0;
    json displacements = json::array(), times = json::array();
    for (const auto& f : frames) {
      std::vector<long> q;
      q.reserve(f.u.size());
      for (double x : f.u) q.push_back(std::isfinite(x) ? std::lround(x / unit) : 0);
      displacements.push_back(q);
      times.push_back(rounded(f.t));
    }
    std::vector<int> triangles, segments;
    for (const auto& t : surface.triangles) triangles.insert(triangles.end(), t.begin(), t.end());
    for (const auto& s : surface.segments) segments.insert(segments.end(), s.begin(), s.end());
    // Amplified, the largest displacement is a tenth of the mesh's size (never less than 1×).
    const double amplification = largest > 0 && std::isfinite(largest)
                                     ? std::max(1.0, nice_below(0.1 * extent / largest))
                                     : 1.0;
    json poses = json::array();
    for (const auto& pose : report.frame_poses) {
      std::vector<double> p(pose.begin(), pose.end());
      for (double& x : p) x = rounded(x);
      poses.push_back(p);
    }
    data["flexible"] = {{"body", body.spec->name},
                        {"frame", body.spec->frame},
                        {"poses", poses},
                        {"nodes", positions},
                        {"mesh_nodes", mesh.nodes.size()},
                        {"triangles", triangles},
                        {"segments", segments},
                        {"faces", surface.faces},
                        {"planar", planar},
                        {"extent", rounded(extent)},
                        {"unit", unit},
                        {"times", times},
                        {"displacements", displacements},
                        {"max_displacement", rounded(largest)},
                        {"amplification", amplification}};
    view_note =
        "<p>The mesh in its floating frame " + escape(body.spec->frame) + " (" +
        std::to_string(surface.nodes.size()) + " of " + std::to_string(mesh.nodes.size()) +
        " nodes drawn: " +
        (surface.segments.empty() ? std::to_string(surface.faces) + " surface faces"
                                  : std::to_string(surface.segments.size()) + " beam segments") +
        "), deformed by the displacements times the amplification, coloured by |u|; " +
        std::to_string(frames.size()) + " of the " + std::to_string(response->steps_delivered()) +
        " steps animated.</p>\n";
  }

  std::string html;
  html.reserve(4 << 20);
  html += page_head(model.name + " — " + body.spec->name + " — appell report");
  html += "<header><h1>" + escape(model.name) + ": flexible body " + escape(body.spec->name) +
          "</h1>\n";
  if (!model.description.empty())
    html += "<p class=\"description\">" + escape(model.description) + "</p>\n";
  html += page_status(report.incomplete);
  html +=
      "<nav><a href=\"#model\">model</a> · <a href=\"#flexible\">flexible body</a> · <a "
      "href=\"#response\">response</a></nav></header>\n<main>\n";
  html += model_section(model, report.values, bound, q0, qd0);
  html += body_section(report);
  html += "<section id=\"response\"><h2>Elastic response</h2>\n";
  if (response) {
    const auto& o = response->options();
    html += "<p>Newmark (average acceleration), step " + number_text(o.step) +
            " s, to t = " + number_text(o.t_end) +
            " s: " + std::to_string(response->steps_delivered()) + " states, " +
            std::to_string(rows.size()) + " of them plotted";
    if (const auto& r = response->result())
      html += "; " + std::to_string(r->factorizations) + " factorizations, geometric stiffening " +
              (r->stiffened ? "on" : "off");
    html += ".</p>\n";
    if (!response->complete())
      html += "<p class=\"disagree\">INCOMPLETE: " + escape(response->failure()) + "</p>\n";
  } else {
    html += "<p class=\"disagree\">Not computed.</p>\n";
  }
  html += view_note;
  html +=
      "<div id=\"viewer\"></div>\n<div id=\"colour-bar\"><span id=\"colour-low\">0</span>"
      "<span id=\"colour-ramp\"></span><span id=\"colour-high\"></span> <span>|u| (m)</span>"
      "</div>\n";
  html +=
      "<div id=\"controls\"><button id=\"play\" type=\"button\">play</button> <label>speed "
      "<select id=\"speed\">" +
      speed_options(response ? response->options().t_end : 1.0) +
      "</select></label> <input id=\"time-slider\" type=\"range\" min=\"0\" max=\"0\" "
      "step=\"1\" value=\"0\"> <span id=\"time-label\">t = 0 s</span></div>\n"
      "<div id=\"amplification-controls\"><label>amplification <input id=\"amplification\" "
      "type=\"number\" min=\"0\" step=\"any\" value=\"1\"></label> <input "
      "id=\"amplification-slider\" type=\"range\" min=\"-3\" max=\"2\" step=\"0.01\" "
      "value=\"0\"> <span class=\"hint\">the displacements are drawn this many times their "
      "size</span>" +
      std::string(report.frame_poses.empty() || frames.empty()
                      ? ""
                      : " <label><input id=\"in-world\" type=\"checkbox\"> with the frame's "
                        "rigid motion (in the world)</label>") +
      "</div>\n";
  html += "<div id=\"plots\"></div>\n</section>\n</main>\n";
  html += page_tail(data);
  return html;
}

}  // namespace appell::report
