#include "lb/datasets/street_network.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "lb/datasets/text.hpp"
#include "street_network_build.hpp"

namespace lb::datasets {
namespace {

using text::quote;
using text::trim;

constexpr std::array<std::string_view, 8> kTypeNames = {"service",   "residential", "unclassified", "tertiary",
                                                        "secondary", "primary",     "trunk",        "motorway"};

//! The entries of a value that may be a Python list as OSMnx writes one ("['a', 'b']"), each
//! trimmed and without its quotes; a plain value is one entry.
std::vector<std::string_view> list_entries(std::string_view value) {
  value = trim(value);
  if (!(value.size() >= 2 && value.front() == '[' && value.back() == ']')) return {value};
  std::vector<std::string_view> out;
  for (std::string_view e : text::split(value.substr(1, value.size() - 2), ',')) {
    if (e.size() >= 2 && (e.front() == '\'' || e.front() == '"') && e.back() == e.front())
      e = e.substr(1, e.size() - 2);
    out.push_back(trim(e));
  }
  return out;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return out;
}

// --- the fields of nodes and edges the builder reads --------------------------------------

enum NodeField { node_osmid, node_x, node_y, kNodeFields };
enum EdgeField {
  edge_key,
  edge_u,
  edge_v,
  edge_oneway,
  edge_length,
  edge_highway,
  edge_maxspeed,
  edge_geometry,
  kEdgeFields
};
constexpr std::array<std::string_view, kNodeFields> kNodeFieldNames = {"osmid", "x", "y"};
constexpr std::array<std::string_view, kEdgeFields> kEdgeFieldNames = {"key",    "u",       "v",        "oneway",
                                                                       "length", "highway", "maxspeed", "geometry"};
constexpr int kNone = -1;

template <std::size_t N>
int field_of(std::string_view name, const std::array<std::string_view, N>& names) {
  for (std::size_t i = 0; i < N; ++i)
    if (names[i] == name) return static_cast<int>(i);
  return kNone;
}

//! A value read from a <data> element (or a key's default: line 0), with its line.
struct Value {
  std::string text;
  std::size_t line = 0;
};

template <std::size_t N>
using Fields = std::array<std::optional<Value>, N>;

struct RawNode {
  std::string id;
  Fields<kNodeFields> fields;
  std::size_t line;
};

struct RawEdge {
  std::string source, target, id;
  bool has_id = false, directed = true;
  Fields<kEdgeFields> fields;
  std::size_t line;
};

struct Key {
  std::string domain;  //!< node, edge, graph or all
  std::string name;
  std::optional<std::string> default_value;
};

// --- a reader of the XML subset GraphML uses ---------------------------------------------
//
// Elements, attributes (single or double quotes), text with the five named entities and
// character references, CDATA, comments and processing instructions; a DOCTYPE is refused (no
// entity expansion). Element names are compared without a namespace prefix. It streams over the
// text once, so a file of millions of elements needs no tree in memory.
class GraphmlReader {
 public:
  GraphmlReader(std::string_view text, const std::string& path) : text_(text), path_(path) {}

  void read() {
    const std::size_t n = text_.size();
    while (pos_ < n) {
      if (text_[pos_] != '<') {
        const std::size_t end = std::min(text_.find('<', pos_), n);
        characters(text_.substr(pos_, end - pos_), pos_);
        pos_ = end;
        continue;
      }
      const std::size_t line = line_at(pos_);
      const std::string_view rest = text_.substr(pos_);
      if (rest.starts_with("<!--")) {
        pos_ = past(pos_ + 4, "-->", line, "a comment (<!--) that is never closed");
      } else if (rest.starts_with("<![CDATA[")) {
        const std::size_t end = past(pos_ + 9, "]]>", line, "a CDATA section that is never closed");
        if (stack_.empty()) fail(line, "a CDATA section outside the root element");
        if (collecting_) value_.append(text_.substr(pos_ + 9, end - 3 - (pos_ + 9)));
        pos_ = end;
      } else if (rest.starts_with("<?")) {
        pos_ = past(pos_ + 2, "?>", line, "a processing instruction (<?) that is never closed");
      } else if (rest.starts_with("<!")) {
        fail(line, "a <!DOCTYPE> or other declaration: not supported in GraphML");
      } else if (rest.starts_with("</")) {
        end_tag(line);
      } else {
        start_tag(line);
      }
    }
    if (!stack_.empty())
      fail(line_at(n), fmt::format("the file ends inside <{}> (opened at line {}): truncated?", stack_.back().name,
                                   stack_.back().line));
    if (!root_seen_) fail(line_at(n), "no XML element: not a GraphML file");
    if (!graph_seen_) fail(line_at(n), "no <graph> element in <graphml>");
  }

  std::vector<RawNode> nodes;
  std::vector<RawEdge> edges;
  std::optional<std::string> crs;
  bool directed = true;

 private:
  enum class Elem { graphml, key, key_default, graph, node, edge, data, other };
  struct Open {
    std::string_view name;
    std::size_t line;
    Elem kind;
  };

  [[noreturn]] void fail(std::size_t line, const std::string& problem) const {
    throw InputError(fmt::format("{}:{}: {}", path_, line, problem));
  }

  std::size_t line_at(std::size_t pos) {
    if (pos > counted_) {
      line_ += static_cast<std::size_t>(std::count(text_.begin() + static_cast<std::ptrdiff_t>(counted_),
                                                   text_.begin() + static_cast<std::ptrdiff_t>(pos), '\n'));
      counted_ = pos;
    }
    return line_;
  }

