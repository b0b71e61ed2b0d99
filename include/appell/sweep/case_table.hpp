// The cases of a sweep (appell sweep, appell.sweep): one row per simulation, one column per value
// a case sets. A column's name says what it sets:
//
//   NAME          a parameter (a `--set` name)
//   q0.NAME       the initial value of coordinate NAME
//   qd0.NAME      the initial rate of coordinate NAME
//   u0.NAME       the initial value of generalized speed NAME (models with speeds)
//   input.NAME    input (or unspecified prescribed function) NAME: a number, or an expression of
//                 t and the parameters, as `--input NAME=EXPR`
//
// A table comes from a cases file (read_cases_csv), a Cartesian grid (grid_cases) or a Latin
// hypercube sample (sample_cases); every column is checked against the model where it is read.
// What a case leaves out keeps the sweep's common values (--set, --input, the model's initial
// state). A table is a plain value: the same input gives the same table, bit for bit.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "appell/model/source_location.hpp"

namespace appell::sweep {

/// What a column sets.
enum class ColumnKind { Parameter, InitialCoordinate, InitialRate, InitialSpeed, Input };

struct CaseColumn {
  std::string name;  // as written: "m", "q0.theta", "input.u"
  ColumnKind kind = ColumnKind::Parameter;
  std::string target;  // the model's name it sets: "m", "theta", "u"
};

struct CaseTable {
  std::vector<CaseColumn> columns;
  /// [case][column]: the number of the cell; NaN where an input column holds an expression.
  std::vector<std::vector<double>> numbers;
  /// [case][column]: an input column's cell as written (a number or an expression of t); empty
  /// in every other column.
  std::vector<std::vector<std::string>> expressions;
  /// Where each case was given (the cases file's line; "grid", "sample" otherwise), so that
  /// a bad value of a case is reported at its row.
  std::vector<model::SourceLocation> rows;

  std::size_t size() const { return numbers.size(); }
};

}  // namespace appell::sweep
