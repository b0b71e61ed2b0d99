#include "appell/sym/differentiator.hpp"

#include <functional>
#include <map>

#include "appell/sym/cancellation.hpp"
#include "appell/sym/dag.hpp"

namespace appell::sym {

using GiNaC::ex;

Differentiator::Differentiator(std::shared_ptr<TimeFunctions> functions)
    : functions_(std::move(functions)) {}

ex Differentiator::partial(const ex& e, const GiNaC::symbol& x) {
  ++differentiations_;
  return derive(e, partial_caches_[x], &x);
}

GiNaC::matrix Differentiator::partial(const GiNaC::matrix& m, const GiNaC::symbol& x) {
  GiNaC::matrix r(m.rows(), m.cols());
  for (unsigned i = 0; i < m.rows(); ++i)
    for (unsigned j = 0; j < m.cols(); ++j) r(i, j) = partial(m(i, j), x);
  return r;
}

ex Differentiator::time_derivative(const ex& e) {
  ++differentiations_;
  return derive(e, time_cache_, nullptr);
}

GiNaC::matrix Differentiator::time_derivative(const GiNaC::matrix& m) {
  GiNaC::matrix r(m.rows(), m.cols());
  for (unsigned i = 0; i < m.rows(); ++i)
    for (unsigned j = 0; j < m.cols(); ++j) r(i, j) = time_derivative(m(i, j));
  return r;
}

ex Differentiator::leaf_derivative(const ex& e, const GiNaC::symbol* var) {
  if (!GiNaC::is_a<GiNaC::symbol>(e)) return 0;  // numbers and constants
  const auto& s = GiNaC::ex_to<GiNaC::symbol>(e);
  if (var) return s.is_equal(*var) ? ex(1) : ex(0);
  if (s.is_equal(functions_->time())) return 1;
  if (auto which = functions_->lookup(s))
    return functions_->derivative(which->function, which->order + 1);
  return 0;  // parameters are constant
}

ex Differentiator::function_partial(const GiNaC::function& f, std::size_t i) {
  // Differentiate the same function of fresh symbols, then put the arguments back. Real
  // symbols, as every quantity of a model is: GiNaC differentiates abs(x) of a complex x into
  // (x + conjugate(x))/(2 abs(x)), and conjugate has no numeric evaluation (issue 39: abs(q) in
  // a position was "internal error: cannot evaluate the function conjugate").
  GiNaC::exvector fresh;
  GiNaC::exmap back;
  for (std::size_t k = 0; k < f.nops(); ++k) {
    GiNaC::realsymbol s;
    fresh.push_back(s);
    back[s] = f.op(k);
  }
  ex generic = GiNaC::function(f.get_serial(), fresh);
  ex d = generic.diff(GiNaC::ex_to<GiNaC::symbol>(fresh[i]));
  return d.subs(back);
}

ex Differentiator::derive(const ex& e, Cache& cache, const GiNaC::symbol* var) {
  if (e.nops() == 0) return leaf_derivative(e, var);
  const void* key = node_key(e);
  if (auto it = cache.nodes.find(key); it != cache.nodes.end()) return it->second.result;
  if (!order_.is_leaf(e) && cache.counted.insert(order_.hash(e)).second) ++derivative_nodes_;
  poll_cancellation();

  ex result = 0;
  if (GiNaC::is_a<GiNaC::add>(e)) {
    GiNaC::exvector terms;
    for (std::size_t i = 0; i < e.nops(); ++i) {
      ex d = derive(e.op(i), cache, var);
      if (!d.is_zero()) terms.push_back(d);
    }
    result = GiNaC::add(terms);
  } else if (GiNaC::is_a<GiNaC::mul>(e)) {
    const std::size_t n = e.nops();
    GiNaC::exvector terms;
    for (std::size_t i = 0; i < n; ++i) {
      ex d = derive(e.op(i), cache, var);
      if (d.is_zero()) continue;
      GiNaC::exvector factors;
      factors.reserve(n);
      for (std::size_t k = 0; k < n; ++k) factors.push_back(k == i ? d : e.op(k));
      terms.push_back(GiNaC::mul(factors));
    }
    result = GiNaC::add(terms);
  } else if (GiNaC::is_a<GiNaC::power>(e)) {
    const ex base = e.op(0), exponent = e.op(1);
    const ex db = derive(base, cache, var);
    const ex de = GiNaC::is_a<GiNaC::numeric>(exponent) ? ex(0) : derive(exponent, cache, var);
    if (de.is_zero()) {
      result = db.is_zero() ? ex(0) : exponent * GiNaC::pow(base, exponent - 1) * db;
    } else {
      result = e * (de * GiNaC::log(base) + exponent * db / base);
    }
  } else if (GiNaC::is_a<GiNaC::function>(e)) {
    const auto& f = GiNaC::ex_to<GiNaC::function>(e);
    GiNaC::exvector terms;
    for (std::size_t i = 0; i < f.nops(); ++i) {
      ex d = derive(f.op(i), cache, var);
      if (!d.is_zero()) terms.push_back(function_partial(f, i) * d);
    }
    result = GiNaC::add(terms);
  } else {
    // Anything else (matrices, relations) never reaches here from a model; GiNaC knows best.
    if (var) {
      result = e.diff(*var);
    } else {
      throw std::logic_error("time derivative of an unsupported expression kind");
    }
  }
  cache.nodes.emplace(key, Entry{e, result});
  return result;
}

namespace {

// A node split as rest + Σ_k gradient[k]·v_k to first order: rest = node|v=0, gradient = ∂/∂v.
struct LinearParts {
  ex node;  // keeps the key alive
  ex rest;
  std::map<std::size_t, ex> gradient;
};

class LinearSplitter {
 public:
  LinearSplitter(const std::vector<GiNaC::symbol>& v,
                 std::function<ex(const GiNaC::function&, std::size_t)> partial,
                 CanonicalOrder& order)
      : partial_(std::move(partial)), order_(order) {
    for (std::size_t k = 0; k < v.size(); ++k) index_.emplace(v[k], k);
  }
  std::size_t visited = 0;

