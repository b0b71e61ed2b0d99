// The web assets embedded in the library at build time (cmake/appellReportAssets.cmake): KaTeX,
// its fonts, uPlot and three.js from npm (web/package-lock.json), and the page's own script and
// style sheet (web/report.js, web/report.css).
#pragma once

#include <string_view>
#include <vector>

namespace appell::report::detail {

/// One embedded file: its name ("katex.js", "fonts/KaTeX_Main-Regular.woff2", ...) and its bytes.
struct EmbeddedAsset {
  const char* name;
  const char* begin;
  const char* end;
};

/// Every embedded file (generated source).
const std::vector<EmbeddedAsset>& embedded_assets();

/// The bytes of the embedded file `name`; std::logic_error when there is none (a build defect).
std::string_view asset(std::string_view name);

}  // namespace appell::report::detail
