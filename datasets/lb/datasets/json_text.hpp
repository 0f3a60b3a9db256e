#pragma once
//! JSON files a user writes (presets, decision trees): parsed with errors at their lines and
//! a key given twice in one object refused (JSON parsers silently keep one of the values).

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

namespace lb::datasets {

//! The 1-based line of byte `offset` of `text`.
std::size_t line_of_offset(const std::string& text, std::size_t offset);

//! Parses `text`, the content of `name`. Throws InputError "<name>:<line>: malformed JSON: ...",
//! or "<name>:<line>: key 'k' appears twice in one object (first at line N); give it once".
nlohmann::json parse_json_text(const std::string& text, const std::string& name);

}  // namespace lb::datasets
