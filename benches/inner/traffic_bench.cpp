//! Springer et al. 2018, Fig. 11: the traffic simulation (kernels/traffic, docs/traffic.md) on
//! the GPU over the inner-array layouts, one array field swept at a time (Cell::incoming,
//! Cell::outgoing, Car::path: none, partial N, full, object) with the others fully inlined, in
//! AoS and SoA, and beyond the paper aosoa32 (tiles of 32 records: Kofler's method's choice for
//! the car, where layout_overrides lets it run) and field "cells" (both cell arrays at the
//! strategy: the method's choice for the cell, planned in SoA with none and object only,
//! traffic::cells_apart_runs); field "none": every array full. Names:
//!   inner/traffic/<strategy>/<aos|soa|aosoa32>/int/inline:<N>/field:<f>/network:<name>/cars:<n>/steps:<k>[/schedule:<s>]
//! N the swept array's elements held in the record (none 0, partial N, full and object Max;
//! field none: 0; cells: each array's). `schedules` (optional; `--axis schedule=...`) lists step schedules
//! (traffic::StepSchedule, issue 38's levers): "base", the default, keeps the name above; any
//! other adds its text. The network: a GraphML file found in the data folder ($LB_DATA_DIR, else
//! data/ in the repository), else in ../shared/datasets beside the repository; absent, every
//! case of it is skipped with that reason. Its name is the file's stem.
//!
//! One run: `steps` steps from the initial state. It is laid out and uploaded once per case (in
//! setup, with a device copy kept: keep_snapshot); before every run (untimed) the device copies it
//! back (restore_snapshot: device to device, no host work). Validated against the CPU reference's
//! final checksum (computed once per network, cars, seed and steps, shared by every layout; in
//! parallel: traffic::reference_step_parallel) and the invariants. Declared Work (per run): unit
//! cell_updates = cells x steps; bytes, with P the path cells the reference's cars drew over the
//! run: read steps x (11 cars + 12 lights) + 18 P, written steps x (10 cars + 8 lights) + 8 P (a
//! car's scalars read and written each step; per path cell: the path element written, read back,
//! the cell's occupant, limits and one outgoing entry read (4 + 4 + 4 + 2 + 8), the claim written
//! and cleared (one place)). An ideal cache's minimum: % of bandwidth is low because every access
//! is a scattered 4 B in a 32 B sector.
//!
//! Fig. 11's split: the validation run (the first run after setup, once per case) is
//! instrumented with CUDA events at every change between the controllers' kernels (traffic
//! lights, yield controllers) and the cars' (plan, claim, resolve, move, reactivate;
//! traffic::part_of classifies the phases) and gives the counters cars_s and controllers_s:
//! seconds of the whole run of K steps in each part. It is checked as every run was (the
//! reference's checksum, the invariants). The timed runs carry no events; the two parts sum to
//! about the run's time (the events and the read-backs every few hundred marks add a little).
//!
//!   "traffic": {"network": "lowermanhattan.graphml", "tile": [1, 1], "cars": 5000,
//!               "steps": 100, "seed": 7, "layouts": ["aos", "soa"],
//!               "fields": ["path", "incoming", "outgoing", "cells", "none"],
//!               "strategies": ["none", "partial", "full", "object"], "inline_sizes": [6, 15],
//!               "layout_overrides": {"aosoa32": {"fields": ["path"], "strategies": ["none", "object"]}}}

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <tuple>

#include <fmt/format.h>

#include "inner/traffic_bench.hpp"
#include "lb/common/host_threads.hpp"
#include "lb/datasets/street_network.hpp"
#include "lb/traffic/layouts.hpp"

