// appell sweep-merge OUT.h5 SHARD.h5...: the shard files of `appell sweep --shard I/N` (a Slurm
// job array's tasks) joined into one results file (sweep::merge_results). Exit 2 for bad input
// (OUT exists, a shard missing, not a results file, of another sweep, or disagreeing with
// another on a case), 1 when reading or writing fails.
#include <iostream>

#include "appell/sweep/results_file.hpp"
#include "cli_support.hpp"

namespace appell::cli {

namespace {

struct SweepMergeOptions {
  std::string out;
  std::vector<std::string> shards;
};

int run_sweep_merge(const SweepMergeOptions& o) {
  const sweep::MergeSummary merged = sweep::merge_results(o.shards, o.out);
  std::cout << o.out << ": " << o.shards.size() << (o.shards.size() == 1 ? " shard" : " shards")
            << " merged: " << merged.ok << " ok, " << merged.failed << " failed, " << merged.not_run
            << " not run\n";
  if (merged.not_run > 0)
    std::cout << "the cases not run are run by `appell sweep ... --resume --out " << o.out << "`\n";
  return 0;
}

}  // namespace

void add_sweep_merge_command(CLI::App& app, Commands& commands) {
  auto o = std::make_shared<SweepMergeOptions>();
  auto* c = app.add_subcommand(
      "sweep-merge", "join the shard files of `appell sweep --shard I/N` into one results file");
  c->add_option("OUT", o->out, "the merged results file to write (must not exist)")->required();
  c->add_option("SHARDS", o->shards, "the shards' results files (HDF5)")->required();
  commands.push_back({c, [o] { return run_sweep_merge(*o); }});
}

}  // namespace appell::cli
