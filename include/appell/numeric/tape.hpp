// The tape lives in sym/ (common-subexpression elimination over the expression DAG, used by
// codegen as well); numeric code keeps calling it num::Tape.
#pragma once

#include "appell/sym/tape.hpp"

namespace appell::num {

using Tape = sym::Tape;

}  // namespace appell::num
