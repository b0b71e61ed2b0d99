#include "appell/sweep/case_sources.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <string_view>
#include <system_error>

#include "appell/model/closest_name.hpp"
#include "appell/model/input_file.hpp"
#include "appell/numeric/simulate.hpp"
#include "appell/sweep/random_stream.hpp"

namespace appell::sweep {

namespace {

using model::ModelError;
using model::SourceLocation;

const char* const kColumnForms =
    "a column is NAME (a parameter), q0.NAME, qd0.NAME (a coordinate's initial value and rate), "
    "u0.NAME (a generalized speed's initial value) or input.NAME (an input)";

bool is_blank(char c) { return c == ' ' || c == '\t'; }

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && is_blank(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_blank(text.back())) text.remove_suffix(1);
  return text;
}

enum class Parsed { Number, NotANumber, NotFinite };

// The whole of `text` as a double (a leading '+' allowed, as a user writes it). from_chars is
// correctly rounded in every standard library and ignores the locale, so a cell reads the same
// everywhere.
Parsed parse_number(std::string_view text, double& value) {
  const char* begin = text.data();
  const char* end = begin + text.size();
  if (begin < end && *begin == '+') {
    ++begin;
    if (begin < end && (*begin == '+' || *begin == '-')) return Parsed::NotANumber;
  }
  if (begin == end) return Parsed::NotANumber;
  const auto [ptr, error] = std::from_chars(begin, end, value);
  if (ptr != end) return Parsed::NotANumber;
  if (error == std::errc::result_out_of_range) {
    // from_chars reports an overflow and an underflow alike: 1e-400 is 0, 1e400 is no number.
    value = std::strtod(std::string(begin, end).c_str(), nullptr);
    return std::isinf(value) ? Parsed::NotFinite : Parsed::Number;
  }
  if (error != std::errc()) return Parsed::NotANumber;
  return std::isfinite(value) ? Parsed::Number : Parsed::NotFinite;
}

// The shortest text that reads back as `value` (std::to_chars): a grid's or a sample's number
// where a column keeps its cell as written.
std::string shortest_text(double value) {
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

// The message of a ModelError without its location and offending name (what() repeats both).
std::string bare_message(const ModelError& error) {
  std::string message = error.what();
  const std::string prefix = error.where().str() + ": ";
  const std::string suffix = error.offending().empty() ? "" : " (" + error.offending() + ")";
  if (message.rfind(prefix, 0) == 0) message.erase(0, prefix.size());
  if (!suffix.empty() && message.size() >= suffix.size() &&
      message.compare(message.size() - suffix.size(), suffix.size(), suffix) == 0)
    message.erase(message.size() - suffix.size());
  return message;
}

// ---------------------------------------------------------------------------------------------
// Columns

std::vector<std::string> prefixed(const std::string& prefix,
                                  const std::vector<std::string>& names) {
  std::vector<std::string> columns;
  columns.reserve(names.size());
  for (const auto& name : names) columns.push_back(prefix + "." + name);
  return columns;
}

// The names an input. column may set: inputs, and prescribed functions given no expression.
std::vector<std::string> input_names(const model::Model& model) {
  std::vector<std::string> names;
  for (const auto& input : model.inputs) names.push_back(input.name);
  for (const auto& p : model.prescribed)
    if (!p.expression) names.push_back(p.name);
  return names;
}

// A column without a prefix: a parameter. A coordinate's or an input's bare name is a likely
// slip, so the message then says which column sets it.
CaseColumn parameter_column(const std::string& name, const model::Model& model,
                            const SourceLocation& where) {
  if (model.find_parameter(name)) return {name, ColumnKind::Parameter, name};
  std::string hint;
  const auto& coordinates = model.coordinates;
  const auto inputs = input_names(model);
  if (std::any_of(coordinates.begin(), coordinates.end(),
                  [&](const model::Coordinate& c) { return c.name == name; })) {
    hint = "; '" + name + "' is a coordinate: its initial value is column q0." + name +
           ", its rate qd0." + name;
  } else if (std::find(inputs.begin(), inputs.end(), name) != inputs.end()) {
    hint = "; '" + name + "' is an input: column input." + name;
  } else {
    std::vector<std::string> parameters;
    for (const auto& p : model.parameters) parameters.push_back(p.name);
    hint = model::did_you_mean(name, parameters);
  }
  throw ModelError(where, "unknown column: the model has no parameter '" + name + "'" + hint, name);
}

}  // namespace

CaseColumn case_column(const std::string& name, const model::Model& model,
                       const SourceLocation& where) {
  const std::size_t dot = name.find('.');
  if (dot == std::string::npos) return parameter_column(name, model, where);
  const std::string prefix = name.substr(0, dot);
  const std::string target = name.substr(dot + 1);

  ColumnKind kind = ColumnKind::Parameter;
  const char* what = "";
  std::vector<std::string> names;
  if (prefix == "q0" || prefix == "qd0") {
    kind = prefix == "q0" ? ColumnKind::InitialCoordinate : ColumnKind::InitialRate;
    what = "coordinate";
    for (const auto& c : model.coordinates) names.push_back(c.name);
  } else if (prefix == "u0") {
    if (!model.has_speeds())
      throw ModelError(
          where, "the model has no generalized speeds (speeds:, rot_quat), so no u0. column", name);
    kind = ColumnKind::InitialSpeed;
    what = "generalized speed";
    for (const auto& s : model.speeds) names.push_back(s.name);
  } else if (prefix == "input") {
    names = input_names(model);
    if (names.empty())
      throw ModelError(where,
                       "the model has no inputs and no unspecified prescribed functions, so no "
                       "input. column",
                       name);
    kind = ColumnKind::Input;
    what = "input or unspecified prescribed function";
  } else {
    // The suggestion is a column the model has ("x0.theta" -> "q0.theta"), never a prefix
    // glued to a name it does not have.
    std::vector<std::string> columns;
    for (const auto& c : model.coordinates) {
      columns.push_back("q0." + c.name);
      columns.push_back("qd0." + c.name);
    }
    for (const auto& s : model.speeds) columns.push_back("u0." + s.name);
    for (const auto& input : input_names(model)) columns.push_back("input." + input);
    throw ModelError(where,
                     "unknown column prefix '" + prefix + ".'; " + kColumnForms +
                         model::did_you_mean(name, columns),
                     name);
  }
  if (std::find(names.begin(), names.end(), target) == names.end())
    throw ModelError(where,
                     "unknown column: the model has no " + std::string(what) + " '" + target + "'" +
                         model::did_you_mean(name, prefixed(prefix, names)),
                     name);
  return {name, kind, target};
}

// ---------------------------------------------------------------------------------------------
// The cases file

namespace {

// One cell of a CSV record as read: its text unquoted and trimmed, where it begins, and what
// is needed to find the place of a character of its text in the file (an expression's error).
struct Cell {
  std::string text;
  int line = 0, column = 0;  // its first non-blank character (the opening quote when quoted)
  bool quoted = false;
  std::size_t content = 0;  // offset in the file of the first character of its text as read
  int content_line = 0, content_column = 0;
  std::size_t lead = 0;  // blanks dropped before `text` inside the quotes
};

// RFC 4180 records over the bytes of a file, skipping blank and comment lines between them.
class CsvReader {
 public:
  CsvReader(std::string_view data, std::string path) : data_(data), path_(std::move(path)) {
    // A UTF-8 byte order mark is no part of the first cell, and columns count after it.
    pos_ = line_start_ = model::byte_order_mark_size(data_);
  }

