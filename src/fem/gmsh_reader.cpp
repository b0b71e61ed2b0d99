// Reader of Gmsh MSH 4.1 ASCII meshes (https://gmsh.info/doc/texinfo/gmsh.html#MSH-file-format).
//
// The file is read whole and scanned token by token; every token remembers its line and column so
// that each complaint points into the .msh file the way model errors point into the model file.
// Counts announced by the file are never trusted for allocation beyond what the file's size could
// hold, so garbage input ends in a located ModelError, not in bad_alloc or a crash.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "appell/fem/mesh.hpp"
#include "appell/model/input_file.hpp"

namespace appell::fem {

namespace {

using model::ModelError;
using model::SourceLocation;

struct Token {
  std::string_view text;  // empty at the end of the file (or of the line, for next_on_line)
  int line = 0;
  int column = 0;
};

bool blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }
bool space(char c) { return blank(c) || c == '\n'; }

// Offending tokens are quoted in messages; garbage (binary) input must not flood them.
std::string shown(std::string_view text) {
  std::string out;
  for (char c : text.substr(0, 40)) out += (c >= 32 && c < 127) ? c : '?';
  if (text.size() > 40) out += "...";
  return out;
}

class Scanner {
 public:
  Scanner(std::string_view text, std::string path) : text_(text), path_(std::move(path)) {}

  const std::string& path() const { return path_; }
  std::size_t size() const { return text_.size(); }

  /// The next whitespace-separated token, across line ends.
  Token next() {
    while (pos_ < text_.size() && space(text_[pos_])) advance();
    return take();
  }

  /// The next token if the current line has one, else an empty token located at the line end.
  Token next_on_line() {
    while (pos_ < text_.size() && blank(text_[pos_])) advance();
    if (pos_ < text_.size() && text_[pos_] == '\n') return {{}, line_, column()};
    return take();
  }

  bool line_has_more() {
    while (pos_ < text_.size() && blank(text_[pos_])) advance();
    return pos_ < text_.size() && text_[pos_] != '\n';
  }

  /// A "double-quoted" string on the current line (names may hold spaces).
  Token quoted(const std::string& context) {
    while (pos_ < text_.size() && blank(text_[pos_])) advance();
    const Token start{{}, line_, column()};
    if (pos_ >= text_.size() || text_[pos_] != '"')
      throw ModelError(location(start), context + ": expected a \"quoted\" name",
                       shown(take_peek()));
    advance();
    const std::size_t begin = pos_;
    while (pos_ < text_.size() && text_[pos_] != '"' && text_[pos_] != '\n') advance();
    if (pos_ >= text_.size() || text_[pos_] != '"')
      throw ModelError(location(start), context + ": the name is not closed by '\"' on its line");
    const std::string_view name = text_.substr(begin, pos_ - begin);
    advance();
    return {name, start.line, start.column};
  }

  /// Just after the last token taken: where a truncated file ran out.
  SourceLocation end_of_last() const { return {path_, last_line_, last_end_column_}; }
  SourceLocation location(const Token& token) const { return {path_, token.line, token.column}; }

 private:
  int column() const { return int(pos_ - line_start_) + 1; }
  void advance() {
    if (text_[pos_] == '\n') {
      ++line_;
      line_start_ = pos_ + 1;
    }
    ++pos_;
  }
  Token take() {
    const Token token{{}, line_, column()};
    const std::size_t begin = pos_;
    while (pos_ < text_.size() && !space(text_[pos_])) ++pos_;
    if (pos_ == begin) return token;
    last_line_ = token.line;
    last_end_column_ = column();
    return {text_.substr(begin, pos_ - begin), token.line, token.column};
  }
  std::string_view take_peek() const {
    std::size_t end = pos_;
    while (end < text_.size() && !space(text_[end])) ++end;
    return text_.substr(pos_, end - pos_);
  }

