// appell codegen: the equations as one self-contained C++17 header (codegen::generate_cpp_header).
#include <fstream>
#include <iostream>
#include <iterator>

#if defined(__linux__)
#include <sys/personality.h>
#include <unistd.h>
#endif

#include "appell/codegen/cpp_generator.hpp"
#include "appell/principles/derive.hpp"
#include "cli_support.hpp"

namespace appell::cli {

namespace {

struct CodegenCommandOptions {
  UrdfFlags urdf;  // how a URDF model is read
  std::string model, out, namespace_name, method = "gibbs-appell";
  std::vector<std::string> set;
};

// GiNaC seeds its hash values with addresses (of type_info names) and orders the terms of sums
// and products by them. Under address-space layout randomisation every run therefore forms the
// equations with differently ordered (and differently grouped) terms, and would write a
// different header. Re-running this process without randomisation makes the header a function
// of the model and the appell build: regenerating it gives no diff. Where that is impossible
// (not Linux, personality() refused) the header is still correct, only not reproducible.
void become_reproducible() {
#if defined(__linux__)
  const int current = personality(0xffffffff);
  if (current == -1 || (current & ADDR_NO_RANDOMIZE) != 0) return;
  std::ifstream cmdline("/proc/self/cmdline", std::ios::binary);
  const std::string text{std::istreambuf_iterator<char>(cmdline), {}};
  std::vector<std::string> arguments;
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t end = text.find('\0', start);
    arguments.push_back(text.substr(start, end - start));
    start = end == std::string::npos ? text.size() : end + 1;
  }
  if (arguments.empty() ||
      personality(static_cast<unsigned long>(current) | ADDR_NO_RANDOMIZE) == -1)
    return;
  std::vector<char*> argv;
  for (auto& a : arguments) argv.push_back(a.data());
  argv.push_back(nullptr);
  execv("/proc/self/exe", argv.data());
  personality(static_cast<unsigned long>(current));  // exec failed: go on as we were
#endif
}

int run_codegen(const CodegenCommandOptions& o) {
  // Usage first: a bad namespace or method must not cost a derivation.
  if (!o.namespace_name.empty() && !codegen::is_valid_namespace(o.namespace_name))
    throw usage_error("--namespace",
                      "not a valid C++ namespace name (identifiers, not keywords, joined by ::)",
                      o.namespace_name);
  const principles::Method method = method_option(o.method);
  const auto values = parse_assignments(o.set);
  become_reproducible();
  auto model = read_model(o.model, o.urdf);
  reject_constraints(*model, "codegen");
  const auto equations = principles::derive(model, method);
  const std::string header =
      codegen::generate_cpp_header(equations, codegen::CodegenOptions{o.namespace_name, values});

  std::ofstream file(o.out, std::ios::binary);
  if (!file) throw usage_error("--out", "cannot write the file", o.out);
  file << header;
  file.close();
  if (!file) throw usage_error("--out", "cannot write the file", o.out);
  std::cout << "wrote " << o.out << " (" << model->name << ", " << model->dof() << " DOF, "
            << principles::method_name(method) << ")\n";
  return 0;
}

}  // namespace

void add_codegen_command(CLI::App& app, Commands& commands) {
  auto o = std::make_shared<CodegenCommandOptions>();
  auto* c = app.add_subcommand("codegen",
                               "a self-contained C++17 header: M, f, forward and inverse dynamics");
  c->add_option("MODEL", o->model, "model file (YAML or URDF)")->required();
  add_urdf_options(*c, o->urdf);
  c->add_option("--out", o->out, "header to write (FILE.hpp)")->required();
  c->add_option("--namespace", o->namespace_name,
                "namespace of the generated code, e.g. robots::arm (default: the model's name)");
  c->add_option("--method", o->method, "lagrange | gibbs-appell (default)");
  c->add_option("--set", o->set,
                "NAME=VALUE: new default of a parameter, an input or an unspecified prescribed "
                "function (also dot(NAME)=VALUE) in the generated structs; repeatable");
  commands.push_back({c, [o] { return run_codegen(*o); }});
}

}  // namespace appell::cli
