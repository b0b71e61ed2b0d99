// The readable form of a model's equations, bounded: sym::readable_within over the model's
// printing context (readable_context()), so that what `appell derive` shows is never larger than
// the equations as formed and never takes unbounded time.
#pragma once

#include <ginac/ginac.h>

#include "appell/model/model.hpp"
#include "appell/sym/readable.hpp"

namespace appell::principles {

/// The entries (expressions of `model`) made readable together within `budget`; each entry that
/// would be larger, or over budget, stays as given (sym::readable_within).
sym::BoundedReadable readable_entries_within(const model::Model& model,
                                             const GiNaC::exvector& entries,
                                             const sym::ReadableBudget& budget = {});

}  // namespace appell::principles
