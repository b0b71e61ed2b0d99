// Reading an input file (a model, a claims file, a Gmsh mesh, a trajectory): the one place where
// appell opens what a user names, so that every reader refuses the same things the same way.
//
// A path may name anything: a FIFO that never delivers a byte, /dev/zero or /dev/urandom that never
// end, a directory, a file of gigabytes, a file that grows while it is read. Only a regular file is
// read, never more than the limit of its kind, whatever its size said when it was opened: the
// limit is checked on fstat() and again while reading, so a file that grows cannot exceed it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "appell/model/source_location.hpp"

namespace appell::model {

/// What an input file is for; it names the file in messages and sets its size limit.
enum class InputKind {
  Model,       // an appell model (YAML) or a URDF: at most 64 MiB
  Claims,      // a claims file of `appell check`: at most 64 MiB
  Mesh,        // a Gmsh mesh named by a model's `gmsh:`: at most 2 GiB
  Trajectory,  // a trajectory CSV of `appell inverse`: at most 1 GiB
  Cases,       // a cases file of `appell sweep` (CSV): at most 1 GiB
};

/// The largest file of a kind, in bytes.
std::uint64_t input_size_limit(InputKind kind);

/// "model file", "claims file", "mesh file", "trajectory file", "cases file".
const char* input_kind_name(InputKind kind);

/// The bytes of the file at `path`. Opens it without blocking (O_NONBLOCK, so that a FIFO without
/// a writer cannot hang), checks what it is on the open descriptor (fstat: no race with a file
/// swapped in between) and reads at most input_size_limit(kind) bytes. Throws ModelError located
/// at `referenced_from` (default: `path`, with no line) naming the path and the reason: no such
/// file, permission denied, a directory, a FIFO, a character or block device, a socket, larger than
/// the limit (or grown beyond it while being read), or a read error.
std::string read_input_file(const std::string& path, InputKind kind,
                            const SourceLocation& referenced_from = {});

/// The length of the UTF-8 byte order mark (EF BB BF) `text` starts with: 3, or 0 without one.
/// Editors on Windows (and Excel's "CSV UTF-8") write one; it is no part of a file's first line,
/// so every reader of a text file skips it, and columns count after it.
std::size_t byte_order_mark_size(std::string_view text);

}  // namespace appell::model
