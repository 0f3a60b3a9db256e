#include "lb/datasets/text.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "lb/datasets/points.hpp"

namespace lb::datasets::text {

Number parse_number(std::string_view text, double& out) {
  if (text.empty()) return Number::not_a_number;
  if (text.front() == '+') text.remove_prefix(1);
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  if (ptr != text.data() + text.size() || text.empty()) return Number::not_a_number;
  if (ec == std::errc::result_out_of_range) return Number::out_of_range;
  return ec == std::errc{} ? Number::ok : Number::not_a_number;
}

std::string number_problem(Number status, std::string_view text) {
  return fmt::format("{}: {}", status == Number::out_of_range ? "is out of range for a double" : "is not a number",
                     quote(text));
}

std::string quote(std::string_view text, std::size_t max_chars) {
  std::string out = "'";
  const std::size_t shown = std::min(text.size(), max_chars);
  for (std::size_t i = 0; i < shown; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\\')
      out += "\\\\";
    else if (c >= 0x20 && c < 0x7f)
      out += static_cast<char>(c);
    else
      out += fmt::format("\\x{:02x}", c);
  }
  out += '\'';
  if (shown < text.size()) out += fmt::format("... ({} bytes)", text.size());
  return out;
}

CsvLines::CsvLines(const std::string& path) : path_(path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw InputError(fmt::format("{}: is a directory, not a file", path));
  in_.open(path, std::ios::binary);
  if (!in_) throw InputError(fmt::format("{}: cannot open file ({})", path, std::strerror(errno)));
}

bool CsvLines::next(std::string_view& line) {
  while (std::getline(in_, text_)) {
    ++line_no_;
    line = text_;
    // Spreadsheets start UTF-8 CSVs with a byte order mark.
    if (line_no_ == 1 && line.starts_with("\xEF\xBB\xBF")) line.remove_prefix(3);
    line = trim(line);
    if (!line.empty() && line.front() != '#') return true;
  }
  if (in_.bad()) throw InputError(fmt::format("{}: read error ({})", path_, std::strerror(errno)));
  return false;
}

}  // namespace lb::datasets::text
