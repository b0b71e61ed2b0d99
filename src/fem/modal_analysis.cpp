#include "appell/fem/modal_analysis.hpp"

#include <Spectra/MatOp/SparseSymMatProd.h>
#include <Spectra/SymGEigsShiftSolver.h>

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <numbers>

#include "appell/fem/moving_frame.hpp"
#include "appell/model/source_location.hpp"
#include "sparse_solvers.hpp"

namespace appell::fem {

namespace {

/// y = (K − σM)⁻¹ x for Spectra's shift-invert mode, with CHOLMOD. A shift that leaves K − σM
/// indefinite is reported by set_shift throwing, so the caller can move it further down.
class ShiftInvert {
 public:
  using Scalar = double;
  ShiftInvert(const SparseMatrix& k, const SparseMatrix& m) : k_(k), m_(m) {}
  Eigen::Index rows() const { return k_.rows(); }
  Eigen::Index cols() const { return k_.cols(); }
  void set_shift(double sigma) {
    cholesky_ = std::make_unique<Cholesky>();
    cholesky_->compute(SparseMatrix(k_ - sigma * m_));
    if (cholesky_->info() != Eigen::Success) throw Indefinite{};
  }
  void perform_op(const double* x, double* y) const {
    Eigen::Map<const Eigen::VectorXd> in(x, rows());
    Eigen::Map<Eigen::VectorXd>(y, rows()) = cholesky_->solve(in);
  }
  struct Indefinite {};

 private:
  const SparseMatrix& k_;
  const SparseMatrix& m_;
  std::unique_ptr<Cholesky> cholesky_;
};

double to_hz(double lambda) {
  const double omega = std::sqrt(std::abs(lambda));
  return (lambda < 0 ? -omega : omega) / (2.0 * std::numbers::pi);
}

}  // namespace

ModalResult modal_analysis(const FlexibleBodyInstance& body, const FrameState& frame,
                           const ModalOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  ModalResult result;
  std::unique_ptr<CentrifugalPrestress> prestress;
  const bool loaded = frame.omega.squaredNorm() > 0 || frame.origin_acceleration.squaredNorm() > 0;
  if (options.stiffening && loaded) {
    if (body.has_supports()) {
      prestress = std::make_unique<CentrifugalPrestress>(body);
      result.stiffened = true;
    } else {
      result.note = "no geometric stiffening: the body has no supports to carry a pre-stress";
    }
  }
  // Only the symmetric part: k + k(ω) (+ k_G). k(ε) is skew and left out (see the header).
  const AssembledBody& a = body.assembled;
  const Eigen::Matrix3d w = skew(frame.omega);
  SparseMatrix k = a.stiffness + a.combine(w * w);
  if (prestress) k += prestress->geometric_stiffness(frame);
  const SparseMatrix kf = free_block(body, k);
  const SparseMatrix mf = free_block(body, a.mass);
  const Eigen::Index n = kf.rows();
  const int wanted = std::max(1, std::min<int>(options.modes, int(n)));

  Eigen::VectorXd values;
  Eigen::MatrixXd vectors;
  if (n <= 600) {
    // Small problems: the dense generalized solver is exact and immune to Lanczos's limits.
    const Eigen::MatrixXd kd(kf), md(mf);
    Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd> dense(kd, md);
    if (dense.info() != Eigen::Success)
      throw model::ComputationError(
          "the eigensolver failed: the mass matrix is not positive "
          "definite on the free dofs");
    values = dense.eigenvalues().head(wanted);
    vectors = dense.eigenvectors().leftCols(wanted);
  } else {
    // Shift just below zero, scaled to the problem, so that rigid-body modes (λ ≈ 0) keep
    // K − σM definite; if softening made K indefinite, move the shift down until it is.
    const double scale = kf.diagonal().cwiseAbs().mean() / mf.diagonal().cwiseAbs().mean();
    double sigma = -1e-8 * scale;
    ShiftInvert op(kf, mf);
    Spectra::SparseSymMatProd<double> bop(mf);
    const Eigen::Index ncv = std::min<Eigen::Index>(n, std::max<Eigen::Index>(2 * wanted + 1, 20));
    for (int attempt = 0;; ++attempt) {
      try {
        Spectra::SymGEigsShiftSolver<ShiftInvert, Spectra::SparseSymMatProd<double>,
                                     Spectra::GEigsMode::ShiftInvert>
            solver(op, bop, wanted, ncv, sigma);
        solver.init();
        solver.compute(Spectra::SortRule::LargestMagn, 2000, 1e-10);
        if (solver.info() != Spectra::CompInfo::Successful)
          throw model::ComputationError("the eigensolver did not converge (" +
                                        std::to_string(wanted) + " modes of " + std::to_string(n) +
                                        " free dofs)");
        values = solver.eigenvalues();
        vectors = solver.eigenvectors();
        break;
      } catch (const ShiftInvert::Indefinite&) {
        if (attempt == 12)
          throw model::ComputationError(
              "k + k(omega) is indefinite far below zero: the body "
              "is unstable at this spin rate");
        sigma = sigma * 100.0 - scale * 1e-8;
      }
    }
  }
  std::vector<Eigen::Index> order(std::size_t(values.size()));
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = Eigen::Index(i);
  std::sort(order.begin(), order.end(),
            [&](Eigen::Index x, Eigen::Index y) { return values(x) < values(y); });
  result.shapes = Eigen::MatrixXd::Zero(Eigen::Index(a.dof_count()), Eigen::Index(order.size()));
  for (std::size_t i = 0; i < order.size(); ++i) {
    result.frequencies_hz.push_back(to_hz(values(order[i])));
    Eigen::VectorXd shape = vectors.col(order[i]);
    shape /= std::sqrt(std::abs(shape.dot(mf * shape)));
    for (std::size_t f = 0; f < body.free_dofs.size(); ++f)
      result.shapes(body.free_dofs[f], Eigen::Index(i)) = shape(Eigen::Index(f));
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace appell::fem
