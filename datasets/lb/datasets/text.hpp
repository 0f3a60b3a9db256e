#pragma once
//! Small text parsing helpers shared by the dataset loaders (CSV lines, specs).

#include <charconv>
#include <cstddef>
#include <string_view>
#include <vector>

namespace lb::datasets::text {

inline std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

//! Splits at `sep`, trimming each part; "a,,b" gives three parts, the middle one empty.
inline std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  for (;;) {
    const std::size_t end = s.find(sep, start);
    parts.push_back(trim(s.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start)));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

//! The whole of `text` as a double ("nan" and "inf" parse: callers check finiteness).
inline bool parse_double(std::string_view text, double& out) {
  if (text.empty()) return false;
  if (text.front() == '+') text.remove_prefix(1);
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc{} && ptr == text.data() + text.size();
}

inline bool parse_size(std::string_view text, std::size_t& out) {
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return !text.empty() && ec == std::errc{} && ptr == text.data() + text.size();
}

}  // namespace lb::datasets::text
