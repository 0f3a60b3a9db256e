#include "traffic.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <stdexcept>

#include "common.hpp"
#include "lb/datasets/atomic_file.hpp"
#include "lb/datasets/grid_writer.hpp"
#include "lb/datasets/street_network.hpp"
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
  c.cmd->add_option("--device", c.device, "cpu (the reference); gpu is not built yet")
      ->check(one_of({"cpu", "gpu"}))
      ->capture_default_str();
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
  if (device == "gpu")
    throw std::invalid_argument("--device gpu: the traffic simulation's GPU version is not built yet; use --device cpu");
  if (cars == 0) throw std::invalid_argument("--cars: give at least 1 car");
  if (steps > 0xffffffffu) throw std::invalid_argument(fmt::format("--steps {}: at most {}", steps, 0xffffffffu));
  // The output is checked (and its temporary file made) before any work.
  datasets::output_extension({"--out", out}, {".csv"});
  datasets::AtomicFiles outputs({{"--out", out}}, {network});
  const datasets::StreetNetwork streets = load_street_network_option(network, tile);
  traffic::BuildReport report;
  const traffic::Network net = traffic::build_network(streets, &report);
  traffic::State state = traffic::initial_state(net, cars, seed);  // refuses too many cars
  std::printf("%s: %s\n%s\n", network.c_str(), datasets::describe(datasets::street_network_stats(streets)).c_str(),
              traffic::describe(report).c_str());
  print_paper_scale(streets, tile, cars);
  std::fflush(stdout);

  const Phase phase(fmt::format("simulating {} cars for {} steps", cars, steps));
  ProgressLine progress(steps);
  const auto t0 = std::chrono::steady_clock::now();
  for (std::size_t k = 0; k < steps; ++k) {
    traffic::reference_step(net, state);
    progress.update(k + 1);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (const std::string broken = traffic::check_invariants(net, state); !broken.empty())
    throw std::runtime_error(fmt::format("after step {}: {}; nothing written", state.step, broken));
  traffic::write_state_csv(outputs[0].stream(), net, state);
  outputs.commit();
  std::size_t active = 0;
  for (const auto& c : state.cars) active += c.active;
  std::printf("traffic (cpu): %zu steps of %zu cars in %.3f s: %zu active at the end, %llu left at sinks, %llu "
              "reactivated, %llu stopped by the conflict rule; invariants hold; checksum %016llx -> %s\n",
              steps, cars, seconds, active, static_cast<unsigned long long>(state.left),
              static_cast<unsigned long long>(state.reactivated), static_cast<unsigned long long>(state.conflicts),
              static_cast<unsigned long long>(traffic::checksum(state)), out.c_str());
  return 0;
}

}  // namespace lb::tools