  /// Reads the next record into `cells`; false at the end of the file. `end_line` and
  /// `end_column` are set to just after its last character. `header` names the columns, for
  /// the messages of a quote never closed (empty while the header itself is read).
  bool next(std::vector<Cell>& cells, const std::vector<CaseColumn>& header) {
    skip_blank_and_comment_lines();
    if (pos_ >= data_.size()) return false;
    cells.clear();
    while (true) {
      cells.push_back(read_cell(cells.size(), header));
      if (pos_ < data_.size() && data_[pos_] == ',') {
        ++pos_;
        continue;
      }
      end_line = line_;
      end_column = column(pos_);
      end_of_line();
      return true;
    }
  }

  SourceLocation at(int line, int column) const { return {path_, line, column}; }

  /// Where the reader stands when the file is over: the line after the last one.
  SourceLocation after_end() const {
    const bool ends_with_newline = data_.empty() || data_.back() == '\n';
    return at(ends_with_newline ? line_ : line_ + 1, 1);
  }

  /// Where the `offset`-th character of `cell.text` was written.
  SourceLocation locate(const Cell& cell, std::size_t offset) const {
    std::size_t p = cell.content;
    int line = cell.content_line, col = cell.content_column;
    for (std::size_t k = 0; k < offset + cell.lead && p < data_.size(); ++k) {
      std::size_t width = cell.quoted && data_[p] == '"' ? 2 : 1;
      if (data_[p] == '\r' && p + 1 < data_.size() && data_[p + 1] == '\n') width = 2;
      if (data_[p] == '\n' || (width == 2 && data_[p] == '\r')) {
        ++line;
        col = 1;
      } else {
        col += static_cast<int>(width);
      }
      p += width;
    }
    return at(line, col);
  }