  std::string_view text_;
  std::string path_;
  std::size_t pos_ = 0;
  std::size_t line_start_ = 0;
  int line_ = 1;
  int last_line_ = 1;
  int last_end_column_ = 1;
};

// Nodes of the lower-dimensional Gmsh element types, which only feed node sets. Types not listed
// are read to the end of their line.
int lower_dimensional_node_count(long long type) {
  switch (type) {
    case 15:
      return 1;  // point
    case 1:
      return 2;  // 2-node line
    case 2:
      return 3;  // 3-node triangle
    case 3:
      return 4;  // 4-node quadrangle
    case 8:
      return 3;  // 3-node line
    case 9:
      return 6;  // 6-node triangle
    case 10:
      return 9;  // 9-node quadrangle
    case 16:
      return 8;  // 8-node quadrangle
    case 20:
      return 9;
    case 21:
      return 10;
    case 22:
      return 12;
    case 23:
    case 24:
      return 15;
    case 25:
      return 21;
    case 26:
      return 4;
    case 27:
      return 5;
    case 28:
      return 6;
    default:
      return -1;
  }
}

// 3-D Gmsh types that appell cannot use; named in the message so the user knows what to change.
const char* volume_type_name(long long type) {
  switch (type) {
    case 6:
      return "6-node prism";
    case 7:
      return "5-node pyramid";
    case 11:
      return "10-node tetrahedron";
    case 12:
      return "27-node hexahedron";
    case 13:
      return "18-node prism";
    case 14:
      return "14-node pyramid";
    case 17:
      return "20-node hexahedron";
    case 18:
      return "15-node prism";
    case 19:
      return "13-node pyramid";
    case 29:
    case 30:
    case 31:
      return "high-order tetrahedron";
    case 92:
    case 93:
      return "high-order hexahedron";
    default:
      return nullptr;
  }
}

// Gmsh tags are positive; a dense table serves tags up to a bound tied to the file's size, a hash
// map the (rare) huge sparse tags, so memory stays proportional to the file.
class NodeIndex {
 public:
  explicit NodeIndex(std::size_t file_size) : dense_limit_(file_size + 1024) {}
  /// False when the tag was already present.
  bool insert(std::uint64_t tag, int index) {
    if (tag < dense_limit_) {
      if (tag >= dense_.size())
        dense_.resize(std::min(dense_limit_, std::max<std::size_t>(tag + 1, 2 * dense_.size())),
                      -1);
      if (dense_[tag] >= 0) return false;
      dense_[tag] = index;
      return true;
    }
    return sparse_.emplace(tag, index).second;
  }
  int find(std::uint64_t tag) const {
    if (tag < dense_.size()) return dense_[tag];
    if (tag < dense_limit_) return -1;
    const auto it = sparse_.find(tag);
    return it == sparse_.end() ? -1 : it->second;
  }

 private:
  std::size_t dense_limit_;
  std::vector<int> dense_;
  std::unordered_map<std::uint64_t, int> sparse_;
};

class GmshReader {
 public:
  GmshReader(std::string_view text, const std::string& path)
      : in_(text, path), nodes_(text.size()) {}

  Mesh read() {
    read_mesh_format();
    Token elements_header{};
    bool seen_physical_names = false, seen_entities = false, seen_nodes = false,
         seen_elements = false;
    const auto once = [&](bool& seen, const Token& header) {
      if (seen)
        fail(header, "the file has a second " + std::string(header.text) + " section", header.text);
      seen = true;
    };
    for (Token header = in_.next(); !header.text.empty(); header = in_.next()) {
      if (header.text == "$PhysicalNames") {
        once(seen_physical_names, header);
        read_physical_names();
      } else if (header.text == "$Entities") {
        once(seen_entities, header);
        read_entities();
      } else if (header.text == "$Nodes") {
        once(seen_nodes, header);
        read_nodes();
      } else if (header.text == "$Elements") {
        once(seen_elements, header);
        if (!seen_nodes) fail(header, "the $Elements section comes before $Nodes", "$Elements");
        elements_header = header;
        read_elements(seen_entities);
      } else if (header.text == "$MeshFormat") {
        fail(header, "the file has a second $MeshFormat section", "$MeshFormat");
      } else if (header.text.size() > 1 && header.text.front() == '$' &&
                 header.text.substr(0, 4) != "$End") {
        skip_section(header);
      } else {
        fail(header,
             "expected a section such as $Nodes or $Elements, found '" + shown(header.text) + "'",
             shown(header.text));
      }
    }
    if (mesh_.elements.empty()) {
      const SourceLocation where =
          seen_elements ? in_.location(elements_header) : SourceLocation{in_.path(), 1, 1};
      throw ModelError(where,
                       "the mesh has no 4-node tetrahedra (type 4) or 8-node hexahedra (type 5): "
                       "appell needs a volume mesh",
                       in_.path());
    }
    name_node_sets();
    mesh_.source = in_.path();
    return std::move(mesh_);
  }

