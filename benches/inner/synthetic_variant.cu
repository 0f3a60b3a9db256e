//! Springer et al. 2018, Fig. 10a, the GPU variant: add each object's value to every element
//! of its inner array. One kernel body (lb/inner/synthetic.hpp) over the layout library's
//! views; one instantiation per (layout, strategy), N at run time (the layouts: AoS, SoA and,
//! beyond the paper, aosoa32). Validation: every element
//! against the CPU's input + value, and every byte outside the elements (padding, unused slots,
//! poisoned with a sentinel) unchanged (lb/inner/synthetic_image.hpp: on every core, against
//! the input image; no expected image). No fmt here: nvcc cannot compile its format strings.

#include <string>
#include <memory>
#include <set>

#include "inner/synthetic_bench.hpp"
#include "lb/common/host_threads.hpp"
#include "lb/exec/gpu_launcher.cuh"
#include "lb/inner/synthetic.hpp"
#include "lb/inner/synthetic_image.hpp"
#include "lb/layout/device_storage.hpp"

namespace lb::benches::inner {
namespace {

using lb::inner::Elements;
using lb::inner::kSyntheticMax;
using lb::inner::SyntheticInputs;
using lb::inner::SyntheticObject;
using lb::inner::Value;

//! The inputs of one object count, shared by the variants of that count (the cache keeps the
//! latest count only: they are large).
std::shared_ptr<const SyntheticInputs> inputs(std::size_t objects) {
  static std::shared_ptr<const SyntheticInputs> cached;
  if (!cached || cached->sizes.size() != objects) {
    cached.reset();
    cached = std::make_shared<const SyntheticInputs>(lb::inner::make_synthetic_inputs(objects));
  }
  return cached;
}

template <InnerLayout L, InnerStrategy S>
class Synthetic final : public SyntheticVariant {
  using M = layout::InnerArrayMapping<SyntheticObject, L, S>;

 public:
  explicit Synthetic(const SyntheticCase& c) : c_(c), inputs_(inputs(c.objects)), in_(*inputs_) {}

  void setup(cudaStream_t) override {
    input_ = lb::inner::synthetic_image<M>(in_, c_.inline_count);
    device_ = std::make_unique<layout::DeviceStorage<M>>(input_->mapping());
  }
  //! The input image, whose bytes outside the data hold the sentinel: the kernel updates the
  //! elements in place, so the input is also the output a skipped element leaves unchanged.
  void poison(cudaStream_t stream) override { device_->upload(*input_, stream); }
  void run(cudaStream_t stream) override {
    exec::launch_for_each(c_.objects, c_.block, stream, lb::inner::AddValue<layout::View<M>>{device_->view()});
  }
  Check validate(cudaStream_t stream) override {
    layout::HostStorage<M> got(input_->mapping(), layout::uninitialized);  // the download writes every byte
    device_->download(got, stream);
    const lb::inner::SyntheticCheck c = lb::inner::check_synthetic_output(got, *input_, in_);
    lb::release_host_threads();  // the timed loop follows
    Check check;
    check.ok = c.ok;
    check.message = c.message;
    if (check.ok)
      check.counters = {{"max_abs_err", 0.0}, {"tolerance", 0.0}, {"checked", static_cast<double>(in_.elements.size())}};
    return check;
  }
  //! Per object its value and size, the arena offset where an element lies past the inline
  //! slots, and every element read and written.
  Work work() const override {
    const std::size_t inline_count = input_->mapping().template inline_count<Elements>();
    double header_reads = 0;
    for (std::uint32_t size : in_.sizes) header_reads += M::has_arena && size > inline_count ? 1 : 0;
    const double elements = static_cast<double>(in_.elements.size());
    return {.unit = "elements",
            .units = elements,
            .bytes_read = 4.0 * (2.0 * static_cast<double>(c_.objects) + header_reads + elements),
            .bytes_written = 4.0 * elements};
  }
  double footprint_bytes() const override { return static_cast<double>(inner_footprint().total()); }
  layout::InnerFootprint inner_footprint() const override { return input_->mapping().footprint(); }
  void add_counters(benchmark::State& state, double) const override {
    const layout::InnerFootprint f = inner_footprint();
    state.counters["objects"] = static_cast<double>(c_.objects);
    state.counters["inline"] = static_cast<double>(input_->mapping().template inline_count<Elements>());
    state.counters["footprint_inline_bytes"] = static_cast<double>(f.inline_bytes);
    state.counters["footprint_arena_bytes"] = static_cast<double>(f.arena_bytes);
    state.counters["footprint_wasted_bytes"] = static_cast<double>(f.wasted_bytes);
  }
  void inject_fault(SyntheticFault fault) override {
    layout::HostStorage<M> got(input_->mapping());
    device_->download(got);
    if (fault == SyntheticFault::wrong_element) {
      const std::size_t i = c_.objects / 2;
      got.view().template get<Elements>(i, in_.sizes[i] - 1) += 1;
    } else {
      got.blob(0)[got.mapping().blob_bytes(0) - 1] ^= std::byte{1};  // AoS: padding or a slot; SoA: a value
    }
    device_->upload(got);
    check(cudaDeviceSynchronize(), "inject fault");
  }

 private:
  SyntheticCase c_;
  std::shared_ptr<const SyntheticInputs> inputs_;
  const SyntheticInputs& in_;
  std::unique_ptr<layout::HostStorage<M>> input_;  //!< also what a skipped element keeps
  std::unique_ptr<layout::DeviceStorage<M>> device_;
};

}  // namespace

std::unique_ptr<SyntheticVariant> make_synthetic_variant(const SyntheticCase& c) {
  return lb::inner::dispatch_inner<lb::inner::SyntheticInnerLayouts>(
      c.layout, c.strategy, [&]<InnerLayout L, InnerStrategy S>() {
        return std::unique_ptr<SyntheticVariant>(std::make_unique<Synthetic<L, S>>(c));
      });
}

MemoryNeed synthetic_memory_need(const SyntheticCase& c) {
  // Upper bounds: every array at Max elements, a record of value, size, offset and Max slots.
  const double objects = static_cast<double>(c.objects);
  const double image = objects * (4.0 * 3 + 4.0 * kSyntheticMax) + objects * 4.0 * kSyntheticMax;
  const double inputs = objects * (4.0 * 2 + 8.0 + 4.0 * kSyntheticMax);
  return {.host_bytes = inputs + 2 * image, .device_bytes = image};  // the input image and the run's copy
}

}  // namespace lb::benches::inner
