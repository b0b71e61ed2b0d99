// appell: the command line. Parses arguments, calls the library, prints. Nothing else.
//
// Exit codes: 0 success; 1 a computation failed (singular mass matrix, ...); 2 bad input or
// usage, reported as FILE:LINE:COLUMN: message (name).
#include <iostream>

#include "appell/appell.hpp"  // APPELL_VERSION_STRING
#include "cli_support.hpp"

int main(int argc, char** argv) {
  using namespace appell;
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
    std::cerr << "appell: " << err.what() << "\n"
              << "Run 'appell --help' for usage.\n";
    return 2;
  }

  try {
    for (const auto& command : commands)
      if (command.app->parsed()) return command.run();
  } catch (const model::ModelError& err) {
    std::cerr << err.what() << "\n";
    return 2;
  } catch (const model::ComputationError& err) {
    std::cerr << "appell: computation failed: " << err.what() << "\n";
    return 1;
  } catch (const std::length_error& err) {
    // The writers refuse to print an unsimplified expression of hundreds of megabytes.
    std::cerr << "appell: output too large: " << err.what() << "\n";
    return 1;
  } catch (const std::exception& err) {
    std::cerr << "appell: internal error: " << err.what() << "\n";
    return 1;
  }
  return 2;
}
