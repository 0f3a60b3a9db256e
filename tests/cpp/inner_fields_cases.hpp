#pragma once
// Per-field inner-array strategies with writable arrays (lb/layout/inner_array.hpp), shared by
// the CPU test (test_layout_inner_fields.cpp) and the GPU test
// (test_layout_inner_fields_gpu.cu): traffic-like records, a kernel body that rebuilds every
// array (a new length up to the record's capacity, its elements) as Car::path is rebuilt
// every step, the mappings it runs over, and the check of the state it leaves against a
// model of it (lengths, capacities, every element below the capacity, scalars).
//
// Only the tabulating (observe) and the cases are templates: the comparison is compiled once.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "layout_testing.hpp"
#include "lb/layout/inner_array.hpp"

namespace inner_fields {

using namespace layout_testing;
using S = InnerStrategy;
using L = InnerLayout;

//! Car {velocity; path[<= 30]; active}, Cell {x; incoming[<= 8]; type; outgoing[<= 6] of u16}.
using Car = Record<Field<A, std::uint32_t>, Field<B, InnerArray<std::uint32_t, 30>>, Field<C, std::uint8_t>>;
using Cell = Record<Field<A, double>, Field<B, InnerArray<std::uint32_t, 8>>, Field<C, std::uint8_t>,
                    Field<D, InnerArray<std::uint16_t, 6>>>;

//! Length of array field `field` of record i after step `step`: the capacity every fourth
//! record, else some length up to it (growing and shrinking from step to step).
LB_HD constexpr std::uint32_t step_length(std::size_t i, std::size_t field, std::uint32_t step, std::uint32_t cap) {
  return (i + step) % 4 == 0 ? cap : static_cast<std::uint32_t>((i * 7 + field * 3 + step * 5) % (cap + 1));
}
//! Element k's value after step `step` (fits 16 bits, never 0).
LB_HD constexpr std::uint32_t step_value(std::size_t i, std::size_t field, std::size_t k, std::uint32_t step) {
  return static_cast<std::uint32_t>((i * 131 + field * 17 + k * 7 + step * 1009) % 60000 + 1);
}
//! Scalar field I (I > 0) after step `step`; field 0 gets the sum of the first array's
//! elements below its capacity before the step (reads past the length).
LB_HD constexpr std::uint32_t step_scalar(std::size_t i, std::size_t field, std::uint32_t step) {
  return static_cast<std::uint32_t>((i * 3 + field + step) % 200);
}

//! One step of the rebuild on record i: what a kernel does to Car::path.
template <class V>
struct Rebuild {
  V view;
  std::uint32_t step;
  LB_HD void operator()(std::size_t i) const {
    using Rec = typename V::record;
    for_each_field<Rec>([&](auto f) {
      constexpr std::size_t I = decltype(f)::value;
      using Tag = typename Rec::template field<I>::tag;
      using T = typename Rec::template field_type<I>;
      if constexpr (detail::is_inner_array<T>::value) {
        using E = typename T::element;
        const std::uint32_t len = step_length(i, I, step, view.template capacity<Tag>(i));
        for (std::uint32_t k = 0; k < len; ++k) view.template get<Tag>(i, k) = static_cast<E>(step_value(i, I, k, step));
        view.template set_length<Tag>(i, len);
      } else if constexpr (I == 0) {
        std::uint32_t sum = 0;  // B is every case's first array
        for (std::uint32_t k = 0; k < view.template capacity<B>(i); ++k) sum += view.template get<B>(i, k);
        view.template get<Tag>(i) = static_cast<T>(sum);
      } else {
        view.template get<Tag>(i) = static_cast<T>(step_scalar(i, I, step));
      }
    });
  }
};

// --- what a storage holds, and what it should -----------------------------------------

struct ArrayState {
  std::size_t field = 0;
  std::uint32_t length = 0, capacity = 0;
  std::vector<double> elements;  // every k < capacity
  bool inside_blobs = true;      // every element below the capacity lies inside its blob
};
struct RecordState {
  std::vector<std::pair<std::size_t, double>> scalars;  // (field, value)
  std::vector<ArrayState> arrays;
};

template <class M>
std::vector<RecordState> observe(const HostStorage<M>& s) {
  using Rec = typename M::record;
  const auto view = s.view();
  std::vector<RecordState> out(s.size());
  for (std::size_t i = 0; i < s.size(); ++i)
    for_each_tag<Rec>([&]<class Tag>(Tag, std::size_t field) {
      using T = typename Rec::template field_type<Rec::template index_of<Tag>>;
      if constexpr (detail::is_inner_array<T>::value) {
        ArrayState a{field, view.template length<Tag>(i), view.template capacity<Tag>(i), {}, true};
        for (std::size_t k = 0; k < a.capacity; ++k) {
          a.elements.push_back(double(view.template get<Tag>(i, k)));
          const Location loc = s.mapping().template locate_element<Tag>(view.blobs, i, k);
          a.inside_blobs = a.inside_blobs && loc.offset + sizeof(typename T::element) <= s.mapping().blob_bytes(loc.blob);
        }
        out[i].arrays.push_back(std::move(a));
      } else {
        out[i].scalars.emplace_back(field, double(view.template get<Tag>(i)));
      }
    });
  return out;
}

//! The capacity each record of each array should have: Max (full, object); N plus the
//! reservation past N (none: N = 0; partial), the reservation being the given capacity or
//! else the initial length.
template <class M>
std::vector<std::vector<std::uint32_t>> expected_capacities(const ArrayLengths& lengths, const InnerArraySizes& sizes) {
  using Rec = typename M::record;
  std::vector<std::vector<std::uint32_t>> caps;
  for_each_field<Rec>([&](auto f) {
    constexpr std::size_t I = decltype(f)::value;
    if constexpr (detail::is_array_field<Rec, I>) {
      const std::size_t a = caps.size();
      const std::uint32_t n = sizes.inline_counts.empty() ? 0 : static_cast<std::uint32_t>(sizes.inline_counts[a]);
      std::vector<std::uint32_t> c(lengths[a].size());
      for (std::size_t i = 0; i < c.size(); ++i) {
        const std::uint32_t reserved =
            sizes.capacities.empty() || sizes.capacities[a].empty() ? lengths[a][i] : sizes.capacities[a][i];
        c[i] = M::template field_has_arena<I> ? std::max(n, reserved)
                                              : static_cast<std::uint32_t>(Rec::template field_type<I>::max);
      }
      caps.push_back(std::move(c));
    }
  });
  return caps;
}

//! Expects the state after Rebuild steps 1 .. steps from a fresh storage (elements and
//! scalars zero) whose arrays have the capacities `caps`.
inline void expect_state(const std::vector<RecordState>& got, const std::vector<std::vector<std::uint32_t>>& caps,
                         const ArrayLengths& initial_lengths, std::uint32_t steps) {
  for (std::size_t i = 0; i < got.size(); ++i) {
    const RecordState& r = got[i];
    ASSERT_EQ(r.arrays.size(), caps.size());
    // The model: every array's elements below its capacity, stepped.
    std::vector<std::vector<double>> elements(caps.size());
    std::vector<std::uint32_t> lengths(caps.size());
    double first_sum = 0;
    for (std::size_t a = 0; a < caps.size(); ++a) {
      elements[a].assign(caps[a][i], 0.0);
      lengths[a] = initial_lengths[a][i];
    }
    for (std::uint32_t step = 1; step <= steps; ++step) {
      first_sum = 0;
      for (double e : elements[0]) first_sum += e;
      for (std::size_t a = 0; a < caps.size(); ++a) {
        lengths[a] = step_length(i, r.arrays[a].field, step, caps[a][i]);
        for (std::size_t k = 0; k < lengths[a]; ++k) elements[a][k] = step_value(i, r.arrays[a].field, k, step);
      }
    }
    for (std::size_t a = 0; a < caps.size(); ++a) {
      const ArrayState& s = r.arrays[a];
      const std::string where = "record " + std::to_string(i) + " field " + std::to_string(s.field);
      ASSERT_EQ(s.capacity, caps[a][i]) << where << " capacity";
      ASSERT_EQ(s.length, lengths[a]) << where << " length";
      ASSERT_TRUE(s.inside_blobs) << where << ": an element below the capacity lies past its blob";
      for (std::size_t k = 0; k < s.elements.size(); ++k)
        ASSERT_EQ(s.elements[k], elements[a][k]) << where << " element " << k << (k >= s.length ? " (past the length)" : "");
    }
    for (const auto& [field, value] : r.scalars)
      ASSERT_EQ(value, steps == 0 ? 0.0 : field == 0 ? first_sum : double(step_scalar(i, field, steps)))
          << "record " << i << " scalar field " << field;
  }
}

// --- the mappings -------------------------------------------------------------------------

//! Calls f.template operator()<M>(label, lengths, sizes) for n records over every mapping the
//! tests instantiate: Car::path in AoS and SoA by each strategy (partial at N = 0, 6, 15, 30),
//! starting empty with capacity Max = 30 reserved (the traffic simulation's Car); Cell with
//! mixed strategies, incoming reserving Max, outgoing its initial lengths.
template <class F>
void for_each_case(std::size_t n, F&& f) {
  const auto car = [&]<L Layout, S Strategy>(const std::string& label) {
    using M = InnerArrayMapping<Car, Layout, Strategy>;
    const ArrayLengths lengths{std::vector<std::uint32_t>(n, 0)};
    const ArrayLengths capacities{std::vector<std::uint32_t>(n, 30)};
    if constexpr (Strategy == S::partial) {
      for (std::size_t inline_count : {0, 6, 15, 30})
        f.template operator()<M>(label + " N " + std::to_string(inline_count), lengths,
                                 InnerArraySizes{{inline_count}, capacities});
    } else {
      f.template operator()<M>(label, lengths, InnerArraySizes{{}, capacities});
    }
  };
  const auto cell = [&]<L Layout, S In, S Out>(const std::string& label) {
    using M = InnerFieldsMapping<Cell, Layout, InnerStrategies<In, Out>>;
    ArrayLengths lengths(2, std::vector<std::uint32_t>(n));
    for (std::size_t i = 0; i < n; ++i) {
      lengths[0][i] = static_cast<std::uint32_t>(i % 9);
      lengths[1][i] = static_cast<std::uint32_t>((i * 5) % 7);
    }
    const InnerArraySizes sizes{{In == S::partial ? 3u : 0u, Out == S::partial ? 2u : 0u},
                                {std::vector<std::uint32_t>(n, 8), {}}};
    f.template operator()<M>(label, lengths, sizes);
  };
  car.template operator()<L::aos, S::none>("car aos none");
  car.template operator()<L::aos, S::partial>("car aos partial");
  car.template operator()<L::aos, S::full>("car aos full");
  car.template operator()<L::aos, S::object>("car aos object");
  car.template operator()<L::soa, S::none>("car soa none");
  car.template operator()<L::soa, S::partial>("car soa partial");
  car.template operator()<L::soa, S::full>("car soa full");
  car.template operator()<L::soa, S::object>("car soa object");
  cell.template operator()<L::aos, S::none, S::full>("cell aos none/full");
  cell.template operator()<L::aos, S::partial, S::full>("cell aos partial/full");
  cell.template operator()<L::aos, S::object, S::partial>("cell aos object/partial");
  cell.template operator()<L::soa, S::none, S::full>("cell soa none/full");
  cell.template operator()<L::soa, S::partial, S::full>("cell soa partial/full");
  cell.template operator()<L::soa, S::object, S::partial>("cell soa object/partial");
}

}  // namespace inner_fields