  //! The position after the first `marker` at or after `from`; fails with `problem` if none.
  std::size_t past(std::size_t from, std::string_view marker, std::size_t line, const char* problem) {
    const std::size_t at = text_.find(marker, from);
    if (at == std::string_view::npos) fail(line, fmt::format("{}: truncated?", problem));
    return at + marker.size();
  }

  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }

  [[noreturn]] void unexpected(std::size_t line, std::string_view what) {
    if (pos_ >= text_.size()) fail(line, fmt::format("the file ends inside a tag ({}): truncated?", what));
    fail(line_at(pos_), fmt::format("{}, found {}", what, quote(text_.substr(pos_, 20))));
  }

  bool skip_space() {
    const std::size_t from = pos_;
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' || text_[pos_] == '\r'))
      ++pos_;
    return pos_ > from;
  }

  static bool name_start(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' ||
           static_cast<unsigned char>(c) >= 0x80;
  }
  std::string_view read_name() {
    const std::size_t from = pos_;
    if (!name_start(peek())) return {};
    while (name_start(peek()) || (peek() >= '0' && peek() <= '9') || peek() == '-' || peek() == '.') ++pos_;
    return text_.substr(from, pos_ - from);
  }
  static std::string_view local(std::string_view name) {
    const std::size_t colon = name.rfind(':');
    return colon == std::string_view::npos ? name : name.substr(colon + 1);
  }

