#pragma once
//! Small text parsing helpers shared by the dataset loaders (CSV lines, specs).

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <iosfwd>
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

//! Every loader of outside input (points, wells, edge lists, presets) reads its file whole
//! through read_bounded, with a size limit, so an endless input (/dev/zero, a pipe that never
//! closes) is refused instead of filling the memory. The limit is the environment variable
//! LB_MAX_INPUT_BYTES where set (bytes, or with a K, M or G suffix: KiB, MiB, GiB), else the
//! loader's default: kMaxDataBytes for data files, kMaxPresetBytes for presets and decision
//! trees. A character or block device (/dev/zero) is refused outright, and a pipe or other
//! stream is read up to kMaxStreamBytes where LB_MAX_INPUT_BYTES is not set, so an endless
//! one never holds gigabytes.
inline constexpr const char* kMaxInputEnv = "LB_MAX_INPUT_BYTES";
inline constexpr std::uint64_t kMaxDataBytes = std::uint64_t{2} << 30;    //!< 2 GiB
inline constexpr std::uint64_t kMaxPresetBytes = std::uint64_t{4} << 20;  //!< 4 MiB
inline constexpr std::uint64_t kMaxStreamBytes = std::uint64_t{256} << 20;  //!< 256 MiB

//! LB_MAX_INPUT_BYTES where set, else `default_limit`; throws InputError for a value that is
//! not a positive size.
std::uint64_t max_input_bytes(std::uint64_t default_limit);

//! The most benchmarks one plan may hold (each suite's, and the layouts a program sweeps on
//! the way): LB_MAX_BENCHMARKS where set (a count, read as LB_MAX_INPUT_BYTES is), else
//! kMaxPlanBenchmarks. A preset planning more is refused on reaching the limit, so a planner
//! never holds more than the limit's cases. Throws InputError for a value that is not a
//! positive count.
inline constexpr const char* kMaxPlanEnv = "LB_MAX_BENCHMARKS";
inline constexpr std::uint64_t kMaxPlanBenchmarks = 100000;
std::uint64_t max_plan_benchmarks();

//! The whole content of the file `path`. Throws InputError naming the file for a missing,
//! unreadable or directory path, a read error (never a short content) and for more than
//! `limit` bytes (naming the limit and LB_MAX_INPUT_BYTES), after reading at most limit + 1
//! bytes.
std::string read_bounded(const std::string& path, std::uint64_t limit);
//! The same from an open stream, `name` naming it in errors.
std::string read_bounded(std::istream& in, const std::string& name, std::uint64_t limit);

//! `text` without a UTF-8 byte order mark at its start (spreadsheets and some editors write
//! one).
inline std::string_view strip_bom(std::string_view text) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  return text;
}

//! The content lines of a text file read by read_bounded (limit max_input_bytes(kMaxDataBytes)):
//! a UTF-8 byte order mark at the start is dropped, each line is trimmed, blank lines and
//! lines starting with '#' are skipped. Throws InputError as read_bounded does.
class TextLines {
 public:
  explicit TextLines(const std::string& path);
  //! The next content line; false at the end of the file.
  bool next(std::string_view& line);
  std::size_t line_no() const { return line_no_; }

 protected:
  std::string path_, text_;

 private:
  std::size_t pos_ = 0, line_no_ = 0;
};

//! TextLines of a CSV file, split into fields at commas; each field is trimmed. A field in
//! double quotes may hold commas, and "" inside it is one quote ("x, m" is one field).
//! Throws InputError naming file:line for an unterminated quote or text after a closing one.
class CsvLines : public TextLines {
 public:
  using TextLines::TextLines;
  //! The next content line (trimmed, as in the file), its fields in fields(); false at the end.
  bool next(std::string_view& line);
  const std::vector<std::string_view>& fields() const { return fields_; }

 private:
  void split_fields(std::string_view line);
  std::string unquoted_;  //!< quoted fields with "" made one quote (fields_ points into it)
  std::vector<std::string_view> fields_;
};

//! The whole of `text` as a double ("nan" and "inf" parse: callers check finiteness).
inline bool parse_double(std::string_view text, double& out) { return parse_number(text, out) == Number::ok; }

inline bool parse_size(std::string_view text, std::size_t& out) {
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return !text.empty() && ec == std::errc{} && ptr == text.data() + text.size();
}

}  // namespace lb::datasets::text
