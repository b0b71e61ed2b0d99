// Which files a command reads and writes, and the one check that no output replaces an input or
// another output (`simulate m.yaml --out m.yaml` must not destroy the model it reads).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "appell/io/output_file.hpp"
#include "appell/model/model.hpp"

namespace appell::cli {

/// A file a command reads or writes, and the option or argument that names it ("--out", "MODEL").
struct NamedPath {
  std::string option;
  std::string path;
};

/// The files `model` was read from, named by `option`: the model file (YAML or URDF) and the
/// Gmsh meshes of its flexible bodies.
std::vector<NamedPath> model_inputs(const std::string& option, const model::Model& model);

/// Refuses (usage_error at the output's option, exit 2, naming both) an output that is one of
/// `inputs` or another of `outputs`. Two paths are one file when std::filesystem::equivalent
/// says so (both exist: links, "./m.yaml" and "m.yaml" alike), else when their
/// weakly_canonical forms are equal. Empty paths (an output not asked for) are skipped, and so
/// are streams that are not files (/dev/null, /dev/stdout, pipes): writing them replaces
/// nothing.
void check_output_paths(const std::vector<NamedPath>& inputs,
                        const std::vector<NamedPath>& outputs);

/// io::OutputFile at `path`, a path that cannot be opened a usage_error at `option` naming it
/// (exit 2); a failed write later is model::ComputationError naming it (exit 1).
io::OutputFile open_output(const std::string& option, const std::string& path);

/// `text` into the file at `path` through open_output (all of it, or an error naming the file).
void write_output(const std::string& option, const std::string& path, std::string_view text);

/// The folder at `path` (created if missing) for files of `option` (fem --vtu): a path that is
/// a file, or that cannot be made a folder, is a usage_error at `option`.
void make_output_folder(const std::string& option, const std::string& path);

}  // namespace appell::cli
