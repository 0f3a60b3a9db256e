//! The decision tree's training (Kofler et al. 2015, Sect. 3.2): the synthetic kernels of
//! lb/kofler/tree_synthetic.hpp over AoS, SoA and the tile sweep, one benchmark a (fields,
//! iterations, class). Validation: a checksum of every word of the storage against the closed
//! form (computed once per record count and m); on a mismatch, the storage is downloaded and
//! the first wrong field named. The preset object (docs/kofler-tree.md):
//!
//!   "kofler-tree": {"records": 16777216, "threads": 131072, "iterations": [128, ..., 16384],
//!                   "fields": [1, ..., 16], "layouts": ["aos", "soa", "tiled"],
//!                   "tiles": [2, ..., 32768], "block": 256,
//!                   "repetitions": 3, "min_time_s": 0.001, "fit": {"reuse": 0}}
//!
//! ("fit" is the artifact step's, read by harness/run.py.)

#include "kofler_tree/synthetic_bench.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <utility>

#include "kofler/layout_choice.hpp"
#include "kofler_tree/synthetic_config.hpp"
#include "lb/common/cuda_check.hpp"
#include "lb/harness/suite.hpp"
#include "lb/kofler/tree_synthetic_device.hpp"
#include "lb/layout/decision_tree.hpp"
#include "lb/layout/device_storage.hpp"
#include "lb/layout/host_storage.hpp"

namespace lb::benches::kofler_tree {

namespace tree = lb::kofler::tree;
using tree::Checksum;
using tree::Geometry;

namespace {

//! The reference checksum of the latest (records, m): the planner orders cases by m, so each
//! is computed once.
Checksum reference(std::size_t records, std::size_t m) {
  static std::mutex mutex;
  static std::size_t cached_records = 0, cached_m = 0;
  static Checksum cached;
  std::lock_guard lock(mutex);
  if (records != cached_records || m != cached_m) {
    cached = tree::reference_checksum(records, m);
    cached_records = records;
    cached_m = m;
  }
  return cached;
}

std::string wrong_field(std::size_t record, std::size_t field, float got, float want) {
  return fmt::format("record {} field {}: got {}, expected {}", record, field, got, want);
}

//! A device Checksum, freed on scope exit.
struct DeviceChecksum {
  DeviceChecksum() {
    void* raw = nullptr;
    check(cudaMalloc(&raw, sizeof(Checksum)), "cudaMalloc (checksum)");
    p = static_cast<Checksum*>(raw);
  }
  ~DeviceChecksum() { cudaFree(p); }
  DeviceChecksum(const DeviceChecksum&) = delete;
  DeviceChecksum& operator=(const DeviceChecksum&) = delete;
  Checksum* p = nullptr;
};

//! What a training case does not owe to its (m, mapping), compiled once, not once per class:
//! the validation's comparison and messages, the declared work, the counters and the fault.
//! Synthetic<M, Mapping> adds the storage and what reads or writes it.
class SyntheticCase : public TreeVariant {
 public:
  explicit SyntheticCase(const TreeCase& c) : c_(c) {}

  Check validate(cudaStream_t stream) override {
    const Checksum want = reference(c_.records, c_.fields);
    Checksum got;
    {
      DeviceChecksum d;
      check(cudaMemsetAsync(d.p, 0, sizeof(Checksum), stream), "cudaMemset (checksum)");
      add_checksum(d.p, stream);
      check(cudaMemcpyAsync(&got, d.p, sizeof got, cudaMemcpyDeviceToHost, stream), "download checksum");
      check(cudaStreamSynchronize(stream), "kofler-tree checksum");
    }
    Check result;
    if (got == want) {
      result.ok = true;
      result.counters = {{"max_abs_err", 0.0}, {"tolerance", 0.0}, {"checked", double(c_.records * c_.fields)}};
      return result;
    }
    result.message = first_wrong_field(stream);
    if (result.message.empty())
      result.message = fmt::format("checksum {} over {} words, expected {} over {} words, yet every field matches",
                                   got.sum, got.words, want.sum, want.words);
    return result;
  }
  //! Every update reads every field of its record and writes field 0.
  Work work() const override {
    const double n = double(geometry().updates());
    return {.unit = "updates", .units = n, .bytes_read = 4.0 * double(c_.fields) * n, .bytes_written = 4.0 * n};
  }
  //! (Not "iterations" or "threads": Google Benchmark's JSON has keys of those names.)
  void add_counters(benchmark::State& st, double) const override {
    st.counters["fields"] = double(c_.fields);
    st.counters["cluster_bytes"] = double(4 * c_.fields);
    st.counters["records"] = double(c_.records);
    st.counters["loop_iterations"] = double(c_.iterations);
    st.counters["gpu_threads"] = double(geometry().threads());
  }
  void inject_fault(std::size_t record, std::size_t field) override {
    const auto host = download(nullptr);
    if (field >= c_.fields)
      throw std::out_of_range(fmt::format("inject_fault: field {} of a {}-field record", field, c_.fields));
    *host->fields(record)[field] += 1.0f;
    host->upload();
    check(cudaDeviceSynchronize(), "inject fault");
  }

