#include "appell/report/html_writer.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string_view>

#include "appell/io/derivation_writer.hpp"
#include "appell/io/equation_writer.hpp"
#include "appell/io/markup_escape.hpp"
#include "appell/report/motion.hpp"
#include "appell/report/scene.hpp"
#include "assets.hpp"
#include "page.hpp"

namespace appell::report {

namespace detail {

std::string_view asset(std::string_view name) {
  for (const auto& a : embedded_assets())
    if (name == a.name) return {a.begin, static_cast<std::size_t>(a.end - a.begin)};
  throw std::logic_error("report asset missing from the build: " + std::string(name));
}

using nlohmann::json;

std::string escape(std::string_view text) { return io::markup_escape(text); }

// Text placed inside <script>: nothing in it may close the element ("</script", any case) or
// open an HTML comment. In script text these occur only in strings, regular expressions and
// comments, where "<\/" and "<\!" mean the same.
std::string script_safe(std::string_view text, bool every_closing_tag) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '<') {
      out += text[i];
      continue;
    }
    const bool closes = i + 1 < text.size() && text[i + 1] == '/';
    std::string next(text.substr(i, 8));
    std::transform(next.begin(), next.end(), next.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (closes && (every_closing_tag || next == "</script")) {
      out += "<\\/";
      ++i;
    } else if (next.starts_with("<!--")) {
      out += every_closing_tag ? "<\\u0021--" : "<\\!--";
      i += 3;
    } else {
      out += text[i];
    }
  }
  return out;
}

