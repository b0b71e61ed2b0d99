// appell: the whole public API in one header.
//
//   #include <appell/appell.hpp>
//
// Build a model (model::ModelBuilder, or io::read_model_file for a model file), form its
// equations of motion by a principle (principles::derive), check them against another principle
// (num::compare, num::verify), evaluate them (num::CompiledEquations) and solve them
// (num::simulate, num::InverseDynamics, num::solve_statics), or generate code
// (codegen::generate_cpp_header). docs/library.md is the tutorial. Modules are listed bottom up:
// each uses only the ones before it (DESIGN.md, "Rooms").
#pragma once

#define APPELL_VERSION_MAJOR 0
#define APPELL_VERSION_MINOR 2
#define APPELL_VERSION_PATCH 0
#define APPELL_VERSION_STRING "0.2.0"

// sym/: the layer over GiNaC: time functions, d/dt, DAG, structural order, tape, readable forms,
// cancellation, progress, the memory budget
#include "appell/sym/cancellation.hpp"
#include "appell/sym/canonical_order.hpp"
#include "appell/sym/canonical_text.hpp"
#include "appell/sym/dag.hpp"
#include "appell/sym/differentiator.hpp"
#include "appell/sym/finite_number.hpp"
#include "appell/sym/intermediates.hpp"
#include "appell/sym/memory_budget.hpp"
#include "appell/sym/node_index.hpp"
#include "appell/sym/operation_count.hpp"
#include "appell/sym/program_derivatives.hpp"
#include "appell/sym/progress.hpp"
#include "appell/sym/readable.hpp"
#include "appell/sym/scalar_program.hpp"
#include "appell/sym/tape.hpp"
#include "appell/sym/time_functions.hpp"

// model/: the Model value, its builder (the one validation), the expression language, values
#include "appell/model/builder.hpp"
#include "appell/model/claim.hpp"
#include "appell/model/closest_name.hpp"
#include "appell/model/dependence.hpp"
#include "appell/model/expression_parser.hpp"
#include "appell/model/flexible.hpp"
#include "appell/model/input_file.hpp"
#include "appell/model/massless_coordinates.hpp"
#include "appell/model/model.hpp"
#include "appell/model/source_location.hpp"
#include "appell/model/utf8.hpp"
#include "appell/model/values.hpp"

// kinematics/: positions, velocities, accelerations, angular velocities of every frame and body
#include "appell/kinematics/kinematics.hpp"
#include "appell/kinematics/vector_algebra.hpp"

// principles/: one file per principle; relative motion, constraints, minimal form
#include "appell/principles/constraint_rows.hpp"
#include "appell/principles/coriolis_split.hpp"
#include "appell/principles/dalembert.hpp"
#include "appell/principles/derivation.hpp"
#include "appell/principles/derive.hpp"
#include "appell/principles/dynamics_derivatives.hpp"
#include "appell/principles/equations.hpp"
#include "appell/principles/gauss.hpp"
#include "appell/principles/generalized_forces.hpp"
#include "appell/principles/gibbs_appell.hpp"
#include "appell/principles/higher_order_gibbs_appell.hpp"
#include "appell/principles/lagrange.hpp"
#include "appell/principles/minimal_form.hpp"
#include "appell/principles/nielsen.hpp"
#include "appell/principles/potential_energy.hpp"
#include "appell/principles/readable_form.hpp"
#include "appell/principles/recursive_dynamics.hpp"
#include "appell/principles/regressor.hpp"
#include "appell/principles/relative_motion.hpp"
#include "appell/principles/speed_form.hpp"