 private:
  [[noreturn]] void fail(const Token& at, const std::string& message,
                         std::string_view offending) const {
    throw ModelError(in_.location(at), message, shown(offending));
  }

  /// The next token, which must exist: `what` is what the section expects there.
  Token expect(const char* what) {
    const Token token = in_.next();
    if (token.text.empty())
      throw ModelError(
          in_.end_of_last(),
          "truncated " + section_ + " section: expected " + what + ", found the end of the file",
          section_);
    return token;
  }

  [[noreturn]] void malformed(const Token& token, const char* what) const {
    fail(token,
         "malformed " + section_ + " section: expected " + what + ", found '" + shown(token.text) +
             "'",
         token.text);
  }

  long long integer(const Token& token, const char* what) const {
    long long value = 0;
    const char* first = token.text.data();
    const char* last = first + token.text.size();
    const auto [end, error] = std::from_chars(first, last, value);
    if (error != std::errc() || end != last) malformed(token, what);
    return value;
  }
  long long read_integer(const char* what) { return integer(expect(what), what); }

  /// A non-negative count; more items than the file has bytes is malformed too (and would
  /// otherwise let a garbage count drive an allocation).
  std::size_t read_count(const char* what) {
    const Token token = expect(what);
    const long long value = integer(token, what);
    if (value < 0 || std::uint64_t(value) > in_.size()) malformed(token, what);
    return std::size_t(value);
  }

  /// The smallest or largest tag of a section: only checked, since the tags themselves are.
  void read_tag_bound(const char* what) {
    const Token token = expect(what);
    if (integer(token, what) < 0) malformed(token, what);
  }

  /// A positive tag (Gmsh numbers nodes and elements from 1).
  std::uint64_t tag(const Token& token, const char* what) const {
    std::uint64_t value = 0;
    const char* first = token.text.data();
    const char* last = first + token.text.size();
    const auto [end, error] = std::from_chars(first, last, value);
    if (error != std::errc() || end != last || value == 0) malformed(token, what);
    return value;
  }

  double read_real(const char* what) {
    const Token token = expect(what);
    double value = 0;
    const char* first = token.text.data();
    const char* last = first + token.text.size();
    const auto [end, error] = std::from_chars(first, last, value);
    if (error != std::errc() || end != last || !std::isfinite(value)) malformed(token, what);
    return value;
  }

  int read_dimension() {
    const Token token = expect("an entity dimension (0 to 3)");
    const long long dim = integer(token, "an entity dimension (0 to 3)");
    if (dim < 0 || dim > 3) malformed(token, "an entity dimension (0 to 3)");
    return int(dim);
  }

  void expect_end(const std::string& end) {
    const Token token = in_.next();
    if (token.text.empty())
      throw ModelError(
          in_.end_of_last(),
          "truncated " + section_ + " section: expected " + end + ", found the end of the file",
          section_);
    if (token.text != end)
      fail(token,
           "malformed " + section_ + " section: expected " + end + ", found '" + shown(token.text) +
               "' (more items than the section announced?)",
           token.text);
  }

