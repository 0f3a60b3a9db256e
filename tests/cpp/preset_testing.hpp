#pragma once
//! A preset made from JSON text in a test (named "test", as if read from test.json).

#include <string>

#include <nlohmann/json.hpp>

#include "lb/harness/preset.hpp"

namespace lb::testing {

inline harness::Preset preset_from(const std::string& text) {
  harness::Preset p;
  p.name = "test";
  p.path = "test.json";
  p.text = text;
  p.suites = nlohmann::json::parse(text);
  return p;
}

}  // namespace lb::testing
