//! The fixture program "scale" (docs/adding-a-program.md; not shipped): its variant, on the host
//! through the mapping its layout choice names (with_mapping), and its declaration: axes,
//! counters and expansion. Names: fixture/scale/cpu-serial/<aos|soa>/<float|double>/size:<n>.

#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "lb/exec/cpu_launcher.hpp"
#include "lb/harness/plan.hpp"
#include "lb/harness/program.hpp"
#include "lb/layout/choice_mapping.hpp"
#include "lb/layout/host_storage.hpp"
#include "lb/layout/program_layouts.hpp"
#include "lb/scale/scale.hpp"

namespace lb::harness::scale {

namespace {

using lb::scale::Element;
using lb::scale::X;
using lb::scale::Y;

//! What the program compiles: the run-time mappings (no compile-time tiles or splits).
template <class T>
using ScaleLayouts = layout::ProgramLayouts<Element<T>, layout::Tiles<>, layout::LayoutList<>>;

template <class T, class M>
class ScaleVariant final : public Variant {
 public:
  explicit ScaleVariant(const M& mapping) : elements_(mapping) {}

  void setup(cudaStream_t) override {
    const auto v = elements_.view();
    for (std::size_t i = 0; i < v.size(); ++i) v.template get<X>(i) = lb::scale::scale_input<T>(i);
  }
  void poison(cudaStream_t) override {
    const auto v = elements_.view();
    for (std::size_t i = 0; i < v.size(); ++i) v.template get<Y>(i) = std::numeric_limits<T>::quiet_NaN();
  }
  void run(cudaStream_t) override {
    const auto v = elements_.view();
    exec::run_serial(v.size(), [&](std::size_t i) { lb::scale::scale_body(v, i); });
  }
  Check validate(cudaStream_t) override {
    const auto v = elements_.view();
    std::vector<double> x(v.size()), y(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) x[i] = v.template get<X>(i), y[i] = v.template get<Y>(i);
    const auto c = lb::scale::check_scale(x, y);
    return {.ok = c.ok,
            .message = c.message,
            .counters = {{"max_abs_err", c.max_abs_err}, {"tolerance", 0.0}, {"checked", double(c.checked)}}};
  }
  // Each element's x read and y written once: one multiply each.
  Work work() const override {
    const double n = double(elements_.size());
    constexpr bool single = sizeof(T) == sizeof(float);
    return {.unit = "elements",
            .units = n,
            .bytes_read = sizeof(T) * n,
            .bytes_written = sizeof(T) * n,
            .fp32_fma = single ? n : 0,
            .fp64_fma = single ? 0 : n};
  }
  double footprint_bytes() const override { return double(layout::footprint_bytes(elements_.mapping())); }
  void add_counters(benchmark::State& st, double) const override { st.counters["record_bytes"] = 2.0 * sizeof(T); }

 private:
  layout::HostStorage<M> elements_;
};

template <class T>
std::unique_ptr<Variant> make_scale_variant(const layout::LayoutChoice& choice, std::size_t n) {
  std::unique_ptr<Variant> v;
  layout::with_mapping<ScaleLayouts<T>>(choice, n, [&](const auto& mapping) {
    v = std::make_unique<ScaleVariant<T, std::decay_t<decltype(mapping)>>>(mapping);
  });
  return v;
}

//! Per size, version and precision each layout; every case on the host.
Expansion expand_scale(const Reader&) {
  return {.loops = {over("size", {over("version", {over("precision", {over("layout")})})})},
          .make = [](const Point& at) {
            const std::size_t n = at.get<std::size_t>("size");
            const bool single = at.text("precision") == "float";
            const layout::LayoutChoice choice{layout::parse_kind(at.text("layout"))};
            const MemoryNeed need{.host_bytes = (single ? 8.0 : 16.0) * double(n) * 2 + (1 << 20)};
            return ProgramCase{.where = Where::cpu, .memory = need, .make = [choice, n, single] {
                                 return single ? make_scale_variant<float>(choice, n) : make_scale_variant<double>(choice, n);
                               }};
          }};
}

}  // namespace

Program scale_program() {
  return {"scale",
          {{.name = "version", .values = {"cpu-serial"}},
           {.name = "layout",
            .values = {std::string(layout::kind::Aos::name), std::string(layout::kind::Soa::name)},
            .key = "layouts"},
           {.name = "precision", .values = {"float", "double"}, .key = "precisions", .shorthand = Shorthand::precision},
           {.name = "size", .type = AxisType::count, .key = "sizes", .shorthand = Shorthand::sizes}},
          {"record_bytes"},
          {},
          expand_scale};
}

}  // namespace lb::harness::scale
