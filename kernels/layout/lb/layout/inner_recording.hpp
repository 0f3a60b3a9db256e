#pragma once
//! Access recording over inner-array views (inner_array.hpp), as recording.hpp's
//! RecordingView does over a Mapping: a body written against a view (`v.get<Tag>(i)`,
//! `v.get<Tag>(i, k)`, `v.length<Tag>(i)`, `v.set_length<Tag>(i, n)`) runs unchanged over an
//! InnerRecordingView on the host, every access logged with its host address.
//!
//! The KDLG's fields of an inner-array record (the paper's struct {int value; int size; int
//! array[size]}): a scalar field is one; an array field is two, its length header (the `size`)
//! and then its elements, one field of Max elements (σ = Max · element bytes, the slots full
//! inlining holds). `first_field` shifts these indices, so that several records logged into
//! one trace keep theirs apart (record_view_of, recorded_program.hpp, gives each its own);
//! `other` logs every access as kOtherMemory (a record whose layout is not under study).

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "lb/layout/inner_array.hpp"
#include "lb/layout/recording.hpp"
#include "lb/layout/view.hpp"

namespace lb::layout {

namespace detail {
template <class Rec, std::size_t I>
constexpr std::size_t recorded_width = is_array_field<Rec, I> ? 2 : 1;
//! The first recorded field of record field I (an array's length header).
template <class Rec, std::size_t I>
constexpr std::size_t first_recorded_field() {
  return [&]<std::size_t... J>(std::index_sequence<J...>) {
    return (std::size_t{0} + ... + recorded_width<Rec, J>);
  }(std::make_index_sequence<I>{});
}
}  // namespace detail

//! The KDLG fields of an inner-array record: one per scalar, two per array.
template <class Rec>
inline constexpr std::size_t recorded_field_count = detail::first_recorded_field<Rec, Rec::field_count>();

//! σ of each KDLG field of an inner-array record, in record order: a scalar's bytes; an
//! array's length header (4 B) and its Max elements.
template <class Rec>
std::vector<std::size_t> inner_field_bytes() {
  std::vector<std::size_t> bytes;
  for_each_field<Rec>([&](auto f) {
    constexpr std::size_t I = decltype(f)::value;
    using T = typename Rec::template field_type<I>;
    if constexpr (detail::is_array_field<Rec, I>) {
      bytes.push_back(sizeof(std::uint32_t));
      bytes.push_back(T::max * sizeof(typename T::element));
    } else {
      bytes.push_back(sizeof(T));
    }
  });
  return bytes;
}

//! An inner-array View whose accesses are logged into `log` (which must outlive it).
template <StorageMapping M>
class InnerRecordingView {
 public:
  using mapping_type = M;
  using record = typename M::record;

  InnerRecordingView(const View<M>& view, std::vector<Access>& log, std::size_t first_field = 0, bool other = false)
      : view_(view), log_(&log), first_(first_field), other_(other) {}

  std::size_t size() const { return view_.size(); }

  //! A scalar field of record i.
  template <class Tag>
  auto get(std::size_t i) const {
    using T = std::remove_reference_t<decltype(view_.template get<Tag>(i))>;
    return RecordedRef<T>(&view_.template get<Tag>(i), field<Tag>(1), log_);
  }
  //! Element k of array Tag of record i.
  template <class Tag>
  auto get(std::size_t i, std::size_t k) const {
    using T = std::remove_reference_t<decltype(view_.template get<Tag>(i, k))>;
    return RecordedRef<T>(&view_.template get<Tag>(i, k), field<Tag>(1), log_);
  }
  //! Array Tag's length of record i: a load of its header.
  template <class Tag>
  std::uint32_t length(std::size_t i) const {
    return header<Tag>(i).value();
  }
  //! Writes it: a store to its header (after the view's own capacity check).
  template <class Tag>
  void set_length(std::size_t i, std::uint32_t n) const {
    view_.template set_length<Tag>(i, n);
    header<Tag>(i) = n;
  }
  //! Not logged: full and object (what recordings lay out) hold Max, no memory is read.
  template <class Tag>
  std::uint32_t capacity(std::size_t i) const {
    return view_.template capacity<Tag>(i);
  }

 private:
  //! The recorded index of Tag's field: a scalar's; for an array, `part` 0 is its length
  //! header, 1 its elements.
  template <class Tag>
  std::size_t field(std::size_t part) const {
    constexpr std::size_t I = record::template index_of<Tag>;
    if (other_) return kOtherMemory;
    return first_ + detail::first_recorded_field<record, I>() + (detail::is_array_field<record, I> ? part : 0);
  }
  template <class Tag>
  RecordedRef<std::uint32_t> header(std::size_t i) const {
    const Location loc = view_.mapping.template locate_length<Tag>(i);
    return RecordedRef<std::uint32_t>(reinterpret_cast<std::uint32_t*>(view_.blobs[loc.blob] + loc.offset),
                                      field<Tag>(0), log_);
  }

  View<M> view_;
  std::vector<Access>* log_;
  std::size_t first_;
  bool other_;
};

}  // namespace lb::layout
