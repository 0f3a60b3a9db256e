//! N-body (Kofler et al. 2015; a CUDA port of the OpenCL AMD SDK / CUDA samples' nbody): k
//! steps of all-pairs forces over every layout of {float4 pos, float4 vel}, validated against
//! the double reference after those k steps. Preset object:
//!
//!   "nbody": {"sizes": [65536, 131072], "steps": 2, "versions": ["gpu", "roofline"] (default ["gpu"]),
//!             "layouts": [...], "tiles": [...] | "sweep", "compile_time_tiles": [4, 32, 256],
//!             "partitions": {...}}
//!
//! gpu (the paper's kernel, one schedule for every layout) runs over every layout; roofline
//! (beyond the paper: the same sums in a kernel written for throughput) on SoA only.

#include "kofler/nbody_bench.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "lb/kofler/nbody_device.hpp"
#include "lb/layout/device_storage.hpp"
#include "kofler/suite.hpp"
#include "kofler/variant_support.hpp"

namespace lb::benches::kofler {

namespace {

using lb::kofler::Body;
using lb::kofler::Pos;
using lb::kofler::Vel;

constexpr std::uint64_t kSeed = 20150828;  // Euro-Par 2015

//! The versions: the paper's kernel over every layout, and the roofline version (SoA).
constexpr std::string_view kNBodyVersions[] = {kNBodyPaperVersion, kNBodyRooflineVersion};

template <class M>
class NBodyVariant final : public Variant {
 public:
  NBodyVariant(const M& mapping, std::shared_ptr<const NBodyCase> c, bool roofline)
      : mapping_(mapping),
        case_(std::move(c)),
        roofline_(roofline),
        initial_(mapping),
        scratch_(mapping),
        out_(mapping) {}

  void setup(cudaStream_t stream) override {
    layout::HostStorage<M> host(mapping_);
    layout::fill(host.view(), [&](std::size_t i) {
      layout::RecordValue<Body> v;
      v.template get<Pos>() = case_->initial.pos[i];
      v.template get<Vel>() = case_->initial.vel[i];
      return v;
    });
    initial_.upload(host, stream);
    check(cudaStreamSynchronize(stream), "nbody set-up");
  }
  // The initial bodies are never written (the first step reads them): prepare has nothing
  // to restore. Both step buffers hold the last run's (or the poison's) values.
  void poison(cudaStream_t stream) override {
    poison_blobs(scratch_.view(), stream);
    poison_blobs(out_.view(), stream);
  }
  void run(cudaStream_t stream) override {
    if constexpr (std::is_same_v<M, lb::kofler::NBodyRooflineMapping>) {
      if (roofline_)
        return lb::kofler::nbody_roofline_run(initial_.view(), scratch_.view(), out_.view(), case_->params, stream);
    }
    lb::kofler::nbody_run(initial_.view(), scratch_.view(), out_.view(), case_->params, stream);
  }
  Check validate(cudaStream_t stream) override {
    layout::HostStorage<M> host(mapping_);
    out_.download(host, stream);
    lb::kofler::NBodyState got;
    for (std::size_t i = 0; i < mapping_.size(); ++i) {
      const auto v = host.view().load(i);
      got.pos.push_back(v.template get<Pos>());
      got.vel.push_back(v.template get<Vel>());
    }
    const auto a = lb::kofler::check_nbody(case_->reference, case_->initial, got);
    return check_of(a, fmt::format("validation after {} steps", case_->params.steps));
  }
  // Per step: n^2 interactions (kInteractionFma FMA-pipe instructions and one rsqrt each),
  // plus per body one running-sum add of 3 components per tile, the kLanes - 1 partial adds
  // and the 6 FMAs of the step; the roofline version does the same operations. DRAM: the state
  // read and written once a step (the tiles' re-reads of pos hit L2: 64K bodies are 2 MiB),
  // negligible beside the compute.
  Work work() const override {
    const double n = double(mapping_.size()), k = case_->params.steps;
    const double tiles = std::ceil(n / lb::kofler::kTileBodies);
    const double per_body = 3 * tiles + 3 * (lb::kofler::kLanes - 1) + 6;
    return {.unit = "interactions",
            .units = n * n * k,
            .bytes_read = k * n * sizeof(float4) * 2,
            .bytes_written = k * n * sizeof(float4) * 2,
            .fp32_fma = k * (n * n * lb::kofler::kInteractionFma + n * per_body),
            .fp32_special = k * n * n * lb::kofler::kInteractionSpecial};
  }
  double footprint_bytes() const override { return 3.0 * double(layout::footprint_bytes(mapping_)); }
  void add_counters(benchmark::State& st, double) const override {
    st.counters["struct_bytes"] = double(Body::packed_size);
    st.counters["fields"] = double(Body::field_count);
    st.counters["kernels"] = 1;
    st.counters["steps"] = case_->params.steps;
  }