  //! `raw` with entities and character references replaced, appended to `out`.
  void decode(std::string_view raw, std::size_t line, std::string& out) {
    for (std::size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] != '&') {
        out += raw[i];
        continue;
      }
      const std::size_t semi = raw.find(';', i);
      if (semi == std::string_view::npos || semi - i > 12)
        fail(line, fmt::format("'&' that starts no entity (write &amp;): {}", quote(raw.substr(i, 12))));
      const std::string_view name = raw.substr(i + 1, semi - i - 1);
      i = semi;
      static constexpr std::array<std::pair<std::string_view, char>, 5> named = {
          {{"lt", '<'}, {"gt", '>'}, {"amp", '&'}, {"quot", '"'}, {"apos", '\''}}};
      const auto it = std::find_if(named.begin(), named.end(), [&](const auto& e) { return e.first == name; });
      if (it != named.end()) {
        out += it->second;
        continue;
      }
      std::uint32_t cp = 0;
      const bool hex = name.starts_with("#x");
      const std::string_view digits = name.substr(std::min<std::size_t>(hex ? 2 : 1, name.size()));
      const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), cp, hex ? 16 : 10);
      if (!name.starts_with('#') || digits.empty() || ec != std::errc{} || ptr != digits.data() + digits.size() ||
          cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        fail(line, fmt::format("unknown entity {}", quote(fmt::format("&{};", name))));
      if (cp < 0x80) {
        out += static_cast<char>(cp);
      } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
      } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
      } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
      }
    }
  }

  void characters(std::string_view raw, std::size_t at) {
    if (stack_.empty()) {
      const std::size_t first = raw.find_first_not_of(" \t\r\n");
      if (first == std::string_view::npos) return;
      fail(line_at(at + first), root_seen_
                                    ? fmt::format("text after the root element: {}", quote(raw.substr(first)))
                                    : fmt::format("not an XML file: it starts with {}", quote(raw.substr(first))));
    }
    if (collecting_) decode(raw, line_at(at), value_);
  }

  void end_tag(std::size_t line) {
    pos_ += 2;
    const std::string_view name = read_name();
    skip_space();
    if (peek() != '>') unexpected(line, fmt::format("'>' to end </{}>", name));
    ++pos_;
    if (stack_.empty()) fail(line, fmt::format("</{}> closes no element", name));
    if (stack_.back().name != name)
      fail(line, fmt::format("</{}> where <{}> (opened at line {}) should close", name, stack_.back().name,
                             stack_.back().line));
    const Open open = stack_.back();
    stack_.pop_back();
    on_end(open.kind);
  }

  void start_tag(std::size_t line) {
    ++pos_;
    const std::string_view name = read_name();
    if (name.empty()) unexpected(line, "an element name after '<'");
    attrs_.clear();
    bool empty = false;
    for (;;) {
      const bool space = skip_space();
      if (peek() == '>') {
        ++pos_;
        break;
      }
      if (peek() == '/') {
        ++pos_;
        if (peek() != '>') unexpected(line, fmt::format("'>' after '/' in <{}>", name));
        ++pos_;
        empty = true;
        break;
      }
      const std::string_view attr = space ? read_name() : std::string_view{};
      if (attr.empty()) unexpected(line, fmt::format("an attribute name, '>' or '/>' in <{}>", name));
      skip_space();
      if (peek() != '=') unexpected(line, fmt::format("'=' after attribute {} of <{}>", attr, name));
      ++pos_;
      skip_space();
      const char q = peek();
      if (q != '"' && q != '\'') unexpected(line, fmt::format("a quoted value of attribute {} of <{}>", attr, name));
      const std::size_t close = text_.find(q, pos_ + 1);
      if (close == std::string_view::npos)
        fail(line, fmt::format("the value of attribute {} of <{}> is never closed: truncated?", attr, name));
      const std::string_view raw = text_.substr(pos_ + 1, close - pos_ - 1);
      if (raw.find('<') != std::string_view::npos)
        fail(line, fmt::format("'<' in the value of attribute {} of <{}>", attr, name));
      for (const auto& [a, v] : attrs_)
        if (a == attr) fail(line, fmt::format("attribute {} given twice in <{}>", attr, name));
      std::string value;
      decode(raw, line, value);
      attrs_.emplace_back(attr, std::move(value));
      pos_ = close + 1;
    }
    if (stack_.empty() && root_seen_) fail(line, fmt::format("a second root element <{}>", name));
    const Elem kind = on_start(local(name), line);
    root_seen_ = true;
    if (empty)
      on_end(kind);
    else
      stack_.push_back({name, line, kind});
  }

  const std::string* attr(std::string_view name) const {
    for (const auto& [a, v] : attrs_)
      if (a == name) return &v;
    return nullptr;
  }
  const std::string& required(std::string_view element, std::string_view name, std::size_t line) const {
    const std::string* v = attr(name);
    if (v == nullptr) fail(line, fmt::format("<{}> without a{} {} attribute", element, name == "id" ? "n" : "", name));
    return *v;
  }

  //! What a <data> names in its parent (a node field, an edge field, the graph's crs), or kNone.
  int data_field(Elem parent, const Key& key) const {
    const bool all = key.domain == "all";
    if (parent == Elem::node && (all || key.domain == "node")) return field_of(key.name, kNodeFieldNames);
    if (parent == Elem::edge && (all || key.domain == "edge")) return field_of(key.name, kEdgeFieldNames);
    if (parent == Elem::graph && (all || key.domain == "graph") && key.name == "crs") return 0;
    return kNone;
  }

  Elem on_start(std::string_view name, std::size_t line) {
    const Elem parent = stack_.empty() ? Elem::other : stack_.back().kind;
    if (stack_.empty()) {
      if (name != "graphml")
        fail(line, fmt::format("the root element is <{}>, not <graphml>: not a GraphML file", name));
      return Elem::graphml;
    }
    if (parent == Elem::data || parent == Elem::key_default)
      fail(line, fmt::format("<{}> inside <data>: a street network's data values are text", name));
    if (name == "graph" && parent != Elem::graphml)
      fail(line, "a <graph> nested in another element: nested graphs are not supported");
    switch (parent) {
      case Elem::graphml:
        if (name == "key") {
          const std::string& id = required(name, "id", line);
          const std::string* domain = attr("for");
          const std::string* key_name = attr("attr.name");
          if (!keys_.emplace(id, Key{domain ? *domain : "all", key_name ? *key_name : "", std::nullopt}).second)
            fail(line, fmt::format("key id {} declared twice", quote(id)));
          key_ = &keys_.at(id);
          return Elem::key;
        }
        if (name == "graph") {
          if (graph_seen_) fail(line, "a second <graph>: one street network per file");
          graph_seen_ = true;
          const std::string* d = attr("edgedefault");
          if (d != nullptr && *d != "directed" && *d != "undirected")
            fail(line, fmt::format("edgedefault {} is neither directed nor undirected", quote(*d)));
          directed = d == nullptr || *d == "directed";
          return Elem::graph;
        }
        return Elem::other;
      case Elem::key:
        if (name == "default") return begin_value(line), Elem::key_default;
        return Elem::other;
      case Elem::graph:
        if (name == "node") {
          nodes.push_back(RawNode{required(name, "id", line), {}, line});
          return Elem::node;
        }
        if (name == "edge") {
          RawEdge e{required(name, "source", line), required(name, "target", line), "", false, directed, {}, line};
          if (const std::string* id = attr("id")) e.id = *id, e.has_id = true;
          if (const std::string* d = attr("directed")) {
            if (*d != "true" && *d != "false")
              fail(line, fmt::format("<edge> attribute directed {} is neither true nor false", quote(*d)));
            e.directed = *d == "true";
          }
          edges.push_back(std::move(e));
          return Elem::edge;
        }
        if (name == "hyperedge") fail(line, "<hyperedge> is not supported: a street joins two nodes");
        [[fallthrough]];
      case Elem::node:
      case Elem::edge:
        if (name == "data") {
          const std::string& id = required(name, "key", line);
          const auto key = keys_.find(id);
          if (key == keys_.end()) fail(line, fmt::format("<data> key {} is not declared by a <key>", quote(id)));
          field_ = data_field(parent, key->second);
          data_parent_ = parent;
          if (field_ != kNone) {
            const std::optional<Value>& slot = slot_of(parent, field_);
            if (slot)
              fail(line, fmt::format("{} given twice in one <{}> (first at line {})", key->second.name,
                                     parent == Elem::node   ? "node"
                                     : parent == Elem::edge ? "edge"
                                                            : "graph",
                                     slot->line));
            begin_value(line);
          }
          return Elem::data;
        }
        return Elem::other;
      default:
        return Elem::other;
    }
  }

  std::optional<Value>& slot_of(Elem parent, int field) {
    if (parent == Elem::node) return nodes.back().fields[static_cast<std::size_t>(field)];
    if (parent == Elem::edge) return edges.back().fields[static_cast<std::size_t>(field)];
    return crs_value_;
  }

  void begin_value(std::size_t line) {
    collecting_ = true;
    value_.clear();
    value_line_ = line;
  }

  void on_end(Elem kind) {
    if (kind == Elem::data && collecting_) {
      slot_of(data_parent_, field_) = Value{value_, value_line_};
      if (data_parent_ == Elem::graph) crs = value_;
    } else if (kind == Elem::key_default) {
      key_->default_value = value_;
    } else if (kind == Elem::node || kind == Elem::edge) {
      apply_defaults(kind);
    }
    if (kind == Elem::data || kind == Elem::key_default) collecting_ = false;
  }

  //! Fields the element has no <data> for take their key's default, if it declares one.
  void apply_defaults(Elem kind) {
    for (const auto& [id, key] : keys_) {
      if (!key.default_value) continue;
      const int field = data_field(kind, key);
      if (field == kNone) continue;
      std::optional<Value>& slot = slot_of(kind, field);
      if (!slot) slot = Value{*key.default_value, 0};
    }
  }

  std::string_view text_;
  const std::string& path_;
  std::size_t pos_ = 0, counted_ = 0, line_ = 1;
  std::vector<Open> stack_;
  std::vector<std::pair<std::string_view, std::string>> attrs_;
  std::unordered_map<std::string, Key> keys_;
  Key* key_ = nullptr;
  bool root_seen_ = false, graph_seen_ = false, collecting_ = false;
  std::string value_;
  std::size_t value_line_ = 0;
  int field_ = kNone;
  Elem data_parent_ = Elem::other;
  std::optional<Value> crs_value_;
};