  void read_mesh_format() {
    section_ = "$MeshFormat";
    const Token first = in_.next();
    // Not a mesh: nothing of the file is shown, since a model may name any file as its mesh
    // (a key, a password file) and its content is not the user's to see through appell.
    if (first.text != "$MeshFormat")
      throw ModelError(first.text.empty() ? SourceLocation{in_.path(), 1, 1} : in_.location(first),
                       "not a Gmsh mesh file: expected $MeshFormat at its start");
    const Token version = expect("the format version");
    double number = 0;
    const auto [end, error] =
        std::from_chars(version.text.data(), version.text.data() + version.text.size(), number);
    if (error != std::errc() || end != version.text.data() + version.text.size())
      malformed(version, "the format version");
    if (std::abs(number - 4.1) > 1e-9)
      fail(version,
           "only Gmsh MSH 4.1 ASCII is supported, this file is version " + shown(version.text) +
               " (re-export it from Gmsh with Mesh.MshFileVersion = 4.1)",
           version.text);
    const Token file_type = expect("the file type (0 for ASCII)");
    if (file_type.text == "1")
      fail(file_type,
           "only Gmsh MSH 4.1 ASCII is supported, this file is binary (file-type 1; re-export "
           "it with Mesh.Binary = 0)",
           file_type.text);
    if (file_type.text != "0") malformed(file_type, "the file type (0 for ASCII)");
    read_integer("the data size");
    expect_end("$EndMeshFormat");
  }

  void skip_section(const Token& header) {
    const std::string end = "$End" + std::string(header.text.substr(1));
    for (Token token = in_.next(); token.text != end; token = in_.next())
      if (token.text.empty())
        fail(header,
             "the section " + shown(header.text) + " is not closed by " + shown(end) +
                 " before the end of the file",
             header.text);
  }

  void read_physical_names() {
    section_ = "$PhysicalNames";
    const std::size_t count = read_count("the number of physical names");
    for (std::size_t i = 0; i < count; ++i) {
      const int dim = read_dimension();
      const long long physical = read_integer("a physical tag");
      const Token name = in_.quoted("malformed $PhysicalNames section");
      physical_names_[{dim, physical}] = std::string(name.text);
    }
    expect_end("$EndPhysicalNames");
  }

  void read_entities() {
    section_ = "$Entities";
    std::size_t counts[4];
    const char* what[4] = {"the number of points", "the number of curves", "the number of surfaces",
                           "the number of volumes"};
    for (int dim = 0; dim < 4; ++dim) counts[dim] = read_count(what[dim]);
    for (int dim = 0; dim < 4; ++dim)
      for (std::size_t i = 0; i < counts[dim]; ++i) {
        const long long entity = read_integer("an entity tag");
        // A point has its coordinates, the others their bounding box.
        for (int k = 0; k < (dim == 0 ? 3 : 6); ++k) read_real("a coordinate");
        const std::size_t physicals = read_count("the number of physical tags");
        std::vector<long long>& tags = entity_physicals_[{dim, entity}];
        tags.clear();
        for (std::size_t p = 0; p < physicals; ++p) tags.push_back(read_integer("a physical tag"));
        if (dim > 0) {
          const std::size_t bounding = read_count("the number of bounding entities");
          for (std::size_t b = 0; b < bounding; ++b) read_integer("a bounding entity tag");
        }
      }
    expect_end("$EndEntities");
  }

