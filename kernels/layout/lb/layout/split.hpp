#pragma once
//! Split layouts: the record's fields are partitioned into clusters and each cluster is laid
//! out by its own mapping over its own blobs (the clusters' blobs follow each other in cluster
//! order). SoAoS (aligned {x, y} + aligned {z, pad}) and Hybrid (aligned {x, y} + plain z[])
//! are splits; so are Kofler's KDLG layouts when the partition is known at compile time
//! (partition.hpp takes one chosen at run time). A Split holds one mapping value per cluster,
//! so a cluster may carry state (a run-time tile size).

#include <cstddef>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "lb/layout/mapping.hpp"

namespace lb::layout {

//! The fields named by `Tags`, in that order, laid out by `Family`.
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
template <std::size_t I, class M>
struct Part {
  M mapping;
};
template <class Seq, class... Ms>
struct PartsOf;
template <std::size_t... I, class... Ms>
struct PartsOf<std::index_sequence<I...>, Ms...> : Part<I, Ms>... {};
//! One mapping value per cluster, reached by index; trivially copyable when they are.
template <class... Ms>
using Parts = PartsOf<std::index_sequence_for<Ms...>, Ms...>;

template <class M>
concept BuiltFromSize = requires(std::size_t n) { M{n}; };
}  // namespace detail

template <class Rec, class... Clusters>
class SplitMapping {
 public:
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

  //! From each cluster's mapping; throws std::invalid_argument unless all hold as many records.
  explicit SplitMapping(const typename Clusters::template mapping<Rec>&... parts) : parts_{{parts}...} {
    const std::size_t sizes[] = {parts.size()...};
    for (std::size_t s : sizes)
      if (s != sizes[0]) throw std::invalid_argument("split layout: the clusters' mappings differ in record count");
  }
  //! From the record count, when every cluster's mapping is built from it alone.
  explicit SplitMapping(std::size_t n)
    requires(detail::BuiltFromSize<typename Clusters::template mapping<Rec>> && ...)
      : SplitMapping(typename Clusters::template mapping<Rec>{n}...) {}

  template <std::size_t C>
  LB_HD constexpr const sub_mapping<C>& part() const {
    return static_cast<const detail::Part<C, sub_mapping<C>>&>(parts_).mapping;
  }

  LB_HD constexpr std::size_t size() const { return part<0>().size(); }

  LB_HD constexpr std::size_t blob_alignment(std::size_t b) const {
    std::size_t a = 1;
    detail::for_each_index<cluster_count>([&](auto c) {
      constexpr std::size_t C = decltype(c)::value;
      if (b - first_blob(C) < blob_count_of(C))  // unsigned: false below the first blob too
        a = part<C>().blob_alignment(b - first_blob(C));
    });
    return a;
  }
  LB_HD constexpr std::size_t blob_bytes(std::size_t b) const {
    std::size_t bytes = 0;
    detail::for_each_index<cluster_count>([&](auto c) {
      constexpr std::size_t C = decltype(c)::value;
      if (b - first_blob(C) < blob_count_of(C))  // unsigned: false below the first blob too
        bytes = part<C>().blob_bytes(b - first_blob(C));
    });
    return bytes;
  }

  template <class Tag>
  LB_HD constexpr Location locate(std::size_t i) const {
    constexpr std::size_t C = cluster_of<Tag>();
    Location loc = part<C>().template locate<Tag>(i);
    loc.blob += first_blob(C);
    return loc;
  }

  LB_HD LB_FORCEINLINE RecordValue<Rec> load(std::byte* const* blobs, std::size_t i) const {
    RecordValue<Rec> v;
    detail::for_each_index<cluster_count>([&](auto c) {
      constexpr std::size_t C = decltype(c)::value;
      using Sub = typename cluster<C>::template sub_record<Rec>;
      const auto sub = part<C>().load(blobs + first_blob(C), i);
      for_each_field<Sub>([&](auto f) {
        using Tag = typename Sub::template field<decltype(f)::value>::tag;
        v.template get<Tag>() = sub.template at<decltype(f)::value>();
      });
    });
    return v;
  }

  LB_HD LB_FORCEINLINE void store(std::byte* const* blobs, std::size_t i, const RecordValue<Rec>& v) const {
    detail::for_each_index<cluster_count>([&](auto c) {
      constexpr std::size_t C = decltype(c)::value;
      using Sub = typename cluster<C>::template sub_record<Rec>;
      RecordValue<Sub> sub;
      for_each_field<Sub>([&](auto f) {
        using Tag = typename Sub::template field<decltype(f)::value>::tag;
        sub.template at<decltype(f)::value>() = v.template get<Tag>();
      });
      part<C>().store(blobs + first_blob(C), i, sub);
    });
  }

 private:
  detail::Parts<typename Clusters::template mapping<Rec>...> parts_;
};

template <class... Clusters>
struct Split {
  template <class Rec>
  using mapping = SplitMapping<Rec, Clusters...>;
};

}  // namespace lb::layout
