// The one check an XML text (a URDF) passes before TinyXML reads it: bounded, and well formed
// as TinyXML reads it.
//
// TinyXML 2.6.2 (the parser of appell's URDF reader and of urdfdom) recurses once per level of
// elements, so 50,000 nested elements overflow the stack; each element looks its document up
// through all its ancestors, so nesting costs time quadratic in the depth (20,000 levels: 8 s);
// and each attribute is compared with every earlier one of its element (100,000 attributes on one
// link: 46 s). So the text is first read here, once, in time linear in its length and with no
// recursion, the way TinyXML will read it (the same tokens, the same numeric character references
// that run to the next ';' wherever it is, the same end of the document), and refused where it
// goes beyond a limit or where TinyXML would fail, before any tree is built. Reading it any other
// way would not do: a scan that took "&#" for two characters would count elements that TinyXML
// skips, and skip elements that TinyXML nests.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace appell::io::detail {

/// The deepest an XML file may nest elements (docs/urdf.md, "Limits of a file"): a URDF nests
/// 5 levels (robot, link, visual, geometry, mesh), a Gazebo extension in it about 8.
inline constexpr std::size_t kXmlDepthLimit = 64;
/// The most nodes an XML file may hold: elements, attributes, text, comments and other markup
/// together. The example URDFs hold at most about 1,000 (simple_humanoid.urdf: 339 elements,
/// 634 attributes).
inline constexpr std::size_t kXmlNodeBudget = 250'000;
/// The most attributes one element may have: a URDF element has at most 6 (<inertia>).
inline constexpr std::size_t kXmlAttributeLimit = 64;

/// Reads `text` as TinyXML does (up to its first NUL byte) and throws model::ModelError at
/// FILE:LINE:COLUMN (columns counted as TinyXML counts them: characters, tabs to the next
/// multiple of 4) for an element nested deeper than kXmlDepthLimit, a document of more than
/// kXmlNodeBudget nodes, an element with more than kXmlAttributeLimit attributes or with an
/// attribute given twice, and XML that TinyXML cannot read (a mismatched or missing end tag, an
/// unterminated comment, CDATA section or attribute value, a character reference without its
/// ';' ...), naming the element or attribute. `file` names the file and `what` its kind ("URDF
/// file") in messages. Text that TinyXML reads as no document at all (empty, or not starting
/// with '<') is left for it to report.
void check_xml_text(std::string_view text, const std::string& file, const std::string& what);

}  // namespace appell::io::detail
