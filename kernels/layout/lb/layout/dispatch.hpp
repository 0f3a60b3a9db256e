#pragma once
//! Choosing a layout by name at run time. A program lists its named layouts (types with
//! `static constexpr std::string_view name`, e.g. IDW's LayoutAoS) in a LayoutList; the
//! harness passes a name and gets the code instantiated for that type.

#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace lb::layout {

template <class... Ls>
struct LayoutList {};

template <class... As, class... Bs>
constexpr LayoutList<As..., Bs...> operator+(LayoutList<As...>, LayoutList<Bs...>) {
  return {};
}

//! The layouts L of the list for which Keep<L>::value holds, in list order.
template <template <class> class Keep, class... Ls>
constexpr auto filter(LayoutList<Ls...>) {
  return (LayoutList<>{} + ... + std::conditional_t<Keep<Ls>::value, LayoutList<Ls>, LayoutList<>>{});
}

template <class... Ls>
std::vector<std::string> layout_names(LayoutList<Ls...>) {
  return {std::string(Ls::name)...};
}

//! Throws std::invalid_argument("unknown layout 'NAME' CONTEXT (expected one of: a, b)")
//! unless `name` names a layout of the list; `context` says where (e.g. "for float").
template <class... Ls>
void check_layout(std::string_view name, LayoutList<Ls...> list, std::string_view context = {}) {
  if (((Ls::name == name) || ...)) return;
  std::string message = "unknown layout '";
  message.append(name).append("'");
  if (!context.empty()) message.append(" ").append(context);
  message.append(" (expected one of: ");
  for (const auto& n : layout_names(list)) message.append(n).append(", ");
  if constexpr (sizeof...(Ls) > 0) message.resize(message.size() - 2);  // the last ", "
  throw std::invalid_argument(message.append(")"));
}

namespace detail {
template <class L, class... Rest, class F>
decltype(auto) dispatch_checked(std::string_view name, F& f) {
  if constexpr (sizeof...(Rest) == 0) {
    return f.template operator()<L>();  // checked: the last candidate is the one named
  } else {
    if (L::name == name) return f.template operator()<L>();
    return dispatch_checked<Rest...>(name, f);
  }
}
}  // namespace detail

//! Calls f.template operator()<L>() for the layout L of the list named `name` and returns
//! its result; an unknown name throws as check_layout says.
template <class... Ls, class F>
decltype(auto) dispatch(std::string_view name, LayoutList<Ls...> list, F&& f, std::string_view context = {}) {
  static_assert(sizeof...(Ls) > 0, "dispatch over an empty layout list");
  check_layout(name, list, context);
  return detail::dispatch_checked<Ls...>(name, f);
}

}  // namespace lb::layout
