// Where something was written in a model file, and the error that points at it.
#pragma once

#include <stdexcept>
#include <string>

namespace appell::model {

struct SourceLocation {
  std::string file;  // path as the user gave it
  int line = 0;      // 1-based; 0 when unknown
  int column = 0;    // 1-based

  /// "FILE:LINE:COLUMN" (or just FILE when the position is unknown).
  std::string str() const;
};

/// Bad input: the CLI prints what() (already "FILE:LINE:COLUMN: message (name)") and exits 2.
class ModelError : public std::runtime_error {
 public:
  ModelError(SourceLocation where, const std::string& message, const std::string& offending = "");
  const SourceLocation& where() const { return where_; }
  const std::string& offending() const { return offending_; }

 private:
  SourceLocation where_;
  std::string offending_;
};

/// A computation that failed on valid input (singular mass matrix, ...): exit code 1.
class ComputationError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace appell::model
