// Reading Kernel Tuner caches and T4 files: gzip, JSON with the cache entries split out (so a
// 15,000-entry cache is not inserted key by key into one ordered object), and the repair of a
// cache left open by an interrupted run.
#include <zlib.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <unordered_map>

#include "common/bounded_read.h"
#include "common/error.h"
#include "interop/interop.h"
#include "interop/t4_schema.h"

namespace tune::interop {

namespace {

std::string name_of(const std::filesystem::path& p) { return p.string(); }

// Bounds of an input file: its bytes, the text a gzip file may inflate to (a 21 MB gzip bomb
// expanded without end), and the JSON nesting (real caches and T4 files: 5 levels).
constexpr std::size_t kMaxFileBytes = std::size_t{1} << 30;
constexpr int kMaxJsonDepth = 64;

std::string gunzip(const std::string& bytes, const std::filesystem::path& path, std::size_t max_text) {
  z_stream zs{};
  if (inflateInit2(&zs, 15 + 16) != Z_OK) throw Error(name_of(path) + ": zlib initialisation failed");
  std::string out;
  out.reserve(std::min(bytes.size() * 4, max_text));
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  zs.avail_in = static_cast<uInt>(bytes.size());
  char buf[1 << 16];
  int rc = Z_OK;
  for (;;) {
    zs.next_out = reinterpret_cast<Bytef*>(buf);
    zs.avail_out = sizeof buf;
    rc = inflate(&zs, Z_NO_FLUSH);
    out.append(buf, sizeof buf - zs.avail_out);
    if (out.size() > max_text) {
      inflateEnd(&zs);
      throw InputError(name_of(path) + ": the gzip data inflates to more than " + std::to_string(max_text) + " bytes");
    }
    if (rc == Z_STREAM_END) {
      if (zs.avail_in == 0) break;
      inflateReset(&zs);  // another gzip member follows (concatenated .gz files)
      continue;
    }
    if (rc == Z_OK) continue;
    if (rc == Z_BUF_ERROR && zs.avail_in == 0) {
      inflateEnd(&zs);
      throw InputError(name_of(path) + ": truncated gzip data (the compressed stream ends after " +
                       std::to_string(out.size()) + " bytes of output)");
    }
    std::string msg = zs.msg != nullptr ? zs.msg : ("zlib error " + std::to_string(rc));
    inflateEnd(&zs);
    throw InputError(name_of(path) + ": corrupt gzip data (" + msg + ")");
  }
  inflateEnd(&zs);
  return out;
}

// Where a cache left open by an interrupted run can be cut and closed: just after the "cache"
// object opened, or just after its last complete entry. npos when the cache never opened.
std::size_t repair_cut(const std::string& text) {
  std::size_t cut = std::string::npos;
  int depth = 0;
  bool in_cache = false;
  std::string last_key;  // the last string seen at depth 1
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '"') {
      std::size_t start = ++i;
      while (i < text.size() && text[i] != '"') i += text[i] == '\\' ? 2 : 1;
      if (depth == 1) last_key = text.substr(start, i - start);
      continue;
    }
    if (c == '{' || c == '[') {
      ++depth;
      if (depth == 2 && c == '{' && last_key == "cache") {
        in_cache = true;
        cut = i + 1;
      }
    } else if (c == '}' || c == ']') {
      --depth;
      if (in_cache && depth == 2) cut = i + 1;
      if (in_cache && depth == 1) in_cache = false;
    }
  }
  return cut;
}

// Python's json (and so Kernel Tuner) writes NaN, Infinity and -Infinity, which JSON has not:
// outside strings they become the strings "NaN", "Infinity", "-Infinity" (a time that is one of
// them is an invalid measurement, store::reject_invalid_times). Text without them is returned as is.
std::string python_constants(const std::string& text) {
  if (text.find("NaN") == std::string::npos && text.find("Infinity") == std::string::npos) return text;
  std::string out;
  out.reserve(text.size() + 64);
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (c == '"') {  // a string: copied as it is
      std::size_t j = i + 1;
      while (j < text.size() && text[j] != '"') j += text[j] == '\\' ? 2 : 1;
      j = std::min(j + 1, text.size());
      out.append(text, i, j - i);
      i = j;
      continue;
    }
    bool done = false;
    for (const char* word : {"-Infinity", "Infinity", "NaN"}) {
      const std::size_t n = std::char_traits<char>::length(word);
      if (text.compare(i, n, word) == 0) {
        out += '"';
        out += word;
        out += '"';
        i += n;
        done = true;
        break;
      }
    }
    if (!done) out += text[i++];
  }
  return out;
}

struct Parsed {
  ojson doc;
  std::vector<CacheEntry> entries;
};

// Parses `text`, moving the entries of the top-level "cache" object into `entries` as they
// complete. Throws nlohmann's parse_error.
Parsed parse(const std::string& text) {
  Parsed p;
  bool in_cache = false;
  std::string key;
  std::unordered_map<std::string, std::size_t> seen;
  auto take = [&](ojson& value) {
    auto [it, fresh] = seen.emplace(key, p.entries.size());
    if (fresh) {
      p.entries.push_back({key, std::move(value)});
    } else {
      p.entries[it->second].value = std::move(value);  // Python's json: the last one wins
    }
  };
  using E = ojson::parse_event_t;
  ojson::parser_callback_t cb = [&](int depth, E event, ojson& parsed) -> bool {
    if (depth > kMaxJsonDepth)
      throw InputError("JSON nested more than " + std::to_string(kMaxJsonDepth) + " levels deep");
    if (event == E::key && depth == 1) in_cache = parsed.is_string() && parsed.get_ref<const std::string&>() == "cache";
    if (!in_cache) return true;
    if (depth == 1 && event == E::array_start) in_cache = false;  // not an object: left for the check
    if (event == E::key && depth == 2) {
      key = parsed.get<std::string>();
    } else if (depth == 2 && (event == E::object_end || event == E::array_end || event == E::value)) {
      take(parsed);
      return false;  // not kept in the document
    } else if (event == E::object_end && depth == 1) {
      in_cache = false;
    }
    return true;
  };
  p.doc = ojson::parse(python_constants(text), cb);
  return p;
}

