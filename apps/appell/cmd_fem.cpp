// appell fem: a flexible body of a model — its natural frequencies and mode shapes about the
// floating frame's rigid state, its elastic response under the rigid motion, and the symbolic
// element equations by Lagrange and Gibbs–Appell (seed 002).
#include <chrono>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>

#include "appell/fem/flexible_body.hpp"
#include "appell/fem/frame_motion.hpp"
#include "appell/fem/modal_analysis.hpp"
#include "appell/fem/response.hpp"
#include "appell/io/csv_writer.hpp"
#include "appell/io/model_reader.hpp"
#include "appell/io/vtk_writer.hpp"
#include "appell/numeric/interruption.hpp"
#include "appell/report/flexible_report.hpp"
#include "appell/sym/cancellation.hpp"
#include "cli_support.hpp"
#include "fem_derive_output.hpp"
#include "output_paths.hpp"

namespace appell::cli {

namespace {

struct FemCommandOptions {
  std::string model, body, nodes, csv, vtu, method, elements, element, report;
  std::vector<std::string> set;
  int modes = 6;
  double at_time = 0.0, t_end = 1.0, step = 1e-3;
  int vtu_every = 10;
  std::string max_elements = std::to_string(fem::default_max_elements);
  bool json = false, response = false, derive_element = false, no_stiffening = false;
};

std::size_t body_index(const model::Model& model, const std::string& name) {
  if (model.flexible.empty())
    throw model::ModelError(model::SourceLocation{model.source, 0, 0},
                            "this model has no flexible bodies (add a `flexible:` list)");
  if (name.empty()) return 0;
  for (std::size_t i = 0; i < model.flexible.size(); ++i)
    if (model.flexible[i].name == name) return i;
  throw usage_error("--body", "no flexible body of that name", name);
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::vector<double> components(const Eigen::Vector3d& v) { return {v.x(), v.y(), v.z()}; }

int run_modes(const FemCommandOptions& o, std::shared_ptr<const model::Model> model,
              const fem::FlexibleBodyInstance& body, double assembly_seconds,
              const model::Values& values) {
  const fem::FrameMotion motion(model, body.spec->frame, values, o.at_time,
                                std::max(o.at_time, 1e-9) / 2000.0, body.spec->where);
  const fem::FrameState frame = motion.at(o.at_time);
  fem::ModalOptions options;
  options.modes = o.modes;
  options.stiffening = body.spec->stiffening && !o.no_stiffening;
  const fem::ModalResult result = fem::modal_analysis(body, frame, options);

  if (!o.vtu.empty()) {
    make_output_folder("--vtu", o.vtu);
    std::vector<std::pair<double, std::string>> steps;
    for (Eigen::Index i = 0; i < result.shapes.cols(); ++i) {
      const std::string file = body.spec->name + "_mode_" + std::to_string(i + 1) + ".vtu";
      io::write_vtu((std::filesystem::path(o.vtu) / file).string(), body.mesh, result.shapes.col(i),
                    nullptr);
      steps.push_back({double(i + 1), file});
    }
    io::write_pvd((std::filesystem::path(o.vtu) / (body.spec->name + "_modes.pvd")).string(),
                  steps);
  }
  if (o.json) {
    nlohmann::ordered_json j;
    j["frequencies_hz"] = result.frequencies_hz;
    j["body"] = body.spec->name;
    j["elements"] = body.mesh.elements.size();
    j["element_type"] = fem::type_name(body.mesh.elements.front().type);
    j["nodes"] = body.mesh.nodes.size();
    j["dofs"] = body.assembled.dof_count();
    j["free_dofs"] = body.free_dofs.size();
    j["at_time"] = o.at_time;
    j["omega"] = components(frame.omega);
    j["stiffening"] = result.stiffened;
    if (!result.note.empty()) j["note"] = result.note;
    j["mass"] = body.assembled.total_mass;
    if (timing_requested())
      j["seconds"] = {{"assembly", assembly_seconds}, {"modes", result.seconds}};
    std::cout << j.dump() << "\n";
    return 0;
  }
  std::cout << model->name << ": flexible body " << body.spec->name << " on frame "
            << body.spec->frame << "\n"
            << "  mesh: " << body.mesh.elements.size() << " "
            << fem::type_name(body.mesh.elements.front().type) << " elements, "
            << body.mesh.nodes.size() << " nodes, " << body.assembled.dof_count() << " dofs ("
            << body.free_dofs.size() << " free), mass " << body.assembled.total_mass << "\n"
            << "  frame at t = " << o.at_time << ": omega = [" << frame.omega.transpose()
            << "], epsilon = [" << frame.epsilon.transpose() << "]\n"
            << "  geometric stiffening: " << (result.stiffened ? "on" : "off")
            << (result.note.empty() ? "" : " (" + result.note + ")") << "\n";
  if (timing_requested())
    std::cout << "  assembly " << format_seconds(assembly_seconds) << ", modes "
              << format_seconds(result.seconds) << "\n";
  std::cout << "\n  mode   frequency [Hz]\n";
  for (std::size_t i = 0; i < result.frequencies_hz.size(); ++i)
    std::cout << "  " << std::setw(4) << i + 1 << "   " << std::setprecision(8)
              << result.frequencies_hz[i] << (result.frequencies_hz[i] < 0 ? "  unstable" : "")
              << "\n";
  return 0;
}

// The page of `appell fem --response --report FILE` (report::write_flexible_html).
void write_flexible_report(const std::string& path, const report::FlexibleReport& contents) {
  write_output("--report", path, report::write_flexible_html(contents));
  std::cout << "report written to " << path << "\n";
}

int run_response(const FemCommandOptions& o, std::shared_ptr<const model::Model> model,
                 std::shared_ptr<const fem::FlexibleBodyInstance> shared_body,
                 const model::Values& values) {
  const fem::FlexibleBodyInstance& body = *shared_body;
  if (!(o.t_end > 0)) throw usage_error("--t-end", "must be positive");
  if (!(o.step > 0) || o.step > o.t_end) throw usage_error("--step", "must be in (0, t_end]");
  if (o.vtu_every < 1) throw usage_error("--vtu-every", "must be at least 1");
  std::vector<int> nodes;
  try {
    nodes = fem::response_nodes(
        body.mesh, o.nodes.empty() ? std::vector<double>{} : parse_list("--nodes", o.nodes));
  } catch (const model::ModelError& e) {
    throw at_option(e, {{"nodes", "--nodes"}});
  }
  fem::ResponseOptions options;
  options.t_end = o.t_end;
  options.step = o.step;
  options.stiffening = body.spec->stiffening && !o.no_stiffening;
  const bool reporting = !o.report.empty();
  // With --report, a rigid motion that cannot be computed still gives the page (incomplete).
  std::optional<fem::FrameMotion> motion;
  try {
    motion.emplace(model, body.spec->frame, values, o.t_end, o.step, body.spec->where);
  } catch (const model::ModelError&) {
    throw;
  } catch (const model::ComputationError& e) {
    if (reporting)
      write_flexible_report(
          o.report, report::describe_flexible_body(model, values, shared_body, nullptr, o.modes,
                                                   options.stiffening, e.what()));
    throw;
  }
  std::optional<report::FlexibleReport> page;
  std::optional<report::ResponseRecording> recording;
  if (reporting) {
    page = report::describe_flexible_body(model, values, shared_body, &*motion, o.modes,
                                          options.stiffening);
    recording.emplace(body, nodes, options);
  }

  std::optional<io::OutputFile> file;
  if (!o.csv.empty()) file.emplace(open_output("--csv", o.csv));
  std::ostream& out = file ? file->stream() : std::cout;
  // A row the output refuses (a full disk) stops the run there, naming the file.
  auto check_rows = [&] {
    if (file)
      file->check();
    else if (!out)
      io::check_written(out, "standard output");  // names the reason: a closed pipe is quiet
  };
  out << io::response_csv_header(body, nodes) << "\n";
  if (!o.vtu.empty()) make_output_folder("--vtu", o.vtu);
  std::vector<std::pair<double, std::string>> series;
  long index = 0;
  // A failure or a signal ("interrupted at t = T"): the rows reached stay, marked as a simulate
  // CSV is when its run stops early, and the page says INCOMPLETE.
  auto stopped = [&](const std::string& why) {
    // The page is still made after a signal: what it computes must not see the signal again.
    const sym::CancellationScope finish_the_page([] { return false; });
    io::write_incomplete_mark(out, why);
    out.flush();
    if (file) file->close();
    if (recording) {
      recording->fail(why);
      report::add_response(*page, std::move(*recording), &*motion);
      write_flexible_report(o.report, *page);
    }
  };
  fem::ResponseResult result;
  try {
    result = fem::elastic_response(body, *motion, options, [&](const fem::ResponseStep& s) {
      io::write_response_csv_row(out, body, nodes, s);
      check_rows();
      if (recording) recording->add(s);
      if (!o.vtu.empty() && index % o.vtu_every == 0) {
        const std::string name =
            body.spec->name + "_" + std::to_string(index / o.vtu_every) + ".vtu";
        io::write_vtu((std::filesystem::path(o.vtu) / name).string(), body.mesh, s.u, nullptr);
        series.push_back({s.t, name});
      }
      ++index;
    });
  } catch (const model::ComputationError& e) {
    stopped(e.what());
    throw;
  } catch (const num::Interrupted& e) {
    stopped(e.what());
    throw;
  }
  if (file) file->close();
  if (!o.vtu.empty())
    io::write_pvd((std::filesystem::path(o.vtu) / (body.spec->name + ".pvd")).string(), series);
  std::cerr << "appell fem: " << result.steps << " Newmark steps, " << result.factorizations
            << " factorizations, stiffening " << (result.stiffened ? "on" : "off");
  if (timing_requested())
    std::cerr << ", " << format_seconds(result.seconds / double(std::max(1L, result.steps)))
              << " per step";
  std::cerr << "\n";
  if (recording) {
    recording->finish(result);
    report::add_response(*page, std::move(*recording), &*motion);
    write_flexible_report(o.report, *page);
    // The frequencies may have failed while the response did not: the page says so, exit 1.
    if (!page->complete())
      throw model::ComputationError("the report is incomplete: " + page->incomplete.front());
  }
  return 0;
}

int run_fem(const FemCommandOptions& o) {
  auto model = io::read_model_file(o.model);
  check_output_paths(model_inputs("MODEL", *model),
                     {{"--csv", o.csv}, {"--report", o.report}, {"--vtu", o.vtu}});
  const std::size_t index = body_index(*model, o.body);
  if (o.derive_element) {
    // The body's own element kind, unless --element names another (bar: seed 002's Table 1).
    DeriveElementRequest request;
    request.kind = fem::element_kind_of(model->flexible[index]);
    if (!o.element.empty()) {
      const auto kind = fem::parse_element_kind(o.element);
      if (!kind) throw usage_error("--element", "expected bar, beam2d, beam3d or hex8", o.element);
      request.kind = *kind;
    }
    if (!o.method.empty()) request.method = route_option(o.method);
    if (!o.elements.empty()) request.elements = parse_element_counts(o.elements);
    request.json = o.json;
    return print_element_derivation(request, std::cout);
  }
  if (o.modes < 1) throw usage_error("--modes", "must be at least 1");
  const auto values = parse_assignments(o.set);
  const auto start = std::chrono::steady_clock::now();
  const double max_elements = parse_number("--max-elements", o.max_elements);
  if (!(max_elements >= 1 && max_elements <= 1e12 && max_elements == std::floor(max_elements)))
    throw usage_error("--max-elements", "expected a whole number from 1 to 1e12", o.max_elements);
  if (!o.report.empty() && !o.response)
    throw usage_error("--report", "is written for the elastic response: add --response", o.report);
  // Before the (slower) assembly: --vtu must be a folder.
  if (!o.vtu.empty()) make_output_folder("--vtu", o.vtu);
  const auto body = std::make_shared<const fem::FlexibleBodyInstance>(
      fem::build_flexible_body(*model, index, values, std::size_t(max_elements)));
  const double assembly_seconds = seconds_since(start);
  if (o.response) return run_response(o, model, body, values);
  return run_modes(o, model, *body, assembly_seconds, values);
}

}  // namespace

void add_fem_command(CLI::App& app, Commands& commands) {
  auto o = std::make_shared<FemCommandOptions>();
  auto* s = app.add_subcommand(
      "fem", "flexible bodies: natural frequencies, elastic response, element equations");
  s->add_option("MODEL", o->model, "model file (YAML) with a `flexible:` list")->required();
  s->add_option("--body", o->body, "which flexible body (default: the first)");
  add_timing_flag(*s);
  s->add_option("--modes", o->modes, "number of natural frequencies (default 6, at most 1000)")
      ->check(CLI::Range(1, 1000));
  s->add_option("--at-time", o->at_time,
                "rigid state of the floating frame at this time (default 0)");
  s->add_flag("--no-stiffening", o->no_stiffening,
              "leave out the geometric stiffening of the centrifugal pre-stress");
  s->add_flag("--json", o->json, "print {\"frequencies_hz\": [..], ...}");
  s->add_flag("--response", o->response, "elastic response under the rigid motion (CSV)");
  s->add_option("--t-end", o->t_end, "end time of the response (default 1)");
  s->add_option("--step", o->step, "time step of the response (default 1e-3)");
  s->add_option("--nodes", o->nodes,
                "nodes whose displacements the response reports: I,J,.. (default: the node "
                "farthest from the frame's origin)");
  s->add_option("--csv", o->csv, "write the response CSV to this file (default: stdout)");
  s->add_option("--report", o->report,
                "with --response: also an HTML report (the mesh animated, coloured by |u|, "
                "frequencies, plots): FILE.html");
  s->add_option("--vtu", o->vtu, "write VTK .vtu files and a .pvd series into this folder");
  s->add_option("--vtu-every", o->vtu_every, "write every K-th response step (default 10)")
      ->check(CLI::Range(1, std::numeric_limits<int>::max()));
  s->add_flag("--derive-element", o->derive_element,
              "derive the element equations symbolically by Lagrange and Gibbs-Appell");
  s->add_option("--method", o->method, "with --derive-element: lagrange or gibbs-appell");
  s->add_option("--elements", o->elements,
                "with --derive-element: chain lengths N,M,.. for the cost table");
  s->add_option("--element", o->element,
                "with --derive-element: bar, beam2d, beam3d or hex8 (default: the body's)");
  s->add_option("--max-elements", o->max_elements,
                "refuse a mesh of more elements than this (default 1000000)");
  s->add_option("--set", o->set, "override a parameter: NAME=VALUE (repeatable)");
  commands.push_back({s, [o] { return run_fem(*o); }});
}

}  // namespace appell::cli