// --- from the raw graph to streets and cells ---------------------------------------------

constexpr double kEarthRadius = 6371e3;  // metres (the authors')
constexpr double kPi = 3.14159265358979323846;

struct Builder {
  const std::string& path;
  const StreetNetworkOptions& options;

  [[noreturn]] void fail(std::size_t line, const std::string& problem) const {
    throw InputError(fmt::format("{}:{}: {}", path, line, problem));
  }

  //! A value's line, or the element's where it came from a key's default.
  static std::size_t line_of(const Value& v, std::size_t element_line) { return v.line != 0 ? v.line : element_line; }

  double number(const Value& v, std::size_t element_line, const std::string& what) const {
    double out = 0;
    const text::Number status = text::parse_number(trim(v.text), out);
    if (status != text::Number::ok)
      fail(line_of(v, element_line), fmt::format("{} {}", what, text::number_problem(status, trim(v.text))));
    if (!std::isfinite(out)) fail(line_of(v, element_line), fmt::format("{} is not finite: {}", what, quote(v.text)));
    return out;
  }

  // The projection: equirectangular about the nodes' bounding box (the authors'), or none for a
  // projected graph (a crs that is not WGS 84: x and y are metres already).
  bool geographic = true;
  double lon0 = 0, lat0 = 0, cos_lat = 1;
  std::array<double, 2> project(double lon, double lat) const {
    if (!geographic) return {lon - lon0, lat - lat0};
    return {kEarthRadius * (lon - lon0) * kPi / 180 * cos_lat, kEarthRadius * (lat - lat0) * kPi / 180};
  }

