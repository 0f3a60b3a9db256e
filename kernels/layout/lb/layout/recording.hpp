#pragma once
//! Access recording (host only), in the spirit of LLAMA's Trace / FieldAccessCount decorators:
//! a RecordingView wraps a View and hands out proxy references that log every read as a load
//! and every write as a store (field, byte address, bytes) into a trace, in program order,
//! then do the access on the real storage. A body written against a view (`v.get<Tag>(i)`,
//! `v.load(i)`, `v.store(i, r)`) or against one record's accessor (`a.get<Tag>()`, as SAMPO's
//! update_agent is) runs unchanged over it on the host.
//!
//! What is logged is the source's accesses as the host evaluates them: a field read twice is
//! two loads (a GPU compiler may keep it in a register), the operands of one expression in the
//! host compiler's order; a whole-record load or store is one access per field, in record
//! order. Distances count distinct bytes (kdlg.hpp), so a repeated load adds nothing to them.
//! Like every proxy reference, `auto x = v.get<Tag>(i)` keeps the proxy (use `.value()` or
//! the field type), and members of a field (`.x` of a float4) are not reachable through it.

#include <cstddef>
#include <cstring>
#include <tuple>
#include <utility>
#include <vector>

#include "lb/layout/access_trace.hpp"
#include "lb/layout/view.hpp"

namespace lb::layout {

//! A reference to a T in memory that logs its loads and stores into `log`.
template <class T>
class RecordedRef {
 public:
  RecordedRef(T* target, std::size_t field, std::vector<Access>* log) : target_(target), field_(field), log_(log) {}
  RecordedRef(const RecordedRef&) = default;  // copies the reference, not the value

  T value() const {
    note(AccessKind::load);
    T v;
    std::memcpy(&v, target_, sizeof(T));
    return v;
  }
  operator T() const { return value(); }

  RecordedRef& operator=(const T& v) {
    note(AccessKind::store);
    std::memcpy(target_, &v, sizeof(T));
    return *this;
  }
  RecordedRef& operator=(const RecordedRef& other) { return *this = other.value(); }

  // Read-modify-write: a load, then a store.
  template <class U> RecordedRef& operator+=(const U& u) { return update([&](T& v) { v += u; }); }
  template <class U> RecordedRef& operator-=(const U& u) { return update([&](T& v) { v -= u; }); }
  template <class U> RecordedRef& operator*=(const U& u) { return update([&](T& v) { v *= u; }); }
  template <class U> RecordedRef& operator/=(const U& u) { return update([&](T& v) { v /= u; }); }
  template <class U> RecordedRef& operator&=(const U& u) { return update([&](T& v) { v &= u; }); }
  template <class U> RecordedRef& operator|=(const U& u) { return update([&](T& v) { v |= u; }); }
  template <class U> RecordedRef& operator^=(const U& u) { return update([&](T& v) { v ^= u; }); }
  RecordedRef& operator++() { return update([](T& v) { ++v; }); }
  RecordedRef& operator--() { return update([](T& v) { --v; }); }
  T operator++(int) { return post([](T& v) { ++v; }); }
  T operator--(int) { return post([](T& v) { --v; }); }

 private:
  void note(AccessKind kind) const {
    log_->push_back({field_, reinterpret_cast<std::uintptr_t>(target_), sizeof(T), kind});
  }
  template <class F>
  RecordedRef& update(F f) {
    T v = value();
    f(v);
    return *this = v;
  }
  template <class F>
  T post(F f) {
    const T old = value();
    T v = old;
    f(v);
    *this = v;
    return old;
  }

  T* target_;
  std::size_t field_;
  std::vector<Access>* log_;
};

//! A recorded reference to global memory outside the record array (another input or output
//! array of the body): its bytes count towards distances, it belongs to no field.
template <class T>
RecordedRef<T> recorded_other(T& target, std::vector<Access>& log) {
  return RecordedRef<T>(&target, kOtherMemory, &log);
}

//! A plain array of global memory outside the record (a body's other input or output) whose
//! elements are recorded as other memory: `a[k]` is a RecordedRef.
template <class T>
struct RecordedArray {
  T* p;
  std::vector<Access>* log;
  RecordedRef<T> operator[](std::size_t k) const { return recorded_other(p[k], *log); }
};

//! Each field's bytes (the KDLG's vertex weights σ), in record order.
template <class Rec>
std::vector<std::size_t> field_bytes() {
  std::vector<std::size_t> bytes(Rec::field_count);
  for (std::size_t f = 0; f < Rec::field_count; ++f) bytes[f] = Rec::size_of(f);
  return bytes;
}

template <Mapping M>
class RecordedRecord;

//! A View whose accesses are logged into `log` (which must outlive it).
template <Mapping M>
class RecordingView {
 public:
  using mapping_type = M;
  using record = typename M::record;
  using value_type = RecordValue<record>;
  template <class Tag>
  using field_type = typename record::template field_type<record::template index_of<Tag>>;

  RecordingView(const View<M>& view, std::vector<Access>& log) : view_(view), log_(&log) {}

  std::size_t size() const { return view_.size(); }

  template <class Tag>
  RecordedRef<field_type<Tag>> get(std::size_t i) const {
    return RecordedRef<field_type<Tag>>(&view_.template get<Tag>(i), record::template index_of<Tag>, log_);
  }
  //! The whole record: one load per field, in record order.
  value_type load(std::size_t i) const {
    value_type v;
    for_each_field<record>([&](auto f) {
      constexpr std::size_t I = decltype(f)::value;
      v.template at<I>() = get<typename record::template field<I>::tag>(i).value();
    });
    return v;
  }
  //! The whole record: one store per field, in record order.
  void store(std::size_t i, const value_type& v) const {
    for_each_field<record>([&](auto f) {
      constexpr std::size_t I = decltype(f)::value;
      get<typename record::template field<I>::tag>(i) = v.template at<I>();
    });
  }
  //! Record i as an accessor whose get<Tag>() is a recorded reference (an lvalue, so bodies
  //! may bind `auto& x = a.get<Tag>()`).
  RecordedRecord<M> at(std::size_t i) const { return RecordedRecord<M>(*this, i); }

 private:
  View<M> view_;
  std::vector<Access>* log_;
};

template <Mapping M>
class RecordedRecord {
  using record = typename M::record;
  template <class Seq>
  struct RefsOf;
  template <std::size_t... I>
  struct RefsOf<std::index_sequence<I...>> {
    using type = std::tuple<RecordedRef<typename record::template field_type<I>>...>;
  };
  using Refs = typename RefsOf<std::make_index_sequence<record::field_count>>::type;

 public:
  RecordedRecord(const RecordingView<M>& view, std::size_t i)
      : refs_([&]<std::size_t... I>(std::index_sequence<I...>) {
          return Refs(view.template get<typename record::template field<I>::tag>(i)...);
        }(std::make_index_sequence<record::field_count>{})) {}

  template <class Tag>
  auto& get() const {
    static_assert(record::template has<Tag>, "record has no such field");
    return std::get<record::template index_of<Tag>>(refs_);
  }

 private:
  mutable Refs refs_;
};

}  // namespace lb::layout
