#include "appell/principles/readable_form.hpp"

#include "appell/principles/derivation.hpp"

namespace appell::principles {

sym::BoundedReadable readable_entries_within(const model::Model& model,
                                             const GiNaC::exvector& entries,
                                             const sym::ReadableBudget& budget) {
  return sym::readable_within(entries, readable_context(model), budget);
}

}  // namespace appell::principles