 protected:
  //! The storage copied to the host.
  class HostCopy {
   public:
    virtual ~HostCopy() = default;
    //! The fields of record r, by index (the first c_.fields are set).
    virtual std::array<float*, tree::kMaxFields> fields(std::size_t r) const = 0;
    //! The copy written back to the device (the default stream).
    virtual void upload() = 0;
  };
  Geometry geometry() const { return {c_.records, c_.iterations, c_.threads}; }

  TreeCase c_;

 private:
  //! Adds the checksum of every word of the storage to *out (device), on `stream`.
  virtual void add_checksum(Checksum* out, cudaStream_t stream) const = 0;
  //! The storage downloaded on `stream` (synchronized).
  virtual std::unique_ptr<HostCopy> download(cudaStream_t stream) = 0;

  //! The first field that differs from the closed form, as "record r field j: got x, expected y".
  std::string first_wrong_field(cudaStream_t stream) {
    const auto host = download(stream);
    const std::size_t m = c_.fields;
    for (std::size_t r = 0; r < c_.records; ++r) {
      const auto fields = host->fields(r);
      for (std::size_t j = 0; j < m; ++j) {
        const float got = *fields[j], want = tree::expected_field(r, j, m);
        if (std::memcmp(&got, &want, sizeof got) != 0) return wrong_field(r, j, got, want);
      }
    }
    return {};
  }
};

//! A training case's storage: M float fields a record laid out by Mapping.
template <std::size_t M, class Mapping>
class Synthetic final : public SyntheticCase {
 public:
  Synthetic(const TreeCase& c, const Mapping& mapping) : SyntheticCase(c), storage_(mapping) {}

  void setup(cudaStream_t stream) override { tree::synthetic_init(storage_.view(), true, stream); }
  void poison(cudaStream_t stream) override { tree::synthetic_init(storage_.view(), false, stream); }
  void run(cudaStream_t stream) override { tree::synthetic_run(storage_.view(), geometry(), c_.block, stream); }
  double footprint_bytes() const override { return double(layout::footprint_bytes(storage_.view().mapping)); }

 private:
  void add_checksum(Checksum* out, cudaStream_t stream) const override {
    const auto v = storage_.view();
    for (std::size_t b = 0; b < Mapping::blob_count; ++b)
      tree::synthetic_checksum(reinterpret_cast<const float*>(v.blobs[b]), v.mapping.blob_bytes(b) / sizeof(float), out,
                               stream);
  }
  class Copy final : public HostCopy {
   public:
    Copy(layout::DeviceStorage<Mapping>& device, cudaStream_t stream)
        : device_(device), host_(device.view().mapping) {
      device_.download(host_, stream);
    }
    std::array<float*, tree::kMaxFields> fields(std::size_t r) const override {
      const auto v = host_.view();
      return [&]<std::size_t... J>(std::index_sequence<J...>) {
        return std::array<float*, tree::kMaxFields>{&v.template get<tree::Slot<J>>(r)...};
      }(std::make_index_sequence<M>{});
    }
    void upload() override { device_.upload(host_); }

   private:
    layout::DeviceStorage<Mapping>& device_;
    layout::HostStorage<Mapping> host_;
  };
  std::unique_ptr<HostCopy> download(cudaStream_t stream) override {
    return std::make_unique<Copy>(storage_, stream);
  }

