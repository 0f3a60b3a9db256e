#include "traffic.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <cstdio>
#include <stdexcept>

#include "common.hpp"
#include "lb/common/cuda_check.hpp"
#include "lb/datasets/atomic_file.hpp"
#include "lb/datasets/grid_writer.hpp"
#include "lb/datasets/street_network.hpp"
#include "lb/inner/strategies.hpp"
#include "lb/traffic/layouts.hpp"
#include "lb/traffic/simulation.hpp"
#include "street_network.hpp"

namespace lb::tools {

void add_traffic_command(CLI::App& app, TrafficCommand& c) {
  c.cmd = app.add_subcommand("traffic",
                             "the traffic simulation (Nagel-Schreckenberg cars, traffic lights) on an OSMnx GraphML "
                             "street network; the final state as CSV");
  c.cmd->add_option("--network", c.network, "GraphML file as OSMnx's save_graphml writes it")->required();
  c.cmd->add_option("--cars", c.cars, "cars (at most the network's non-sink cells)")
      ->check(non_negative_integer())
      ->required();
  c.cmd->add_option("--steps", c.steps, "steps of 2 s to simulate")->check(non_negative_integer())->required();
  c.cmd->add_option("--seed", c.seed, "seed of the counter-based random numbers")
      ->check(non_negative_integer())
      ->capture_default_str();
  c.cmd->add_option("--device", c.device,
                    "cpu (the reference, on OpenMP's threads, or with --layout the layouts' code on the host) or gpu")
      ->check(one_of({"cpu", "gpu"}))
      ->capture_default_str();
  c.cmd->add_option("--layout", c.layout,
                    "aos, soa or aosoa32 (tiles of 32 records, beyond the paper) for every class (default: the "
                    "reference on cpu, soa on gpu)")
      ->check(one_of({"aos", "soa", "aosoa32"}));
  c.cmd->add_option("--field", c.field,
                    "the array field swept: incoming, outgoing, path, cells (both cell arrays: soa, none or object), "
                    "or none (all full)")
      ->check(one_of({"none", "incoming", "outgoing", "path", "cells"}))
      ->capture_default_str();
  c.cmd->add_option("--strategy", c.strategy, "the swept field's strategy: none, partial, full, object")
      ->check(one_of({"none", "partial", "full", "object"}))
      ->capture_default_str();
  c.cmd->add_option("--inline", c.inline_count, "partial's N (at most 8 for the cell arrays, 30 for the path)")
      ->check(non_negative_integer());
  c.cmd->add_option("--out", c.out, ".csv file to write: car,active,cell,x,y,velocity,max_velocity,path per car")
      ->required();
  add_tile_option(c.cmd, c.tile);
}

namespace {

//! "step 300/1000, 4.1 s elapsed, ~9.6 s left" on stderr, at most every 2 s.
class ProgressLine {
 public:
  explicit ProgressLine(std::size_t total) : total_(total) {}
  void update(std::size_t done) {
    const auto now = Clock::now();
    if (now - last_ < std::chrono::seconds(2)) return;
    last_ = now;
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    std::fprintf(stderr, "traffic: step %zu/%zu, %.1f s elapsed, ~%.1f s left\n", done, total_, elapsed,
                 elapsed / static_cast<double>(done) * static_cast<double>(total_ - done));
  }

 private:
  using Clock = std::chrono::steady_clock;
  std::size_t total_;
  Clock::time_point start_ = Clock::now(), last_ = start_;
};

}  // namespace

int TrafficCommand::run() const {
  if (cars == 0) throw std::invalid_argument("--cars: give at least 1 car");
  if (steps > 0xffffffffu) throw std::invalid_argument(fmt::format("--steps {}: at most {}", steps, 0xffffffffu));
  // The reference, or a layout (on the host or the GPU): checked before any work.
  const bool laid_out = device == "gpu" || !layout.empty();
  traffic::TrafficLayout chosen{inner::parse_inner_layout(layout.empty() ? "soa" : layout),
                                traffic::parse_swept_field(field), inner::parse_inner_strategy(strategy), inline_count};
  if (!laid_out && (field != "none" || strategy != "full" || inline_count != 0))
    throw std::invalid_argument(
        "--field, --strategy and --inline choose a layout: give --layout aos|soa|aosoa32 (or --device gpu)");
  if (laid_out) traffic::check_layout(chosen);
  // The output is checked (and its temporary file made) before any work.
  datasets::output_extension({"--out", out}, {".csv"});
  datasets::AtomicFiles outputs({{"--out", out}}, {network});
  if (device == "gpu") require_gpu_for_device_option("the CPU reference, or with --layout the layout on the host");
  const datasets::StreetNetwork streets = load_street_network_option(network, tile);
  traffic::BuildReport report;
  const traffic::Network net = traffic::build_network(streets, &report);
  traffic::State state = traffic::initial_state(net, cars, seed);  // refuses too many cars
  std::printf("%s: %s\n%s\n", network.c_str(), datasets::describe(datasets::street_network_stats(streets)).c_str(),
              traffic::describe(report).c_str());
  print_paper_scale(streets, tile, cars);
  std::fflush(stdout);
  std::unique_ptr<traffic::LaidOutTraffic> sim;
  if (laid_out)
    sim = traffic::make_laid_out_traffic(net, state, chosen, device == "gpu" ? traffic::Device::gpu : traffic::Device::cpu);

  const Phase phase(fmt::format("simulating {} cars for {} steps", cars, steps));
  ProgressLine progress(steps);
  const auto t0 = std::chrono::steady_clock::now();
  constexpr std::size_t kChunk = 10;  // steps between progress checks (the GPU waits for them)
  for (std::size_t k = 0; k < steps;) {
    const std::size_t n = std::min(kChunk, steps - k);
    if (sim) {
      sim->run(static_cast<std::uint32_t>(n));
      sim->wait();
    } else {
      for (std::size_t i = 0; i < n; ++i) traffic::reference_step_parallel(net, state);
    }
    k += n;
    progress.update(k);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (sim) state = sim->state();
  if (const std::string broken = traffic::check_invariants(net, state); !broken.empty())
    throw std::runtime_error(fmt::format("after step {}: {}; nothing written", state.step, broken));
  traffic::write_state_csv(outputs[0].stream(), net, state);
  outputs.commit();
  std::size_t active = 0;
  for (const auto& c : state.cars) active += c.active;
  const std::string where = laid_out ? fmt::format("{}, {}", device, traffic::describe(chosen)) : device;
  std::printf("traffic (%s): %zu steps of %zu cars in %.3f s: %zu active at the end, %llu left at sinks, %llu "
              "reactivated, %llu stopped by the conflict rule; invariants hold; checksum %016llx -> %s\n",
              where.c_str(), steps, cars, seconds, active, static_cast<unsigned long long>(state.left),
              static_cast<unsigned long long>(state.reactivated), static_cast<unsigned long long>(state.conflicts),
              static_cast<unsigned long long>(traffic::checksum(state)), out.c_str());
  return 0;
}

}  // namespace lb::tools