  void read_nodes() {
    section_ = "$Nodes";
    const Token header = expect("the number of node blocks");
    const long long blocks_signed = integer(header, "the number of node blocks");
    if (blocks_signed < 0 || std::uint64_t(blocks_signed) > in_.size())
      malformed(header, "the number of node blocks");
    const std::size_t total = read_count("the number of nodes");
    read_tag_bound("the smallest node tag");
    read_tag_bound("the largest node tag");
    mesh_.nodes.reserve(total);
    std::vector<Token> tags;
    for (long long block = 0; block < blocks_signed; ++block) {
      const int dim = read_dimension();
      read_integer("an entity tag");
      const Token parametric_token = expect("the parametric flag (0 or 1)");
      if (parametric_token.text != "0" && parametric_token.text != "1")
        malformed(parametric_token, "the parametric flag (0 or 1)");
      const int parameters = parametric_token.text == "1" ? dim : 0;
      const std::size_t count = read_count("the number of nodes in the block");
      // Tags come first, then the coordinates in the same order.
      tags.clear();
      for (std::size_t i = 0; i < count; ++i) tags.push_back(expect("a node tag"));
      for (const Token& token : tags) {
        const std::uint64_t node = tag(token, "a node tag (a positive integer)");
        if (mesh_.nodes.size() >= std::size_t(std::numeric_limits<int>::max()))
          fail(token, "too many nodes", token.text);
        if (!nodes_.insert(node, int(mesh_.nodes.size())))
          fail(token, "node tag " + std::string(token.text) + " appears twice in $Nodes",
               token.text);
        Eigen::Vector3d x;
        for (int k = 0; k < 3; ++k) x(k) = read_real("a node coordinate");
        for (int k = 0; k < parameters; ++k) read_real("a parametric coordinate");
        mesh_.nodes.push_back(x);
      }
    }
    if (mesh_.nodes.size() != total)
      fail(header,
           "the $Nodes section announces " + std::to_string(total) + " nodes but its blocks hold " +
               std::to_string(mesh_.nodes.size()),
           std::to_string(total));
    expect_end("$EndNodes");
  }

  // A 10-node tetrahedron's midside nodes must sit near the middle of their edges, in Gmsh's
  // edge order (0-1, 1-2, 2-0, 3-0, 3-2, 3-1): a file written in another convention (VTK's swaps
  // the last two) would otherwise give a valid-looking but wrong element. Curved edges are
  // accepted up to a quarter of the edge's length.
  void check_midside_nodes(const Token& element, const std::vector<int>& nodes,
                           const std::string& description) const {
    static constexpr int kEdges[6][2] = {{0, 1}, {1, 2}, {2, 0}, {3, 0}, {3, 2}, {3, 1}};
    for (int e = 0; e < 6; ++e) {
      const Eigen::Vector3d& a = mesh_.nodes[std::size_t(nodes[std::size_t(kEdges[e][0])])];
      const Eigen::Vector3d& b = mesh_.nodes[std::size_t(nodes[std::size_t(kEdges[e][1])])];
      const Eigen::Vector3d& m = mesh_.nodes[std::size_t(nodes[std::size_t(4 + e)])];
      if ((m - 0.5 * (a + b)).norm() > 0.25 * (b - a).norm())
        fail(element,
             description + ": its node " + std::to_string(5 + e) +
                 " is not near the middle of the edge between its nodes " +
                 std::to_string(kEdges[e][0] + 1) + " and " + std::to_string(kEdges[e][1] + 1) +
                 " (Gmsh orders the midside nodes of type 11 by the edges 1-2, 2-3, 3-1, 4-1, "
                 "4-3, 4-2)",
             element.text);
    }
  }

