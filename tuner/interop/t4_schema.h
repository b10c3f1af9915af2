// The rules of Kernel Tuner's T4 results schema (schema/T4/1.0.0/results-schema.json), checked by
// hand: there is no JSON Schema validator among the project's C++ libraries.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace tune::interop {

// Throws InputError "<file>: T4 results violate the schema at <path>: <rule>" on the first
// violation: schema_version must match ^[0-9]+.[0-9]+.[0-9]+$; results must be an array of
// objects with configuration (object), times (object; compilation_time, framework,
// search_algorithm, validation numbers, runtimes an array), invalidity (timeout, compile,
// runtime, correctness, constraints or correct), correctness (number); optional timestamp
// (string), objectives (array), measurements (array of objects: name string, value number,
// string or array, unit string).
void validate_t4(const nlohmann::ordered_json& doc, const std::string& file);

}  // namespace tune::interop
