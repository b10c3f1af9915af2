// Validation of JSON text without building a document: what the store checks before it writes a
// JSON column (measurements.extra, configurations.params, runs' options) in place of SQLite's
// json_valid CHECK, which parsed every row a second time. RFC 8259, as strict as
// nlohmann::json::accept, which reads these columns back (the test compares the two): any value
// at the top, surrounded by optional whitespace; strings in valid UTF-8 without raw control
// characters, \u escapes of surrogates only in pairs; numbers that are finite doubles; no NaN, no
// leading zeros, no trailing commas. Several times faster than nlohmann's accept.
#pragma once
#include <string_view>

namespace tune::store {

// Nesting deeper than this is refused (as SQLite's JSON parser does) rather than risking the stack.
inline constexpr int kJsonMaxDepth = 1000;

bool json_valid(std::string_view text);

// json_valid() and, with `object`, the top-level value is an object.
bool json_valid(std::string_view text, bool object);

}  // namespace tune::store