  int end_line = 0, end_column = 0;

 private:
  int column(std::size_t p) const { return static_cast<int>(p - line_start_) + 1; }

  // A line end here: "\n", or "\r\n", or "\r" as the file's last byte.
  bool at_line_end(std::size_t p) const {
    if (p >= data_.size()) return true;
    if (data_[p] == '\n') return true;
    return data_[p] == '\r' && (p + 1 == data_.size() || data_[p + 1] == '\n');
  }

  void end_of_line() {
    if (pos_ < data_.size() && data_[pos_] == '\r') ++pos_;
    if (pos_ < data_.size() && data_[pos_] == '\n') {
      ++pos_;
      ++line_;
      line_start_ = pos_;
    }
  }

  void skip_blank_and_comment_lines() {
    while (pos_ < data_.size()) {
      std::size_t p = pos_;
      while (p < data_.size() && is_blank(data_[p])) ++p;
      if (p < data_.size() && data_[p] == '#') {
        while (p < data_.size() && data_[p] != '\n') ++p;
      } else if (!at_line_end(p)) {
        return;
      } else if (p >= data_.size()) {
        pos_ = p;
        return;
      }
      pos_ = p;
      while (pos_ < data_.size() && data_[pos_] != '\n') ++pos_;
      end_of_line();
    }
  }

  std::string column_name(std::size_t index, const std::vector<CaseColumn>& header) const {
    return index < header.size() ? header[index].name : "";
  }

  Cell read_cell(std::size_t index, const std::vector<CaseColumn>& header) {
    while (pos_ < data_.size() && is_blank(data_[pos_])) ++pos_;
    Cell cell;
    cell.line = line_;
    cell.column = column(pos_);
    if (pos_ < data_.size() && data_[pos_] == '"') {
      cell.quoted = true;
      ++pos_;
      cell.content = pos_;
      cell.content_line = line_;
      cell.content_column = column(pos_);
      std::string raw;
      while (true) {
        if (pos_ >= data_.size()) {
          const std::string name = column_name(index, header);
          throw ModelError(
              at(cell.line, cell.column),
              "quoted cell never closed (a quote inside a quoted cell is written \"\")",
              name.empty() ? "\"" : name);
        }
        const char c = data_[pos_];
        if (c == '"') {
          if (pos_ + 1 < data_.size() && data_[pos_ + 1] == '"') {
            raw += '"';
            pos_ += 2;
            continue;
          }
          ++pos_;
          break;
        }
        if (c == '\r' && pos_ + 1 < data_.size() && data_[pos_ + 1] == '\n') ++pos_;
        if (data_[pos_] == '\n') {
          raw += '\n';
          ++pos_;
          ++line_;
          line_start_ = pos_;
          continue;
        }
        raw += c;
        ++pos_;
      }
      while (pos_ < data_.size() && is_blank(data_[pos_])) ++pos_;
      if (pos_ < data_.size() && data_[pos_] != ',' && !at_line_end(pos_))
        throw ModelError(at(line_, column(pos_)),
                         "text after the closing quote of a cell (a quote inside a quoted cell "
                         "is written \"\")",
                         std::string(data_.substr(pos_, 1)));
      const std::string_view text = trimmed(raw);
      cell.lead = static_cast<std::size_t>(text.data() - raw.data());
      cell.text = std::string(text);
      return cell;
    }
    cell.content = pos_;
    cell.content_line = line_;
    cell.content_column = cell.column;
    const std::size_t begin = pos_;
    while (pos_ < data_.size() && data_[pos_] != ',' && !at_line_end(pos_)) {
      if (data_[pos_] == '"')
        throw ModelError(at(line_, column(pos_)),
                         "a quote inside an unquoted cell: quote the whole cell, \"...\", and "
                         "write a quote inside it as \"\"",
                         std::string(trimmed(data_.substr(begin, pos_ + 1 - begin))));
      ++pos_;
    }
    cell.text = std::string(trimmed(data_.substr(begin, pos_ - begin)));
    return cell;
  }