  void read_elements(bool entities_known) {
    section_ = "$Elements";
    const Token header = expect("the number of element blocks");
    const long long blocks = integer(header, "the number of element blocks");
    if (blocks < 0 || std::uint64_t(blocks) > in_.size())
      malformed(header, "the number of element blocks");
    const std::size_t total = read_count("the number of elements");
    read_tag_bound("the smallest element tag");
    read_tag_bound("the largest element tag");
    std::size_t seen = 0;
    std::vector<int> element_nodes;
    for (long long block = 0; block < blocks; ++block) {
      const int dim = read_dimension();
      const long long entity = read_integer("an entity tag");
      const Token type_token = expect("an element type");
      const long long type = integer(type_token, "an element type");
      const std::size_t count = read_count("the number of elements in the block");
      const bool solid = type == 4 || type == 5 || type == 11;
      if (!solid && dim == 3) {
        const char* name = volume_type_name(type);
        fail(type_token,
             "element type " + std::to_string(type) + (name ? std::string(" (") + name + ")" : "") +
                 " is not supported: mesh volumes with 4-node tetrahedra (type 4), 10-node "
                 "tetrahedra (type 11) or 8-node hexahedra (type 5)",
             type_token.text);
      }
      const int expected = type == 4    ? 4
                           : type == 5  ? 8
                           : type == 11 ? 10
                                        : lower_dimensional_node_count(type);
      // Nodes of the block feed node sets when its entity belongs to a physical group (resolved
      // after reading, since the names may come in any order); when $Entities is yet unknown,
      // every block is kept.
      const auto physical = entity_physicals_.find({dim, entity});
      const bool grouped =
          !entities_known || (physical != entity_physicals_.end() && !physical->second.empty());
      std::vector<int>* group = grouped ? &block_nodes_[{dim, entity}] : nullptr;
      for (std::size_t e = 0; e < count; ++e) {
        const Token element = expect("an element tag");
        const std::uint64_t element_tag = tag(element, "an element tag (a positive integer)");
        element_nodes.clear();
        const auto describe = [&] {
          return "element " + std::string(element.text) + " of type " + std::to_string(type);
        };
        while (expected < 0 || int(element_nodes.size()) < expected) {
          const Token token = in_.next_on_line();
          if (token.text.empty()) {
            if (expected < 0) break;
            fail(token,
                 describe() + " lists " + std::to_string(element_nodes.size()) +
                     " node tags, expected " + std::to_string(expected),
                 element.text);
          }
          const std::uint64_t node = tag(token, "a node tag (a positive integer)");
          const int index = nodes_.find(node);
          if (index < 0)
            fail(token,
                 describe() + " names node tag " + std::string(token.text) +
                     ", which is not in $Nodes (node tag out of range)",
                 token.text);
          element_nodes.push_back(index);
        }
        if (in_.line_has_more()) {
          const Token extra = in_.next_on_line();
          fail(extra, describe() + " lists more than " + std::to_string(expected) + " node tags",
               extra.text);
        }
        if (type == 11) check_midside_nodes(element, element_nodes, describe());
        if (solid)
          mesh_.elements.push_back({type == 4   ? ElementType::Tet4
                                    : type == 5 ? ElementType::Hex8
                                                : ElementType::Tet10,
                                    element_nodes, element_tag, element.line, element.column});
        if (group) group->insert(group->end(), element_nodes.begin(), element_nodes.end());
      }
      seen += count;
    }
    if (seen != total)
      fail(header,
           "the $Elements section announces " + std::to_string(total) +
               " elements but its blocks hold " + std::to_string(seen),
           std::to_string(total));
    expect_end("$EndElements");
  }

  void name_node_sets() {
    // A name may collect several entities (and dimensions); membership flags keep each set
    // sorted and free of repeats in linear time.
    std::map<std::string, std::vector<char>> members;
    for (const auto& [entity, nodes] : block_nodes_) {
      const auto physical = entity_physicals_.find(entity);
      if (physical == entity_physicals_.end()) continue;
      for (long long tag : physical->second) {
        const auto named = physical_names_.find({entity.first, tag});
        const std::string name =
            named != physical_names_.end() ? named->second : "physical_" + std::to_string(tag);
        std::vector<char>& flags = members[name];
        flags.resize(mesh_.nodes.size(), 0);
        for (int n : nodes) flags[std::size_t(n)] = 1;
      }
    }
    for (const auto& [name, flags] : members) {
      std::vector<int>& set = mesh_.node_sets[name];
      for (std::size_t n = 0; n < flags.size(); ++n)
        if (flags[n]) set.push_back(int(n));
    }
  }

  Scanner in_;
  std::string section_;
  NodeIndex nodes_;
  Mesh mesh_;
  std::map<std::pair<int, long long>, std::string> physical_names_;
  std::map<std::pair<int, long long>, std::vector<long long>> entity_physicals_;
  std::map<std::pair<int, long long>, std::vector<int>> block_nodes_;
};

}  // namespace

Mesh read_gmsh(const std::string& path, const model::SourceLocation& referenced_from) {
  const std::string text = model::read_input_file(path, model::InputKind::Mesh, referenced_from);
  return GmshReader(text, path).read();
}

}  // namespace appell::fem
