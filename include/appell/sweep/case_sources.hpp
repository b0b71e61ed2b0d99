// Where the cases of a sweep come from: a cases file (CSV), a Cartesian grid (`--grid`) or a
// Latin hypercube sample (`--sample`, `--count`, `--seed`). Each gives a CaseTable
// (case_table.hpp) whose columns are checked against the model here, where they were written,
// so that an unknown column is refused before anything is derived or run.
//
// Only the form of a value is checked here: a number that parses entirely and is finite, an
// input expression of t and the parameters. Whether a value suits the model (a negative mass, a
// zero length) is known only once the runner binds it (model::bind) for its case; a bad value is
// then that case's failure ("failed: REASON" at its row), and the other cases go on.
//
// Every error is a model::ModelError (bad input: the CLI exits 2) located where it was written
// (the cases file's line and column, or "grid", "sample", "count") and naming the column,
// the cell or the spec.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "appell/model/model.hpp"
#include "appell/model/source_location.hpp"
#include "appell/sweep/case_table.hpp"

namespace appell::sweep {

/// The most cases one table may hold (a cases file's rows, a grid's product, --count): 10⁷.
inline constexpr std::size_t kMaxCases = 10'000'000;

/// The column `name` checked against `model`:
///   NAME         a parameter (Model::find_parameter)
///   q0.NAME      a coordinate's initial value        qd0.NAME  a coordinate's initial rate
///   u0.NAME      a generalized speed's initial value (Model::speeds; a model with speeds only)
///   input.NAME   an input, or a prescribed function the model leaves unspecified
/// Throws ModelError at `where`, naming the column, for an unknown name (with "did you mean"
/// over the valid names of that prefix), a u0. or input. column of a model that has no speeds
/// or inputs, or an unknown prefix ("x0.theta": the valid prefixes listed).
CaseColumn case_column(const std::string& name, const model::Model& model,
                       const model::SourceLocation& where);

/// The cases file at `path` (read with model::read_input_file: a regular file of at most 1 GiB).
///
/// CSV (RFC 4180): the first row names the columns (case_column), each following row is one
/// case. A cell may be quoted, "...", with "" for a quote inside, so that an input expression may
/// hold commas ("atan2(y, x)"); a quoted cell may span lines. Blanks around a cell are dropped.
/// Blank lines and lines whose first non-blank character is '#' are skipped wherever they are.
/// CRLF line ends and a UTF-8 byte order mark are accepted. Columns are counted in bytes from 1
/// (after the byte order mark).
///
/// A parameter, q0., qd0. or u0. cell is a number (parsed entirely, finite); an input. cell is a
/// number or an expression of t and the parameters (num::parse_time_function), kept as written in
/// CaseTable::expressions (its number NaN when it is an expression). rows[k] is the row's line,
/// {path, line, 1}.
///
/// Throws ModelError at path:line:column of the offending cell (and naming it or its column) for:
/// an unknown, empty or repeated column name; a row with more or fewer cells than the header; an
/// empty cell; a number that does not parse entirely or is not finite; an input cell that is no
/// expression of t and the parameters (located at the character the parser stopped at); a quote
/// never closed or text after a closing quote; a file with no header, or with no case after it;
/// more than kMaxCases cases. And what read_input_file throws (no such file, not a regular file,
/// too large).
CaseTable read_cases_csv(const std::string& path, const model::Model& model);

/// The Cartesian product of `specs`, each `NAME=START:STEP:STOP` or `NAME=V1,V2,...`.
///
/// A range gives START + k·STEP for k = 0, 1, ... (each computed from k by one fused
/// multiply-add, never accumulated, so that no rounding error builds up), up to STOP included:
/// a value within 10⁻⁹·|STEP| of STOP is STOP itself (0:0.1:1 gives 11 values, the last exactly
/// 1). STEP is not 0 and has the sign that goes from START to STOP; START = STOP gives one value.
/// A list gives its values in the order written. The first spec varies slowest: case
/// i = ((i₁·n₂ + i₂)·n₃ + i₃)..., as nested loops written in the order of the specs.
/// rows[k] = {"grid"}. An input column set here holds a constant input (its expression the
/// number, written shortest round-trip).
///
/// Throws ModelError at {"grid"} naming the spec for: no '=' or an empty name, a range that is
/// not three numbers, a list with an empty item, a number that does not parse entirely or is not
/// finite, a STEP of 0 or of the wrong sign, a name given twice, an unknown column (case_column),
/// more than kMaxCases cases in all; and for no spec at all.
CaseTable grid_cases(const std::vector<std::string>& specs, const model::Model& model);

/// A Latin hypercube of `count` cases over `specs`, each `NAME=LOW:HIGH` (LOW < HIGH, finite).
///
/// Each dimension's range is cut into `count` strata of equal width; every stratum is used by
/// exactly one case, in a random order, at a uniformly random place within it:
///   value(case k) = LOW + (HIGH − LOW) · (π(k) + U) / count
/// with π a uniformly random permutation of 0..count−1 (Fisher–Yates) and U uniform in [0, 1),
/// both from RandomStream(seed) (random_stream.hpp), drawn dimension by dimension in the order of
/// the specs: first π, then the count values of U. The same seed gives the same table, bit for
/// bit, on every platform. Values lie in [LOW, HIGH). rows[k] = {"sample"}.
///
/// Throws ModelError at {"sample"} naming the spec for: no '=' or an empty name, not two
/// numbers LOW:HIGH, a number that does not parse entirely or is not finite, LOW ≥ HIGH, a width
/// HIGH − LOW beyond the largest double, a name given twice, an unknown column (case_column), no
/// spec at all; at {"count"} for a count of 0 or above kMaxCases.
CaseTable sample_cases(const std::vector<std::string>& specs, std::size_t count, std::uint64_t seed,
                       const model::Model& model);

}  // namespace appell::sweep
