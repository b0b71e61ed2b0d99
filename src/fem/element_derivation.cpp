#include "appell/fem/element_derivation.hpp"

#include <array>
#include <chrono>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <utility>
#include <variant>

#include "appell/sym/dag.hpp"
#include "appell/sym/differentiator.hpp"

namespace appell::fem {

using GiNaC::ex;
using GiNaC::matrix;

namespace {

// ---------------------------------------------------------------------------------------------
// Polynomials in the element's local coordinates (ξ, η, ζ) ∈ [0, 1]³ with symbolic coefficients.
// Integrating over the element needs only the monomials; the coefficients (sums of δ, ω, v_O ...)
// stay unexpanded, which keeps the energies small DAGs instead of thousands of expanded terms.

using Exponent = std::array<int, 3>;

class Poly {
 public:
  Poly() = default;
  explicit Poly(const ex& constant) { add_term({0, 0, 0}, constant); }
  static Poly monomial(const Exponent& e, const ex& c) {
    Poly p;
    p.add_term(e, c);
    return p;
  }

  void add_term(const Exponent& e, const ex& c) {
    if (!c.is_zero()) terms_[e].push_back(c);
  }
  void add(const Poly& other, const ex& factor = 1) {
    for (const auto& [e, cs] : other.terms_)
      for (const auto& c : cs) add_term(e, factor * c);
  }
  /// The coefficients, each one GiNaC sum (made once, so that every use shares the node).
  std::map<Exponent, ex> coefficients() const {
    std::map<Exponent, ex> out;
    for (const auto& [e, cs] : terms_) {
      ex c = GiNaC::add(cs);
      if (!c.is_zero()) out.emplace(e, c);
    }
    return out;
  }
  /// d/d(local coordinate k).
  Poly derivative(int k) const {
    Poly d;
    for (const auto& [e, cs] : terms_) {
      if (e[std::size_t(k)] == 0) continue;
      Exponent lower = e;
      --lower[std::size_t(k)];
      for (const auto& c : cs) d.add_term(lower, e[std::size_t(k)] * c);
    }
    return d;
  }
  /// Collapsed: each coefficient one node (used before a polynomial is shared).
  Poly collapsed() const {
    Poly p;
    for (const auto& [e, c] : coefficients()) p.add_term(e, c);
    return p;
  }
  bool empty() const { return terms_.empty(); }