 private:
  M mapping_;
  std::shared_ptr<const NBodyCase> case_;
  bool roofline_;
  layout::DeviceStorage<M> initial_, scratch_, out_;
};

}  // namespace

NBodyCase make_nbody_case(std::size_t n, const lb::kofler::NBodyParams& params) {
  NBodyCase c{lb::kofler::nbody_initial(n, kSeed), params, {}};
  c.reference = lb::kofler::nbody_reference(c.initial, params);
  return c;
}

std::unique_ptr<Variant> make_nbody_variant(const LayoutChoice& layout, std::shared_ptr<const NBodyCase> c,
                                            std::string_view version) {
  if (std::find(std::begin(kNBodyVersions), std::end(kNBodyVersions), version) == std::end(kNBodyVersions))
    throw std::invalid_argument("unknown nbody version '" + std::string(version) + "'");
  const bool roofline = version == kNBodyRooflineVersion;
  if (roofline && !layout.is<kind::Soa>())
    throw std::invalid_argument(fmt::format("nbody version {} runs on layout {} only", version, kind::Soa::name));
  std::unique_ptr<Variant> v;
  with_mapping<lb::kofler::NBodyLayouts>(layout, c->initial.size(), [&](const auto& mapping) {
    v = std::make_unique<NBodyVariant<std::decay_t<decltype(mapping)>>>(mapping, c, roofline);
  });
  return v;
}

namespace {

//! Per size (its reference made once, when its first benchmark runs) and version: the paper's
//! kernel over each layout choice, the roofline version on SoA.
Expansion expand_nbody(const Reader& read) {
  const Preset& preset = read.preset();
  const nlohmann::json& j = read.object();
  const std::string_view where = read.where();
  if (!j.contains("steps") || !j["steps"].is_number_unsigned() || j["steps"].get<std::uint64_t>() < 1 ||
      j["steps"].get<std::uint64_t>() > 1000)
    throw preset.error_at(j.contains("steps") ? "steps" : where, "'steps' must be an integer from 1 to 1000", where);
  lb::kofler::NBodyParams params;
  params.steps = j["steps"].get<int>();
  const auto method = method_source("nbody", {"pos", "vel"}, record_field_bytes<Body>(), read.overrides());
  const Steps layouts = [method](const Point& at, const Reader& r) -> std::vector<Step> {
    if (at.text("version") == kNBodyRooflineVersion) {
      const LayoutChoice soa{kind::Soa{}};
      return {{{"layout", {std::string(soa.name()), soa}}}};
    }
    return layout_steps(r, at.get<std::size_t>("size"), {"pos", "vel"}, lb::kofler::NBodyLayouts::compile_time_tiles(),
                        lb::kofler::NBodyLayouts::compile_time_partitions(), &method);
  };
  // One reference per size, made when its first benchmark runs, shared by all its layouts.
  using Slot = std::shared_ptr<std::shared_ptr<const NBodyCase>>;
  auto slots = std::make_shared<std::map<std::size_t, Slot>>();
  // Without "versions" (presets before the roofline version) the paper's kernel alone.
  const Steps versions = [](const Point&, const Reader& r) {
    if (r.object().contains("versions")) return r.steps("version");
    const std::string paper(kNBodyPaperVersion);
    return std::vector<Step>{{{"version", AxisValue{paper, paper}}}};
  };
  return {.loops = {over("size", {over("version", versions, {over("precision", {over("layout", layouts)})})})},
          .make = [params, slots](const Point& at) {
            const std::size_t n = at.get<std::size_t>("size");
            Slot& slot = (*slots)[n];
            if (!slot) slot = std::make_shared<std::shared_ptr<const NBodyCase>>();
            auto get_case = [cached = slot, n, params] {
              if (!*cached) *cached = std::make_shared<const NBodyCase>(make_nbody_case(n, params));
              return *cached;
            };
            const MemoryNeed need{.host_bytes = 200.0 * double(n), .device_bytes = 3 * 32.0 * double(n) * 1.1};
            const LayoutChoice& choice = at.get<LayoutChoice>("layout");
            const std::string version = at.text("version");
            return kofler_run(choice, Where::gpu, need, [get_case, version](const LayoutChoice& c) {
              return make_nbody_variant(c, get_case(), version);
            });
          }};
}

}  // namespace

Program nbody_program() {
  std::vector<Axis> axes = kofler_axes({std::begin(kNBodyVersions), std::end(kNBodyVersions)}, {"float"},
                                       lb::kofler::NBodyLayouts::compile_time_tiles(),
                                       lb::kofler::NBodyLayouts::compile_time_partitions());
  Axis& version = axis_named(axes, "version");
  version.key = "versions";
  version.required = false;
  return {"nbody",
          std::move(axes),
          {"struct_bytes", "fields", "kernels", "steps"},
          {"steps", "partitions"},
          expand_nbody};
}

}  // namespace lb::benches::kofler
