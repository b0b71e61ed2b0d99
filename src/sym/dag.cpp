#include "appell/sym/dag.hpp"

#include <cstdint>
#include <unordered_set>
#include <vector>

#include "appell/sym/canonical_order.hpp"

namespace appell::sym {

std::size_t dag_size(const GiNaC::exvector& roots) {
  // Nodes are walked once each by address and counted once each by structure: which of two equal
  // subexpressions GiNaC shares depends on its address-seeded term order, the structure does not.
  CanonicalOrder order;  // keeps every visited node alive (a temporary's address is not reused)
  std::unordered_set<const void*> seen;
  std::unordered_set<std::uint64_t> structures;
  std::vector<GiNaC::ex> stack(roots.begin(), roots.end());
  while (!stack.empty()) {
    GiNaC::ex e = stack.back();
    stack.pop_back();
    if (!seen.insert(node_key(e)).second) continue;
    // -x hashes as x: one node. A coefficient ±1 is where GiNaC left a sign, not a node.
    const bool unit =
        GiNaC::is_a<GiNaC::numeric>(e) && GiNaC::abs(GiNaC::ex_to<GiNaC::numeric>(e)) == 1;
    if (!unit) structures.insert(order.hash(e));
    for (std::size_t i = 0; i < e.nops(); ++i) stack.push_back(e.op(i));
  }
  return structures.size();
}

namespace {
// GiNaC's map_function protocol: ex::map calls us on each operand and rebuilds the node.
struct MapAdapter : GiNaC::map_function {
  std::function<GiNaC::ex(const GiNaC::ex&)> f;
  GiNaC::ex operator()(const GiNaC::ex& e) override { return f(e); }
};
}  // namespace

GiNaC::ex MemoisedMap::operator()(const GiNaC::ex& e) {
  const void* key = node_key(e);
  if (auto it = cache_.find(key); it != cache_.end()) return it->second.result;
  GiNaC::ex result;
  if (!rule_(e, result)) {
    if (e.nops() == 0) {
      result = e;
    } else {
      MapAdapter adapter;
      adapter.f = [this](const GiNaC::ex& child) { return (*this)(child); };
      result = e.map(adapter);
    }
  }
  cache_.emplace(key, Entry{e, result});
  return result;
}

GiNaC::ex substitute(const GiNaC::ex& e, const GiNaC::exmap& map) {
  MemoisedMap m([&](const GiNaC::ex& node, GiNaC::ex& out) {
    if (!GiNaC::is_a<GiNaC::symbol>(node)) return false;
    auto it = map.find(node);
    out = it == map.end() ? node : it->second;
    return true;
  });
  return m(e);
}

GiNaC::matrix substitute(const GiNaC::matrix& mat, const GiNaC::exmap& map) {
  MemoisedMap m([&](const GiNaC::ex& node, GiNaC::ex& out) {
    if (!GiNaC::is_a<GiNaC::symbol>(node)) return false;
    auto it = map.find(node);
    out = it == map.end() ? node : it->second;
    return true;
  });
  GiNaC::matrix r(mat.rows(), mat.cols());
  for (unsigned i = 0; i < mat.rows(); ++i)
    for (unsigned j = 0; j < mat.cols(); ++j) r(i, j) = m(mat(i, j));
  return r;
}

}  // namespace appell::sym