namespace lb::benches::inner {
namespace {

namespace fs = std::filesystem;
using traffic::SweptField;

//! Where the bench looks for a network file named `name` (a bare file name), in order.
std::vector<fs::path> network_places(const std::string& name) {
  std::vector<fs::path> places;
  if (const char* dir = std::getenv("LB_DATA_DIR"); dir && *dir) places.push_back(fs::path(dir) / name);
  places.push_back(fs::path(LB_SOURCE_DIR) / "data" / name);
  places.push_back(fs::path(LB_SOURCE_DIR) / ".." / "shared" / "datasets" / name);
  return places;
}

}  // namespace

TrafficSource find_traffic_network(const std::string& name, std::array<std::uint32_t, 2> tile) {
  TrafficSource s{name, tile, {}, {}};
  for (const fs::path& p : network_places(name))
    if (fs::exists(p)) {
      s.path = p.string();
      return s;
    }
  std::string tried;
  for (const fs::path& p : network_places(name)) tried += (tried.empty() ? "" : ", ") + p.string();
  s.missing = fmt::format("network {} not found (looked in {}; the data folder is $LB_DATA_DIR, else data/)", name, tried);
  return s;
}

std::string traffic_network_name(const TrafficSource& s) {
  std::string stem = fs::path(s.name).stem().string();
  if (s.tile != std::array<std::uint32_t, 2>{1, 1}) stem += fmt::format("-tiled-{}x{}", s.tile[0], s.tile[1]);
  return stem;
}

namespace {

//! The network, built once per (file, tile) per process.
const traffic::Network& bench_network(const TrafficSource& s) {
  static std::map<std::pair<std::string, std::array<std::uint32_t, 2>>, traffic::Network> cache;
  const auto key = std::make_pair(s.path, s.tile);
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  // K x L copies of the file joined into one city (street_network.hpp's tiling; [1, 1]: the file).
  const datasets::StreetNetwork streets = datasets::load_street_network(s.path, {s.tile[0], s.tile[1]});
  traffic::BuildReport report;
  traffic::Network net = traffic::build_network(streets, &report);
  std::fprintf(stderr, "traffic network %s: %s\n%s\n", s.path.c_str(),
               datasets::describe(datasets::street_network_stats(streets)).c_str(), traffic::describe(report).c_str());
  return cache.emplace(key, std::move(net)).first->second;
}

//! The initial state and the reference's final checksum, once per (network, cars, seed,
//! steps) per process: every layout of a sweep compares with it.
struct BenchReference {
  traffic::State initial;
  std::uint64_t checksum = 0;
  double path_cells = 0;  //!< path cells the cars held after each step, summed over the steps
};

const BenchReference& bench_reference(const TrafficSource& s, const traffic::Network& net, std::size_t cars,
                                      std::uint64_t seed, std::uint32_t steps) {
  using Key = std::tuple<std::string, std::array<std::uint32_t, 2>, std::size_t, std::uint64_t, std::uint32_t>;
  static std::map<Key, BenchReference> cache;
  const Key key{s.path, s.tile, cars, seed, steps};
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  BenchReference r;
  r.initial = traffic::initial_state(net, cars, seed);
  traffic::State state = r.initial;
  // In parallel (the paper's 1000 steps of 229,376 cars: ~175 s on one core), the same state.
  std::uint64_t path_cells = 0;
  for (std::uint32_t t = 0; t < steps; ++t) {
    traffic::reference_step_parallel(net, state);
    const auto n = static_cast<std::int64_t>(state.cars.size());
    const bool parallel = state.cars.size() >= traffic::kParallelMinObjects;
#pragma omp parallel for if (parallel) schedule(static) reduction(+ : path_cells)
    for (std::int64_t k = 0; k < n; ++k) path_cells += state.cars[k].path_length;
  }
  r.path_cells = static_cast<double>(path_cells);
  lb::release_host_threads();  // no idle OpenMP threads spinning beside the runs that follow
  r.checksum = traffic::checksum(state);
  return cache.emplace(key, std::move(r)).first->second;
}

class TrafficProgram final : public Variant {
 public:
  explicit TrafficProgram(TrafficCase c) : c_(std::move(c)) {}

