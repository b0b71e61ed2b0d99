// appell import: a URDF robot as an editable appell model file (io::import_urdf writes it).
#include <iostream>

#include "appell/io/urdf_import.hpp"
#include "cli_support.hpp"
#include "output_paths.hpp"

namespace appell::cli {

namespace {

struct ImportOptions {
  std::string urdf, out;
  UrdfFlags flags;
};

int run_import(const ImportOptions& o) {
  check_output_paths({{"URDF", o.urdf}}, {{"--out", o.out}});
  const io::UrdfImport imported = io::import_urdf(o.urdf, urdf_options(o.flags));
  for (const auto& warning : imported.warnings) std::cerr << "warning: " << warning << "\n";
  if (o.out.empty()) {
    std::cout << imported.yaml;
    return 0;
  }
  try {
    io::write_model_file(imported.yaml, o.out, o.urdf);
  } catch (const model::ModelError& e) {
    throw at_option(e, {{"output", "--out"}});
  }
  return 0;
}

}  // namespace

void add_import_command(CLI::App& app, Commands& commands) {
  auto o = std::make_shared<ImportOptions>();
  auto* c = app.add_subcommand("import", "write a URDF robot as an appell model file (YAML)");
  c->add_option("URDF", o->urdf, "the robot's URDF file")->required();
  c->add_option("--out", o->out, "the model file to write (default: standard output)");
  add_urdf_options(*c, o->flags);
  commands.push_back({c, [o] { return run_import(*o); }});
}

}  // namespace appell::cli
