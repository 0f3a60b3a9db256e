//! Kofler's bitonic sort (CUDA port of the OpenCL program, structured as the CUDA samples'
//! sortingNetworks) over the record layouts, with CUB's radix and merge sorts beside it in the
//! same run. Preset object:
//!
//!   "bitonic": {"sizes": [1048576], "versions": ["bitonic", "cub-radix", "cub-merge"],
//!               "layouts": ["aos", "soa", "tiled", "tiled-ct"], "tiles": [4, 32] | "sweep",
//!               "compile_time_tiles": [4, 32, 256], "partitions": {...}}
//!
//! bitonic runs over every layout it takes (no split-ct: it compiles no split; the run-time
//! split of any "partitions"); cub-radix sorts the SoA key column (layout soa), cub-merge
//! the whole AoS record (layout aos).

#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "kofler/suite.hpp"
#include "kofler/bitonic_bench.hpp"
#include "kofler/variant_support.hpp"
#include "lb/harness/program.hpp"
#include "lb/kofler/sort.hpp"
#include "lb/layout/device_storage.hpp"

namespace lb::benches::kofler {

namespace {

using lb::kofler::SortFault;
using lb::kofler::SortPlain;
using lb::kofler::SortRecord;
constexpr double kRecordBytes = sizeof(SortPlain);
constexpr std::string_view kPrecision = "u32";  // the key's type

enum class SortVersion { bitonic, cub_radix, cub_merge };
constexpr std::string_view kVersions[] = {"bitonic", "cub-radix", "cub-merge"};

//! The sorted input of the size being run (16 M records: about a second to sort).
std::shared_ptr<const std::vector<SortPlain>> reference_for(std::size_t n) {
  static LastOne<std::size_t, std::vector<SortPlain>> cache;
  return cache.get(n, lb::kofler::sorted_reference);
}

//! One sort version over mapping M: input and output in M, the output checked against the
//! sorted input. The sorts are out of place, so the input needs no restoring between runs.
template <class M>
class SortVariant : public Variant {
 public:
  SortVariant(M mapping, SortVersion version, SortFault fault) : mapping_(mapping), version_(version), fault_(fault) {}

  void setup(cudaStream_t stream) override {
    const std::size_t n = mapping_.size();
    in_ = std::make_unique<layout::DeviceStorage<M>>(mapping_);
    out_ = std::make_unique<layout::DeviceStorage<M>>(mapping_);
    // made on the device, no host copy and upload per case; a tile's padding zero, as a host
    // layout's is
    layout::fill_blobs(in_->view(), 0, stream);
    lb::kofler::sort_fill_input(in_->view(), stream);
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (sort input)");
    if constexpr (std::is_same_v<M, lb::kofler::SortSoA>)
      if (version_ == SortVersion::cub_radix) radix_ = std::make_unique<lb::kofler::CubRadixSort>(n);
    if constexpr (std::is_same_v<M, lb::kofler::SortAoS>)
      if (version_ == SortVersion::cub_merge) merge_ = std::make_unique<lb::kofler::CubMergeSort>(n);
  }

  void poison(cudaStream_t stream) override {  // id 2^32 - 1 is no input's id, the floats are NaN
    poison_blobs(out_->view(), stream);
  }

  void run(cudaStream_t stream) override {
    switch (version_) {
      case SortVersion::bitonic:
        lb::kofler::bitonic_sort(in_->view(), out_->view(), stream, fault_);
        return;
      case SortVersion::cub_radix:
        if constexpr (std::is_same_v<M, lb::kofler::SortSoA>) return radix_->run(in_->view(), out_->view(), stream, fault_);
        break;
      case SortVersion::cub_merge:
        if constexpr (std::is_same_v<M, lb::kofler::SortAoS>) return merge_->run(in_->view(), out_->view(), stream, fault_);
        break;
    }
    throw std::logic_error("sort version run on a layout it does not support");
  }

  Check validate(cudaStream_t stream) override {
    const auto out = download_records(*out_, mapping_, stream, [](const auto& r) { return lb::kofler::to_plain(r); });
    const auto ref = reference_for(mapping_.size());
    const std::string problem = lb::kofler::check_sorted(out, *ref);
    // exact comparison with the unique right answer: the error counters are zero when it passes
    return {problem.empty(), problem, false,
            {{"checked", double(out.size())}, {"max_abs_err", 0.0}, {"max_rel_err", 0.0}, {"tolerance", 0.0}}};
  }

  //! bitonic: every global pass reads and writes every record (bitonic_global_passes counts
  //! them; the shared-memory strides are fused into those passes), declared as its traffic.
  //! CUB: the minimum of any sort, each record read once and written once (what CUB really
  //! moves is more: radix sort makes several passes over keys and indices).
  Work work() const override {
    const double n = double(mapping_.size());
    const double passes =
        version_ == SortVersion::bitonic ? double(lb::kofler::bitonic_global_passes(mapping_.size())) : 1.0;
    return {.unit = "keys", .units = n, .bytes_read = passes * n * kRecordBytes, .bytes_written = passes * n * kRecordBytes};
  }

