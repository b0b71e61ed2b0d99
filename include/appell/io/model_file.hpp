// A model file of either kind, told apart by its content: an appell model (YAML, MODEL_FORMAT.md)
// or a robot's URDF (XML, io/urdf_reader.hpp). Every command of the command line reads its model
// through read_model, so that a URDF is accepted wherever a model file is.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "appell/io/urdf_reader.hpp"
#include "appell/model/model.hpp"

namespace appell::io {

enum class ModelFormat { Yaml, Urdf };

/// Urdf when the text is XML (its first character other than blanks and a byte order mark is
/// '<', as in <?xml ..?> or <robot ..>: no YAML model begins so), else Yaml. The file's name
/// plays no part.
ModelFormat detect_model_format(const std::string& text);

/// The text of the file at `path`, read by model::read_input_file as a model file (a regular
/// file of at most 64 MiB). Throws model::ModelError located at `path` as that does.
std::string read_model_text(const std::string& path);

/// A model read from a file, with what the reader warns about (URDF <mimic> joints read as
/// independent coordinates ...: the command line prints these on stderr).
struct ModelFile {
  std::shared_ptr<const model::Model> model;
  ModelFormat format = ModelFormat::Yaml;
  std::vector<std::string> warnings;
};

/// Reads the model file at `path`, YAML or URDF by its content (detect_model_format): as
/// read_model_file (io/model_reader.hpp) or translate_urdf and build_model with `urdf`
/// (io/urdf_reader.hpp), which a YAML model does not use. Throws model::ModelError as they do.
ModelFile read_model(const std::string& path, const UrdfOptions& urdf = {});

}  // namespace appell::io
