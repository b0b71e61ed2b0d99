// What the command line says when CLI11 cannot parse it: the error in the words of the command
// that was given, a hint where the mistake is a common one (an unknown option's nearest name, a
// list written with spaces instead of commas), then that command's usage, so that the user need
// not run --help to see what it takes.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace appell::cli {

/// The text for stderr (ends with a newline) after `app.parse(argc, argv)` threw `error`:
/// "appell COMMAND: MESSAGE", the usage line of the command named by argv[1] and, when one
/// option is at fault, its help line, then "Run 'appell COMMAND --help' for all its options.";
/// without a command, CLI11's message and "Run 'appell --help' for usage.".
std::string parse_error_text(const CLI::App& app, const CLI::ParseError& error, int argc,
                             char** argv);

}  // namespace appell::cli