 private:
  std::map<Exponent, GiNaC::exvector> terms_;
};

using PolyVector = std::array<Poly, 3>;

/// ∫ ξ^a η^b ζ^c over the unit cube.
GiNaC::numeric monomial_integral(const Exponent& e) {
  return GiNaC::numeric(1) / ((e[0] + 1) * (e[1] + 1) * (e[2] + 1));
}

Exponent operator+(const Exponent& a, const Exponent& b) {
  return {a[0] + b[0], a[1] + b[1], a[2] + b[2]};
}

/// ∫ P·Q over the unit cube for polynomial vectors (exact, monomial by monomial).
ex integrate_dot(const PolyVector& p, const PolyVector& q) {
  GiNaC::exvector terms;
  for (std::size_t i = 0; i < 3; ++i) {
    const auto a = p[i].coefficients();
    const auto b = q[i].coefficients();
    for (const auto& [ea, ca] : a)
      for (const auto& [eb, cb] : b) terms.push_back(monomial_integral(ea + eb) * ca * cb);
  }
  return GiNaC::add(terms);
}

/// ω × P for a vector of symbols ω constant over the element.
PolyVector cross(const std::array<ex, 3>& w, const PolyVector& p) {
  PolyVector r;
  for (std::size_t i = 0; i < 3; ++i) {
    const std::size_t j = (i + 1) % 3, k = (i + 2) % 3;
    r[i].add(p[k], w[j]);
    r[i].add(p[j], -w[k]);
  }
  for (auto& c : r) c = c.collapsed();
  return r;
}

PolyVector sum(std::initializer_list<std::pair<const PolyVector*, ex>> parts) {
  PolyVector r;
  for (const auto& [p, factor] : parts)
    for (std::size_t i = 0; i < 3; ++i) r[i].add((*p)[i], factor);
  for (auto& c : r) c = c.collapsed();
  return r;
}

PolyVector constant_vector(const std::array<ex, 3>& c) {
  return {Poly(c[0]), Poly(c[1]), Poly(c[2])};
}

// ---------------------------------------------------------------------------------------------
// One element of the chain: its displacement field and its strains, in terms of chain dofs.

struct ShapeTerm {
  std::size_t dof;  // chain dof index
  Poly shape;       // its shape function in this component
};

struct ElementField {
  PolyVector position;                               // undeformed x, local coordinates
  std::array<std::vector<ShapeTerm>, 3> components;  // displacement u_i = Σ shape·δ
  // Strains ε_a = Σ B_a,dof δ_dof and the elastic energy density ½ εᵀDε.
  std::vector<std::vector<ShapeTerm>> strains;
  matrix elasticity;
  ex measure;  // ∫ dV = measure ∫ dξ dη dζ (the Jacobian of the straight element)
  ex density_measure;
};

/// p, ṗ or p̈ of the element (order 0, 1, 2 of δ); the position is added at order 0.
PolyVector displacement(const ElementChain& chain, const ElementField& f, int order) {
  PolyVector r;
  const auto& symbols = order == 0 ? chain.dofs : (order == 1 ? chain.rates : chain.accelerations);
  for (std::size_t i = 0; i < 3; ++i) {
    if (order == 0) r[i].add(f.position[i]);
    for (const auto& t : f.components[i]) r[i].add(t.shape, symbols[t.dof]);
    r[i] = r[i].collapsed();
  }
  return r;
}

Poly linear(int node_side) {  // 1 − ξ for side 0, ξ for side 1
  Poly p;
  if (node_side == 0) {
    p.add_term({0, 0, 0}, 1);
    p.add_term({1, 0, 0}, -1);
  } else {
    p.add_term({1, 0, 0}, 1);
  }
  return p;
}

Poly cubic(int c0, int c1, int c2, int c3, const ex& scale) {
  Poly p;
  const int c[4] = {c0, c1, c2, c3};
  for (int k = 0; k < 4; ++k)
    if (c[k] != 0) p.add_term({k, 0, 0}, c[k] * scale);
  return p;
}

std::vector<ShapeTerm> derivative_terms(const std::vector<ShapeTerm>& terms, int k,
                                        const ex& factor, int times = 1) {
  std::vector<ShapeTerm> out;
  for (const auto& t : terms) {
    Poly d = t.shape;
    for (int n = 0; n < times; ++n) d = d.derivative(k);
    if (d.empty()) continue;
    Poly scaled;
    scaled.add(d, factor);
    out.push_back({t.dof, scaled.collapsed()});
  }
  return out;
}

ElementField line_element(const ElementChain& chain, int e) {
  const ex L = chain.parameter("L"), E = chain.parameter("E"), rho = chain.parameter("rho");
  const ex A = chain.parameter("A");
  const std::size_t dpn = std::size_t(chain.dofs_per_node);
  const std::size_t a = std::size_t(e) * dpn, b = a + dpn;  // first dofs of the two nodes
  ElementField f;
  f.position[0].add_term({0, 0, 0}, e * L);
  f.position[0].add_term({1, 0, 0}, L);
  f.measure = L;
  f.density_measure = rho * A * L;
  // Axial: linear in u on every kind.
  f.components[0] = {{a, linear(0)}, {b, linear(1)}};
  std::vector<ex> moduli;
  f.strains.push_back(derivative_terms(f.components[0], 0, 1 / L));
  moduli.push_back(E * A);
  if (chain.kind == ElementKind::Bar) {
    f.components[1] = {{a + 1, linear(0)}, {b + 1, linear(1)}};
    f.components[2] = {{a + 2, linear(0)}, {b + 2, linear(1)}};
  } else {
    // Hermite: v = H1 v_a + L H2 θz_a + H3 v_b + L H4 θz_b (θz = v'), w the same with θy = −w'.
    const ex Iz = chain.parameter("Iz");
    const bool planar = chain.kind == ElementKind::Beam2D;
    const std::size_t rz = planar ? 2 : 5;
    auto hermite = [&](std::size_t value, std::size_t rotation, const ex& sign) {
      return std::vector<ShapeTerm>{{a + value, cubic(1, 0, -3, 2, 1)},
                                    {a + rotation, cubic(0, 1, -2, 1, sign * L)},
                                    {b + value, cubic(0, 0, 3, -2, 1)},
                                    {b + rotation, cubic(0, 0, -1, 1, sign * L)}};
    };
    f.components[1] = hermite(1, rz, 1);
    f.strains.push_back(derivative_terms(f.components[1], 0, 1 / (L * L), 2));
    moduli.push_back(E * Iz);
    if (!planar) {
      const ex Iy = chain.parameter("Iy"), J = chain.parameter("J"), G = chain.parameter("G");
      f.components[2] = hermite(2, 4, -1);
      f.strains.push_back(derivative_terms(f.components[2], 0, 1 / (L * L), 2));
      moduli.push_back(E * Iy);
      // Torsion: θx linear, twist rate θx'.
      f.strains.push_back(derivative_terms({{a + 3, linear(0)}, {b + 3, linear(1)}}, 0, 1 / L));
      moduli.push_back(G * J);
    }
  }
  f.elasticity = matrix(unsigned(moduli.size()), unsigned(moduli.size()));
  for (std::size_t i = 0; i < moduli.size(); ++i)
    f.elasticity(unsigned(i), unsigned(i)) = moduli[i];
  return f;
}

ElementField hex_element(const ElementChain& chain, int e) {
  const ex L = chain.parameter("L"), b = chain.parameter("b"), h = chain.parameter("h");
  const ex E = chain.parameter("E"), nu = chain.parameter("nu"), rho = chain.parameter("rho");
  ElementField f;
  f.position[0].add_term({0, 0, 0}, e * L);
  f.position[0].add_term({1, 0, 0}, L);
  f.position[1].add_term({0, 0, 0}, -b / 2);
  f.position[1].add_term({0, 1, 0}, b);
  f.position[2].add_term({0, 0, 0}, -h / 2);
  f.position[2].add_term({0, 0, 1}, h);
  f.measure = L * b * h;
  f.density_measure = rho * L * b * h;
  // Gmsh order: the face ζ = 0 counter-clockwise from (0,0,0), then the face ζ = 1.
  static const int corner[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                                   {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
  // Chain nodes: 4 per cross-section plane, plane k at x = kL, corner (η, ζ) numbered
  // (0,0), (1,0), (1,1), (0,1).
  auto section_corner = [](int eta, int zeta) { return zeta == 0 ? eta : 3 - eta; };
  for (int n = 0; n < 8; ++n) {
    Poly shape(1);
    for (int k = 0; k < 3; ++k) {
      Poly factor;
      Exponent one{0, 0, 0};
      one[std::size_t(k)] = 1;
      if (corner[n][k] == 0) {
        factor.add_term({0, 0, 0}, 1);
        factor.add_term(one, -1);
      } else {
        factor.add_term(one, 1);
      }
      // Multiply the running product by the linear factor.
      Poly product;
      for (const auto& [ea, ca] : shape.coefficients())
        for (const auto& [eb, cb] : factor.coefficients()) product.add_term(ea + eb, ca * cb);
      shape = product.collapsed();
    }
    const int node = 4 * (e + corner[n][0]) + section_corner(corner[n][1], corner[n][2]);
    for (std::size_t i = 0; i < 3; ++i)
      f.components[i].push_back({std::size_t(node) * 3 + i, shape});
  }
  // Engineering strains (xx, yy, zz, xy, yz, zx) and isotropic D.
  const ex scale[3] = {1 / L, 1 / b, 1 / h};
  auto d = [&](std::size_t comp, int k) {
    return derivative_terms(f.components[comp], k, scale[k]);
  };
  auto join = [](std::vector<ShapeTerm> x, const std::vector<ShapeTerm>& y) {
    x.insert(x.end(), y.begin(), y.end());
    return x;
  };
  f.strains = {d(0, 0),
               d(1, 1),
               d(2, 2),
               join(d(0, 1), d(1, 0)),
               join(d(1, 2), d(2, 1)),
               join(d(2, 0), d(0, 2))};
  const ex lambda = E * nu / ((1 + nu) * (1 - 2 * nu)), mu = E / (2 * (1 + nu));
  f.elasticity = matrix(6, 6);
  for (unsigned i = 0; i < 3; ++i) {
    for (unsigned j = 0; j < 3; ++j) f.elasticity(i, j) = lambda + (i == j ? 2 * mu : ex(0));
    f.elasticity(i + 3, i + 3) = mu;
  }
  return f;
}

ElementField element_field(const ElementChain& chain, int e) {
  return chain.kind == ElementKind::Hex8 ? hex_element(chain, e) : line_element(chain, e);
}

/// k = ∫ BᵀDB dV of the element, added into the chain matrix.
void add_stiffness(const ElementField& f, matrix& k) {
  for (std::size_t a = 0; a < f.strains.size(); ++a)
    for (std::size_t b = 0; b < f.strains.size(); ++b) {
      const ex dab = f.elasticity(unsigned(a), unsigned(b));
      if (dab.is_zero()) continue;
      for (const auto& ta : f.strains[a])
        for (const auto& tb : f.strains[b]) {
          ex integral = 0;
          for (const auto& [ea, ca] : ta.shape.coefficients())
            for (const auto& [eb, cb] : tb.shape.coefficients())
              integral += monomial_integral(ea + eb) * ca * cb;
          const unsigned i = unsigned(ta.dof), j = unsigned(tb.dof);
          k(i, j) = k(i, j) + f.measure * dab * integral;
        }
    }
}

std::array<ex, 3> as_array(const GiNaC::symbol (&s)[3]) { return {s[0], s[1], s[2]}; }

double since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

const char* kind_name(ElementKind kind) {
  switch (kind) {
    case ElementKind::Bar:
      return "bar";
    case ElementKind::Beam2D:
      return "beam2d";
    case ElementKind::Beam3D:
      return "beam3d";
    case ElementKind::Hex8:
      return "hex8";
  }
  return "?";
}

const char* route_name(Route route) {
  return route == Route::Lagrange ? "lagrange" : "gibbs-appell";
}

std::optional<ElementKind> derivation_kind(ElementType type) {
  switch (type) {
    case ElementType::Hex8:
      return ElementKind::Hex8;
    case ElementType::Beam3D:
      return ElementKind::Beam3D;
    case ElementType::Beam2D:
      return ElementKind::Beam2D;
    case ElementType::Tet4:
    case ElementType::Tet10:
      return std::nullopt;
  }
  return std::nullopt;
}

ElementKind element_kind_of(const model::FlexibleBody& body) {
  if (const auto* beam = std::get_if<model::BeamMeshSpec>(&body.mesh))
    return beam->planar ? ElementKind::Beam2D : ElementKind::Beam3D;
  return ElementKind::Hex8;  // a box, or a Gmsh mesh of solids
}

std::optional<ElementKind> parse_element_kind(const std::string& name) {
  for (auto kind : {ElementKind::Bar, ElementKind::Beam2D, ElementKind::Beam3D, ElementKind::Hex8})
    if (name == kind_name(kind)) return kind;
  return std::nullopt;
}

std::optional<Route> parse_route(const std::string& name) {
  for (auto route : {Route::Lagrange, Route::GibbsAppell})
    if (name == route_name(route)) return route;
  return std::nullopt;
}

GiNaC::matrix ElementChain::origin_acceleration() const {
  matrix a(3, 1);
  for (unsigned i = 0; i < 3; ++i) {
    const unsigned j = (i + 1) % 3, k = (i + 2) % 3;
    a(i, 0) =
        origin_velocity_dot[i] + omega[j] * origin_velocity[k] - omega[k] * origin_velocity[j];
  }
  return a;
}

const GiNaC::symbol& ElementChain::parameter(const std::string& name) const {
  auto it = parameters.find(name);
  if (it == parameters.end())
    throw std::logic_error(std::string("element derivation: no parameter ") + name + " for " +
                           kind_name(kind));
  return it->second;
}

ElementChain make_chain(ElementKind kind, int elements) {
  if (elements < 1) throw std::invalid_argument("element derivation: at least one element");
  ElementChain c;
  c.kind = kind;
  c.elements = elements;
  c.functions = std::make_shared<sym::TimeFunctions>();
  std::vector<std::string> names;
  int nodes = elements + 1;
  switch (kind) {
    case ElementKind::Bar:
      names = {"u", "v", "w"};
      break;
    case ElementKind::Beam2D:
      names = {"u", "v", "rz"};
      break;
    case ElementKind::Beam3D:
      names = {"u", "v", "w", "rx", "ry", "rz"};
      break;
    case ElementKind::Hex8:
      names = {"u", "v", "w"};
      nodes = 4 * (elements + 1);
      break;
  }
  c.dofs_per_node = int(names.size());
  for (int n = 1; n <= nodes; ++n)
    for (const auto& base : names) {
      const std::string name = base + std::to_string(n);
      c.functions->declare(name, sym::TimeFunctionKind::Coordinate);
      c.dof_names.push_back(name);
      c.dofs.push_back(c.functions->derivative(name, 0));
      c.rates.push_back(c.functions->derivative(name, 1));
      c.accelerations.push_back(c.functions->derivative(name, 2));
    }
  const char* axis[3] = {"x", "y", "z"};
  for (int k = 0; k < 3; ++k) {
    const std::string w = std::string("omega_") + axis[k], v = std::string("vO_") + axis[k];
    c.functions->declare(w, sym::TimeFunctionKind::Prescribed);
    c.functions->declare(v, sym::TimeFunctionKind::Prescribed);
    c.omega[k] = c.functions->derivative(w, 0);
    c.epsilon[k] = c.functions->derivative(w, 1);
    c.origin_velocity[k] = c.functions->derivative(v, 0);
    c.origin_velocity_dot[k] = c.functions->derivative(v, 1);
  }
  std::vector<std::string> params = {"rho", "L", "E"};
  switch (kind) {
    case ElementKind::Bar:
      params.push_back("A");
      break;
    case ElementKind::Beam2D:
      params.insert(params.end(), {"A", "Iz"});
      break;
    case ElementKind::Beam3D:
      params.insert(params.end(), {"A", "Iy", "Iz", "J", "G"});
      break;
    case ElementKind::Hex8:
      params.insert(params.end(), {"b", "h", "nu"});
      break;
  }
  for (const auto& p : params) {
    GiNaC::symbol s(p);
    c.parameters.emplace(p, s);
    c.parameter_order.push_back(s);
  }
  return c;
}

ElementDerivation derive_element(const ElementChain& chain, Route route) {
  ElementDerivation d;
  d.route = route;
  const std::size_t n = chain.dofs.size();

  auto start = std::chrono::steady_clock::now();
  const auto w = as_array(chain.omega);
  GiNaC::exvector energies;
  for (int e = 0; e < chain.elements; ++e) {
    const ElementField f = element_field(chain, e);
    const PolyVector p = displacement(chain, f, 0), pd = displacement(chain, f, 1);
    PolyVector integrand;
    if (route == Route::Lagrange) {
      // v = v_O + ω×p + ṗ
      const PolyVector vo = constant_vector(as_array(chain.origin_velocity));
      const PolyVector wp = cross(w, p);
      integrand = sum({{&vo, 1}, {&wp, 1}, {&pd, 1}});
    } else {
      // a = a_O + ε×p + ω×(ω×p) + 2ω×ṗ + p̈
      const matrix ao = chain.origin_acceleration();
      const PolyVector a0 = constant_vector({ao(0, 0), ao(1, 0), ao(2, 0)});
      const PolyVector pdd = displacement(chain, f, 2);
      const PolyVector ep = cross(as_array(chain.epsilon), p);
      const PolyVector wp = cross(w, p);
      const PolyVector wwp = cross(w, wp);
      const PolyVector wpd = cross(w, pd);
      integrand = sum({{&a0, 1}, {&ep, 1}, {&wwp, 1}, {&wpd, 2}, {&pdd, 1}});
    }
    energies.push_back(f.density_measure * integrate_dot(integrand, integrand) / 2);
  }
  d.energy = GiNaC::add(energies);
  d.cost.energy_seconds = since(start);

  start = std::chrono::steady_clock::now();
  sym::Differentiator diff(chain.functions);
  for (std::size_t j = 0; j < n; ++j) {
    if (route == Route::Lagrange) {
      const ex momentum = diff.partial(d.energy, chain.rates[j]);
      d.inertial.push_back(diff.time_derivative(momentum) - diff.partial(d.energy, chain.dofs[j]));
    } else {
      d.inertial.push_back(diff.partial(d.energy, chain.accelerations[j]));
    }
  }
  d.cost.differentiation_seconds = since(start);
  d.cost.differentiations = diff.differentiations();
  d.cost.derivative_nodes = diff.derivative_nodes();

  d.stiffness = matrix(unsigned(n), unsigned(n));
  for (int e = 0; e < chain.elements; ++e) add_stiffness(element_field(chain, e), d.stiffness);
  for (std::size_t j = 0; j < n; ++j) {
    GiNaC::exvector terms{d.inertial[j]};
    for (std::size_t k = 0; k < n; ++k) {
      const ex kjk = d.stiffness(unsigned(j), unsigned(k));
      if (!kjk.is_zero()) terms.push_back(kjk * chain.dofs[k]);
    }
    d.residual.push_back(GiNaC::add(terms));
  }
  d.cost.energy_nodes = sym::dag_size(d.energy);
  d.cost.residual_nodes = sym::dag_size(d.residual);
  return d;
}

ElementMatrices extract_matrices(const ElementChain& chain, const GiNaC::exvector& residual) {
  const unsigned n = unsigned(chain.dofs.size());
  ElementMatrices m;
  m.mass = matrix(n, n);
  m.gyroscopic = matrix(n, n);
  m.stiffness = matrix(n, n);
  m.stiffness_epsilon = matrix(n, n);
  m.stiffness_omega = matrix(n, n);
  m.force_epsilon = matrix(n, 1);
  m.force_omega = matrix(n, 1);
  m.first_moment = matrix(n, 3);
  GiNaC::exmap rest, frame_at_rest;
  for (unsigned k = 0; k < n; ++k) {
    rest[chain.dofs[k]] = 0;
    rest[chain.rates[k]] = 0;
    rest[chain.accelerations[k]] = 0;
  }
  for (int l = 0; l < 3; ++l) {
    frame_at_rest[chain.omega[l]] = 0;
    frame_at_rest[chain.epsilon[l]] = 0;
  }
  const matrix ao = chain.origin_acceleration();
  // The residual is linear in δ, δ̇, δ̈, v̇_O and ε once expanded: coefficients are the matrices.
  auto linear_in_epsilon = [&](const ex& e) {
    GiNaC::exvector terms;
    for (int l = 0; l < 3; ++l) terms.push_back(chain.epsilon[l] * e.coeff(chain.epsilon[l], 1));
    return ex(GiNaC::add(terms)).expand();
  };
  for (unsigned j = 0; j < n; ++j) {
    const ex r = residual[j].expand();
    for (unsigned k = 0; k < n; ++k) {
      m.mass(j, k) = r.coeff(chain.accelerations[k], 1);
      m.gyroscopic(j, k) = r.coeff(chain.rates[k], 1);
      const ex total = r.coeff(chain.dofs[k], 1);
      m.stiffness(j, k) = total.subs(frame_at_rest).expand();
      m.stiffness_epsilon(j, k) = linear_in_epsilon(total);
      m.stiffness_omega(j, k) = (total - m.stiffness(j, k) - m.stiffness_epsilon(j, k)).expand();
    }
    const ex r0 = r.subs(rest).expand();
    ex origin = 0;
    for (unsigned i = 0; i < 3; ++i) {
      m.first_moment(j, i) = r0.coeff(chain.origin_velocity_dot[i], 1);
      origin += m.first_moment(j, i) * ao(i, 0);
    }
    m.force_epsilon(j, 0) = linear_in_epsilon(r0);
    m.force_omega(j, 0) = (r0 - m.force_epsilon(j, 0) - origin).expand();
  }
  return m;
}

GiNaC::exvector assemble_residual(const ElementChain& chain, const ElementMatrices& m) {
  const unsigned n = unsigned(chain.dofs.size());
  const matrix ao = chain.origin_acceleration();
  GiNaC::exvector r;
  for (unsigned j = 0; j < n; ++j) {
    GiNaC::exvector terms{m.force_epsilon(j, 0), m.force_omega(j, 0)};
    for (unsigned k = 0; k < n; ++k) {
      terms.push_back(m.mass(j, k) * chain.accelerations[k]);
      terms.push_back(m.gyroscopic(j, k) * chain.rates[k]);
      terms.push_back((m.stiffness(j, k) + m.stiffness_epsilon(j, k) + m.stiffness_omega(j, k)) *
                      chain.dofs[k]);
    }
    for (unsigned i = 0; i < 3; ++i) terms.push_back(m.first_moment(j, i) * ao(i, 0));
    r.push_back(GiNaC::add(terms));
  }
  return r;
}

MatrixSymmetry symmetry_of(const GiNaC::matrix& m) {
  if (m.rows() != m.cols()) return MatrixSymmetry::None;
  bool symmetric = true, skew = true;
  for (unsigned i = 0; i < m.rows(); ++i)
    for (unsigned j = i; j < m.cols(); ++j) {
      symmetric = symmetric && (m(i, j) - m(j, i)).expand().is_zero();
      skew = skew && (m(i, j) + m(j, i)).expand().is_zero();
    }
  if (symmetric) return MatrixSymmetry::Symmetric;  // the zero matrix counts as symmetric
  return skew ? MatrixSymmetry::Skew : MatrixSymmetry::None;
}

ex readable_entry(const ex& e) {
  if (e.is_zero()) return e;
  return GiNaC::factor(GiNaC::normal(e));
}

ElementComparison compare_routes(ElementKind kind, int elements) {
  ElementComparison c;
  c.chain = make_chain(kind, elements);
  c.lagrange = derive_element(c.chain, Route::Lagrange);
  c.gibbs_appell = derive_element(c.chain, Route::GibbsAppell);
  const auto start = std::chrono::steady_clock::now();
  c.identical = true;
  for (std::size_t j = 0; j < c.chain.dofs.size(); ++j) {
    ex difference = (c.lagrange.residual[j] - c.gibbs_appell.residual[j]).expand();
    if (!difference.is_zero()) difference = difference.normal();
    if (!difference.is_zero()) {
      c.identical = false;
      std::ostringstream out;
      out << "dof " << c.chain.dof_names[j] << ": " << difference;
      c.first_difference = out.str();
      break;
    }
  }
  c.compare_seconds = since(start);
  return c;
}

}  // namespace appell::fem
