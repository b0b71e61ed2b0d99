// appell: the command line. Parses arguments, calls the library, prints. Nothing else.
//
// Exit codes: 0 success; 1 a computation failed (singular mass matrix, a full disk, ...); 2 bad
// input or usage, reported as FILE:LINE:COLUMN: message (name); 128 + the signal (130, 143)
// when SIGINT or SIGTERM stopped it (what was written so far ends with whole rows and a mark).
#include <chrono>
#include <cstdio>
#include <iostream>
#include <new>
#include <optional>

#include "appell/appell.hpp"  // APPELL_VERSION_STRING
#include "appell/io/output_file.hpp"
#include "appell/numeric/interruption.hpp"
#include "appell/sym/cancellation.hpp"
#include "appell/sym/memory_budget.hpp"
#include "appell/sym/progress.hpp"
#include "cli_support.hpp"
#include "standard_streams.hpp"
#include "status_line.hpp"
#include "usage_errors.hpp"

namespace {

// The command that was running when a signal came stopped for it, whatever it threw.
int interrupted(int signal) {
  std::cerr << "appell: interrupted (" << appell::num::signal_name(signal) << ")\n";
  return 128 + signal;
}

// What the command threw, reported with its exit code (the status line already erased).
int report_failure() {
  using namespace appell;
  try {
    throw;
  } catch (const num::Interrupted& err) {
    return interrupted(err.signal());
  } catch (const model::ModelError& err) {
    if (const int signal = num::interruption_signal()) return interrupted(signal);
    std::cerr << err.what() << "\n";
    return 2;
  } catch (const io::OutputClosed&) {
    return 1;  // the reader of a pipe went away: nobody reads what appell would say
  } catch (const model::ComputationError& err) {
    if (const int signal = num::interruption_signal()) return interrupted(signal);
    std::cerr << "appell: computation failed: " << err.what() << "\n";
    return 1;
  } catch (const sym::MemoryBudgetExceeded& err) {
    // Before std::exception: the budget of the scope in main, named with where it was set.
    if (const int signal = num::interruption_signal()) return interrupted(signal);
    std::cerr << "appell: computation failed: " << err.what() << "\n";
    return 1;
  } catch (const std::length_error& err) {
    // The writers refuse to print an unsimplified expression of hundreds of megabytes.
    std::cerr << "appell: output too large: " << err.what() << "\n";
    return 1;
  } catch (const std::bad_alloc&) {
    // A model too large for this machine's memory (a chain of hundreds of links formed
    // symbolically) is a computation that failed, not a bug.
    std::cerr << "appell: computation failed: out of memory (an allocation failed before the "
                 "memory budget was reached; set APPELL_MEMORY_BUDGET lower to stop earlier)\n";
    return 1;
  } catch (const std::exception& err) {
    // sym::Cancelled when a signal stopped a derivation (the scope in main).
    if (const int signal = num::interruption_signal()) return interrupted(signal);
    std::cerr << "appell: internal error: " << err.what() << "\n";
    return 1;
  } catch (...) {
    // Nothing may end the program through std::terminate (exit 134 and no reason): a library
    // that throws something else than a std::exception is still reported.
    if (const int signal = num::interruption_signal()) return interrupted(signal);
    std::cerr << "appell: internal error: an exception that is not a std::exception\n";
    return 1;
  }
}

int run_command(const appell::cli::Commands& commands, appell::cli::StatusLine& status) {
  try {
    for (const auto& command : commands)
      if (command.app->parsed()) return command.run();
    return 2;
  } catch (...) {
    status.erase();  // the message starts a clean line
    return report_failure();
  }
}

}  // namespace

int main(int argc, char** argv) {
  using namespace appell;
  cli::prepare_standard_streams();  // controls in a user's text shown, not obeyed; no SIGPIPE
  cli::print_no_negative_zero(std::cout);  // no "-0" in any command's output
  cli::print_no_negative_zero(std::cerr);
  CLI::App app{"appell: equations of motion from the D'Alembert-Lagrange principle"};
  app.require_subcommand(1);
  cli::Commands commands;
  cli::add_demo_command(app, commands);
  cli::add_derive_command(app, commands);
  cli::add_eval_command(app, commands);
  cli::add_codegen_command(app, commands);
  cli::add_simulate_command(app, commands);
  cli::add_inverse_command(app, commands);
  cli::add_verify_command(app, commands);
  cli::add_statics_command(app, commands);
  cli::add_fem_command(app, commands);
  cli::add_import_command(app, commands);
  cli::add_report_command(app, commands);
  cli::add_check_command(app, commands);
  cli::add_linearize_command(app, commands);
  cli::add_regressor_command(app, commands);
  cli::add_sweep_merge_command(app, commands);
  cli::add_sweep_command(app, commands, argc, argv);
  cli::apply_option_rules(app);
  app.set_version_flag("--version", "appell " APPELL_VERSION_STRING);

  if (const std::string unknown = cli::unknown_command(app, argc, argv); !unknown.empty()) {
    std::cerr << "appell: " << unknown << "\n"
              << "Run 'appell --help' for usage.\n";
    return 2;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& done) {  // --help, --version
    return app.exit(done);
  } catch (const CLI::ParseError& err) {
    std::cerr << cli::parse_error_text(app, err, argc, argv);
    return 2;
  }

  // SIGINT and SIGTERM are requests to stop: the integration loops end their files with whole
  // rows and a mark; derivations and simplifications stop through sym's cancellation polls.
  num::install_interruption_handlers();
  // The library's long loops poll this check: a signal stops them, the memory budget
  // (APPELL_MEMORY_BUDGET) ends them with its name, and on a terminal a status line says what
  // they are doing.
  std::optional<sym::MemoryBudget> budget;
  std::chrono::milliseconds progress_delay{};
  try {
    budget.emplace(cli::memory_budget_from_environment());
    progress_delay = cli::progress_delay_from_environment();
  } catch (const model::ModelError& err) {
    std::cerr << err.what() << "\n";
    return 2;
  }
  cli::StatusLine status(*budget, progress_delay);
  const sym::ProgressListener erase_when_idle([&status] { status.erase(); });
  const sym::CancellationScope stop_on_signal([&] {
    if (num::interruption_signal() != 0) return true;
    budget->check();
    status.tick();
    return false;
  });
  const int code = run_command(commands, status);
  status.erase();
  // Standard output is an output like any file: what a full disk or a closed pipe lost fails.
  return cli::finish_standard_output(code);
}
