#include "appell/sym/differentiator.hpp"

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
  // Differentiate the same function of fresh symbols, then put the arguments back.
  GiNaC::exvector fresh;
  GiNaC::exmap back;
  for (std::size_t k = 0; k < f.nops(); ++k) {
    GiNaC::symbol s;
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
  if (auto it = cache.find(key); it != cache.end()) return it->second.result;
  ++derivative_nodes_;

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
  cache.emplace(key, Entry{e, result});
  return result;
}

}  // namespace appell::sym
