// Small-strain operators shared by the solid elements (internal).
#pragma once

#include <Eigen/Core>

namespace appell::fem::detail {

/// ε = B u for shape functions with physical gradients g (column a: ∇N_a), dofs node-major,
/// Voigt order (xx, yy, zz, xy, yz, zx) with engineering shears.
template <int N>
void strain_operator(const Eigen::Matrix<double, 3, N>& g, Eigen::Matrix<double, 6, 3 * N>& B) {
  B.setZero();
  for (int a = 0; a < N; ++a) {
    const int c = 3 * a;
    B(0, c) = g(0, a);
    B(1, c + 1) = g(1, a);
    B(2, c + 2) = g(2, a);
    B(3, c) = g(1, a);
    B(3, c + 1) = g(0, a);
    B(4, c + 1) = g(2, a);
    B(4, c + 2) = g(1, a);
    B(5, c) = g(2, a);
    B(5, c + 2) = g(0, a);
  }
}

/// The symmetric 3×3 tensor of a Voigt stress vector.
inline Eigen::Matrix3d stress_tensor(const Eigen::Matrix<double, 6, 1>& s) {
  Eigen::Matrix3d t;
  t << s(0), s(3), s(5), s(3), s(1), s(4), s(5), s(4), s(2);
  return t;
}

/// Geometric stiffness from the scalar matrix H_ab = ∫ ∇N_aᵀ σ ∇N_b dV: every displacement
/// component sees the same stress, so the 9×9 block-diagonal stress matrix gives H on the
/// diagonal of each 3×3 node block.
inline Eigen::MatrixXd expand_geometric(const Eigen::Ref<const Eigen::MatrixXd>& H) {
  const Eigen::Index n = H.rows();
  Eigen::MatrixXd kg = Eigen::MatrixXd::Zero(3 * n, 3 * n);
  for (Eigen::Index a = 0; a < n; ++a)
    for (Eigen::Index b = 0; b < n; ++b)
      for (int i = 0; i < 3; ++i) kg(3 * a + i, 3 * b + i) = H(a, b);
  return kg;
}

}  // namespace appell::fem::detail
