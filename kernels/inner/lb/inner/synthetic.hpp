#pragma once
//! Springer et al. 2018, Fig. 10a: objects {int value; int size; int array[size]} with sizes
//! 32..64 drawn with a fixed seed; the kernel adds each object's value to every element of its
//! array, one thread per object. The array's length header (kept by every strategy) is the
//! paper's `size` field.

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include "lb/layout/inner_array.hpp"

namespace lb::inner {

struct Value {};
struct Elements {};
constexpr std::size_t kSyntheticMax = 64;  //!< the paper's largest array
using SyntheticObject = layout::Record<layout::Field<Value, int>, layout::Field<Elements, layout::InnerArray<int, kSyntheticMax>>>;

template <class View>
struct AddValue {
  View view;
  LB_HD LB_FORCEINLINE void operator()(std::size_t i) const {
    const int value = view.template get<Value>(i);
    const std::uint32_t size = view.template length<Elements>(i);
    for (std::uint32_t k = 0; k < size; ++k) view.template get<Elements>(i, k) += value;
  }
};

//! The canonical inputs: per object its size, value (1..100, never 0: a skipped element keeps
//! its input and fails validation) and initial elements (flat, object after object).
struct SyntheticInputs {
  std::vector<std::uint32_t> sizes;
  std::vector<int> values;
  std::vector<int> elements;
  std::vector<std::size_t> first;  //!< index of object i's first element in `elements`
};

constexpr std::uint64_t kSyntheticSeed = 20180619;  // ARRAY'18

inline SyntheticInputs make_synthetic_inputs(std::size_t objects, std::uint32_t min_size = 32,
                                             std::uint32_t max_size = kSyntheticMax, std::uint64_t seed = kSyntheticSeed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::uint32_t> size(min_size, max_size);
  std::uniform_int_distribution<int> value(1, 100), element(-1000, 1000);
  SyntheticInputs in;
  in.sizes.resize(objects);
  in.values.resize(objects);
  in.first.resize(objects);
  for (std::size_t i = 0; i < objects; ++i) {
    in.sizes[i] = size(rng);
    in.values[i] = value(rng);
    in.first[i] = in.elements.size();
    for (std::uint32_t k = 0; k < in.sizes[i]; ++k) in.elements.push_back(element(rng));
  }
  return in;
}

//! Stores the inputs into a storage built for their sizes (headers already written).
template <class View>
void store_synthetic_inputs(const View& view, const SyntheticInputs& in) {
  for (std::size_t i = 0; i < in.sizes.size(); ++i) {
    view.template get<Value>(i) = in.values[i];
    for (std::uint32_t k = 0; k < in.sizes[i]; ++k) view.template get<Elements>(i, k) = in.elements[in.first[i] + k];
  }
}

}  // namespace lb::inner
