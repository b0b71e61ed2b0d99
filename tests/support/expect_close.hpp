// Matrices compared entry by entry relative to the larger entry of the wanted one (and of 1).
#pragma once

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <string>

namespace appell::test_support {

/// |a − b| within `relative` of the larger entry of b (and of 1), with equal sizes; `what` names
/// the quantity in a failure, which prints both.
inline void expect_close(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b, double relative,
                         const std::string& what) {
  ASSERT_EQ(a.rows(), b.rows()) << what;
  ASSERT_EQ(a.cols(), b.cols()) << what;
  if (a.size() == 0) return;
  const double scale = std::max(1.0, b.cwiseAbs().maxCoeff());
  EXPECT_LE((a - b).cwiseAbs().maxCoeff(), relative * scale) << what << "\n"
                                                             << a << "\nwanted\n"
                                                             << b;
}

}  // namespace appell::test_support
