//! Kofler's LavaMD (CUDA port of Rodinia's lavaMD; float as its OpenCL version, double as its CUDA one) over the layouts of the
//! particle and force records. Preset object:
//!
//!   "lavamd": {"boxes_1d": [10, 16, 24], "precisions": ["float", "double"], "layouts": ["aos", "soa", "tiled", "tiled-ct"],
//!              "tiles": [4, 32] | "sweep", "compile_time_tiles": [4, 32, 128], "partitions": {...}}
//!
//! Every layout LavaMD takes: no split-ct (it compiles no split), the run-time split of any
//! "partitions" of the fields v, x, y, z.
//! Names carry size:<boxes> (boxes_1d³); the tile sweep runs over the particle count.

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>
#include <utility>

#include "kofler/lavamd_bench.hpp"
#include "kofler/suite.hpp"
#include "kofler/variant_support.hpp"
#include "lb/layout/device_storage.hpp"
#include "lb/layout/soa.hpp"

namespace lb::benches::kofler {

namespace {

using lb::kofler::FourPlain;
using lb::kofler::FourVector;
using lb::kofler::kParticlesPerBox;
using lb::kofler::LavaFault;
using lb::kofler::LavaPrecision;

struct Charge {};
template <class T>
using ChargeArray = layout::SoAMapping<layout::Record<layout::Field<Charge, T>>>;

struct Case {
  lb::kofler::LavaInput input;  // float runs: rounded to float
  lb::kofler::LavaReference reference;
};

//! Input and reference of the size and precision being run (the CPU reference takes seconds
//! at 24³ boxes); a float run's reference is computed on its float-rounded input.
std::shared_ptr<const Case> case_for(int boxes_1d, bool rounded_to_float) {
  static LastOne<std::pair<int, bool>, Case> cache;
  return cache.get({boxes_1d, rounded_to_float}, [](std::pair<int, bool> key) {
    Case c{lb::kofler::lavamd_input(key.first), {}};
    if (key.second) c.input = lb::kofler::rounded_to_float(c.input);
    c.reference = lb::kofler::lavamd_reference(key.first, c.input);
    return c;
  });
}

template <class M>
class LavaVariant : public Variant {
  using T = lb::kofler::LavaReal<M>;

 public:
  LavaVariant(M mapping, int boxes_1d, LavaFault fault) : mapping_(mapping), boxes_1d_(boxes_1d), fault_(fault) {}

  void setup(cudaStream_t stream) override {
    case_ = case_for(boxes_1d_, std::is_same_v<T, float>);
    const auto& in = case_->input;
    layout::HostStorage<M> rv(mapping_);
    layout::fill(rv.view(), [&](std::size_t i) { return lb::kofler::to_value<T>(in.rv[i]); });
    layout::HostStorage<ChargeArray<T>> qv(ChargeArray<T>{in.qv.size()});
    layout::fill(qv.view(), [&](std::size_t i) {
      layout::RecordValue<typename ChargeArray<T>::record> q;
      q.template get<Charge>() = static_cast<T>(in.qv[i]);
      return q;
    });
    rv_ = std::make_unique<layout::DeviceStorage<M>>(mapping_);
    fv_ = std::make_unique<layout::DeviceStorage<M>>(mapping_);
    qv_ = std::make_unique<layout::DeviceStorage<ChargeArray<T>>>(qv.mapping());
    rv_->upload(rv, stream);
    qv_->upload(qv, stream);
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (lavamd input)");
  }

  void poison(cudaStream_t stream) override { poison_blobs(fv_->view(), stream); }  // every value a NaN

  void run(cudaStream_t stream) override {
    lb::kofler::lavamd_forces(rv_->view(), &qv_->view().template get<Charge>(0), fv_->view(), boxes_1d_, stream, fault_);
  }

  Check validate(cudaStream_t stream) override {
    const auto fv = download_records(*fv_, mapping_, stream, [](const auto& r) { return lb::kofler::to_plain(r); });
    const auto c = lb::kofler::check_forces(fv, case_->reference, LavaPrecision<T>::tolerance);
    return {c.problem.empty(), c.problem, false,
            {{"checked", 4.0 * double(fv.size())},
             {"max_abs_err", c.max_abs_err},
             {"max_rel_err", c.max_rel_err},
             {"tolerance", LavaPrecision<T>::tolerance}}};
  }

  //! Bytes: the minimum, rv and qv read once and fv written once per particle (the kernel
  //! reads each box's particles once per partner box, mostly from L2). Instructions per pair:
  //! LavaPrecision<T> (double's exp runs on the FP64 pipe, float's on the special-function unit).
  Work work() const override {
    const double particles = double(mapping_.size());
    const double pairs = lb::kofler::lavamd_interactions(boxes_1d_);
    Work w{.unit = "interactions",
           .units = pairs,
           .bytes_read = particles * 5 * sizeof(T),
           .bytes_written = particles * 4 * sizeof(T)};
    const double ops = pairs * LavaPrecision<T>::pair_ops;
    if constexpr (std::is_same_v<T, double>) w.fp64_fma = ops;
    else w.fp32_fma = ops, w.fp32_special = pairs * LavaPrecision<T>::pair_special;
    return w;
  }