  const LinearParts& split(const ex& e) {
    const void* key = node_key(e);
    if (auto it = cache_.find(key); it != cache_.end()) return it->second;
    LinearParts parts{e, e, {}};
    if (e.nops() == 0) {
      if (auto it = index_.find(e); it != index_.end()) {
        parts.rest = 0;
        parts.gradient[it->second] = 1;
      }
    } else {
      if (!order_.is_leaf(e) && counted_.insert(order_.hash(e)).second)
        ++visited;  // by structure: the same every run
      poll_cancellation();
      combine(e, parts);
    }
    return cache_.emplace(key, std::move(parts)).first->second;
  }

 private:
  void combine(const ex& e, LinearParts& parts) {
    std::vector<const LinearParts*> children;
    bool depends = false;
    for (std::size_t i = 0; i < e.nops(); ++i) {
      children.push_back(&split(e.op(i)));
      depends =
          depends || !children.back()->gradient.empty() || !children.back()->rest.is_equal(e.op(i));
    }
    if (!depends) return;  // the node itself, untouched: no rebuild, no comparisons
    if (GiNaC::is_a<GiNaC::add>(e)) {
      GiNaC::exvector rests;
      std::map<std::size_t, GiNaC::exvector> terms;
      for (const auto* c : children) {
        rests.push_back(c->rest);
        for (const auto& [k, g] : c->gradient) terms[k].push_back(g);
      }
      parts.rest = GiNaC::add(rests);
      for (auto& [k, t] : terms) parts.gradient[k] = GiNaC::add(t);
    } else if (GiNaC::is_a<GiNaC::mul>(e)) {
      GiNaC::exvector rests;
      std::map<std::size_t, GiNaC::exvector> terms;
      for (std::size_t i = 0; i < children.size(); ++i) {
        rests.push_back(children[i]->rest);
        for (const auto& [k, g] : children[i]->gradient) {
          GiNaC::exvector factors;
          for (std::size_t j = 0; j < children.size(); ++j) factors.push_back(j == i ? g : e.op(j));
          terms[k].push_back(GiNaC::mul(factors));
        }
      }
      parts.rest = GiNaC::mul(rests);
      for (auto& [k, t] : terms) parts.gradient[k] = GiNaC::add(t);
    } else if (GiNaC::is_a<GiNaC::power>(e)) {
      const LinearParts& base = *children[0];
      const LinearParts& exponent = *children[1];
      if (!exponent.gradient.empty())
        throw std::logic_error("split_linear: a variable in an exponent");
      parts.rest = GiNaC::pow(base.rest, exponent.rest);
      for (const auto& [k, g] : base.gradient)
        parts.gradient[k] = e.op(1) * GiNaC::pow(e.op(0), e.op(1) - 1) * g;
    } else if (GiNaC::is_a<GiNaC::function>(e)) {
      const auto& f = GiNaC::ex_to<GiNaC::function>(e);
      GiNaC::exvector rests;
      std::map<std::size_t, GiNaC::exvector> terms;
      for (std::size_t i = 0; i < children.size(); ++i) {
        rests.push_back(children[i]->rest);
        if (children[i]->gradient.empty()) continue;
        const ex outer = partial_(f, i);
        for (const auto& [k, g] : children[i]->gradient) terms[k].push_back(outer * g);
      }
      parts.rest = GiNaC::function(f.get_serial(), rests);
      for (auto& [k, t] : terms) parts.gradient[k] = GiNaC::add(t);
    } else {
      throw std::logic_error("split_linear: unsupported expression kind");
    }
  }

  std::function<ex(const GiNaC::function&, std::size_t)> partial_;
  std::map<ex, std::size_t, GiNaC::ex_is_less> index_;
  std::unordered_map<const void*, LinearParts> cache_;
  CanonicalOrder& order_;
  std::unordered_set<std::uint64_t> counted_;
};

}  // namespace

void Differentiator::split_linear(const GiNaC::exvector& e, const std::vector<GiNaC::symbol>& v,
                                  GiNaC::matrix& coefficients, GiNaC::exvector& remainders) {
  LinearSplitter splitter(
      v, [this](const GiNaC::function& f, std::size_t i) { return function_partial(f, i); },
      order_);
  coefficients = GiNaC::matrix(static_cast<unsigned>(e.size()), static_cast<unsigned>(v.size()));
  remainders.clear();
  for (std::size_t j = 0; j < e.size(); ++j) {
    const LinearParts& parts = splitter.split(e[j]);
    remainders.push_back(parts.rest);
    for (const auto& [k, g] : parts.gradient)
      coefficients(static_cast<unsigned>(j), static_cast<unsigned>(k)) = g;
  }
  differentiations_ += e.size() * v.size();
  derivative_nodes_ += splitter.visited;
}

}  // namespace appell::sym