  //! "LINESTRING (x y, x y, ...)" as projected points.
  std::vector<std::array<double, 2>> linestring(const Value& v, std::size_t line, const std::string& what) const {
    std::string_view s = trim(v.text);
    const auto bad = [&](std::string_view why) {
      fail(line_of(v, line),
           fmt::format("{}: geometry is not a LINESTRING of 'x y' points ({}): {}", what, why, quote(v.text, 60)));
    };
    if (!s.starts_with("LINESTRING")) bad("no LINESTRING");
    s = trim(s.substr(10));
    if (s.size() < 2 || s.front() != '(' || s.back() != ')') bad("no parentheses");
    std::vector<std::array<double, 2>> points;
    for (std::string_view p : text::split(s.substr(1, s.size() - 2), ',')) {
      std::array<double, 3> c{};
      std::size_t n = 0;
      for (std::size_t i = 0; i < p.size();) {
        while (i < p.size() && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n')) ++i;
        const std::size_t start = i;
        while (i < p.size() && p[i] != ' ' && p[i] != '\t' && p[i] != '\n') ++i;
        if (i == start) break;
        if (n == 3 || !text::parse_double(p.substr(start, i - start), c[n]) || !std::isfinite(c[n]))
          bad(fmt::format("point {}", quote(p)));
        ++n;
      }
      if (n < 2) bad(fmt::format("point {}", quote(p)));
      points.push_back(project(c[0], c[1]));
    }
    if (points.size() < 2) bad("fewer than 2 points");
    return points;
  }

  bool oneway(const Value& v, std::size_t line, const std::string& what) const {
    bool any = false;
    for (std::string_view e : list_entries(v.text)) {
      const std::string l = lower(e);
      if (l == "true" || l == "1" || l == "yes")
        any = true;
      else if (l != "false" && l != "0" && l != "no")
        fail(line_of(v, line), fmt::format("{}: oneway {} is not True or False", what, quote(v.text)));
    }
    return any;
  }

  StreetNetwork build(GraphmlReader& g) {
    StreetNetwork net;
    net.source = path;
    net.directed = g.directed;
    if (g.nodes.empty()) throw InputError(fmt::format("{}: no <node> elements: no street network", path));
    if (g.nodes.size() > std::numeric_limits<std::uint32_t>::max() ||
        g.edges.size() > std::numeric_limits<std::uint32_t>::max() / 2)
      throw InputError(fmt::format("{}: {} nodes and {} edges: more than 32-bit indices hold", path, g.nodes.size(),
                                   g.edges.size()));
    if (g.crs) {
      const std::string c = lower(*g.crs);
      geographic = c.find("4326") != std::string::npos || c.find("wgs84") != std::string::npos ||
                   c.find("crs84") != std::string::npos || trim(c).empty();
    }

    // Nodes: coordinates (lon, lat), then projected about the bounding box.
    std::unordered_map<std::string_view, std::uint32_t> index;
    index.reserve(g.nodes.size());
    std::vector<std::array<double, 2>> raw(g.nodes.size());
    double lon_min = HUGE_VAL, lat_min = HUGE_VAL, lat_max = -HUGE_VAL;
    net.nodes.reserve(g.nodes.size());
    for (std::size_t i = 0; i < g.nodes.size(); ++i) {
      const RawNode& n = g.nodes[i];
      if (const auto [it, fresh] = index.emplace(n.id, static_cast<std::uint32_t>(i)); !fresh)
        fail(n.line, fmt::format("node id {} given twice (first at line {})", quote(n.id), g.nodes[it->second].line));
      std::array<double, 2> c{};
      for (int f : {node_x, node_y}) {
        const auto& v = n.fields[static_cast<std::size_t>(f)];
        const std::string what = fmt::format("node {}: {}", quote(n.id), kNodeFieldNames[static_cast<std::size_t>(f)]);
        if (!v) fail(n.line, fmt::format("node {} has no {} coordinate", quote(n.id), f == node_x ? "x" : "y"));
        c[f == node_x ? 0 : 1] = number(*v, n.line, what);
      }
      if (geographic && (std::abs(c[0]) > 180 || std::abs(c[1]) > 90))
        fail(n.line, fmt::format("node {}: ({}, {}) is not a longitude, latitude (the graph's crs is {})", quote(n.id),
                                 c[0], c[1], g.crs ? quote(*g.crs) : "not given: WGS 84 assumed"));
      raw[i] = c;
      lon_min = std::min(lon_min, c[0]);
      lat_min = std::min(lat_min, c[1]);
      lat_max = std::max(lat_max, c[1]);
      std::uint64_t osmid = 0;
      if (const auto& v = n.fields[node_osmid]) {
        if (!text::parse_size(trim(v->text), osmid))
          fail(line_of(*v, n.line),
               fmt::format("node {}: osmid {} is not a non-negative integer", quote(n.id), quote(v->text)));
      } else if (std::size_t id = 0; text::parse_size(n.id, id)) {
        osmid = id;
      }
      net.nodes.push_back({n.id, osmid, 0, 0, n.line});
    }
    lon0 = lon_min;
    lat0 = lat_min;
    cos_lat = std::cos((lat_min + lat_max) / 2 * kPi / 180);
    for (std::size_t i = 0; i < raw.size(); ++i) {
      const auto p = project(raw[i][0], raw[i][1]);
      net.nodes[i].x = p[0];
      net.nodes[i].y = p[1];
    }

    if (g.edges.empty()) throw InputError(fmt::format("{}: no <edge> elements: no streets to build", path));

    // Edges: one street each in a directed graph; two (one per direction) for a two-way edge of
    // an undirected one.
    std::unordered_set<std::string> keys_seen;
    std::unordered_set<std::uint64_t> pairs_seen;
    std::uint64_t total_cells = 0;
    for (std::size_t e = 0; e < g.edges.size(); ++e) {
      RawEdge& r = g.edges[e];
      const std::string what = fmt::format("edge {} -> {}", quote(r.source), quote(r.target));
      std::array<std::uint32_t, 2> ends{};
      for (int end = 0; end < 2; ++end) {
        const std::string& id = end == 0 ? r.source : r.target;
        const auto it = index.find(id);
        if (it == index.end()) fail(r.line, fmt::format("{}: no node has the id {}", what, quote(id)));
        ends[end] = it->second;
        if (const auto& v = r.fields[end == 0 ? edge_u : edge_v]; v && trim(v->text) != id)
          fail(line_of(*v, r.line), fmt::format("{}: {} {} is not its {} {}", what, end == 0 ? "u" : "v",
                                                quote(v->text), end == 0 ? "source" : "target", quote(id)));
      }
      const auto [from, to] = ends;
      const bool undirected = !r.directed;
      const std::uint32_t lo = undirected ? std::min(from, to) : from, hi = undirected ? std::max(from, to) : to;
      net.self_loops += from == to;
      net.parallel_edges += !pairs_seen.insert(std::uint64_t{lo} << 32 | hi).second;
      const std::optional<Value>& key = r.fields[edge_key];
      if (key || r.has_id) {
        const std::string k = key ? std::string(trim(key->text)) : r.id;
        if (!keys_seen.insert(fmt::format("{}\n{}\n{}", lo, hi, k)).second)
          fail(key ? line_of(*key, r.line) : r.line, fmt::format("{}: key {} given twice", what, quote(k)));
      }

      std::vector<std::array<double, 2>> poly;
      if (const auto& v = r.fields[edge_geometry])
        poly = linestring(*v, r.line, what);
      else
        poly = {{net.nodes[from].x, net.nodes[from].y}, {net.nodes[to].x, net.nodes[to].y}};
      double length = 0;
      if (const auto& v = r.fields[edge_length]) {
        length = number(*v, r.line, what + ": length");
        if (length < 0) fail(line_of(*v, r.line), fmt::format("{}: length {} is negative", what, quote(v->text)));
      } else {
        for (std::size_t i = 1; i < poly.size(); ++i)
          length += std::hypot(poly[i][0] - poly[i - 1][0], poly[i][1] - poly[i - 1][1]);
      }
      const double cells_d = std::max(1.0, std::round(length / kCellMetres));
      const bool two_way = undirected && !(r.fields[edge_oneway] && oneway(*r.fields[edge_oneway], r.line, what));
      if (!undirected && r.fields[edge_oneway]) oneway(*r.fields[edge_oneway], r.line, what);  // checked all the same
      if (cells_d * (two_way ? 2 : 1) > static_cast<double>(options.max_cells - total_cells))
        fail(r.line, fmt::format("{}: {} m makes {} cells, over the limit of {} cells in all", what, length,
                                 cells_d < 1e15 ? fmt::format("{:.0f}", cells_d) : fmt::format("{:.3g}", cells_d),
                                 options.max_cells));
      const auto cells = static_cast<std::uint32_t>(cells_d);
      total_cells += std::uint64_t{cells} * (two_way ? 2 : 1);

      bool known = false;
      const StreetType type =
          r.fields[edge_highway] ? parse_highway(r.fields[edge_highway]->text, known) : kDefaultStreetType;
      double speed = r.fields[edge_maxspeed] ? parse_maxspeed(r.fields[edge_maxspeed]->text) : 0.0;
      SpeedSource source = SpeedSource::maxspeed;
      if (!(speed > 0)) {
        speed = r.fields[edge_highway] ? highway_speed(r.fields[edge_highway]->text) : 0.0;
        source = SpeedSource::highway;
      }
      if (!(speed > 0)) {
        speed = kDefaultSpeedMs;
        source = SpeedSource::fallback;
      }
      const std::uint8_t limit = cells_per_step(speed);
      for (int dir = 0; dir < (two_way ? 2 : 1); ++dir) {
        const auto street = static_cast<std::uint32_t>(net.streets.size());
        net.streets.push_back({dir == 0 ? from : to, dir == 0 ? to : from, static_cast<std::uint32_t>(net.cells.size()),
                               cells, static_cast<std::uint32_t>(e), length, limit, type, source, known, false});
        if (dir == 1) std::reverse(poly.begin(), poly.end());
        detail::place_cells(poly, cells, street, limit, type, net.cells);
      }
      r.fields = {};  // the geometry text is no longer needed
    }
    net.edges = g.edges.size();
    detail::connect_streets(net, options);
    return net;
  }
};

}  // namespace

