#pragma once
//! Split layouts: the record's fields are partitioned into clusters and each cluster is laid
//! out by its own family over its own blobs. SoAoS (aligned {x, y} + aligned {z, pad}) and
//! Hybrid (aligned {x, y} + plain z[]) are splits; so are Kofler's KDLG layouts.

#include <cstddef>
#include <type_traits>
#include <utility>

#include "lb/layout/mappings.hpp"

namespace lb::layout {

template <class Family, class... Tags>
struct Cluster {
  template <class Rec>
  using sub_record = SubRecord<Rec, Tags...>;
  template <class Rec>
  using mapping = typename Family::template mapping<sub_record<Rec>>;
  template <class Tag>
  static constexpr bool holds = (std::is_same_v<Tag, Tags> || ...);
};

namespace detail {
template <std::size_t N, class F>
LB_HD LB_FORCEINLINE constexpr void for_each_index(F&& f) {
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (f(std::integral_constant<std::size_t, I>{}), ...);
  }(std::make_index_sequence<N>{});
}
}  // namespace detail

template <class Rec, class... Clusters>
struct SplitMapping {
  using record = Rec;
  static constexpr std::size_t cluster_count = sizeof...(Clusters);

  template <std::size_t C>
  using cluster = typename detail::type_at<C, Clusters...>::type;
  template <std::size_t C>
  using sub_mapping = typename cluster<C>::template mapping<Rec>;

  //! Blob count of cluster c, and the index of its first blob in the split's blob list.
  LB_HD static constexpr std::size_t blob_count_of(std::size_t c) {
    std::size_t k = 0, r = 0;
    ((r = k++ == c ? Clusters::template mapping<Rec>::blob_count : r), ...);
    return r;
  }
  LB_HD static constexpr std::size_t first_blob(std::size_t c) {
    std::size_t k = 0, b = 0;
    ((b += k++ < c ? Clusters::template mapping<Rec>::blob_count : 0), ...);
    return b;
  }
  static constexpr std::size_t blob_count = first_blob(cluster_count);

  template <class Tag>
  static constexpr std::size_t cluster_of() {
    std::size_t c = 0, found = cluster_count;
    ((Clusters::template holds<Tag> ? (found = c, ++c) : ++c), ...);
    return found;
  }
  static constexpr bool partitions_record() {
    bool ok = true;
    for_each_field<Rec>([&](auto f) {
      using Tag = typename Rec::template field<decltype(f)::value>::tag;
      if ((std::size_t{0} + ... + std::size_t{Clusters::template holds<Tag>}) != 1) ok = false;
    });
    return ok && (std::size_t{0} + ... + Clusters::template sub_record<Rec>::field_count) == Rec::field_count;
  }
  static_assert(partitions_record(), "clusters must name every field of the record exactly once");

  std::size_t n;

  static constexpr std::size_t blob_alignment(std::size_t b) {
    std::size_t a = 1;
    detail::for_each_index<cluster_count>([&](auto c) {
      constexpr std::size_t C = decltype(c)::value;
      if (b - first_blob(C) < blob_count_of(C))  // unsigned: false below the first blob too
        a = sub_mapping<C>::blob_alignment(b - first_blob(C));
    });
    return a;
  }
  LB_HD constexpr std::size_t blob_bytes(std::size_t b) const {
    std::size_t bytes = 0;
    detail::for_each_index<cluster_count>([&](auto c) {
      constexpr std::size_t C = decltype(c)::value;
      if (b - first_blob(C) < blob_count_of(C))  // unsigned: false below the first blob too
        bytes = sub_mapping<C>{n}.blob_bytes(b - first_blob(C));
    });
    return bytes;
  }

  template <class Tag>
  LB_HD constexpr Location locate(std::size_t i) const {
    constexpr std::size_t C = cluster_of<Tag>();
    Location loc = sub_mapping<C>{n}.template locate<Tag>(i);
    loc.blob += first_blob(C);
    return loc;
  }

  LB_HD LB_FORCEINLINE RecordValue<Rec> load(std::byte* const* blobs, std::size_t i) const {
    RecordValue<Rec> v;
    detail::for_each_index<cluster_count>([&](auto c) {
      constexpr std::size_t C = decltype(c)::value;
      using Sub = typename cluster<C>::template sub_record<Rec>;
      const auto part = sub_mapping<C>{n}.load(blobs + first_blob(C), i);
      for_each_field<Sub>([&](auto f) {
        using Tag = typename Sub::template field<decltype(f)::value>::tag;
        v.template get<Tag>() = part.template at<decltype(f)::value>();
      });
    });
    return v;
  }

  LB_HD LB_FORCEINLINE void store(std::byte* const* blobs, std::size_t i, const RecordValue<Rec>& v) const {
    detail::for_each_index<cluster_count>([&](auto c) {
      constexpr std::size_t C = decltype(c)::value;
      using Sub = typename cluster<C>::template sub_record<Rec>;
      RecordValue<Sub> part;
      for_each_field<Sub>([&](auto f) {
        using Tag = typename Sub::template field<decltype(f)::value>::tag;
        part.template at<decltype(f)::value>() = v.template get<Tag>();
      });
      sub_mapping<C>{n}.store(blobs + first_blob(C), i, part);
    });
  }
};

template <class... Clusters>
struct Split {
  template <class Rec>
  using mapping = SplitMapping<Rec, Clusters...>;
};

}  // namespace lb::layout
