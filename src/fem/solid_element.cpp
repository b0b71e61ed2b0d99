// What the solid elements share: the elastic law and the inertia integrals of a scalar mass.
#include "appell/fem/element_kernels.hpp"

namespace appell::fem {

Matrix6d isotropic_elasticity(double E, double nu) {
  const double lambda = E * nu / ((1.0 + nu) * (1.0 - 2.0 * nu));
  const double mu = E / (2.0 * (1.0 + nu));
  Matrix6d D = Matrix6d::Zero();
  D.topLeftCorner<3, 3>().setConstant(lambda);
  D.topLeftCorner<3, 3>().diagonal().array() += 2.0 * mu;
  D.bottomRightCorner<3, 3>().diagonal().setConstant(mu);
  return D;
}

void fill_solid_inertia(const Eigen::Ref<const Eigen::MatrixXd>& S,
                        const Eigen::Ref<const Eigen::MatrixXd>& nodes, ElementIntegrals& out) {
  const Eigen::Index n = S.rows();
  out.mass = Eigen::MatrixXd::Zero(3 * n, 3 * n);
  for (auto& J : out.inertia) J = Eigen::MatrixXd::Zero(3 * n, 3 * n);
  out.first_moment = Eigen::MatrixXd::Zero(3 * n, 3);
  for (auto& s : out.position) s = Eigen::VectorXd::Zero(3 * n);
  // Σ_b N_b = 1 at every quadrature point, so the row sums of S are ∫ρ N_a dV and S x_b are
  // ∫ρ N_a x dV with the same quadrature as the mass.
  const Eigen::VectorXd lumped = S.rowwise().sum();
  const Eigen::MatrixXd moment = S * nodes;
  for (Eigen::Index a = 0; a < n; ++a) {
    for (Eigen::Index b = 0; b < n; ++b)
      for (int k = 0; k < 3; ++k) {
        out.mass(3 * a + k, 3 * b + k) = S(a, b);
        for (int l = 0; l < 3; ++l)
          out.inertia[std::size_t(3 * k + l)](3 * a + k, 3 * b + l) = S(a, b);
      }
    for (int k = 0; k < 3; ++k) {
      out.first_moment(3 * a + k, k) = lumped(a);
      for (int l = 0; l < 3; ++l) out.position[std::size_t(3 * k + l)](3 * a + k) = moment(a, l);
    }
  }
}

}  // namespace appell::fem
