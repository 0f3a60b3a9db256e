#pragma once
//! A record is a list of typed fields, each named by a tag type. Layouts map
//! (record index, field) to (blob, byte offset); a RecordValue holds one whole record in
//! registers for whole-record loads and stores.

#include <cstddef>
#include <type_traits>
#include <utility>

#include "lb/layout/config.hpp"

namespace lb::layout {

template <class Tag, class T>
struct Field {
  using tag = Tag;
  using type = T;
  static_assert(std::is_trivially_copyable_v<T>, "fields must be trivially copyable");
};

namespace detail {
template <std::size_t I, class... Ts>
struct type_at;
template <class T, class... Ts>
struct type_at<0, T, Ts...> {
  using type = T;
};
template <std::size_t I, class T, class... Ts>
struct type_at<I, T, Ts...> : type_at<I - 1, Ts...> {};

template <class Tag, std::size_t I, class... Fs>
struct index_of_tag {
  static constexpr std::size_t value = I;  // not found: one past the end
};
template <class Tag, std::size_t I, class F, class... Fs>
struct index_of_tag<Tag, I, F, Fs...>
    : std::conditional_t<std::is_same_v<Tag, typename F::tag>, std::integral_constant<std::size_t, I>,
                         index_of_tag<Tag, I + 1, Fs...>> {};
}  // namespace detail

template <class... Fs>
struct Record {
  static constexpr std::size_t field_count = sizeof...(Fs);

  template <std::size_t I>
  using field = typename detail::type_at<I, Fs...>::type;
  template <std::size_t I>
  using field_type = typename field<I>::type;

  template <class Tag>
  static constexpr std::size_t index_of = detail::index_of_tag<Tag, 0, Fs...>::value;
  template <class Tag>
  static constexpr bool has = index_of<Tag> < field_count;

  //! Field sizes and alignments by index. Folds, not arrays: a static array would live in
  //! host memory and be unusable in device code.
  LB_HD static constexpr std::size_t size_of(std::size_t i) {
    std::size_t k = 0, r = 0;
    ((r = k++ == i ? sizeof(typename Fs::type) : r), ...);
    return r;
  }
  LB_HD static constexpr std::size_t align_of(std::size_t i) {
    std::size_t k = 0, r = 0;
    ((r = k++ == i ? alignof(typename Fs::type) : r), ...);
    return r;
  }
  //! Bytes of all fields back to back, without padding.
  static constexpr std::size_t packed_size = (std::size_t{0} + ... + sizeof(typename Fs::type));
};

//! The sub-record of `Rec` made of the fields named by `Tags` (in that order).
template <class Rec, class... Tags>
using SubRecord = Record<typename Rec::template field<Rec::template index_of<Tags>>...>;

namespace detail {
template <std::size_t I, class T>
struct Slot {
  T value;
};
template <class Rec, class Seq>
struct ValueBase;
template <class Rec, std::size_t... I>
struct ValueBase<Rec, std::index_sequence<I...>> : Slot<I, typename Rec::template field_type<I>>... {};
}  // namespace detail

//! One record's field values, trivially copyable, meant to live in registers.
template <class Rec>
struct RecordValue : detail::ValueBase<Rec, std::make_index_sequence<Rec::field_count>> {
  template <std::size_t I>
  LB_HD constexpr auto& at() {
    return static_cast<detail::Slot<I, typename Rec::template field_type<I>>&>(*this).value;
  }
  template <std::size_t I>
  LB_HD constexpr const auto& at() const {
    return static_cast<const detail::Slot<I, typename Rec::template field_type<I>>&>(*this).value;
  }
  template <class Tag>
  LB_HD constexpr auto& get() {
    static_assert(Rec::template has<Tag>, "record has no such field");
    return at<Rec::template index_of<Tag>>();
  }
  template <class Tag>
  LB_HD constexpr const auto& get() const {
    static_assert(Rec::template has<Tag>, "record has no such field");
    return at<Rec::template index_of<Tag>>();
  }
};

//! Calls f(std::integral_constant<size_t, I>) for every field index of Rec.
template <class Rec, class F>
LB_HD LB_FORCEINLINE constexpr void for_each_field(F&& f) {
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (f(std::integral_constant<std::size_t, I>{}), ...);
  }(std::make_index_sequence<Rec::field_count>{});
}

}  // namespace lb::layout
