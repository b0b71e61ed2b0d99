// Text placed in XML or HTML markup (VTK's .pvd file names, the report's page): the five
// characters with a meaning there replaced by their entities. One helper, so that the writers
// cannot drift apart on what a name such as `O'Brien <tip>` becomes.
#pragma once

#include <string>
#include <string_view>

namespace appell::io {

/// `text` with & < > " ' as &amp; &lt; &gt; &quot; &#39; (the numeric form of the apostrophe:
/// HTML 4 has no &apos;, XML and HTML 5 read both), everything else as it is. Safe in element
/// content and in attribute values quoted either way.
std::string markup_escape(std::string_view text);

}  // namespace appell::io
