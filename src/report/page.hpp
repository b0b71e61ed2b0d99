// The pieces every report page shares (html_writer.cpp): the head with the style sheets, the
// status line, the model section, the tail with the data and the embedded scripts, and the
// small formatting helpers. Private to the report module: the rigid page (write_html) and the
// flexible body's page (write_flexible_html) are built from them, so they look and load alike.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "appell/model/model.hpp"
#include "appell/model/values.hpp"

namespace appell::report::detail {

/// Text for markup (io::markup_escape).
std::string escape(std::string_view text);
/// Text placed inside <script>: nothing in it closes the element or opens a comment.
std::string script_safe(std::string_view text, bool every_closing_tag = false);
/// A number kept to 7 significant digits (plots, positions).
double rounded(double x);
/// A number for a table cell (%.6g).
std::string number_text(double x);

struct Table {
  std::vector<std::string> head;
  std::vector<std::vector<std::string>> rows;
};
std::string table_html(const std::string& id, const Table& table);

/// The model: coordinates (with q0, q̇0), parameters (bound values), functions of time, frames,
/// bodies, particles, loads, constraints.
std::string model_section(const model::Model& model, const model::Values& values,
                          const model::BoundValues& bound, const std::vector<double>& q0,
                          const std::vector<double>& qd0);

/// From <!DOCTYPE> to <body>: the title and every style sheet (KaTeX's fonts inlined).
std::string page_head(const std::string& title);
/// "Complete." or the INCOMPLETE box with one line per reason.
std::string page_status(const std::vector<std::string>& problems);
/// The footer, the page's data (id appell-data) and every script, to </html>.
std::string page_tail(const nlohmann::json& data);
/// A plot series {label, values} with the values rounded.
nlohmann::json series(const std::string& label, std::vector<double> values);

}  // namespace appell::report::detail