  void setup(cudaStream_t) override {
    if (!c_.source.missing.empty()) return;
    net_ = &bench_network(c_.source);
    ref_ = &bench_reference(c_.source, *net_, c_.cars, c_.seed, c_.steps);
    sim_ = traffic::make_laid_out_traffic(*net_, ref_->initial, c_.layout, traffic::Device::gpu, c_.fault, c_.schedule);
    sim_->keep_snapshot();
    split_.reset();
  }
  //! prepare restores the whole initial state before every run, and the checksum covers every
  //! car, signal and light: a run that skips work fails it. Nothing to poison.
  void poison(cudaStream_t) override {}
  void prepare(cudaStream_t stream) override {
    if (sim_) sim_->restore_snapshot(stream);
  }
  //! The first run after setup (the harness's validation run) is the instrumented one.
  void run(cudaStream_t stream) override {
    if (!sim_) return;
    if (!split_)
      split_ = sim_->run_split(c_.steps, stream);
    else
      sim_->run(c_.steps, stream);
  }
  Check validate(cudaStream_t stream) override {
    Check c;
    if (!sim_) {
      c.message = "skipped: " + c_.source.missing;
      return c;
    }
    sim_->wait(stream);
    const traffic::State got = sim_->state();
    if (const std::uint64_t sum = traffic::checksum(got); sum != ref_->checksum)
      c.message = fmt::format("checksum {:016x} after {} steps, the CPU reference's is {:016x}", sum, got.step,
                              ref_->checksum);
    else if (const std::string broken = traffic::check_invariants(*net_, got); !broken.empty())
      c.message = "invariants: " + broken;
    c.counters = {{"checked", static_cast<double>(got.cars.size())}, {"max_abs_err", c.message.empty() ? 0.0 : 1.0},
                  {"tolerance", 0}};
    c.ok = c.message.empty();
    return c;
  }
  Work work() const override {
    if (!sim_) return {.unit = "cell_updates"};
    const double steps = c_.steps, cars = static_cast<double>(c_.cars);
    const double lights = static_cast<double>(net_->lights.size()), p = ref_->path_cells;
    return {.unit = "cell_updates",
            .units = static_cast<double>(net_->cells.size()) * steps,
            .bytes_read = steps * (11 * cars + 12 * lights) + 18 * p,
            .bytes_written = steps * (10 * cars + 8 * lights) + 8 * p};
  }
  double footprint_bytes() const override { return sim_ ? static_cast<double>(sim_->footprint().total.total()) : 0; }
  void add_counters(benchmark::State& state, double seconds) const override {
    if (!sim_) return;
    const traffic::TrafficFootprint& f = sim_->footprint();
    state.counters["cars"] = static_cast<double>(c_.cars);
    state.counters["cells"] = static_cast<double>(net_->cells.size());
    state.counters["steps"] = c_.steps;
    state.counters["step_s"] = seconds / c_.steps;  // the time a step (issue 38's target: 100 µs)
    // The network's controller mix, set beside the paper's in the report (Fig. 11's table).
    state.counters["lights"] = static_cast<double>(net_->lights.size());
    state.counters["yield_controllers"] = static_cast<double>(net_->yields.size());
    state.counters["signal_groups"] = static_cast<double>(net_->groups.size());
    if (split_) {
      state.counters["cars_s"] = split_->cars_s;
      state.counters["controllers_s"] = split_->controllers_s;
    }
    state.counters["footprint_inline_bytes"] = static_cast<double>(f.total.inline_bytes);
    state.counters["footprint_arena_bytes"] = static_cast<double>(f.total.arena_bytes);
    state.counters["footprint_wasted_bytes"] = static_cast<double>(f.total.wasted_bytes);
    const std::pair<const char*, const layout::InnerFootprint*> parts[] = {
        {"incoming", &f.incoming}, {"outgoing", &f.outgoing}, {"path", &f.path}};
    for (const auto& [name, part] : parts) {
      state.counters[fmt::format("{}_inline_bytes", name)] = static_cast<double>(part->inline_bytes);
      state.counters[fmt::format("{}_arena_bytes", name)] = static_cast<double>(part->arena_bytes);
    }
  }

