#pragma once
//! The naive IDW version as a kernel body: one prediction point per index, all m data
//! points read through the layout. Runs on the GPU (one thread per point) and on the CPU
//! (the single-core baseline and the tests) unchanged.

#include <cstddef>

#include "lb/idw/interaction.hpp"
#include "lb/idw/layouts.hpp"

namespace lb::idw {

template <class DataView, class PredView, class Power>
struct NaiveBody {
  using T = typename DataView::record::template field_type<0>;
  DataView data;
  PredView pred;
  Power power;

  LB_HD LB_FORCEINLINE void operator()(std::size_t i) const {
    const auto q = pred.load(i);
    const T qx = q.template get<X>();
    const T qy = q.template get<Y>();
    Sums<T> sums;
    const std::size_t m = data.size();
    for (std::size_t j = 0; j < m; ++j) {
      const auto d = data.load(j);
      sums.add(qx, qy, d.template get<X>(), d.template get<Y>(), d.template get<Z>(), power);
    }
    pred.template get<Z>(i) = sums.value();
  }
};

template <class DataView, class PredView, class Power>
NaiveBody(DataView, PredView, Power) -> NaiveBody<DataView, PredView, Power>;

}  // namespace lb::idw
