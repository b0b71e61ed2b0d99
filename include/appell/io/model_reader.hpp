// Reading a model file (MODEL_FORMAT.md) into a validated model::Model.
//
// A thin layer over model::ModelBuilder: the reader checks the YAML's shapes and keys (a map
// where a map belongs, no unknown or duplicate key, three components for a vector) and hands
// every value to the builder with the place it was written, so that the builder, the one
// validation of a model, reports each mistake as "FILE:LINE:COLUMN: what is wrong (name)".
//
// Representation decisions the rest of appell relies on (made by the builder):
//  - parameters are plain GiNaC symbols named like the parameter;
//  - coordinates are TimeFunctionKind::Coordinate, unspecified prescribed functions (`null`) and
//    inputs are TimeFunctionKind::Prescribed in Model::time_functions, so dot(u) exists for all;
//    Model::inputs tells inputs apart from prescribed functions;
//  - a prescribed function given by an expression of t is substituted wherever it is used
//    (dot() of it is the time derivative of that expression) and kept in Model::prescribed.
#pragma once

#include <memory>
#include <string>

#include "appell/model/model.hpp"

namespace appell::io {

/// Reads and validates the model file at `path` (Model::source = path). Throws model::ModelError
/// located at `path` if the file does not exist, is a directory or cannot be read, and at
/// FILE:LINE:COLUMN if it is not valid YAML, has a wrong shape or key, or the model is invalid
/// (whatever model::ModelBuilder rejects).
std::shared_ptr<const model::Model> read_model_file(const std::string& path);

/// Parses and validates a model given as YAML text; `source_name` is the file name used in
/// error messages and stored as Model::source (relative Gmsh paths are resolved against its
/// folder). Throws model::ModelError as read_model_file does for the text.
std::shared_ptr<const model::Model> parse_model(const std::string& yaml_text,
                                                const std::string& source_name);

}  // namespace appell::io
