//! The frontier search on the CPU: the GPU kernel's body, run serially over the same layout.

#include "lb/bfs/laid_out.hpp"

namespace lb::bfs {
namespace {

template <class M>
class CpuSearch final : public FrontierBfs {
 public:
  CpuSearch(const datasets::Graph& g, std::size_t inline_count) : storage_(lay_out<M>(g, inline_count)) {}

  void poison() override {
    for (std::size_t i = 0; i < storage_.size(); ++i) set_distance(storage_.view(), i, kPoison, kNoSource);
  }
  int run(std::uint32_t source, cudaStream_t) override {
    const auto view = storage_.view();
    const std::size_t n = storage_.size();
    for (std::size_t i = 0; i < n; ++i) set_distance(view, i, kInfinity, source);
    int iterations = 0;
    for (bool changed = true; changed; ++iterations) {
      changed = false;
      for (std::size_t i = 0; i < n; ++i) changed |= relax_neighbours(view, i, iterations);
    }
    return iterations;
  }
  std::vector<int> levels() const override { return levels_of(storage_); }
  const layout::InnerFootprint& footprint() const override { return storage_.mapping().footprint(); }

 private:
  layout::HostStorage<M> storage_;
};

}  // namespace

std::unique_ptr<FrontierBfs> make_cpu_search(const datasets::Graph& g, const Variant& v) {
  return make_search<CpuSearch>(g, v);
}

}  // namespace lb::bfs
