// What identifies a model in a sweep's results file, so that --resume and sweep-merge join only
// results of the same model: a SHA-256 of what determines its motion, not of its file's bytes.
#pragma once

#include <string>

#include "appell/model/model.hpp"

namespace appell::sweep {

/// For a model the recursions cover: the SHA-256 of the code of its recursions (what
/// codegen::loadable_c_source generates: the model's structure, independent of whitespace,
/// comments, key order and names of intermediates), its parameters' default numbers and its
/// initial state. For any other model: the SHA-256 of `file_text`, the model file as read (a
/// change of layout then counts as a change). Hex, 64 characters.
std::string model_hash(const model::Model& model, const std::string& file_text);

}  // namespace appell::sweep
