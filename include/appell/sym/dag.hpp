// Expressions as shared DAGs.
//
// Kinematic chains build expressions whose tree form is exponential in the number of links while
// the number of distinct nodes stays small (DESIGN.md, "Scale"). GiNaC's own diff(), subs() and
// expand() walk the tree, so every traversal appell does goes through these memoised helpers,
// which visit each shared node once.
#pragma once

#include <ginac/ginac.h>

#include <cstddef>
#include <functional>
#include <unordered_map>

namespace appell::sym {

/// Identity of a GiNaC node (two ex that share a node have the same key). Keep the node alive
/// while its key is in use: op(i) of a product may return a temporary whose address is reused.
inline const void* node_key(const GiNaC::ex& e) { return &GiNaC::ex_to<GiNaC::basic>(e); }

/// Number of distinct nodes of the DAGs of all given expressions.
std::size_t dag_size(const GiNaC::exvector& roots);
inline std::size_t dag_size(const GiNaC::ex& e) { return dag_size(GiNaC::exvector{e}); }

/// Rebuilds `e` bottom-up, visiting each shared node once. `leaf` is applied to every node first:
/// if it returns a value, that value replaces the node (and its children are not visited).
class MemoisedMap {
 public:
  using Rule = std::function<bool(const GiNaC::ex& node, GiNaC::ex& replacement)>;
  explicit MemoisedMap(Rule rule) : rule_(std::move(rule)) {}
  GiNaC::ex operator()(const GiNaC::ex& e);

 private:
  struct Entry {
    GiNaC::ex original;  // keeps the key's node alive
    GiNaC::ex result;
  };
  Rule rule_;
  std::unordered_map<const void*, Entry> cache_;
};

/// Substitutes symbols (keys of `map` must be symbols) without walking shared nodes twice.
GiNaC::ex substitute(const GiNaC::ex& e, const GiNaC::exmap& map);
GiNaC::matrix substitute(const GiNaC::matrix& m, const GiNaC::exmap& map);

}  // namespace appell::sym
