// appell simulate for a model with generalized speeds (speeds:, rot_quat): the equations in the
// speeds integrated by num::simulate, the CSV with the speeds' columns by their names.
#pragma once

#include <memory>
#include <string>

#include "appell/model/model.hpp"
#include "simulation_flags.hpp"

namespace appell::cli {

/// Runs the simulation of `model` (which has speeds) as `appell simulate` would, writing the
/// CSV t,<q..>,<speeds..>,T,V,E,p_x,..,L_z to `out`: by the recursions in the speeds where they
/// cover the model (compiled unless `no_jit`), its equations otherwise. --reactions is refused
/// (usage_error) as not supported with speeds yet. Returns the exit code.
int run_simulate_speeds(std::shared_ptr<const model::Model> model, const SimulationFlags& flags,
                        const std::string& out, bool reactions, const std::string& report,
                        bool no_jit);

}  // namespace appell::cli