  layout::DeviceStorage<Mapping> storage_;
};

template <std::size_t M>
std::unique_ptr<TreeVariant> make_for_fields(const TreeCase& c) {
  if (c.layout == "aos") return std::make_unique<Synthetic<M, tree::AoS<M>>>(c, tree::AoS<M>{c.records});
  if (c.layout == "soa") return std::make_unique<Synthetic<M, tree::SoA<M>>>(c, tree::SoA<M>{c.records});
  if (c.layout == "tiled") return std::make_unique<Synthetic<M, tree::Tiled<M>>>(c, tree::Tiled<M>(c.records, c.tile));
  throw std::invalid_argument(fmt::format("kofler-tree: unknown layout '{}'", c.layout));
}

}  // namespace

std::string class_name(const TreeCase& c) { return c.layout == "tiled" ? fmt::format("tiled:{}", c.tile) : c.layout; }

std::unique_ptr<TreeVariant> make_tree_variant(const TreeCase& c) {
  if (const char* why = Geometry{c.records, c.iterations, c.threads}.problem(); *why) throw std::invalid_argument(why);
  std::unique_ptr<TreeVariant> v;
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    ((c.fields == I + 1 ? (v = make_for_fields<I + 1>(c), 0) : 0), ...);
  }(std::make_index_sequence<tree::kMaxFields>{});
  if (!v) throw std::invalid_argument(fmt::format("kofler-tree: {} fields (expected 1 to {})", c.fields, tree::kMaxFields));
  return v;
}

BenchmarkId tree_id(const TreeCase& c) {
  BenchmarkId id{.version = "gpu", .layout = c.layout, .precision = "float"};
  if (c.layout == "tiled") id.params.emplace_back("tile", std::to_string(c.tile));
  id.params.emplace_back("fields", std::to_string(c.fields));
  id.params.emplace_back("n", std::to_string(c.iterations));
  return id;
}

namespace {

//! A count axis's limits: `ok`, else "'<key>' must be <requirement>; <value> is not".
template <class Ok>
std::function<std::string(const nlohmann::json&)> counts(std::string key, Ok ok, std::string requirement) {
  return [=](const nlohmann::json& v) {
    const auto n = v.get<std::size_t>();
    return ok(n) ? std::string{} : fmt::format("'{}' must be {}; {} is not", key, requirement, n);
  };
}

//! For each field count and loop length, each layout (tiled once per tile). 'records' sizes
//! every case: the program has no axis --sizes sets (docs/kofler-tree.md).
Expansion expand_tree(const Reader& read) {
  const TreeSection s = read_tree_section(read.preset(), read.object(), read.where());
  const Steps tiles = [](const Point& at, const Reader& r) {
    return at.text("layout") == "tiled" ? r.steps("tile") : std::vector<Step>{Step{}};
  };
  // Outermost: the reference checksum is computed once per field count.
  return {.loops = {over("fields",
                         {over("n", {over("version", {over("precision", {over("layout", {over("tile", tiles)})})})})})},
          .make = [s](const Point& at) {
            TreeCase c;
            c.records = s.records;
            c.threads = s.threads;
            c.block = s.block;
            c.fields = at.get<std::size_t>("fields");
            c.iterations = static_cast<std::uint32_t>(at.get<std::size_t>("n"));
            c.layout = at.text("layout");
            c.tile = at.has("tile") ? at.get<std::size_t>("tile") : 0;
            const double bytes = 4.0 * double(c.fields) * double(c.records);
            ProgramCase run{Where::gpu, {.host_bytes = bytes, .device_bytes = bytes}, [c] {
                              return std::unique_ptr<Variant>(make_tree_variant(c));
                            }};
            run.repetitions = s.repetitions;
            run.min_time_s = s.min_time_s;
            return run;
          }};
}

}  // namespace

Program synthetic_program() {
  // The training's tiles are the classes a tree may name (lb::layout::kMaxTreeTile).
  return {"synthetic",
          {{"version", {"gpu"}},
           {.name = "layout", .values = kTreeLayouts, .key = "layouts"},
           {.name = "precision", .values = {"float"}, .shorthand = Shorthand::precision},
           {.name = "tile",
            .type = AxisType::count,
            .key = "tiles",
            .limits = counts(
                "tiles", [](std::size_t t) { return t >= 2 && t <= layout::kMaxTreeTile && power_of_two(t); },
                fmt::format("a power of two from 2 to {}", layout::kMaxTreeTile)),
            .required = false},
           {.name = "fields",
            .type = AxisType::count,
            .key = "fields",
            .limits = counts(
                "fields", [](std::size_t m) { return m >= 1 && m <= tree::kMaxFields; },
                fmt::format("a field count from 1 to {}", tree::kMaxFields))},
           {.name = "n",
            .type = AxisType::count,
            .key = "iterations",
            .limits = counts("iterations", power_of_two, "a power of two")}},
          {"fields", "cluster_bytes", "records", "loop_iterations", "gpu_threads"},
          {"records", "threads", "block", "repetitions", "min_time_s", "fit"},
          expand_tree};
}

}  // namespace lb::benches::kofler_tree
