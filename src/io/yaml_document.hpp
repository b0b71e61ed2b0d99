// The one way appell loads a YAML file (a model, a claims file): its single document, once the
// text is known to be safe to expand.
//
// yaml-cpp turns an alias (*a) into the very node its anchor (&a) names, shared. Two things follow
// that no reader could survive on its own: `x: &n [*n]` is a list that contains itself (every
// walk over it recurses until the stack overflows), and ten levels of `&b [*a, *a, ...]` (the
// "billion laughs", 650 bytes) is a document of 10^10 nodes for anything that walks it. So the text
// is first read as a stream of events (yaml-cpp's Parser: an alias is one event, nothing is
// expanded), which gives the size and the depth every node would have once expanded, and an alias
// to a node still open (its own ancestor) is refused where it is written. Only then is the node
// tree built.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <string>

namespace appell::io::detail {

/// The most nodes a YAML file may hold, counting every alias as a copy of what it names
/// (docs/model-format.md, "Limits of a file"). The largest example model holds about 200;
/// at this budget the slowest nodes to read (parameters) take about 3 s.
inline constexpr std::uint64_t kYamlNodeBudget = 250'000;
/// The deepest a YAML file may nest, aliases expanded: a model nests about 6 levels.
inline constexpr std::size_t kYamlDepthLimit = 64;

/// The first document of `text` (an empty node when the text holds none), `file` naming the file
/// and `what` its kind ("model file") in messages. Throws model::ModelError at FILE:LINE:COLUMN for
/// an alias inside the node it names, a document beyond kYamlNodeBudget nodes or kYamlDepthLimit
/// levels once expanded, a second document, or text the parser cannot move past; and
/// YAML::Exception, as yaml-cpp does, for malformed YAML (the caller locates it at its mark).
YAML::Node load_yaml_document(const std::string& text, const std::string& file,
                              const std::string& what);

}  // namespace appell::io::detail
