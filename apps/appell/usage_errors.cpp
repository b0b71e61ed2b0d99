#include "usage_errors.hpp"

#include <algorithm>
#include <memory>
#include <vector>

#include "appell/model/closest_name.hpp"

namespace appell::cli {

namespace {

bool is_option_word(const std::string& word) { return word.size() > 1 && word[0] == '-'; }

// The option of `command` written as `word` ("--q", "-h"), or nullptr.
const CLI::Option* option_named(const CLI::App& command, const std::string& word) {
  for (const CLI::Option* option : command.get_options())
    if (!option->get_positional() && option->check_name(word)) return option;
  return nullptr;
}

std::vector<std::string> option_names(const CLI::App& command) {
  std::vector<std::string> names;
  for (const CLI::Option* option : command.get_options()) {
    for (const auto& name : option->get_lnames()) names.push_back("--" + name);
    for (const auto& name : option->get_snames()) names.push_back("-" + name);
  }
  return names;
}

struct Diagnosis {
  std::string message;
  const CLI::Option* option = nullptr;  // the option at fault, if one is
};

// What was not expected, in the words of the command. CLI11 lists the extra words last first
// ("arguments were not expected: 0.3 0.2"); they are looked up in argv in the order written.
Diagnosis extras(const CLI::App& command, const std::vector<std::string>& words, int argc,
                 char** argv) {
  const auto extra = [&](const std::string& word) {
    return std::find(words.begin(), words.end(), word) != words.end();
  };
  // An option the command does not have.
  for (int k = 2; k < argc; ++k) {
    const std::string word = argv[k];
    if (!is_option_word(word) || !extra(word)) continue;
    const std::string name = word.substr(0, word.find('='));
    const std::string closest = model::closest_name(name, option_names(command));
    return {"unknown option '" + name + "'" + model::did_you_mean(name, option_names(command)),
            closest.empty() ? nullptr : option_named(command, closest)};
  }
  // Values after an option that takes one: a list written with spaces, `--q 0.1 0.2 0.3`.
  for (int k = 3; k < argc; ++k) {
    const std::string option_word = argv[k - 2], first = argv[k - 1];
    if (!extra(argv[k]) || is_option_word(first) || !is_option_word(option_word)) continue;
    const CLI::Option* option = option_named(command, option_word.substr(0, option_word.find('=')));
    if (option == nullptr || option->get_items_expected_max() != 1 ||
        option_word.find('=') != std::string::npos)
      continue;
    std::string list = first;
    for (int i = k; i < argc && !is_option_word(argv[i]) && extra(argv[i]); ++i)
      list += std::string(",") + argv[i];
    return {option_word + " takes one value: a list is written with commas and no spaces, " +
                option_word + " " + list,
            option};
  }
  std::string written;
  for (int k = 2; k < argc; ++k)
    if (extra(argv[k])) written += std::string(written.empty() ? "" : " ") + argv[k];
  return {"unexpected argument" + std::string(words.size() > 1 ? "s" : "") + ": " + written};
}

// CLI11's usage block ends with blank lines and its option lines with a newline: trimmed so that
// the pieces stack as lines.
std::string trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  while (!text.empty() && text.front() == '\n') text.erase(text.begin());
  return text;
}

}  // namespace

std::string parse_error_text(const CLI::App& app, const CLI::ParseError& error, int argc,
                             char** argv) {
  const CLI::App* command = nullptr;
  if (argc >= 2)
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
      if (!sub->get_name().empty() && sub->check_name(argv[1])) command = sub;
  if (command == nullptr)
    return "appell: " + std::string(error.what()) + "\nRun 'appell --help' for usage.\n";

  Diagnosis diagnosis{error.what()};
  // CLI11 checks what is required before what is left over, so a misspelt option (`--tend 5`)
  // would be reported as the option it was meant to be missing ("--t-end is required"): a word
  // left over that looks like an option is named first, with its nearest name, whatever the
  // error.
  const std::vector<std::string> left = app.remaining(true);
  if (dynamic_cast<const CLI::ExtrasError*>(&error) != nullptr ||
      std::any_of(left.begin(), left.end(), is_option_word))
    diagnosis = extras(*command, left, argc, argv);
  const std::string name = "appell " + command->get_name();
  // The command's own formatter when it is CLI11's (it always is here), so that the lines look
  // as --help prints them.
  auto formatter = std::dynamic_pointer_cast<const CLI::Formatter>(command->get_formatter());
  if (!formatter) formatter = std::make_shared<CLI::Formatter>();
  std::string text = name + ": " + diagnosis.message + "\n";
  text += trimmed(formatter->make_usage(command, name)) + "\n";
  if (diagnosis.option != nullptr)
    text += trimmed(formatter->make_option(diagnosis.option, false)) + "\n";
  text += "Run '" + name + " --help' for all its options.\n";
  return text;
}

}  // namespace appell::cli
