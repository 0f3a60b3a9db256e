//! BlackScholes (Kofler et al. 2015; a CUDA port of the CUDA samples' BlackScholes, which the
//! paper ran in OpenCL): call and put of every option over every layout of {S, X, T, call,
//! put}, validated option by option against the double reference.

#include "kofler/blackscholes_bench.hpp"

#include <cstdint>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "kofler/suite.hpp"
#include "kofler/variant_support.hpp"
#include "lb/kofler/blackscholes_device.hpp"
#include "lb/kofler/blackscholes_reference.hpp"
#include "lb/layout/device_storage.hpp"

namespace lb::benches::kofler {

namespace {

using lb::kofler::BlackScholesParams;
using lb::kofler::Option;

//! A device array of floats, freed on scope exit.
struct DeviceFloats {
  explicit DeviceFloats(std::size_t n) {
    void* raw = nullptr;
    check(cudaMalloc(&raw, n * sizeof(float) + 1), "cudaMalloc (gather)");
    p = static_cast<float*>(raw);
  }
  ~DeviceFloats() { cudaFree(p); }
  DeviceFloats(const DeviceFloats&) = delete;
  DeviceFloats& operator=(const DeviceFloats&) = delete;
  float* p = nullptr;
};

//! The references of the size being run, shared by its layouts: the double reference costs
//! the CPU far more than checking against it (a second per case at 67 M options). Held only
//! while a check runs; the cache keeps the last (n, params) alone.
std::shared_ptr<const std::vector<lb::kofler::OptionReference>> references_for(std::size_t n,
                                                                              const BlackScholesParams& p) {
  static LastOne<std::tuple<std::size_t, std::uint64_t, float, float>, std::vector<lb::kofler::OptionReference>> cache;
  return cache.get({n, p.seed, p.riskfree, p.volatility},
                   [&](const auto&) { return lb::kofler::black_scholes_references(n, p); });
}

template <class M>
class BlackScholesVariant final : public Variant {
 public:
  BlackScholesVariant(const M& mapping, const BlackScholesParams& params, const BlackScholesParams& reference_params)
      : mapping_(mapping), params_(params), reference_params_(reference_params), options_(mapping) {}

  void setup(cudaStream_t stream) override { lb::kofler::black_scholes_fill(options_.view(), params_, stream); }
  void poison(cudaStream_t stream) override { lb::kofler::black_scholes_poison(options_.view(), stream); }
  void run(cudaStream_t stream) override { lb::kofler::black_scholes_run(options_.view(), params_, stream); }
  Check validate(cudaStream_t stream) override {
    const std::size_t n = mapping_.size();
    std::vector<float> call(n), put(n);
    {
      DeviceFloats d_call(n), d_put(n);
      lb::kofler::black_scholes_gather(options_.view(), d_call.p, d_put.p, stream);
      check(cudaMemcpyAsync(call.data(), d_call.p, n * sizeof(float), cudaMemcpyDeviceToHost, stream), "download calls");
      check(cudaMemcpyAsync(put.data(), d_put.p, n * sizeof(float), cudaMemcpyDeviceToHost, stream), "download puts");
      check(cudaStreamSynchronize(stream), "black_scholes validation");
    }
    const auto a = lb::kofler::check_black_scholes(call, put, *references_for(n, reference_params_), reference_params_);
    return check_of(a, "validation");
  }
  // The least DRAM traffic any layout can have: read S, X, T (12 B) and write call, put
  // (8 B) per option. An AoS run moves more (a sector holds the 20-byte records' outputs
  // too, read before they are written): that difference is what the layouts measure.
  Work work() const override {
    const double n = double(mapping_.size());
    return {.unit = "options",
            .units = n,
            .bytes_read = 12 * n,
            .bytes_written = 8 * n,
            .fp32_fma = lb::kofler::kOptionFma * n,
            .fp32_special = lb::kofler::kOptionSpecial * n};
  }
  double footprint_bytes() const override { return double(layout::footprint_bytes(mapping_)); }
  void add_counters(benchmark::State& st, double) const override {
    st.counters["struct_bytes"] = double(Option::packed_size);
    st.counters["fields"] = double(Option::field_count);
    st.counters["kernels"] = 1;
  }

 private:
  M mapping_;
  BlackScholesParams params_, reference_params_;
  layout::DeviceStorage<M> options_;
};

}  // namespace

std::unique_ptr<Variant> make_blackscholes_variant(const LayoutChoice& layout, std::size_t n,
                                                    const BlackScholesParams& params,
                                                    const BlackScholesParams& reference_params) {
  std::unique_ptr<Variant> v;
  with_mapping<lb::kofler::BlackScholesLayouts>(layout, n, [&](const auto& mapping) {
    v = std::make_unique<BlackScholesVariant<std::decay_t<decltype(mapping)>>>(mapping, params, reference_params);
  });
  return v;
}

namespace {

const std::vector<std::string> kOptionFields = {"S", "X", "T", "call", "put"};

//! Per size each layout choice.
Expansion expand_black_scholes(const Reader& read) {
  const auto method = method_source("blackscholes", kOptionFields, record_field_bytes<Option>(), read.overrides());
  const Steps layouts = [method](const Point& at, const Reader& r) {
    return layout_steps(r, at.get<std::size_t>("size"), kOptionFields, lb::kofler::BlackScholesLayouts::compile_time_tiles(),
                        lb::kofler::BlackScholesLayouts::compile_time_partitions(), &method);
  };
  return {.loops = {over("size", {over("version", {over("precision", {over("layout", layouts)})})})},
          .make = [](const Point& at) {
            const std::size_t n = at.get<std::size_t>("size");
            // Device: the options (at most 20 B each plus a tiled layout's padding) and the gathered
            // outputs; host: the downloaded outputs and the size's references (32 B an option).
            const MemoryNeed need{.host_bytes = 40.0 * double(n) + (64 << 20), .device_bytes = 28.0 * double(n) * 1.1};
            const LayoutChoice& choice = at.get<LayoutChoice>("layout");
            return kofler_run(choice, Where::gpu, need, [n](const LayoutChoice& c) {
              return make_blackscholes_variant(c, n, BlackScholesParams{}, BlackScholesParams{});
            });
          }};
}

}  // namespace

Program blackscholes_program() {
  return {"blackscholes",
          kofler_axes({"gpu"}, {"float"}, lb::kofler::BlackScholesLayouts::compile_time_tiles(),
                      lb::kofler::BlackScholesLayouts::compile_time_partitions()),
          {"struct_bytes", "fields", "kernels"},
          {"partitions"},
          expand_black_scholes};
}

}  // namespace lb::benches::kofler
