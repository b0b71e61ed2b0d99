// "Did you mean": the name a user most likely meant when they wrote one that does not exist (a
// command, an option, a model key, a parameter, a column of a cases file).
#pragma once

#include <string>
#include <vector>

namespace appell::model {

/// The name of `names` that `given` most likely meant, "" when none is close enough:
///  1. a name that differs from `given` only in the case of its letters ("L" -> "l", "T_end" ->
///     "t_end"): of several, the one with the fewest letters changed;
///  2. else, blind to case, the one name that `given` begins ("sim" -> "simulate");
///  3. else, blind to case, the first nearest by edit distance (insertions, deletions,
///     substitutions and swaps of neighbours each cost one) within a third of that name's length
///     and at least one edit, and short of replacing every character of it, so that a short word
///     is not "corrected" to anything ("x" is not "m").
std::string closest_name(const std::string& given, const std::vector<std::string>& names);

/// "; did you mean 'NAME'?" for closest_name(), or "" when there is none: to append to a message.
std::string did_you_mean(const std::string& given, const std::vector<std::string>& names);

}  // namespace appell::model
