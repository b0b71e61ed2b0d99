// Where something was written in a model file, the error that points at it (ModelError: bad
// input) and the error of a computation that failed on valid input (ComputationError).
#pragma once

#include <stdexcept>
#include <string>

namespace appell::model {

/// A place in a model file, or, for what has no file position (a model built in code, a value
/// given in a program), a name in `file` with line 0: "bodies.arm.mass", "values", "trajectory".
struct SourceLocation {
  std::string file;  // path as the user gave it, or the item's name
  int line = 0;      // 1-based; 0 when unknown
  int column = 0;    // 1-based

  /// "FILE:LINE:COLUMN" (or just FILE when the line is unknown, line ≤ 0).
  std::string str() const;
};

/// Bad input: the CLI prints what() (already "FILE:LINE:COLUMN: message (name)") and exits 2.
class ModelError : public std::runtime_error {
 public:
  /// what() is `where.str() + ": " + message`, followed by " (offending)" when `offending` is
  /// not empty.
  ModelError(SourceLocation where, const std::string& message, const std::string& offending = "");
  /// Where the mistake was written.
  const SourceLocation& where() const { return where_; }
  /// The offending name or text ("" when none).
  const std::string& offending() const { return offending_; }

 private:
  SourceLocation where_;
  std::string offending_;
};

/// A computation that failed on valid input (singular mass matrix, integrator failure, no
/// equilibrium found, a file that cannot be written ...): the CLI exits 1. what() is the reason.
class ComputationError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace appell::model
