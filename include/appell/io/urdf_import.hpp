// `appell import`: a URDF robot as an appell model file that a user can edit (add loads,
// constraints, springs, a carrier frame) and that reads back as the same model.
//
// The file holds what io::build_model gives the builder (io/urdf_reader.hpp), in MODEL_FORMAT.md:
// frames named after the links, coordinates after the joints, bodies LINK_body, numbers as the
// URDF writes them, and a comment before each item naming the URDF joint and link it comes from
// (a control character of a URDF name, a line break among them, written there as \xHH).
#pragma once

#include <string>
#include <vector>

#include "appell/io/urdf_reader.hpp"

namespace appell::io {

/// The model file of a translated URDF (YAML text, ending with a newline). Read back with
/// io::parse_model it is the model build_model(urdf) makes: the same coordinates, frames,
/// bodies, parameters, gravity, loads, limits and visuals, in the same order.
std::string write_model_yaml(const UrdfModel& urdf);

/// A URDF file made a model file.
struct UrdfImport {
  std::string yaml;                   // write_model_yaml of the translation
  std::vector<std::string> warnings;  // the translation's (mimic joints ...)
};

/// Reads the URDF file at `path` with `options`, builds its model (so that what is written is a
/// valid model: every model::ModelError of read_urdf_file is thrown here first) and writes its
/// model file. A file that is not XML (detect_model_format: an appell model file) is a
/// model::ModelError saying that import reads URDF, not "malformed XML".
UrdfImport import_urdf(const std::string& path, const UrdfOptions& options = {});

/// Writes `text` to the file at `path` (replaced if it exists). Throws model::ModelError located
/// at "output" naming `path` if it cannot be opened for writing, and if `path` is the file
/// `source` (an import must not overwrite its URDF); model::ComputationError naming `path` when
/// a write fails (a full disk: io::OutputFile).
void write_model_file(const std::string& text, const std::string& path,
                      const std::string& source = "");

}  // namespace appell::io
