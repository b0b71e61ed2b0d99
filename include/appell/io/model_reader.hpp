// Reading a model file (MODEL_FORMAT.md) into a validated model::Model.
//
// Everything the format allows is checked here, once, so that the algorithms can trust the
// Model: names are valid and unique, every referenced frame, body and coordinate exists, frames
// are ordered parents first, masses are positive, numeric rotation matrices are rotations.
// Every mistake is a model::ModelError "FILE:LINE:COLUMN: what is wrong (offending name)" at the
// place of the file where it was written. Keys the format describes but appell does not
// implement yet (`constraints`, `relative_to`, `flexible`) are rejected rather than ignored.
//
// Representation decisions the rest of appell relies on:
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

/// Reads and validates the model file at `path`. Throws model::ModelError if the file cannot be
/// read or the model is invalid.
std::shared_ptr<const model::Model> read_model_file(const std::string& path);

/// Parses and validates a model given as YAML text; `source_name` is the file name used in
/// error messages and stored as Model::source.
std::shared_ptr<const model::Model> parse_model(const std::string& yaml_text,
                                                const std::string& source_name);

}  // namespace appell::io
