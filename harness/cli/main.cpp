//! layoutbench: the benchmark binary. Subcommands:
//!   list-devices       visible GPUs as JSON
//!   build-info         how this binary was built (its results' lb.build) as JSON
//!   gpu-decision       whether GPU tests run, skip or fail here (the Python tests ask)
//!   suites             the suites in run order, their artifact steps and the named presets
//!   plan               the benchmark names a preset runs (no GPU needed); --json: with where each runs
//!   run                run them on the first visible GPU (a plan of CPU benchmarks only: no GPU
//!                      needed), journaling each result
//!   idw-interpolate    interpolate a user's CSV points onto a grid (GPU or CPU)
//!   krige              krige a user's wells (or the generated case) onto a mesh (GPU or CPU)
//!   bfs                BFS levels of a SNAP edge list over an inner-array layout (GPU or CPU)
//!   street-network     statistics of an OSMnx GraphML street network (the traffic simulation's input)
//!   traffic            the traffic simulation on such a network (the CPU reference), final state as CSV
//!   advise             Kofler et al.'s advisor: a program's KDLG clusters and their layouts (docs/advisor.md)
//! The first six are every benchmark binary's (bench_commands.cpp), over the suites it links
//! (benches/suites.cpp); the others are layoutbench's tools. The orchestrator harness/run.py
//! drives plan/run, one process per GPU.

#include <functional>
#include <memory>

#include <CLI/CLI.hpp>

#include "advise.hpp"
#include "bench_commands.hpp"
#include "bfs.hpp"
#include "idw_interpolate.hpp"
#include "krige.hpp"
#include "street_network.hpp"
#include "traffic.hpp"

namespace {

//! The tools: the papers' programs on a user's data, besides the benchmarks.
struct Tools {
  explicit Tools(CLI::App& app) {
    interpolate = app.add_subcommand("idw-interpolate", "IDW of a CSV point file (x,y,value) onto a grid");
    lb::tools::add_interpolate_options(interpolate, interp);
    krige = app.add_subcommand("krige", "ordinary kriging (Li & Dong) of wells onto a mesh, written as CSV");
    lb::tools::add_krige_options(krige, krige_opts);
    bfs = app.add_subcommand("bfs", "BFS levels of a SNAP edge list from one vertex, written as CSV id,level");
    lb::tools::add_bfs_options(bfs, bfs_opts);
    lb::tools::add_street_network_command(app, street_network);
    lb::tools::add_traffic_command(app, traffic);
    lb::tools::add_advise_command(app, advise);
  }
  Tools(const Tools&) = delete;  // the options hold pointers to its members
  Tools& operator=(const Tools&) = delete;

  //! The chosen tool's exit code; -1 where none was chosen.
  int run() {
    if (*interpolate) return lb::tools::interpolate(interp);
    if (*krige) return lb::tools::krige(krige_opts);
    if (*bfs) return lb::tools::bfs(bfs_opts);
    if (street_network) return street_network.run();
    if (traffic) return traffic.run();
    if (advise) return advise.run();
    return -1;
  }

  lb::tools::InterpolateOptions interp;
  lb::tools::KrigeOptions krige_opts;
  lb::tools::BfsOptions bfs_opts;
  lb::tools::StreetNetworkCommand street_network;
  lb::tools::TrafficCommand traffic;
  lb::tools::AdviseCommand advise;
  CLI::App *interpolate = nullptr, *krige = nullptr, *bfs = nullptr;
};

}  // namespace

int main(int argc, char** argv) {
  return lb::harness::bench_main(argc, argv, [](CLI::App& app) {
    auto tools = std::make_shared<Tools>(app);
    return std::function<int()>([tools] { return tools->run(); });
  });
}