  double footprint_bytes() const override {
    double extra = 0;
    if (radix_) extra = double(radix_->device_bytes());
    if (merge_) extra = double(merge_->device_bytes());
    return 2.0 * double(layout::footprint_bytes(mapping_)) + extra;
  }

  //! Table 2: the program's record bytes, fields and kernels (the bitonic program's three).
  void add_counters(benchmark::State& st, double) const override {
    st.counters["struct_bytes"] = kRecordBytes;
    st.counters["fields"] = SortRecord::field_count;
    st.counters["kernels"] = lb::kofler::kBitonicKernels;
    if (version_ == SortVersion::bitonic)
      st.counters["global_passes"] = double(lb::kofler::bitonic_global_passes(mapping_.size()));
  }

 private:
  M mapping_;
  SortVersion version_;
  SortFault fault_;
  std::unique_ptr<layout::DeviceStorage<M>> in_, out_;
  std::unique_ptr<lb::kofler::CubRadixSort> radix_;
  std::unique_ptr<lb::kofler::CubMergeSort> merge_;
};

}  // namespace

std::unique_ptr<Variant> make_bitonic_variant(const LayoutChoice& choice, std::string_view version, std::size_t n,
                                           lb::kofler::SortFault fault) {
  const auto v = SortVersion(std::find(std::begin(kVersions), std::end(kVersions), version) - std::begin(kVersions));
  if (v > SortVersion::cub_merge) throw std::invalid_argument("unknown sort version '" + std::string(version) + "'");
  if ((v == SortVersion::cub_radix && !choice.is<kind::Soa>()) || (v == SortVersion::cub_merge && !choice.is<kind::Aos>()))
    throw std::invalid_argument(fmt::format("sort version {} runs on layout {} only", version,
                                            v == SortVersion::cub_radix ? kind::Soa::name : kind::Aos::name));
  std::unique_ptr<Variant> out;
  with_mapping<lb::kofler::SortLayouts>(choice, n, [&](auto mapping) {
    out = std::make_unique<SortVariant<decltype(mapping)>>(mapping, v, fault);
  });
  return out;
}

namespace {

const std::vector<std::size_t> kSortTiles = lb::kofler::SortLayouts::compile_time_tiles();

//! Per size and version: bitonic over each layout choice, cub-radix on SoA, cub-merge on AoS.
Expansion expand_bitonic(const Reader& read) {
  const auto method =
      method_source("bitonic", lb::kofler::kSortFieldNames, record_field_bytes<SortRecord>(), read.overrides());
  const Steps layouts = [method](const Point& at, const Reader& r) -> std::vector<Step> {
    const std::string& version = at.text("version");
    if (version == "cub-radix" || version == "cub-merge") {
      const LayoutChoice l = version == "cub-radix" ? LayoutChoice{kind::Soa{}} : LayoutChoice{kind::Aos{}};
      return {{{"layout", {std::string(l.name()), l}}}};
    }
    return layout_steps(r, at.get<std::size_t>("size"), lb::kofler::kSortFieldNames, kSortTiles, {}, &method);
  };
  return {.loops = {over("size", {over("version", {over("precision", {over("layout", layouts)})})})},
          .make = [](const Point& at) {
            const std::size_t n = at.get<std::size_t>("size");
            const std::string version = at.text("version");
            const LayoutChoice& choice = at.get<LayoutChoice>("layout");
            const double record_bytes = double(n) * kRecordBytes;
            // input + output (+ CUB's buffers, at most about two more copies); host: staging, the
            // downloaded output, its plain copy and the reference
            return kofler_run(choice, Where::gpu, {.host_bytes = 4 * record_bytes, .device_bytes = 4 * record_bytes},
                              [=](const LayoutChoice& c) { return make_bitonic_variant(c, version, n, SortFault::none); });
          }};
}

}  // namespace

Program bitonic_program() {
  std::vector<Axis> axes =
      kofler_axes({std::begin(kVersions), std::end(kVersions)}, {std::string(kPrecision)}, kSortTiles);
  axis_named(axes, "version").key = "versions";
  axis_named(axes, "size").limits = [](const nlohmann::json& v) {
    const auto n = v.get<std::size_t>();
    return lb::kofler::bitonic_size_ok(n)
               ? ""
               : fmt::format("sizes must be powers of two >= {}; {} is not", lb::kofler::kSortChunk, n);
  };
  return {"bitonic",
          std::move(axes),
          {"struct_bytes", "fields", "kernels", "global_passes"},
          {"partitions"},
          expand_bitonic};
}

}  // namespace lb::benches::kofler