// numeric/: compiled evaluation, simulation, inverse dynamics, statics, verification
#include "appell/numeric/acceleration_solve.hpp"
#include "appell/numeric/agreement.hpp"
#include "appell/numeric/base_parameters.hpp"
#include "appell/numeric/claim_check.hpp"
#include "appell/numeric/compiled_equations.hpp"
#include "appell/numeric/constraint_manifold.hpp"
#include "appell/numeric/constraint_tolerances.hpp"
#include "appell/numeric/dynamics.hpp"
#include "appell/numeric/dynamics_derivatives.hpp"
#include "appell/numeric/interruption.hpp"
#include "appell/numeric/inverse_dynamics.hpp"
#include "appell/numeric/linearization.hpp"
#include "appell/numeric/momenta.hpp"
#include "appell/numeric/native_library.hpp"
#include "appell/numeric/reactions.hpp"
#include "appell/numeric/regressor_numbers.hpp"
#include "appell/numeric/simulate.hpp"
#include "appell/numeric/speeds.hpp"
#include "appell/numeric/split_evaluation.hpp"
#include "appell/numeric/state_evaluation.hpp"
#include "appell/numeric/statics.hpp"
#include "appell/numeric/symbolic_linearization.hpp"
#include "appell/numeric/tape.hpp"
#include "appell/numeric/verification.hpp"

// codegen/: standalone C++ for M, f, forward and inverse dynamics
#include "appell/codegen/comment_text.hpp"
#include "appell/codegen/cpp_generator.hpp"
#include "appell/codegen/loadable_source.hpp"

// jit/: the generated C compiled into a cached shared object and loaded (or the tape)
#include "appell/jit/compiled_dynamics.hpp"
#include "appell/jit/dynamics_key.hpp"

// sweep/: many simulations of one model (cases, threads, MPI ranks) into one HDF5 file
#include "appell/sweep/case_result.hpp"
#include "appell/sweep/case_sources.hpp"
#include "appell/sweep/case_table.hpp"
#include "appell/sweep/model_hash.hpp"
#include "appell/sweep/random_stream.hpp"
#include "appell/sweep/results_file.hpp"
#include "appell/sweep/sweep_runner.hpp"
#include "appell/sweep/sweep_settings.hpp"

// fem/: finite elements in a moving frame (seed 002)
#include "appell/fem/assembly.hpp"
#include "appell/fem/element.hpp"
#include "appell/fem/element_derivation.hpp"
#include "appell/fem/element_kernels.hpp"
#include "appell/fem/flexible_body.hpp"
#include "appell/fem/frame_motion.hpp"
#include "appell/fem/mesh.hpp"
#include "appell/fem/modal_analysis.hpp"
#include "appell/fem/moving_frame.hpp"
#include "appell/fem/quadrature.hpp"
#include "appell/fem/response.hpp"

// io/: the model readers (YAML, URDF, either by content) and the URDF import; text, LaTeX, JSON,
// CSV and VTK writers
#include "appell/io/check_writer.hpp"
#include "appell/io/claims_reader.hpp"
#include "appell/io/csv_writer.hpp"
#include "appell/io/derivation_writer.hpp"
#include "appell/io/equation_writer.hpp"
#include "appell/io/limits_writer.hpp"
#include "appell/io/linear_model_writer.hpp"
#include "appell/io/markup_escape.hpp"
#include "appell/io/model_file.hpp"
#include "appell/io/model_reader.hpp"
#include "appell/io/output_file.hpp"
#include "appell/io/printed_numbers.hpp"
#include "appell/io/regressor_writer.hpp"
#include "appell/io/state_writer.hpp"
#include "appell/io/statics_writer.hpp"
#include "appell/io/terminal_text.hpp"
#include "appell/io/urdf_import.hpp"
#include "appell/io/urdf_reader.hpp"
#include "appell/io/verification_writer.hpp"
#include "appell/io/vtk_writer.hpp"
#include "appell/io/write_options.hpp"
// report: the self-contained HTML page (KaTeX, uPlot, three.js embedded)
#include "appell/report/flexible_report.hpp"
#include "appell/report/html_writer.hpp"
#include "appell/report/mesh_surface.hpp"
#include "appell/report/motion.hpp"
#include "appell/report/report.hpp"
#include "appell/report/response_recording.hpp"
#include "appell/report/scene.hpp"
#include "appell/report/simulation_recording.hpp"
