// What the writers of equations put beside them.
#pragma once

namespace appell::io {

/// Options shared by the writers of equations (equation_writer, minimal_form_writer,
/// derivation_writer).
struct WriteOptions {
  /// Also the seconds forming and simplifying took: in the text's cost line ("0.0012 s forming,
  /// ...") and as "seconds" and "simplify_seconds" in the JSON cost object. Off by default: every
  /// other byte of the output depends only on the input, and timings would make two runs differ.
  bool timing = false;
};

}  // namespace appell::io