  std::string_view data_;
  std::string path_;
  std::size_t pos_ = 0;
  std::size_t line_start_ = 0;
  int line_ = 1;
};

// One cell of a case into its row: a number, or for an input a number or an expression of t.
// `parsed_expressions` holds the expressions already found good: a file that repeats one in
// every row (a few forms over many cases is common) parses each form once.
void read_value(const CsvReader& reader, const Cell& cell, const CaseColumn& column,
                const model::Model& model, std::set<std::string>& parsed_expressions,
                double& number, std::string& expression) {
  const SourceLocation where = reader.at(cell.line, cell.column);
  if (cell.text.empty())
    throw ModelError(where, "empty cell: every case gives every column a value", column.name);
  const Parsed parsed = parse_number(cell.text, number);
  if (parsed == Parsed::NotFinite)
    throw ModelError(where, "not a finite number in column " + column.name, cell.text);
  if (column.kind != ColumnKind::Input) {
    if (parsed == Parsed::NotANumber)
      throw ModelError(where, "not a number in column " + column.name, cell.text);
    return;
  }
  expression = cell.text;
  if (parsed == Parsed::Number) return;
  number = std::numeric_limits<double>::quiet_NaN();
  if (parsed_expressions.count(cell.text)) return;
  try {
    // Only checked here (names, syntax); the runner parses it again for its case.
    num::parse_time_function(model, cell.text);
  } catch (const ModelError& e) {
    // The parser locates at column 1 + the offset within the text it was given.
    const std::size_t offset = static_cast<std::size_t>(std::max(e.where().column, 1) - 1);
    throw ModelError(reader.locate(cell, std::min(offset, cell.text.size())),
                     "column " + column.name + ": " + bare_message(e),
                     e.offending().empty() ? cell.text : e.offending());
  }
  parsed_expressions.insert(cell.text);
}

}  // namespace

CaseTable read_cases_csv(const std::string& path, const model::Model& model) {
  const std::string data = model::read_input_file(path, model::InputKind::Cases);
  CsvReader reader(data, path);
  CaseTable table;
  std::vector<Cell> cells;
  if (!reader.next(cells, table.columns))
    throw ModelError(
        reader.after_end(),
        "no header: a cases file begins with a row of column names; " + std::string(kColumnForms));

  std::map<std::string, int> first_at;  // column name -> its column in the header
  for (const Cell& cell : cells) {
    const SourceLocation where = reader.at(cell.line, cell.column);
    if (cell.text.empty())
      throw ModelError(where, "empty column name; " + std::string(kColumnForms));
    const auto [seen, inserted] = first_at.emplace(cell.text, cell.column);
    if (!inserted)
      throw ModelError(where,
                       "column given twice (first at column " + std::to_string(seen->second) + ")",
                       cell.text);
    table.columns.push_back(case_column(cell.text, model, where));
  }
  const std::size_t width = table.columns.size();
  std::set<std::string> parsed_expressions;

  while (reader.next(cells, table.columns)) {
    const SourceLocation row{path, cells.front().line, 1};
    if (cells.size() < width)
      throw ModelError(reader.at(reader.end_line, reader.end_column),
                       "the row has " + std::to_string(cells.size()) + " cells, the header " +
                           std::to_string(width) + ": no value for column " +
                           table.columns[cells.size()].name,
                       table.columns[cells.size()].name);
    if (cells.size() > width)
      throw ModelError(reader.at(cells[width].line, cells[width].column),
                       "the row has " + std::to_string(cells.size()) + " cells, the header " +
                           std::to_string(width) +
                           (cells[width].text.empty() ? " (a comma after the last cell?)" : ""),
                       cells[width].text);
    if (table.size() == kMaxCases)
      throw ModelError(row, "more than " + std::to_string(kMaxCases) + " cases");
    std::vector<double> numbers(width);
    std::vector<std::string> expressions(width);
    for (std::size_t k = 0; k < width; ++k)
      read_value(reader, cells[k], table.columns[k], model, parsed_expressions, numbers[k],
                 expressions[k]);
    table.numbers.push_back(std::move(numbers));
    table.expressions.push_back(std::move(expressions));
    table.rows.push_back(row);
  }
  if (table.size() == 0)
    throw ModelError(reader.after_end(), "no case: the header is followed by no row");
  return table;
}

// ---------------------------------------------------------------------------------------------
// --grid and --sample

namespace {

struct Spec {
  std::string text;  // as given, for messages
  std::string name;
  std::vector<std::string_view> items;  // the values part split at `separator`, trimmed
};

Spec split_spec(const std::string& text, char separator, const SourceLocation& where,
                const std::string& syntax) {
  Spec spec{text, "", {}};
  const std::size_t eq = text.find('=');
  if (eq != std::string::npos)
    spec.name = std::string(trimmed(std::string_view(text).substr(0, eq)));
  if (spec.name.empty()) throw ModelError(where, "expected " + syntax, text);
  const std::string_view values = std::string_view(text).substr(eq + 1);
  std::size_t begin = 0;
  while (true) {
    const std::size_t end = values.find(separator, begin);
    spec.items.push_back(trimmed(values.substr(begin, end - begin)));
    if (end == std::string_view::npos) break;
    begin = end + 1;
  }
  return spec;
}

double spec_number(std::string_view item, const Spec& spec, const SourceLocation& where) {
  double value = 0.0;
  const Parsed parsed = parse_number(item, value);
  if (item.empty()) throw ModelError(where, "an empty value in " + spec.name + "=...", spec.text);
  if (parsed == Parsed::NotANumber)
    throw ModelError(where, "'" + std::string(item) + "' is not a number", spec.text);
  if (parsed == Parsed::NotFinite)
    throw ModelError(where, "'" + std::string(item) + "' is not a finite number", spec.text);
  return value;
}

// The columns of `specs` (each named once) checked against the model.
std::vector<CaseColumn> spec_columns(const std::vector<Spec>& specs, const model::Model& model,
                                     const SourceLocation& where) {
  std::vector<CaseColumn> columns;
  std::set<std::string> seen;
  for (const Spec& spec : specs) {
    if (!seen.insert(spec.name).second)
      throw ModelError(where, "column " + spec.name + " given twice", spec.text);
    try {
      columns.push_back(case_column(spec.name, model, where));
    } catch (const ModelError& e) {
      throw ModelError(where, bare_message(e), spec.text);
    }
  }
  return columns;
}

// A table of `cases` rows over `columns`, its input columns' expressions the numbers written.
CaseTable filled_table(std::vector<CaseColumn> columns, std::vector<std::vector<double>> numbers,
                       const SourceLocation& where) {
  CaseTable table;
  table.columns = std::move(columns);
  table.expressions.assign(numbers.size(), std::vector<std::string>(table.columns.size()));
  for (std::size_t i = 0; i < numbers.size(); ++i)
    for (std::size_t k = 0; k < table.columns.size(); ++k)
      if (table.columns[k].kind == ColumnKind::Input)
        table.expressions[i][k] = shortest_text(numbers[i][k]);
  table.numbers = std::move(numbers);
  table.rows.assign(table.numbers.size(), where);
  return table;
}

// START + k·STEP up to STOP (a range) or the values written (a list).
std::vector<double> grid_values(const Spec& spec, const SourceLocation& where,
                                const std::string& syntax) {
  std::vector<double> values;
  if (spec.items.size() == 1 && spec.items.front().find(':') != std::string_view::npos) {
    const Spec range = split_spec(spec.text, ':', where, syntax);
    if (range.items.size() != 3)
      throw ModelError(where, "a range is START:STEP:STOP, three numbers", spec.text);
    const double start = spec_number(range.items[0], spec, where);
    const double step = spec_number(range.items[1], spec, where);
    const double stop = spec_number(range.items[2], spec, where);
    if (step == 0.0) throw ModelError(where, "a step of 0", spec.text);
    const double steps = (stop - start) / step;
    const double tolerance = 1e-9;  // of a step: STOP is reached despite rounding in STEP
    if (steps < -tolerance)
      throw ModelError(
          where, "the step goes away from STOP (its sign must be that of STOP - START)", spec.text);
    if (!(steps <= static_cast<double>(kMaxCases)))
      throw ModelError(where, "more than " + std::to_string(kMaxCases) + " values", spec.text);
    const auto count = static_cast<std::size_t>(std::floor(steps + tolerance)) + 1;
    values.reserve(count);
    for (std::size_t k = 0; k < count; ++k) {
      // One rounding (fma), whatever the compiler contracts: the same values on every platform.
      const double value = std::fma(static_cast<double>(k), step, start);
      values.push_back(std::abs(value - stop) <= tolerance * std::abs(step) ? stop : value);
    }
    return values;
  }
  for (const std::string_view item : spec.items) values.push_back(spec_number(item, spec, where));
  return values;
}

}  // namespace

CaseTable grid_cases(const std::vector<std::string>& specs, const model::Model& model) {
  const SourceLocation where{"grid", 0, 0};
  const std::string syntax = "NAME=START:STEP:STOP or NAME=V1,V2,...";
  if (specs.empty()) throw ModelError(where, "no grid: expected " + syntax);
  std::vector<Spec> parsed;
  for (const std::string& text : specs) parsed.push_back(split_spec(text, ',', where, syntax));
  std::vector<CaseColumn> columns = spec_columns(parsed, model, where);
  std::vector<std::vector<double>> axes;
  std::size_t cases = 1;
  for (const Spec& spec : parsed) {
    axes.push_back(grid_values(spec, where, syntax));
    cases *= axes.back().size();  // ≤ 10⁷ · (10⁷ + 1): no overflow
    if (cases > kMaxCases)
      throw ModelError(where, "the grid has more than " + std::to_string(kMaxCases) + " cases",
                       spec.text);
  }

  const std::size_t width = axes.size();
  std::vector<std::vector<double>> numbers(cases, std::vector<double>(width));
  for (std::size_t i = 0; i < cases; ++i) {
    // The last spec varies fastest: i's digits in the mixed radix of the axes' sizes.
    std::size_t rest = i;
    for (std::size_t d = width; d-- > 0;) {
      numbers[i][d] = axes[d][rest % axes[d].size()];
      rest /= axes[d].size();
    }
  }
  return filled_table(std::move(columns), std::move(numbers), where);
}

CaseTable sample_cases(const std::vector<std::string>& specs, std::size_t count, std::uint64_t seed,
                       const model::Model& model) {
  const SourceLocation where{"sample", 0, 0};
  const std::string syntax = "NAME=LOW:HIGH";
  if (count == 0 || count > kMaxCases)
    throw ModelError({"count", 0, 0},
                     "expected a number of cases from 1 to " + std::to_string(kMaxCases),
                     std::to_string(count));
  if (specs.empty()) throw ModelError(where, "no sample: expected " + syntax);
  std::vector<Spec> parsed;
  std::vector<double> low, high, width;
  for (const std::string& text : specs) {
    parsed.push_back(split_spec(text, ':', where, syntax));
    const Spec& spec = parsed.back();
    if (spec.items.size() != 2) throw ModelError(where, "expected " + syntax, text);
    low.push_back(spec_number(spec.items[0], spec, where));
    high.push_back(spec_number(spec.items[1], spec, where));
    if (!(low.back() < high.back())) throw ModelError(where, "LOW must be less than HIGH", text);
    width.push_back(high.back() - low.back());
    if (!std::isfinite(width.back()))
      throw ModelError(where, "HIGH - LOW is beyond the largest number", text);
  }
  std::vector<CaseColumn> columns = spec_columns(parsed, model, where);

  RandomStream random(seed);
  const auto strata = static_cast<double>(count);
  std::vector<std::vector<double>> numbers(count, std::vector<double>(parsed.size()));
  std::vector<std::size_t> stratum(count);
  for (std::size_t d = 0; d < parsed.size(); ++d) {
    // Fisher–Yates: each of the count! orders equally likely.
    std::iota(stratum.begin(), stratum.end(), std::size_t{0});
    for (std::size_t i = count - 1; i > 0; --i) std::swap(stratum[i], stratum[random.below(i + 1)]);
    for (std::size_t k = 0; k < count; ++k) {
      const double x = (static_cast<double>(stratum[k]) + random.uniform()) / strata;
      // One rounding (fma): the same on every platform. Rounding may still reach HIGH when the
      // case is in the top stratum: the largest double below HIGH keeps the range half-open.
      const double value = std::fma(width[d], x, low[d]);
      numbers[k][d] = value < high[d] ? value : std::nextafter(high[d], low[d]);
    }
  }
  return filled_table(std::move(columns), std::move(numbers), where);
}

}  // namespace appell::sweep
