#include "output_paths.hpp"

#include <filesystem>
#include <system_error>
#include <variant>

#include "cli_support.hpp"

namespace appell::cli {

namespace fs = std::filesystem;

std::vector<NamedPath> model_inputs(const std::string& option, const model::Model& model) {
  std::vector<NamedPath> inputs;
  if (!model.source.empty()) inputs.push_back({option, model.source});
  for (const auto& body : model.flexible)
    if (const auto* gmsh = std::get_if<model::GmshMeshSpec>(&body.mesh))
      inputs.push_back({"the mesh of flexible body " + body.name, gmsh->path});
  return inputs;
}

namespace {

// A character device, a FIFO or a socket: a stream, not a file that writing could replace.
bool is_stream(const fs::file_status& status) {
  return fs::exists(status) && !fs::is_regular_file(status) && !fs::is_directory(status);
}

bool same_file(const std::string& a, const std::string& b) {
  std::error_code error;
  const fs::file_status sa = fs::status(a, error), sb = fs::status(b, error);
  if (is_stream(sa) || is_stream(sb)) return false;
  if (fs::exists(sa) != fs::exists(sb)) return false;  // one file cannot both be and not be
  if (fs::exists(sa)) return fs::equivalent(a, b, error) && !error;
  const fs::path ca = fs::weakly_canonical(a, error);
  if (error) return false;
  const fs::path cb = fs::weakly_canonical(b, error);
  return !error && ca == cb;
}

}  // namespace

void check_output_paths(const std::vector<NamedPath>& inputs,
                        const std::vector<NamedPath>& outputs) {
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const NamedPath& out = outputs[i];
    if (out.path.empty()) continue;
    for (const NamedPath& in : inputs)
      if (!in.path.empty() && same_file(out.path, in.path))
        throw usage_error(out.option,
                          "names the file that " + in.option + " reads (" + in.path +
                              "); writing it would replace the input",
                          out.path);
    for (std::size_t j = 0; j < i; ++j)
      if (!outputs[j].path.empty() && same_file(out.path, outputs[j].path))
        throw usage_error(out.option,
                          "names the file that " + outputs[j].option + " writes (" +
                              outputs[j].path + "); one output would replace the other",
                          out.path);
  }
}

io::OutputFile open_output(const std::string& option, const std::string& path) {
  try {
    return io::OutputFile(path);
  } catch (const model::ModelError& e) {
    // "PATH: cannot write the file: REASON" at the option that named the path.
    std::string message = e.what();
    if (const std::string prefix = path + ": "; message.rfind(prefix, 0) == 0)
      message.erase(0, prefix.size());
    throw usage_error(option, message, path);
  }
}

void write_output(const std::string& option, const std::string& path, std::string_view text) {
  io::OutputFile file = open_output(option, path);
  file.stream().write(text.data(), static_cast<std::streamsize>(text.size()));
  file.close();
}

void make_output_folder(const std::string& option, const std::string& path) {
  std::error_code error;
  if (fs::exists(path, error) && !fs::is_directory(path, error))
    throw usage_error(option,
                      "names a file, not a folder (the files are written into a folder, "
                      "created if missing)",
                      path);
  fs::create_directories(path, error);
  if (error) throw usage_error(option, "cannot create the folder: " + error.message(), path);
}

}  // namespace appell::cli