bool only_space_after(const std::string& text, std::size_t pos) {
  for (std::size_t i = pos; i < text.size(); ++i)
    if (text[i] != ' ' && text[i] != '\n' && text[i] != '\r' && text[i] != '\t') return false;
  return true;
}

// "line L, column C" of byte offset `pos` (0-based).
std::string where(const std::string& text, std::size_t pos) {
  std::size_t line = 1, col = 1;
  for (std::size_t i = 0; i < pos && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(col);
}

std::string cause_of(const nlohmann::json::parse_error& e) {
  std::string what = e.what();
  auto colon = what.find(": ", what.find("parse error"));
  return colon == std::string::npos ? what : what.substr(colon + 2);
}

}  // namespace

std::string read_bytes(const std::filesystem::path& path, std::size_t max_text) {
  std::string bytes = read_regular_file(path, kMaxFileBytes, "");
  if (bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
      static_cast<unsigned char>(bytes[1]) == 0x8b) {
    return gunzip(bytes, path, max_text);
  }
  return bytes;
}

std::vector<std::string> CacheFile::param_names() const {
  std::vector<std::string> names;
  for (const auto& k : header.at("tune_params_keys")) names.push_back(k.get<std::string>());
  return names;
}

std::variant<CacheFile, T4File> read_file(const std::filesystem::path& path) {
  const std::string file = name_of(path);
  std::string text = read_bytes(path);
  check_json_depth(text, file);
  Parsed p;
  bool repaired = false;
  std::size_t dropped = 0;
  try {
    p = parse(text);
  } catch (const nlohmann::json::out_of_range& e) {  // a number beyond double's range (found by import_fuzz)
    throw InputError(file + ": a number out of range: " + e.what());
  } catch (const nlohmann::json::parse_error& e) {
    std::size_t at = e.byte == 0 ? 0 : e.byte - 1;
    if (!only_space_after(text, at) && at < text.size()) {
      throw InputError(file + ": not valid JSON at " + where(text, at) + ": " + cause_of(e));
    }
    // The text ends early: a cache that an interrupted run left open, or a truncated file.
    std::size_t cut = repair_cut(text);
    if (cut == std::string::npos) {
      throw InputError(file + ": truncated JSON that cannot be repaired (it ends at " + where(text, text.size()) +
                       " before any \"cache\" entries: " + cause_of(e) + ")");
    }
    std::size_t end = text.find_last_not_of(" \n\r\t");
    dropped = end == std::string::npos || end < cut ? 0 : end + 1 - cut;
    if (dropped > 0 && text.compare(cut, 1, ",") == 0) --dropped;  // Kernel Tuner's own trailing comma
    try {
      p = parse(text.substr(0, cut) + "}\n}");
    } catch (const nlohmann::json::parse_error& e2) {
      throw InputError(file + ": truncated JSON that cannot be repaired (" + cause_of(e) +
                       "; closed after its last complete entry it still fails: " + cause_of(e2) + ")");
    } catch (const nlohmann::json::out_of_range& e2) {
      throw InputError(file + ": a number out of range: " + e2.what());
    }
    repaired = true;
  }
  if (!p.doc.is_object())
    throw InputError(file + ": not a Kernel Tuner cache or T4 results (the JSON is not an object)");
  if (p.doc.contains("cache")) {
    if (!p.doc["cache"].is_object()) throw InputError(file + ": \"cache\" is not an object");
    CacheFile c;
    c.path = path;
    for (auto& [k, v] : p.doc.items()) {
      if (k != "cache") c.header[k] = std::move(v);
    }
    c.entries = std::move(p.entries);
    c.repaired = repaired;
    c.dropped_bytes = dropped;
    if (!c.header.contains("tune_params_keys") || !c.header["tune_params_keys"].is_array()) {
      throw InputError(file + ": Kernel Tuner cache without a \"tune_params_keys\" list");
    }
    for (const auto& k : c.header["tune_params_keys"]) {
      if (!k.is_string()) throw InputError(file + ": \"tune_params_keys\" holds a non-string " + k.dump());
    }
    if (c.header.contains("tune_params") && !c.header["tune_params"].is_object()) {
      throw InputError(file + ": \"tune_params\" is not an object");
    }
    return c;
  }
  if (p.doc.contains("results")) {
    if (repaired) throw InputError(file + ": truncated T4 results file");
    validate_t4(p.doc, file);
    T4File t;
    t.path = path;
    for (auto& [k, v] : p.doc.items()) {
      if (k == "results") {
        t.results = std::move(v);
      } else {
        t.header[k] = std::move(v);
      }
    }
    return t;
  }
  throw InputError(file + ": neither a Kernel Tuner cache (no \"cache\" object) nor T4 results (no \"results\" list)");
}

CacheFile read_cache(const std::filesystem::path& path) {
  auto f = read_file(path);
  if (auto* c = std::get_if<CacheFile>(&f)) return std::move(*c);
  throw InputError(name_of(path) + ": a T4 results file, not a Kernel Tuner cache");
}

}  // namespace tune::interop