namespace {

std::string base64(std::string_view bytes) {
  static constexpr char digits[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const auto n = (static_cast<unsigned>(static_cast<unsigned char>(bytes[i])) << 16) |
                   (static_cast<unsigned>(static_cast<unsigned char>(bytes[i + 1])) << 8) |
                   static_cast<unsigned char>(bytes[i + 2]);
    out += digits[(n >> 18) & 63];
    out += digits[(n >> 12) & 63];
    out += digits[(n >> 6) & 63];
    out += digits[n & 63];
  }
  if (i < bytes.size()) {
    unsigned n = static_cast<unsigned>(static_cast<unsigned char>(bytes[i])) << 16;
    if (i + 1 < bytes.size())
      n |= static_cast<unsigned>(static_cast<unsigned char>(bytes[i + 1])) << 8;
    out += digits[(n >> 18) & 63];
    out += digits[(n >> 12) & 63];
    out += i + 1 < bytes.size() ? digits[(n >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

}  // namespace

// KaTeX's style sheet with its fonts inlined: each @font-face keeps only its woff2 source, as a
// data: URL (every browser that runs the page reads woff2).
std::string katex_css() {
  const std::string_view css = detail::asset("katex.css");
  std::string out;
  std::size_t at = 0;
  while (true) {
    const std::size_t url = css.find("url(fonts/", at);
    if (url == std::string_view::npos) break;
    const std::size_t close = css.find(')', url);
    const std::string file(css.substr(url + 4, close - url - 4));  // fonts/NAME.ext
    // The end of this src: list (the next ';' or '}').
    const std::size_t end = css.find_first_of(";}", close);
    out += css.substr(at, url - at);
    if (file.size() > 6 && file.ends_with(".woff2")) {
      out += "url(data:font/woff2;base64," + base64(detail::asset(file)) + ") format(\"woff2\")";
      at = end;  // the woff and ttf fallbacks after it are dropped
    } else {
      out += css.substr(url, close + 1 - url);
      at = close + 1;
    }
  }
  out += css.substr(at);
  return out;
}

// A number kept to 7 significant digits: enough for a plot, a third of the bytes of 17.
double rounded(double x) {
  if (!std::isfinite(x)) return x;
  char text[32];
  std::snprintf(text, sizeof text, "%.7g", x);
  return std::strtod(text, nullptr);
}

std::string number_text(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", x);
  return text;
}

std::string vector_text(const model::Vector3& v, const sym::ReadableContext& context) {
  return "[" + io::expression_text(v[0], context) + ", " + io::expression_text(v[1], context) +
         ", " + io::expression_text(v[2], context) + "]";
}

std::string rotation_text(const std::vector<model::RotationFactor>& factors,
                          const sym::ReadableContext& context) {
  if (factors.empty()) return "identity";
  std::string out;
  for (const auto& f : factors) {
    if (!out.empty()) out += "*";
    if (f.kind == model::RotationFactor::Kind::Matrix) {
      out += "[";
      for (unsigned r = 0; r < 3; ++r) {
        out += r ? ", [" : "[";
        for (unsigned c = 0; c < 3; ++c)
          out += (c ? ", " : "") + io::expression_text(f.matrix(r, c), context);
        out += "]";
      }
      out += "]";
      continue;
    }
    const char* names[] = {"rot_x", "rot_y", "rot_z"};
    bool named = false;
    for (int k = 0; k < 3 && !named; ++k) {
      bool unit = true;
      for (int i = 0; i < 3; ++i)
        unit = unit && f.axis[static_cast<std::size_t>(i)].is_equal(i == k ? 1 : 0);
      if (unit) {
        out += std::string(names[k]) + "(" + io::expression_text(f.angle, context) + ")";
        named = true;
      }
    }
    if (!named)
      out += "rot(" + io::expression_text(f.axis[0], context) + ", " +
             io::expression_text(f.axis[1], context) + ", " +
             io::expression_text(f.axis[2], context) + ", " +
             io::expression_text(f.angle, context) + ")";
  }
  return out;
}

std::string point_text(const model::PointRef& p, const sym::ReadableContext& context) {
  return p.frame + " " + vector_text(p.point, context);
}

std::string load_text(const model::Model& model, const model::Load& load,
                      const sym::ReadableContext& context) {
  return std::visit(
      [&](const auto& l) -> std::string {
        using T = std::decay_t<decltype(l)>;
        if constexpr (std::is_same_v<T, model::ForceLoad>)
          return "force " + vector_text(l.force, context) + " (" + l.in + " components) at " +
                 point_text(l.at, context);
        else if constexpr (std::is_same_v<T, model::TorqueLoad>)
          return "torque " + vector_text(l.torque, context) + " (" + l.in + " components) on " +
                 l.on;
        else if constexpr (std::is_same_v<T, model::SpringLoad>)
          return "spring from " + point_text(l.from, context) + " to " + point_text(l.to, context) +
                 ", stiffness " + io::expression_text(l.stiffness, context) + ", rest length " +
                 io::expression_text(l.rest_length, context);
        else if constexpr (std::is_same_v<T, model::DamperLoad>)
          return "damper from " + point_text(l.from, context) + " to " + point_text(l.to, context) +
                 ", coefficient " + io::expression_text(l.coefficient, context);
        else if constexpr (std::is_same_v<T, model::GeneralizedLoad>)
          return "generalized force on " + model.coordinates.at(l.coordinate).name + ": " +
                 io::expression_text(l.value, context);
        else
          return "potential " + io::expression_text(l.potential, context);
      },
      load.kind);
}

std::string table_html(const std::string& id, const Table& table) {
  std::string out = "<table id=\"" + id + "\"><thead><tr>";
  for (const auto& h : table.head) out += "<th>" + escape(h) + "</th>";
  out += "</tr></thead><tbody>";
  for (const auto& row : table.rows) {
    out += "<tr>";
    for (const auto& cell : row) out += "<td>" + escape(cell) + "</td>";
    out += "</tr>";
  }
  return out + "</tbody></table>\n";
}

std::string model_section(const model::Model& model, const model::Values& values,
                          const model::BoundValues& bound, const std::vector<double>& q0,
                          const std::vector<double>& qd0) {
  const auto context = io::readable_context(model);
  std::string out = "<section id=\"model\"><h2>Model</h2>\n";
  Table coordinates{{"coordinate", "q(0)", "dq/dt(0)", "limits"}, {}};
  for (std::size_t j = 0; j < model.dof(); ++j) {
    const auto& c = model.coordinates[j];
    std::string limits;
    if (c.limits) {
      if (c.limits->lower || c.limits->upper)
        limits = "[" + (c.limits->lower ? number_text(*c.limits->lower) : "") + ", " +
                 (c.limits->upper ? number_text(*c.limits->upper) : "") + "]";
      if (c.limits->velocity) limits += " |speed| ≤ " + number_text(*c.limits->velocity);
      if (c.limits->effort) limits += " |effort| ≤ " + number_text(*c.limits->effort);
    }
    coordinates.rows.push_back({c.name, number_text(q0.at(j)), number_text(qd0.at(j)), limits});
  }
  out += "<h3>Coordinates</h3>\n" + table_html("coordinates", coordinates);
  if (!model.parameters.empty()) {
    Table parameters{{"parameter", "value", "default"}, {}};
    for (const auto& p : model.parameters)
      parameters.rows.push_back({p.name, number_text(bound.parameters.at(p.name)),
                                 io::expression_text(p.default_value, context)});
    out += "<h3>Parameters</h3>\n" + table_html("parameters", parameters);
  }
  if (!model.prescribed.empty() || !model.inputs.empty()) {
    Table functions{{"function of time", "given by"}, {}};
    for (const auto& p : model.prescribed)
      functions.rows.push_back(
          {p.name, p.expression ? io::expression_text(*p.expression, context) : "unspecified"});
    for (const auto& i : model.inputs) {
      std::string given = "input, 0 unless given";
      if (values.numbers().count(i.name))
        given = "input = " + number_text(values.numbers().at(i.name));
      else if (values.driven().count(i.name))
        given = "input = " + io::expression_text(values.driven().at(i.name), context);
      functions.rows.push_back({i.name, given});
    }
    out += "<h3>Functions of time</h3>\n" + table_html("functions", functions);
  }
  if (!model.frames.empty()) {
    Table frames{{"frame", "parent", "translation", "rotation"}, {}};
    for (const auto& f : model.frames)
      frames.rows.push_back({f.name, f.parent, vector_text(f.translation, context),
                             rotation_text(f.rotation, context)});
    out += "<h3>Frames</h3>\n" + table_html("frames", frames);
  }
  if (model.relative_to)
    out += "<p>Equations of relative motion in the carrier frame <b>" + escape(*model.relative_to) +
           "</b>.</p>\n";
  if (!model.bodies.empty()) {
    Table bodies{{"body", "frame", "mass", "centre of mass", "inertia about it"}, {}};
    for (const auto& b : model.bodies) {
      std::string inertia = "[";
      for (unsigned r = 0; r < 3; ++r) {
        inertia += r ? ", [" : "[";
        for (unsigned c = 0; c < 3; ++c)
          inertia += (c ? ", " : "") + io::expression_text(b.inertia(r, c), context);
        inertia += "]";
      }
      inertia += "]";
      bodies.rows.push_back({b.name, b.frame, io::expression_text(b.mass, context),
                             vector_text(b.com, context), inertia});
    }
    out += "<h3>Bodies</h3>\n" + table_html("bodies", bodies);
  }
  if (!model.particles.empty()) {
    Table particles{{"particle", "frame", "mass", "position"}, {}};
    for (const auto& p : model.particles)
      particles.rows.push_back({p.name, p.frame, io::expression_text(p.mass, context),
                                vector_text(p.position, context)});
    out += "<h3>Particles</h3>\n" + table_html("particles", particles);
  }
  if (model.gravity || !model.loads.empty()) {
    Table loads{{"load", "what"}, {}};
    if (model.gravity) loads.rows.push_back({"gravity", vector_text(*model.gravity, context)});
    for (std::size_t i = 0; i < model.loads.size(); ++i)
      loads.rows.push_back(
          {"load " + std::to_string(i + 1), load_text(model, model.loads[i], context)});
    out += "<h3>Loads</h3>\n" + table_html("loads", loads);
  }
  if (!model.constraints.empty()) {
    Table constraints{{"constraint", "kind", "expression = 0", "multiplier"}, {}};
    for (const auto& c : model.constraints)
      constraints.rows.push_back(
          {c.name, c.kind == model::Constraint::Kind::Holonomic ? "holonomic" : "nonholonomic",
           io::expression_text(c.expression, context), "lambda_" + c.name});
    out += "<h3>Constraints</h3>\n" + table_html("constraints", constraints);
  }
  return out + "</section>\n";
}

std::string page_head(const std::string& title) {
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
         "<meta name=\"generator\" content=\"appell report\">\n<title>" +
         escape(title) + "</title>\n<style>\n" + katex_css() + "\n</style>\n<style>\n" +
         std::string(asset("uplot.css")) + "\n</style>\n<style>\n" +
         std::string(asset("report.css")) + "\n</style>\n</head>\n<body>\n";
}

std::string page_status(const std::vector<std::string>& problems) {
  if (problems.empty()) return "<p id=\"status\" class=\"complete\">Complete.</p>\n";
  std::string out = "<div id=\"status\" class=\"incomplete\"><b>INCOMPLETE</b><ul>";
  for (const auto& p : problems) out += "<li>" + escape(p) + "</li>";
  return out + "</ul></div>\n";
}

std::string page_tail(const nlohmann::json& data) {
  std::string html =
      "<footer>Made by appell. Equations typeset by KaTeX, plots by uPlot, animation by three.js "
      "(each MIT-licensed, embedded in this page).</footer>\n";
  html += "<script type=\"application/json\" id=\"appell-data\">" + script_safe(data.dump(), true) +
          "</script>\n";
  html += "<script type=\"text/plain\" id=\"asset-three-core\">" +
          script_safe(asset("three.core.js")) + "</script>\n";
  html += "<script type=\"text/plain\" id=\"asset-three-module\">" +
          script_safe(asset("three.module.js")) + "</script>\n";
  html += "<script type=\"text/plain\" id=\"asset-orbit-controls\">" +
          script_safe(asset("OrbitControls.js")) + "</script>\n";
  html += "<script>" + script_safe(asset("katex.js")) + "</script>\n";
  html += "<script>" + script_safe(asset("uplot.js")) + "</script>\n";
  html += "<script>" + script_safe(asset("report.js")) + "</script>\n";
  html += "</body>\n</html>\n";
  return html;
}

json series(const std::string& label, std::vector<double> values) {
  for (double& v : values) v = rounded(v);
  return json{{"label", label}, {"values", values}};
}

}  // namespace detail

namespace {

using namespace detail;

// io's LaTeX of the derivation, split into the blocks KaTeX renders (align, equation) and the
// writer's comment lines, which become captions (those with TeX in them are replaced by the
// section's own heading).
std::string equations_section(const Report& report) {
  std::string out = "<section id=\"equations\"><h2>Equations of motion</h2>\n";
  if (!report.derivation) return out + "<p class=\"missing\">Not formed.</p></section>\n";
  out += "<p>By " + escape(principles::method_name(report.method)) +
         ", made readable: M(q, t) q̈ = f(q, q̇, t)";
  if (report.model->constraints.empty())
    out += ".</p>\n";
  else
    out += " + Aᵀλ, with the constraints at acceleration level A q̈ = b.</p>\n";
  const std::string latex = io::write_latex(*report.derivation);
  std::istringstream lines(latex);
  std::string line, block, environment;
  while (std::getline(lines, line)) {
    if (environment.empty()) {
      if (line.starts_with("%")) {
        const std::string caption = line.substr(line.find_first_not_of("% ") == std::string::npos
                                                    ? line.size()
                                                    : line.find_first_not_of("% "));
        if (caption.find('\\') == std::string::npos && !caption.empty())
          out += "<p class=\"caption\">" + escape(caption) + "</p>\n";
      } else if (line.starts_with("\\begin{")) {
        environment = line.substr(7, line.find('}') - 7);
        block = line + "\n";
      }
      continue;
    }
    block += line + "\n";
    if (line.starts_with("\\end{" + environment + "}")) {
      out += "<div class=\"tex\" data-tex=\"" + escape(block) + "\"></div>\n";
      environment.clear();
    }
  }
  return out + "</section>\n";
}

std::string verification_section(const Report& report) {
  if (!report.verification) return "";
  const auto& v = *report.verification;
  std::string out =
      "<section id=\"verification\"><h2>Verification</h2>\n<p>Every principle against " +
      escape(principles::method_name(v.reference)) +
      ": the simplified symbolic difference, and the largest relative difference at " +
      std::to_string(v.options.states) + " random states.</p>\n";
  if (!v.options.symbolic)
    out += "<p class=\"caption\">Numerically only" +
           (report.verification_note.empty() ? std::string()
                                             : ": " + escape(report.verification_note)) +
           ". <code>appell verify</code> or <code>appell report --verify full</code> adds the "
           "symbolic comparison.</p>\n";
  Table table{{"method", "verdict", "symbolic", "max error", "bound", "differentiations",
               "derivative nodes", "size before", "size after"},
              {}};
  bool all_equal = true;
  for (const auto& row : v.rows) {
    char error[32], bound[32];
    std::snprintf(error, sizeof error, "%.1e", row.max_error);
    std::snprintf(bound, sizeof bound, "%.1e", row.bound);
    const bool symbolic = v.options.symbolic;
    all_equal = all_equal && row.verdict == num::AgreementVerdict::Equal;
    table.rows.push_back({row.method, num::verdict_name(row.verdict),
                          symbolic ? (row.symbolic ? "equal" : "inconclusive") : "not compared",
                          error, bound, std::to_string(row.differentiations),
                          std::to_string(row.derivative_nodes), std::to_string(row.size_before),
                          symbolic ? std::to_string(row.size_after) : "-"});
  }
  out += table_html("verify-table", table);
  if (v.all_agree && (all_equal || !v.options.symbolic))
    out += "<p class=\"agree\">All " + std::to_string(v.methods) + " methods give the same " +
           (v.options.symbolic ? "equations" : "numbers at every state") +
           (v.has_minimal ? ", and the minimal form the same motion" : "") + ".</p>\n";
  else if (v.all_agree)
    out +=
        "<p class=\"agree\">No method differs: where the simplified difference did not reach "
        "0 within its budget, the numbers agree at every state.</p>\n";
  else
    out += "<p class=\"disagree\">DISAGREEMENT: " + escape(v.first_disagreement) + "</p>\n";
  return out + "</section>\n";
}

std::string simulation_summary(const SimulationRecording& s, const model::Model& model) {
  const auto& o = s.options();
  std::string out = "<p>" + escape(num::integrator_name(o.integrator)) + " (CVODE), rtol " +
                    number_text(o.rtol) + ", atol " + number_text(o.atol) + ", output step " +
                    number_text(o.output_step) + " s, to t = " + number_text(o.t_end) +
                    " s: " + std::to_string(s.rows_delivered()) + " rows, " +
                    std::to_string(s.rows().size()) + " of them shown.</p>\n";
  if (!s.complete()) out += "<p class=\"disagree\">INCOMPLETE: " + escape(s.failure()) + "</p>\n";
  if (const auto& r = s.result()) {
    out += "<ul><li>steps " + std::to_string(r->steps) + ", right-hand side evaluations " +
           std::to_string(r->rhs_evaluations) +
           "</li><li>energy E0 = " + number_text(r->initial_energy) + ", " +
           (r->conservative ? "drift" : "change") +
           " max|E − E0| = " + number_text(r->energy_drift);
    if (!r->conservative) out += " (not conserved: " + escape(r->not_conservative_because) + ")";
    out += "</li>";
    if (r->constraints > 0)
      out += "<li>constraints: " + std::to_string(r->constraints) +
             " (projected after every step), max violation |φ| = " +
             number_text(r->max_violation.position) + ", velocity level " +
             number_text(r->max_violation.velocity) + "</li>";
    out += "</ul>\n";
  }
  (void)model;
  return out;
}

}  // namespace

std::string write_html(const Report& report) {
  const model::Model& model = *report.model;
  const model::BoundValues bound = model::bind(model, report.values);
  std::vector<std::string> problems = report.incomplete;

  std::vector<double> q0, qd0;
  const num::SimulationOptions* simulation_options =
      report.simulation ? &report.simulation->options() : nullptr;
  for (std::size_t j = 0; j < model.dof(); ++j) {
    q0.push_back(simulation_options && !simulation_options->q0.empty()
                     ? simulation_options->q0.at(j)
                     : model.coordinates[j].initial);
    qd0.push_back(simulation_options && !simulation_options->qd0.empty()
                      ? simulation_options->qd0.at(j)
                      : model.coordinates[j].velocity);
  }
  std::vector<RecordedRow> rows;
  if (report.simulation) rows = report.simulation->rows();
  if (rows.empty()) {  // the model at rest in its initial state
    RecordedRow initial;
    initial.q = q0;
    initial.qd = qd0;
    rows.push_back(initial);
  }

  json data;
  data["model"] = model.name;
  data["simulated"] = report.simulation.has_value();
  // The plots: one group per quantity, sharing the time axis.
  if (report.simulation && !report.simulation->rows().empty()) {
    std::vector<double> t;
    for (const auto& r : rows) t.push_back(rounded(r.t));
    json groups = json::array();
    json q = json::array(), qd = json::array(), energy = json::array();
    for (std::size_t j = 0; j < model.dof(); ++j) {
      std::vector<double> a, b;
      for (const auto& r : rows) {
        a.push_back(r.q.at(j));
        b.push_back(r.qd.at(j));
      }
      q.push_back(series(model.coordinates[j].name, a));
      qd.push_back(series("dot(" + model.coordinates[j].name + ")", b));
    }
    std::vector<double> T, V, E;
    for (const auto& r : rows) {
      T.push_back(r.kinetic);
      V.push_back(r.potential);
      E.push_back(r.total);
    }
    energy.push_back(series("T", T));
    energy.push_back(series("V", V));
    energy.push_back(series("E", E));
    groups.push_back({{"id", "q"}, {"title", "coordinates q"}, {"series", q}});
    groups.push_back({{"id", "qd"}, {"title", "velocities dq/dt"}, {"series", qd}});
    if (model.has_speeds() && rows.front().u.size() == model.speeds.size()) {
      json u = json::array();
      for (std::size_t k = 0; k < model.speeds.size(); ++k) {
        std::vector<double> a;
        for (const auto& r : rows) a.push_back(r.u.at(k));
        u.push_back(series(model.speeds[k].name, a));
      }
      groups.push_back({{"id", "u"}, {"title", "generalized speeds u"}, {"series", u}});
    }
    groups.push_back(
        {{"id", "energy"}, {"title", "energy T, V, E = T + V (J)"}, {"series", energy}});
    if (!model.constraints.empty()) {
      json violation = json::array(), multipliers = json::array();
      try {
        const MotionEvaluator motion(report.model, report.values);
        std::vector<std::vector<double>> residuals;
        for (const auto& r : rows) residuals.push_back(motion.constraint_residuals(r.t, r.q, r.qd));
        for (std::size_t c = 0; c < model.constraints.size(); ++c) {
          std::vector<double> v, l;
          for (std::size_t i = 0; i < rows.size(); ++i) {
            v.push_back(std::abs(residuals[i].at(c)));
            l.push_back(rows[i].lambda.size() > c ? rows[i].lambda[c] : std::nan(""));
          }
          violation.push_back(series("|" + model.constraints[c].name + "|", v));
          multipliers.push_back(series("lambda_" + model.constraints[c].name, l));
        }
        groups.push_back({{"id", "violation"},
                          {"title", "constraint violation |phi| (holonomic: position level)"},
                          {"series", violation}});
      } catch (const model::ComputationError& e) {
        problems.push_back(std::string("constraint violation: ") + e.what());
        for (std::size_t c = 0; c < model.constraints.size(); ++c) {
          std::vector<double> l;
          for (const auto& r : rows) l.push_back(r.lambda.size() > c ? r.lambda[c] : std::nan(""));
          multipliers.push_back(series("lambda_" + model.constraints[c].name, l));
        }
      }
      groups.push_back(
          {{"id", "lambda"}, {"title", "multipliers lambda"}, {"series", multipliers}});
    }
    data["plots"] = {{"t", t}, {"groups", groups}};
  }

  // The animation: the scene and every frame's pose at each kept row.
  std::string scene_notes;
  try {
    const Scene scene = make_scene(model, report.values);
    const MotionEvaluator motion(report.model, report.values);
    json frames = json::array(), solids = json::array(), lines = json::array(),
         poses = json::array(), times = json::array();
    for (std::size_t i = 0; i < scene.frames.size(); ++i)
      frames.push_back({{"name", scene.frames[i]}, {"parent", scene.parents[i]}});
    const char* kinds[] = {"rod", "disk", "cylinder", "box", "sphere"};
    for (const auto& s : scene.solids)
      solids.push_back({{"name", s.name},
                        {"source", s.source},
                        {"frame", s.frame},
                        {"centre", s.centre},
                        {"rotation", s.rotation},
                        {"kind", kinds[static_cast<int>(s.kind)]},
                        {"size", s.size},
                        {"stem", s.stem}});
    for (const auto& l : scene.lines)
      lines.push_back({{"kind", l.kind},
                       {"from_frame", l.from_frame},
                       {"to_frame", l.to_frame},
                       {"from", l.from},
                       {"to", l.to}});
    for (const auto& r : rows) {
      auto pose = motion.poses(r.t, r.q);
      for (double& x : pose) x = rounded(x);
      poses.push_back(pose);
      times.push_back(rounded(r.t));
    }
    data["animation"] = {{"frames", frames}, {"solids", solids}, {"lines", lines},
                         {"times", times},   {"poses", poses},   {"gravity", scene.gravity}};
    for (const auto& note : scene.notes) scene_notes += "<li>" + escape(note) + "</li>";
  } catch (const model::ComputationError& e) {
    problems.push_back(std::string("animation: ") + e.what());
  }

  std::string html;
  html.reserve(4 << 20);
  html += page_head(model.name + " — appell report");
  html += "<header><h1>" + escape(model.name) + "</h1>\n";
  if (!model.description.empty())
    html += "<p class=\"description\">" + escape(model.description) + "</p>\n";
  html += page_status(problems);
  html += "<nav><a href=\"#model\">model</a> · <a href=\"#equations\">equations</a>";
  if (report.verification) html += " · <a href=\"#verification\">verification</a>";
  html += " · <a href=\"#motion\">motion</a></nav></header>\n<main>\n";
  html += model_section(model, report.values, bound, q0, qd0);
  if (!model.flexible.empty()) {
    // Their response needs its own options (step, end time): a page of its own.
    std::string names;
    for (const auto& f : model.flexible) names += (names.empty() ? "" : ", ") + f.name;
    html +=
        "<p class=\"notes\">Flexible bodies (" + escape(names) + ") are drawn by their own page: ";
    html += "<code>appell fem MODEL --response --t-end T --report FILE.html</code>.</p>\n";
  }
  html += equations_section(report);
  html += verification_section(report);
  html += "<section id=\"motion\"><h2>Motion</h2>\n";
  if (report.simulation)
    html += simulation_summary(*report.simulation, model);
  else
    html += "<p>Not simulated: the model in its initial state.</p>\n";
  html +=
      "<div id=\"viewer\"></div>\n<div id=\"controls\"><button id=\"play\" "
      "type=\"button\">play</button> <label>speed <select id=\"speed\"><option "
      "value=\"0.1\">0.1×</option><option value=\"0.25\">0.25×</option><option "
      "value=\"0.5\">0.5×</option><option value=\"1\" selected>1×</option><option "
      "value=\"2\">2×</option><option value=\"4\">4×</option></select></label> <input "
      "id=\"time-slider\" type=\"range\" min=\"0\" max=\"0\" step=\"1\" value=\"0\"> <span "
      "id=\"time-label\">t = 0 s</span></div>\n";
  if (!scene_notes.empty()) html += "<ul class=\"notes\">" + scene_notes + "</ul>\n";
  html += "<div id=\"plots\"></div>\n</section>\n</main>\n";
  html += page_tail(data);
  return html;
}

}  // namespace appell::report