namespace detail {

//! Cell centres: `cells` points at equal distances along the polyline (the middle of each
//! of `cells` equal pieces).
void place_cells(const std::vector<std::array<double, 2>>& poly, std::uint32_t cells, std::uint32_t street,
                 std::uint8_t limit, StreetType type, std::vector<StreetNetwork::Cell>& out) {
  std::vector<double> at(poly.size(), 0.0);
  for (std::size_t i = 1; i < poly.size(); ++i)
    at[i] = at[i - 1] + std::hypot(poly[i][0] - poly[i - 1][0], poly[i][1] - poly[i - 1][1]);
  std::size_t seg = 1;
  for (std::uint32_t c = 0; c < cells; ++c) {
    const double s = at.back() * (c + 0.5) / cells;
    while (seg + 1 < poly.size() && at[seg] < s) ++seg;
    const double piece = at[seg] - at[seg - 1];
    const double f = piece > 0 ? std::clamp((s - at[seg - 1]) / piece, 0.0, 1.0) : 0.0;
    out.push_back({poly[seg - 1][0] + f * (poly[seg][0] - poly[seg - 1][0]),
                   poly[seg - 1][1] + f * (poly[seg][1] - poly[seg - 1][1]), street, limit, type, false});
  }
}

//! The cell graph, sinks, and the controllers with their signal groups.
void connect_streets(StreetNetwork& net, const StreetNetworkOptions& options) {
  const std::size_t nodes = net.nodes.size(), cells = net.cells.size();
  // Streets leaving (out) and entering (in) each node, in street order, as CSR.
  std::vector<std::uint32_t> out_at(nodes + 1, 0), in_at(nodes + 1, 0);
  for (const auto& s : net.streets) ++out_at[s.from + 1], ++in_at[s.to + 1];
  std::partial_sum(out_at.begin(), out_at.end(), out_at.begin());
  std::partial_sum(in_at.begin(), in_at.end(), in_at.begin());
  std::vector<std::uint32_t> out_streets(net.streets.size()), in_streets(net.streets.size());
  {
    std::vector<std::uint32_t> o(out_at.begin(), out_at.end() - 1), i(in_at.begin(), in_at.end() - 1);
    for (std::uint32_t s = 0; s < net.streets.size(); ++s) {
      out_streets[o[net.streets[s].from]++] = s;
      in_streets[i[net.streets[s].to]++] = s;
    }
  }
  net.controllers.clear();
  net.groups.clear();
  std::uint64_t joins = 0;
  for (std::size_t v = 0; v < nodes; ++v)
    joins += std::uint64_t{in_at[v + 1] - in_at[v]} * (out_at[v + 1] - out_at[v]);
  if (joins > options.max_cells)
    throw InputError(fmt::format("{}: {} turns between streets at intersections: over the limit of {}", net.source, joins,
                                 options.max_cells));

  auto last = [&](std::uint32_t s) { return net.streets[s].first_cell + net.streets[s].cells - 1; };
  net.out_offsets.assign(cells + 1, 0);
  for (std::uint32_t s = 0; s < net.streets.size(); ++s) {
    const auto& st = net.streets[s];
    for (std::uint32_t c = st.first_cell; c < last(s); ++c) net.out_offsets[c + 1] = 1;
    net.out_offsets[last(s) + 1] = out_at[st.to + 1] - out_at[st.to];
  }
  std::partial_sum(net.out_offsets.begin(), net.out_offsets.end(), net.out_offsets.begin());
  net.out_cells.resize(net.out_offsets.back());
  for (std::uint32_t s = 0; s < net.streets.size(); ++s) {
    const auto& st = net.streets[s];
    for (std::uint32_t c = st.first_cell; c < last(s); ++c) net.out_cells[net.out_offsets[c]] = c + 1;
    std::uint32_t k = net.out_offsets[last(s)];
    for (std::uint32_t j = out_at[st.to]; j < out_at[st.to + 1]; ++j)
      net.out_cells[k++] = net.streets[out_streets[j]].first_cell;
    net.cells[last(s)].sink = out_at[st.to] == out_at[st.to + 1];
  }
  // The reverse graph: cells in ascending order of the cell they come from.
  net.in_offsets.assign(cells + 1, 0);
  for (std::uint32_t t : net.out_cells) ++net.in_offsets[t + 1];
  std::partial_sum(net.in_offsets.begin(), net.in_offsets.end(), net.in_offsets.begin());
  net.in_cells.resize(net.out_cells.size());
  std::vector<std::uint32_t> fill(net.in_offsets.begin(), net.in_offsets.end() - 1);
  for (std::uint32_t c = 0; c < cells; ++c)
    for (std::uint32_t k = net.out_offsets[c]; k < net.out_offsets[c + 1]; ++k)
      net.in_cells[fill[net.out_cells[k]]++] = c;

  // Controllers (the authors' rule): a node with exactly 2 incoming streets of different types
  // gets a yield controller (the larger type first); one with 2 or more otherwise a traffic
  // light; one with fewer, or without outgoing streets (its incoming streets end in sinks), none.
  for (std::uint32_t v = 0; v < nodes; ++v) {
    const std::uint32_t in = in_at[v + 1] - in_at[v];
    if (in < 2 || out_at[v] == out_at[v + 1]) continue;
    std::vector<std::uint32_t> order(in_streets.begin() + in_at[v], in_streets.begin() + in_at[v + 1]);
    const auto type = [&](std::uint32_t s) { return net.streets[s].type; };
    const bool yield = in == 2 && type(order[0]) != type(order[1]);
    if (yield && type(order[0]) < type(order[1])) std::swap(order[0], order[1]);
    const auto controller = static_cast<std::uint32_t>(net.controllers.size());
    net.controllers.push_back({v, yield ? ControllerKind::yield : ControllerKind::traffic_light,
                               static_cast<std::uint32_t>(net.groups.size()), in});
    for (std::uint32_t s : order) net.groups.push_back({controller, s, last(s)});
  }
}

std::uint32_t strong_components(const StreetNetwork& net, std::vector<std::uint32_t>& component) {
  const auto n = static_cast<std::uint32_t>(net.nodes.size());
  std::vector<std::uint32_t> at(n + 1, 0), next(net.streets.size());
  for (const auto& s : net.streets) ++at[s.from + 1];
  std::partial_sum(at.begin(), at.end(), at.begin());
  {
    std::vector<std::uint32_t> fill(at.begin(), at.end() - 1);
    for (const auto& s : net.streets) next[fill[s.from]++] = s.to;
  }
  // Tarjan's algorithm without recursion: `frames` holds (node, next arc to look at).
  constexpr std::uint32_t unseen = std::numeric_limits<std::uint32_t>::max();
  std::vector<std::uint32_t> index(n, unseen), low(n, 0), stack;
  std::vector<bool> on_stack(n, false);
  std::vector<std::pair<std::uint32_t, std::uint32_t>> frames;
  component.assign(n, 0);
  std::uint32_t counter = 0, components = 0;
  for (std::uint32_t root = 0; root < n; ++root) {
    if (index[root] != unseen) continue;
    frames.push_back({root, at[root]});
    index[root] = low[root] = counter++;
    stack.push_back(root);
    on_stack[root] = true;
    while (!frames.empty()) {
      auto& [v, arc] = frames.back();
      if (arc < at[v + 1]) {
        const std::uint32_t w = next[arc++];
        if (index[w] == unseen) {
          index[w] = low[w] = counter++;
          stack.push_back(w);
          on_stack[w] = true;
          frames.push_back({w, at[w]});
        } else if (on_stack[w]) {
          low[v] = std::min(low[v], index[w]);
        }
        continue;
      }
      const std::uint32_t done = v;
      frames.pop_back();
      if (!frames.empty()) low[frames.back().first] = std::min(low[frames.back().first], low[done]);
      if (low[done] == index[done]) {
        std::uint32_t w = 0;
        do {
          w = stack.back();
          stack.pop_back();
          on_stack[w] = false;
          component[w] = components;
        } while (w != done);
        ++components;
      }
    }
  }
  return components;
}

}  // namespace detail