 private:
  TrafficCase c_;
  const traffic::Network* net_ = nullptr;
  const BenchReference* ref_ = nullptr;
  std::unique_ptr<traffic::LaidOutTraffic> sim_;
  std::optional<traffic::StepSplit> split_;  //!< of the validation run
};

}  // namespace

std::unique_ptr<Variant> make_traffic_variant(const TrafficCase& c) { return std::make_unique<TrafficProgram>(c); }

namespace {

//! A scalar count's limits: an integer in [1, max], else "'traffic' needs '<key>', ...".
std::function<std::string(const nlohmann::json&)> positive(std::string key, std::uint64_t max) {
  return [key, max](const nlohmann::json& v) {
    const bool ok = v.is_number_unsigned() && v.get<std::uint64_t>() >= 1 && v.get<std::uint64_t>() <= max;
    return ok ? std::string{} : fmt::format("'traffic' needs '{}', an integer in [1, {}]", key, max);
  };
}

//! Where one layout runs, where the preset narrows it ("layout_overrides": a layout's fields
//! and strategies): the method's aosoa32 where its choice for the car is (path, the array
//! alone: object or none; docs/advisor.md §6).
struct TrafficLayoutScope {
  std::vector<SweptField> fields;        //!< empty = every field
  std::vector<InnerStrategy> strategies;  //!< empty = every strategy
};

std::map<std::string, TrafficLayoutScope> read_traffic_layout_scopes(const Preset& preset, const nlohmann::json& j,
                                                                     std::string_view where) {
  std::map<std::string, TrafficLayoutScope> scopes;
  if (!j.contains("layout_overrides")) return scopes;
  const nlohmann::json& o = j["layout_overrides"];
  if (!o.is_object()) throw preset.error_at("layout_overrides", "'layout_overrides' maps a layout to its scope", where);
  for (const auto& [name, scope] : o.items()) {
    try {
      lb::inner::check_inner_layout(lb::inner::parse_inner_layout(name), lb::inner::TrafficInnerLayouts{});
    } catch (const std::invalid_argument& e) {
      throw preset.error_at(name, e.what(), "layout_overrides");
    }
    preset.check_keys(scope, name, {"fields", "strategies"});
    TrafficLayoutScope& s = scopes[name];
    if (scope.contains("fields")) s.fields = preset.parsed_list_at(scope, "fields", name, traffic::parse_swept_field);
    if (scope.contains("strategies"))
      s.strategies = preset.parsed_list_at(scope, "strategies", name, lb::inner::parse_inner_strategy);
  }
  return scopes;
}

//! Each swept field x layout: the field none (no inner array: the full strategy, inline 0),
//! else each strategy x its inline counts up to the field's maximum; on the network with the
//! cars and steps; within each layout's layout_overrides.
Expansion expand_traffic(const Reader& read) {
  const Preset& preset = read.preset();
  const nlohmann::json& j = read.object();
  const std::string_view where = read.where();
  const std::map<std::string, TrafficLayoutScope> scopes = read_traffic_layout_scopes(preset, j, where);
  if (!j.contains("network") || !j["network"].is_string() || j["network"].get<std::string>().empty() ||
      j["network"].get<std::string>().find('/') != std::string::npos)
    throw preset.error_at("network", "'network' must be a GraphML file name (looked up in the data folders)", where);
  std::array<std::uint32_t, 2> tile{1, 1};
  if (j.contains("tile")) {
    const nlohmann::json& t = j["tile"];
    const auto count = [](const nlohmann::json& x) { return x.is_number_unsigned() && x.get<std::uint64_t>() >= 1 && x.get<std::uint64_t>() <= 1024; };
    if (!t.is_array() || t.size() != 2 || !count(t[0]) || !count(t[1]))
      throw preset.error_at("tile", "'tile' must be [K, L], K and L in [1, 1024]", where);
    tile = {t[0].get<std::uint32_t>(), t[1].get<std::uint32_t>()};
  }
  TrafficCase base;
  base.source = find_traffic_network(j["network"].get<std::string>(), tile);
  // Any 64-bit seed, 0 included, as `layoutbench traffic --seed` takes it.
  if (j.contains("seed") && !j["seed"].is_number_unsigned())
    throw preset.error_at("seed", "'seed' must be an integer in [0, 2^64 - 1]", where);
  base.seed = j.value("seed", std::uint64_t{7});
  const std::string network = traffic_network_name(base.source);
  // Field none runs full alone; cells only where it is built (traffic::cells_apart_runs).
  const Steps strategies = [](const Point& at, const Reader& r) {
    if (at.text("field") == "none") return std::vector<Step>{{{"strategy", {"full", std::string("full")}}}};
    std::vector<Step> out = r.steps("strategy");
    if (traffic::parse_swept_field(at.text("field")) == SweptField::cells)
      std::erase_if(out, [&](const Step& s) {
        return !traffic::cells_apart_runs(layout_of(at), lb::inner::parse_inner_strategy(s.front().second.text));
      });
    return out;
  };
  const Steps counts = [](const Point& at, const Reader& r) {
    const SweptField f = traffic::parse_swept_field(at.text("field"));
    if (f == SweptField::none) return std::vector<Step>{{{"inline", {"0", std::int64_t{0}}}}};
    return inline_steps(at, r.values("inline"), traffic::max_elements(f));
  };
  const Steps networks = [network](const Point&, const Reader&) {
    return std::vector<Step>{{{"network", {network, network}}}};
  };
  // The default schedule sets no axis: its names stay those measured before the levers.
  const Steps schedules = [](const Point&, const Reader& r) {
    std::vector<Step> out;
    for (const AxisValue& v : r.values("schedule")) {
      const traffic::StepSchedule s = traffic::parse_step_schedule(v.text);
      out.push_back(s == traffic::StepSchedule{} ? Step{} : Step{{"schedule", {v.text, s}}});
    }
    if (out.empty()) out.push_back(Step{});
    return out;
  };
  return {
      .loops = {over(
          "field",
          {over("layout",
                {over("strategy", strategies,
                      {over("precision", {over("inline", counts,
                                               {over("network", networks,
                                                     {over("cars", {over("steps", {over("schedule", schedules)})})})})})})})})},
      .make = [base, tile](const Point& at) {
        TrafficCase c = base;
        c.cars = at.get<std::size_t>("cars");
        c.steps = static_cast<std::uint32_t>(at.get<std::size_t>("steps"));
        const InnerStrategy s = strategy_of(at);
        const auto n = static_cast<std::size_t>(at.get<std::int64_t>("inline"));
        c.layout = {layout_of(at), traffic::parse_swept_field(at.text("field")), s,
                    s == InnerStrategy::partial ? n : 0};
        if (at.has("schedule")) c.schedule = at.get<traffic::StepSchedule>("schedule");
        // Host: the network, the reference's states and the host copy of the layout (a few hundred
        // bytes a cell and a car); device: the layout and its snapshot (keep_snapshot: the cells, cars
        // and lights again), each at most ~100 bytes a cell and ~200 a car (a tile of lower Manhattan
        // is ~127 K cells: 0.05 GB a tile leaves room for both).
        const double tiles = double(tile[0]) * tile[1], cars = double(c.cars);
        const MemoryNeed need{.host_bytes = tiles * 0.2e9 + cars * 800, .device_bytes = tiles * 0.05e9 + cars * 400};
        return ProgramCase{Where::gpu, need, [c] { return make_traffic_variant(c); }};
      },
      .admits = [scopes](const Point& at) {
        const auto it = scopes.find(at.text("layout"));
        if (it == scopes.end()) return true;
        const auto in = [](const auto& allowed, auto v) {
          return allowed.empty() || std::find(allowed.begin(), allowed.end(), v) != allowed.end();
        };
        return in(it->second.fields, traffic::parse_swept_field(at.text("field"))) &&
               in(it->second.strategies, strategy_of(at));
      }};
}

}  // namespace

Program traffic_program() {
  Axis fields{.name = "field",
              .values = {"incoming", "outgoing", "path", "cells", "none"},
              .key = "fields",
              .limits = parsed_by(traffic::parse_swept_field)};
  return {"traffic",
          inner_axes(traffic::kMaxPath, false,
                     {fields,
                      {"network", {}},
                      {.name = "cars",
                       .type = AxisType::count,
                       .key = "cars",
                       .limits = positive("cars", 0xfffffffeu),
                       .scalar = true},
                      {.name = "steps",
                       .type = AxisType::count,
                       .key = "steps",
                       .limits = positive("steps", 0xffffffffu),
                       .scalar = true},
                      {.name = "schedule",
                       .key = "schedules",
                       .limits = parsed_by(traffic::parse_step_schedule),
                       .required = false}},
                     lb::inner::layout_names(lb::inner::TrafficInnerLayouts{})),
          {"cars", "cells", "steps", "step_s", "lights", "yield_controllers", "signal_groups", "cars_s", "controllers_s",
           "footprint_inline_bytes", "footprint_arena_bytes", "footprint_wasted_bytes", "incoming_inline_bytes",
           "incoming_arena_bytes", "outgoing_inline_bytes", "outgoing_arena_bytes", "path_inline_bytes",
           "path_arena_bytes"},
          {"network", "tile", "seed", "layout_overrides"},
          expand_traffic};
}

}  // namespace lb::benches::inner
