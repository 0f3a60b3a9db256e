#include "lb/datasets/json_text.hpp"

#include <map>
#include <optional>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "lb/datasets/points.hpp"

namespace lb::datasets {
namespace {

//! Where the `index`-th object key (0-based, in document order) of JSON `text` starts: the
//! index-th string followed by ':'. `text` must parse up to that key.
std::size_t nth_key_offset(const std::string& text, std::size_t index) {
  for (std::size_t pos = text.find('"'); pos != std::string::npos; pos = text.find('"', pos)) {
    std::size_t end = pos + 1;
    while (end < text.size() && text[end] != '"') end += text[end] == '\\' ? 2 : 1;
    const std::size_t next = text.find_first_not_of(" \t\r\n", end + 1);
    if (next != std::string::npos && text[next] == ':' && index-- == 0) return pos;
    pos = end + 1;
  }
  return std::string::npos;
}

}  // namespace

std::size_t line_of_offset(const std::string& text, std::size_t offset) {
  std::size_t line = 1;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) line += text[i] == '\n';
  return line;
}

nlohmann::json parse_json_text(const std::string& text, const std::string& name) {
  struct Repeat {
    std::string key;
    std::size_t first, second;  // key indices in document order
  };
  std::optional<Repeat> repeat;
  std::vector<std::map<std::string, std::size_t>> open_objects;
  std::size_t keys = 0;
  const auto track = [&](int, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using E = nlohmann::json::parse_event_t;
    if (event == E::object_start) open_objects.emplace_back();
    if (event == E::object_end) open_objects.pop_back();
    if (event == E::key) {
      const auto [it, fresh] = open_objects.back().emplace(parsed.get<std::string>(), keys);
      if (!fresh && !repeat) repeat = Repeat{it->first, it->second, keys};
      ++keys;
    }
    return true;
  };
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text, track);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(fmt::format("{}:{}: malformed JSON: {}", name, line_of_offset(text, e.byte), e.what()));
  } catch (const nlohmann::json::out_of_range& e) {
    // A number beyond a double ("number overflow parsing '1e999'"): at the token's line.
    const std::string_view what = e.what();
    const std::size_t open = what.find('\''), close = what.rfind('\'');
    const std::size_t at = open < close ? text.find(what.substr(open + 1, close - open - 1)) : std::string::npos;
    throw InputError(
        fmt::format("{}:{}: malformed JSON: {}", name, at == std::string::npos ? 1 : line_of_offset(text, at), e.what()));
  }
  if (repeat)
    throw InputError(fmt::format("{}:{}: key '{}' appears twice in one object (first at line {}); give it once", name,
                                 line_of_offset(text, nth_key_offset(text, repeat->second)), repeat->key,
                                 line_of_offset(text, nth_key_offset(text, repeat->first))));
  return j;
}

}  // namespace lb::datasets
