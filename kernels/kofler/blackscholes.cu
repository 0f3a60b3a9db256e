//! BlackScholes' kernels over any mapping of Option, and their instantiations.

#include <limits>
#include <tuple>

#include "lb/common/cuda_check.hpp"
#include "lb/kofler/blackscholes_device.hpp"

namespace lb::kofler {

namespace {

constexpr unsigned kBlock = 256;

unsigned grid_for(std::size_t n) { return static_cast<unsigned>((n + kBlock - 1) / kBlock); }

__device__ LB_FORCEINLINE std::size_t option_index() {
  return static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}

template <class M>
__global__ void fill_kernel(layout::View<M> v, std::uint64_t seed) {
  const std::size_t i = option_index();
  if (i >= v.size()) return;
  option_inputs(seed, i, v.template get<Stock>(i), v.template get<Strike>(i), v.template get<Years>(i));
}

template <class M>
__global__ void poison_kernel(layout::View<M> v) {
  const std::size_t i = option_index();
  if (i >= v.size()) return;
  v.template get<Call>(i) = v.template get<Put>(i) = std::numeric_limits<float>::quiet_NaN();
}

template <class M>
__global__ void __launch_bounds__(kBlock) black_scholes_kernel(layout::View<M> v, float riskfree, float volatility) {
  const std::size_t i = option_index();
  if (i >= v.size()) return;
  black_scholes_option<FastMath>(v, i, riskfree, volatility);
}

template <class M>
__global__ void gather_kernel(layout::View<M> v, float* call, float* put) {
  const std::size_t i = option_index();
  if (i >= v.size()) return;
  call[i] = v.template get<Call>(i);
  put[i] = v.template get<Put>(i);
}

}  // namespace

template <class M>
void black_scholes_fill(const layout::View<M>& options, const BlackScholesParams& params, cudaStream_t stream) {
  fill_kernel<M><<<grid_for(options.size()), kBlock, 0, stream>>>(options, params.seed);
  check_launch("black_scholes fill_kernel");
}
template <class M>
void black_scholes_poison(const layout::View<M>& options, cudaStream_t stream) {
  poison_kernel<M><<<grid_for(options.size()), kBlock, 0, stream>>>(options);
  check_launch("black_scholes poison_kernel");
}
template <class M>
void black_scholes_run(const layout::View<M>& options, const BlackScholesParams& params, cudaStream_t stream) {
  black_scholes_kernel<M><<<grid_for(options.size()), kBlock, 0, stream>>>(options, params.riskfree,
                                                                           params.volatility);
  check_launch("black_scholes_kernel");
}
template <class M>
void black_scholes_gather(const layout::View<M>& options, float* call, float* put, cudaStream_t stream) {
  gather_kernel<M><<<grid_for(options.size()), kBlock, 0, stream>>>(options, call, put);
  check_launch("black_scholes gather_kernel");
}

//! What the benchmarks call for mapping M (instantiated for every mapping of BlackScholesLayouts below).
template <class M>
struct BlackScholesEntries {
  static constexpr auto functions = std::tuple{&black_scholes_fill<M>, &black_scholes_poison<M>,
                                               &black_scholes_run<M>, &black_scholes_gather<M>};
};

}  // namespace lb::kofler

template struct lb::layout::InstantiateEach<lb::kofler::BlackScholesEntries, lb::kofler::BlackScholesLayouts::mappings>;