std::string_view to_string(StreetType t) { return kTypeNames[static_cast<std::size_t>(t)]; }

std::uint8_t cells_per_step(double metres_per_second) {
  // A small tolerance so that an exact multiple (36 km/h: 5 cells) is not lost to rounding.
  const double cells = std::floor(metres_per_second * kStepSeconds / kCellMetres + 1e-9);
  return static_cast<std::uint8_t>(std::clamp(cells, 1.0, 255.0));
}

double parse_maxspeed(std::string_view text) {
  double best = 0;
  for (std::string_view entry : list_entries(text))
    for (std::string_view part : text::split(entry, ';')) {
      std::size_t digits = 0;
      while (digits < part.size() && ((part[digits] >= '0' && part[digits] <= '9') || part[digits] == '.')) ++digits;
      double value = 0;
      if (!text::parse_double(part.substr(0, digits), value)) continue;
      const std::string unit = lower(trim(part.substr(digits)));
      double kmh = 0;
      if (unit.empty() || unit == "km/h" || unit == "kmh" || unit == "kph")
        kmh = value;
      else if (unit == "mph")
        kmh = value * 1.609344;
      else if (unit == "knots")
        kmh = value * 1.852;
      if (kmh > 0 && kmh <= kMaxSpeedKmh) best = std::max(best, kmh / 3.6);
    }
  return best;
}

