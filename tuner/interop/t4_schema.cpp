#include "interop/t4_schema.h"

#include <regex>

#include "common/error.h"

namespace tune::interop {

namespace {

using ojson = nlohmann::ordered_json;

struct Checker {
  const std::string& file;
  [[noreturn]] void fail(const std::string& path, const std::string& rule) const {
    throw InputError(file + ": T4 results violate the schema at " + path + ": " + rule);
  }
  void type(const ojson& v, const std::string& path, const char* what, bool ok) const {
    if (!ok) fail(path, std::string("must be ") + what + ", not " + v.type_name() + " " + v.dump().substr(0, 40));
  }
};

}  // namespace

void validate_t4(const ojson& doc, const std::string& file) {
  Checker c{file};
  c.type(doc, "$", "an object", doc.is_object());
  if (doc.contains("schema_version")) {
    const auto& v = doc["schema_version"];
    c.type(v, "$.schema_version", "a string", v.is_string());
    // The schema's pattern, with its unescaped dots (any character), as JSON Schema reads it.
    static const std::regex pattern("^[0-9]{1,}.[0-9]{1,}.[0-9]{1,}$");
    if (!std::regex_search(v.get<std::string>(), pattern)) {
      c.fail("$.schema_version", "\"" + v.get<std::string>() + "\" is not major.minor.patch");
    }
  }
  if (!doc.contains("results")) return;
  const auto& results = doc["results"];
  c.type(results, "$.results", "an array", results.is_array());
  static const char* const kInvalidity[] = {"timeout", "compile", "runtime", "correctness", "constraints", "correct"};
  for (std::size_t i = 0; i < results.size(); ++i) {
    const auto& r = results[i];
    const std::string at = "$.results[" + std::to_string(i) + "]";
    c.type(r, at, "an object", r.is_object());
    for (const char* key : {"configuration", "times", "invalidity", "correctness"}) {
      if (!r.contains(key)) c.fail(at, std::string("required property \"") + key + "\" is missing");
    }
    if (r.contains("timestamp")) c.type(r["timestamp"], at + ".timestamp", "a string", r["timestamp"].is_string());
    c.type(r["configuration"], at + ".configuration", "an object", r["configuration"].is_object());
    if (r.contains("objectives")) c.type(r["objectives"], at + ".objectives", "an array", r["objectives"].is_array());
    const auto& times = r["times"];
    c.type(times, at + ".times", "an object", times.is_object());
    for (const char* key : {"compilation_time", "framework", "search_algorithm", "validation"}) {
      if (times.contains(key)) c.type(times[key], at + ".times." + key, "a number", times[key].is_number());
    }
    if (times.contains("runtimes"))
      c.type(times["runtimes"], at + ".times.runtimes", "an array", times["runtimes"].is_array());
    const auto& inv = r["invalidity"];
    bool known = false;
    for (const char* k : kInvalidity) known = known || (inv.is_string() && inv.get<std::string>() == k);
    if (!known)
      c.fail(at + ".invalidity",
             inv.dump() + " is not one of timeout, compile, runtime, correctness, constraints, correct");
    c.type(r["correctness"], at + ".correctness", "a number", r["correctness"].is_number());
    if (!r.contains("measurements")) continue;
    const auto& ms = r["measurements"];
    c.type(ms, at + ".measurements", "an array", ms.is_array());
    for (std::size_t j = 0; j < ms.size(); ++j) {
      const auto& m = ms[j];
      const std::string mat = at + ".measurements[" + std::to_string(j) + "]";
      c.type(m, mat, "an object", m.is_object());
      if (m.contains("name")) c.type(m["name"], mat + ".name", "a string", m["name"].is_string());
      if (m.contains("value")) {
        const auto& v = m["value"];
        c.type(v, mat + ".value", "a number, string or array", v.is_number() || v.is_string() || v.is_array());
      }
      if (m.contains("unit")) c.type(m["unit"], mat + ".unit", "a string", m["unit"].is_string());
    }
  }
}

}  // namespace tune::interop
