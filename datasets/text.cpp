#include "lb/datasets/text.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <istream>

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

namespace {

//! "2 GiB (2147483648 bytes)", or "1000 bytes" for a size of no whole unit.
std::string describe_bytes(std::uint64_t n) {
  for (auto [shift, unit] : {std::pair{30, "GiB"}, {20, "MiB"}, {10, "KiB"}})
    if (n >= (std::uint64_t{1} << shift) && n % (std::uint64_t{1} << shift) == 0)
      return fmt::format("{} {} ({} bytes)", n >> shift, unit, n);
  return fmt::format("{} bytes", n);
}

bool is_blank(char c) { return c == ' ' || c == '\t'; }

}  // namespace

namespace {

//! The positive size the environment variable `name` holds (bytes or a count, optionally with
//! a K, M or G suffix: 2^10, 2^20, 2^30), else `default_limit` where it is not set.
std::uint64_t env_limit(const char* name, std::uint64_t default_limit) {
  const char* value = std::getenv(name);
  if (value == nullptr) return default_limit;
  const std::string_view text = trim(value);
  std::uint64_t n = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  const std::string_view suffix = text.substr(static_cast<std::size_t>(ptr - text.data()));
  int shift = -1;
  if (suffix.empty()) shift = 0;
  for (auto [s, units] : {std::pair{10, "Kk"}, {20, "Mm"}, {30, "Gg"}})
    if (suffix.size() == 1 && std::string_view(units).find(suffix[0]) != std::string_view::npos) shift = s;
  if (ptr == text.data() || ec != std::errc{} || shift < 0 || n == 0 || n > (~std::uint64_t{0} >> shift))
    throw InputError(fmt::format("{}={} is not a size: give a positive number{}, optionally with a K, M or G "
                                 "suffix ({})",
                                 name, quote(value), name == kMaxInputEnv ? " of bytes" : "",
                                 name == kMaxInputEnv ? "KiB, MiB, GiB" : "times 1024, 1024^2, 1024^3"));
  return n << shift;
}

}  // namespace

std::uint64_t max_input_bytes(std::uint64_t default_limit) { return env_limit(kMaxInputEnv, default_limit); }

std::uint64_t max_plan_benchmarks() { return env_limit(kMaxPlanEnv, kMaxPlanBenchmarks); }

std::string read_bounded(std::istream& in, const std::string& name, std::uint64_t limit) {
  constexpr std::uint64_t kChunk = 1 << 16;
  std::string text;
  for (;;) {
    // At most limit + 1 bytes in all: one byte past the limit tells a file over it.
    const std::uint64_t left = limit - text.size();
    const auto want = static_cast<std::size_t>(left >= kChunk ? kChunk : left + 1);
    const std::size_t have = text.size();
    text.resize(have + want);
    errno = 0;
    in.read(text.data() + have, static_cast<std::streamsize>(want));
    const int read_errno = errno;
    text.resize(have + static_cast<std::size_t>(in.gcount()));
    // A failed read is an error, never a short input: bad, or failed before the end.
    if (in.bad() || (in.fail() && !in.eof()))
      throw InputError(fmt::format("{}: read error ({})", name,
                                   read_errno != 0 ? std::strerror(read_errno) : "the stream failed"));
    if (text.size() > limit)
      throw InputError(fmt::format("{}: larger than the input size limit of {}; set {} to raise it", name,
                                   describe_bytes(limit), kMaxInputEnv));
    if (in.eof()) return text;
  }
}

std::string read_bounded(const std::string& path, std::uint64_t limit) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (fs::is_directory(status)) throw InputError(fmt::format("{}: is a directory, not a file", path));
  // A device (/dev/zero, /dev/urandom) is no input file and may never end.
  if (fs::is_character_file(status) || fs::is_block_file(status))
    throw InputError(fmt::format("{}: is a device, not a file", path));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot open file ({})", path, std::strerror(errno)));
  // A regular file's size refuses it before any read; a pipe or a /proc file is read up to
  // the limit, at most kMaxStreamBytes unless LB_MAX_INPUT_BYTES asks for more.
  if (fs::is_regular_file(status)) {
    if (const auto size = fs::file_size(path, ec); !ec && size > limit)
      throw InputError(fmt::format("{}: {} bytes, larger than the input size limit of {}; set {} to raise it", path,
                                   size, describe_bytes(limit), kMaxInputEnv));
  } else if (std::getenv(kMaxInputEnv) == nullptr) {
    limit = std::min(limit, kMaxStreamBytes);
  }
  return read_bounded(in, path, limit);
}

TextLines::TextLines(const std::string& path) : path_(path), text_(read_bounded(path, max_input_bytes(kMaxDataBytes))) {
  pos_ = text_.size() - strip_bom(text_).size();
}

bool TextLines::next(std::string_view& line) {
  const std::string_view all = text_;
  while (pos_ < all.size()) {
    const std::size_t end = std::min(all.find('\n', pos_), all.size());
    line = trim(all.substr(pos_, end - pos_));
    pos_ = end + 1;
    ++line_no_;
    if (!line.empty() && line.front() != '#') return true;
  }
  return false;
}

bool CsvLines::next(std::string_view& line) {
  if (!TextLines::next(line)) return false;
  split_fields(line);
  return true;
}

void CsvLines::split_fields(std::string_view line) {
  fields_.clear();
  unquoted_.clear();
  unquoted_.reserve(line.size());  // never reallocated below: the views into it stay valid
  for (std::size_t i = 0;; ++i) {  // i: the start of a field (after a comma)
    while (i < line.size() && is_blank(line[i])) ++i;
    if (i < line.size() && line[i] == '"') {
      const std::size_t start = unquoted_.size();
      bool closed = false;
      for (++i; i < line.size() && !closed; ++i) {
        if (line[i] != '"')
          unquoted_ += line[i];
        else if (i + 1 < line.size() && line[i + 1] == '"')
          unquoted_ += line[i++];
        else
          closed = true;
      }
      if (!closed)
        throw InputError(fmt::format("{}:{}: field {} has no closing quote: {}", path_, line_no(), fields_.size() + 1,
                                     quote(line)));
      fields_.push_back(std::string_view(unquoted_).substr(start));
      while (i < line.size() && is_blank(line[i])) ++i;
      if (i < line.size() && line[i] != ',')
        throw InputError(fmt::format("{}:{}: text after the closing quote of field {}: {}", path_, line_no(),
                                     fields_.size(), quote(line.substr(i))));
    } else {
      const std::size_t end = std::min(line.find(',', i), line.size());
      fields_.push_back(trim(line.substr(i, end - i)));
      i = end;
    }
    if (i >= line.size()) return;
  }
}

}  // namespace lb::datasets::text