double highway_speed(std::string_view text) {
  double best = 0;
  for (std::string_view entry : list_entries(text)) {
    const std::string name = lower(entry);
    for (const HighwaySpeed& h : kHighwaySpeeds)
      if (name == h.highway) best = std::max(best, h.mph * kMetresPerSecondPerMph);
  }
  return best;
}

StreetType parse_highway(std::string_view text, bool& known) {
  known = false;
  StreetType best = kDefaultStreetType;
  for (std::string_view entry : list_entries(text))
    for (std::size_t t = kTypeNames.size(); t-- > 0;)
      if (entry.find(kTypeNames[t]) != std::string_view::npos) {
        const auto type = static_cast<StreetType>(t);
        best = known ? std::max(best, type) : type;
        known = true;
        break;
      }
  return best;
}

StreetNetwork load_osmnx_graphml(const std::string& path, const StreetNetworkOptions& options) {
  const std::string content = text::read_bounded(path, text::max_input_bytes(text::kMaxDataBytes));
  GraphmlReader reader(text::strip_bom(content), path);
  reader.read();
  return Builder{path, options}.build(reader);
}

StreetNetworkStats street_network_stats(const StreetNetwork& net) {
  StreetNetworkStats s;
  s.nodes = net.nodes.size();
  s.edges = net.edges;
  s.streets = net.streets.size();
  s.cells = net.cells.size();
  s.self_loops = net.self_loops;
  s.parallel_edges = net.parallel_edges;
  s.tiles_x = net.tiles_x;
  s.tiles_y = net.tiles_y;
  for (const auto& c : net.controllers) ++(c.kind == ControllerKind::traffic_light ? s.lights : s.yield_controllers);
  s.signal_groups = net.groups.size();
  std::vector<std::uint32_t> parent(s.nodes);
  std::iota(parent.begin(), parent.end(), 0u);
  auto find = [&](std::uint32_t v) {
    while (parent[v] != v) v = parent[v] = parent[parent[v]];
    return v;
  };
  std::vector<bool> touched(s.nodes, false), sink_node(s.nodes, false);
  for (const auto& st : net.streets) {
    s.length_m += st.length;
    ++(st.speed_source == SpeedSource::maxspeed  ? s.speed_from_file
       : st.speed_source == SpeedSource::highway ? s.speed_from_highway
                                                 : s.speed_default);
    s.unknown_highway += !st.type_known;
    s.joint_streets += st.joint;
    touched[st.from] = touched[st.to] = true;
    if (net.cells[st.first_cell + st.cells - 1].sink) sink_node[st.to] = true;
    const std::uint32_t a = find(st.from), b = find(st.to);
    if (a != b) parent[std::max(a, b)] = std::min(a, b);
  }
  std::vector<std::size_t> size(s.nodes, 0);
  for (std::uint32_t v = 0; v < s.nodes; ++v) {
    ++size[find(v)];
    s.isolated_nodes += !touched[v];
    s.sink_nodes += sink_node[v];
  }
  for (std::size_t v = 0; v < s.nodes; ++v) {
    s.components += size[v] > 0;
    s.largest_component = std::max(s.largest_component, size[v]);
  }
  std::vector<std::uint32_t> strong;
  s.strong_components = detail::strong_components(net, strong);
  std::fill(size.begin(), size.end(), 0);
  for (std::uint32_t c : strong) s.largest_strong_component = std::max(s.largest_strong_component, ++size[c]);
  for (std::size_t c = 0; c < s.cells; ++c) {
    s.sink_cells += net.cells[c].sink;
    s.max_cell_out = std::max(s.max_cell_out, net.out_offsets[c + 1] - net.out_offsets[c]);
    s.max_cell_in = std::max(s.max_cell_in, net.in_offsets[c + 1] - net.in_offsets[c]);
  }
  return s;
}

std::string describe(const StreetNetworkStats& s) {
  std::string text = fmt::format(
      "nodes {}, edges {} ({} self-loops, {} parallel), streets {}, cells {} of {} m ({:.1f} km of street)\n"
      "controllers: {} traffic lights, {} yield controllers, {} signal groups; {} sink cells at {} nodes without "
      "outgoing streets\n"
      "weak components {} (largest {} nodes; {} isolated nodes), strong components {} (largest {} nodes); cell "
      "fan-in at most {}, fan-out at most {}\n"
      "speed limits: {} streets from maxspeed, {} from their highway type's default, {} the default {} m/s ({} cells "
      "a {} s step); {} streets of unknown highway type (taken as {})",
      s.nodes, s.edges, s.self_loops, s.parallel_edges, s.streets, s.cells, kCellMetres, s.length_m / 1000, s.lights,
      s.yield_controllers, s.signal_groups, s.sink_cells, s.sink_nodes, s.components, s.largest_component,
      s.isolated_nodes, s.strong_components, s.largest_strong_component, s.max_cell_in, s.max_cell_out,
      s.speed_from_file, s.speed_from_highway, s.speed_default, kDefaultSpeedMs, cells_per_step(kDefaultSpeedMs), kStepSeconds,
      s.unknown_highway, to_string(kDefaultStreetType));
  if (s.tiles_x * s.tiles_y > 1)
    text += fmt::format("\ntiled: {} x {} copies of the file's network, joined by {} joint streets ({}, {} m/s)",
                        s.tiles_x, s.tiles_y, s.joint_streets, to_string(kJointStreetType), kJointSpeedMs);
  return text;
}

}  // namespace lb::datasets
