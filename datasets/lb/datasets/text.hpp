#pragma once
//! Small text parsing helpers shared by the dataset loaders (CSV lines, specs).

#include <charconv>
#include <cstddef>
#include <fstream>
#include <string>
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

enum class Number { ok, not_a_number, out_of_range };

//! As parse_double, telling a number too large (or too small) for a double ("1e309") from
//! text that is no number at all.
Number parse_number(std::string_view text, double& out);

//! "is not a number: 'abc'" or "is out of range for a double: '1e309'", quoting `text`.
std::string number_problem(Number status, std::string_view text);

//! `text` for an error message: quoted, cut to `max_chars` (then "... (N bytes)"), with
//! bytes outside printable ASCII shown as \xNN, so a huge or binary field cannot flood
//! the terminal.
std::string quote(std::string_view text, std::size_t max_chars = 40);

//! The content lines of a CSV file: a UTF-8 byte order mark at the start is dropped, each
//! line is trimmed, blank lines and lines starting with '#' are skipped. Throws InputError
//! for a missing or unreadable file and for a directory.
class CsvLines {
 public:
  explicit CsvLines(const std::string& path);
  //! The next content line; false at the end of the file.
  bool next(std::string_view& line);
  std::size_t line_no() const { return line_no_; }

 private:
  std::string path_, text_;
  std::ifstream in_;
  std::size_t line_no_ = 0;
};

//! The whole of `text` as a double ("nan" and "inf" parse: callers check finiteness).
inline bool parse_double(std::string_view text, double& out) { return parse_number(text, out) == Number::ok; }

inline bool parse_size(std::string_view text, std::size_t& out) {
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return !text.empty() && ec == std::errc{} && ptr == text.data() + text.size();
}

}  // namespace lb::datasets::text