  double footprint_bytes() const override {
    return 2.0 * double(layout::footprint_bytes(mapping_)) + double(mapping_.size()) * sizeof(T);
  }

  //! Table 2: the particle record's bytes and fields, and the program's one kernel.
  void add_counters(benchmark::State& st, double) const override {
    st.counters["struct_bytes"] = double(4 * sizeof(T));
    st.counters["fields"] = FourVector<T>::field_count;
    st.counters["kernels"] = 1;
  }

 private:
  M mapping_;
  int boxes_1d_;
  LavaFault fault_;
  std::shared_ptr<const Case> case_;
  std::unique_ptr<layout::DeviceStorage<M>> rv_, fv_;
  std::unique_ptr<layout::DeviceStorage<ChargeArray<T>>> qv_;
};

template <class T>
std::unique_ptr<Variant> make_in(const LayoutChoice& choice, int boxes_1d, LavaFault fault) {
  const std::size_t particles = lb::kofler::lavamd_boxes(boxes_1d) * kParticlesPerBox;
  std::unique_ptr<Variant> v;
  with_mapping<lb::kofler::LavaLayouts<T>>(choice, particles, [&](auto mapping) {
    v = std::make_unique<LavaVariant<decltype(mapping)>>(mapping, boxes_1d, fault);
  });
  return v;
}

constexpr std::string_view kPrecisions[] = {"float", "double"};

}  // namespace

std::unique_ptr<Variant> make_lavamd_variant(const LayoutChoice& choice, int boxes_1d, std::string_view precision,
                                             LavaFault fault) {
  if (precision == "float") return make_in<float>(choice, boxes_1d, fault);
  if (precision == "double") return make_in<double>(choice, boxes_1d, fault);
  throw std::invalid_argument("lavamd: unknown precision '" + std::string(precision) + "'");
}

namespace {

const std::vector<std::size_t> kLavaTiles = lb::kofler::LavaLayouts<float>::compile_time_tiles();

//! Per side (boxes_1d, named by its box count: the size) and precision each layout choice, the
//! method's made from the record run (recorded at float; a double cluster has twice the bytes).
Expansion expand_lavamd(const Reader& read) {
  const std::map<std::string, layout::MethodSource> methods = {
      {"float",
       method_source("lavamd", lb::kofler::kLavaFieldNames, record_field_bytes<FourVector<float>>(), read.overrides())},
      {"double", method_source("lavamd", lb::kofler::kLavaFieldNames, record_field_bytes<FourVector<double>>(),
                               read.overrides())}};
  const Steps boxes = [](const Point& at, const Reader&) -> std::vector<Step> {
    const std::size_t n = lb::kofler::lavamd_boxes(int(at.get<std::size_t>("boxes_1d")));
    return {{{"size", {std::to_string(n), n}}}};
  };
  const Steps layouts = [methods](const Point& at, const Reader& r) {
    return layout_steps(r, at.get<std::size_t>("size") * kParticlesPerBox, lb::kofler::kLavaFieldNames,
                        kLavaTiles, {}, &methods.at(at.text("precision")));
  };
  return {.loops = {over("boxes_1d",
                         {over("size", boxes, {over("precision", {over("version", {over("layout", layouts)})})})})},
          .make = [](const Point& at) {
            const int boxes_1d = int(at.get<std::size_t>("boxes_1d"));
            const double particles = double(at.get<std::size_t>("size")) * kParticlesPerBox;
            const std::string precision = at.text("precision");
            const LayoutChoice& choice = at.get<LayoutChoice>("layout");
            // device: rv, fv, qv; host: the cached input and reference (rv, qv, fv, scale), staging
            return kofler_run(choice, Where::gpu, {.host_bytes = particles * 256, .device_bytes = particles * 72},
                              [=](const LayoutChoice& c) {
                                return make_lavamd_variant(c, boxes_1d, precision, LavaFault::none);
                              });
          }};
}

}  // namespace

Program lavamd_program() {
  std::vector<Axis> axes = kofler_axes({"gpu"}, {std::begin(kPrecisions), std::end(kPrecisions)}, kLavaTiles);
  axis_named(axes, "precision").key = "precisions";
  // The size named is the box count, boxes_1d^3: made from the side the preset gives.
  Axis& size = axis_named(axes, "size");
  size.key = {};
  size.shorthand = Shorthand::none;
  // at most 1000: 10^9 boxes, far past any GPU's memory (box numbers stay well inside a long)
  axes.push_back({.name = "boxes_1d",
                  .type = AxisType::count,
                  .key = "boxes_1d",
                  .limits =
                      [](const nlohmann::json& v) {
                        const auto b = v.get<std::size_t>();
                        return b <= 1000 ? "" : fmt::format("boxes_1d must be at most 1000; {} is not", b);
                      },
                  .shorthand = Shorthand::sizes,
                  .named = false});
  return {"lavamd", std::move(axes), {"struct_bytes", "fields", "kernels"}, {"partitions"}, expand_lavamd};
}

}  // namespace lb::benches::kofler
