// Stored strings on their way into generated C++: every name and value that comes from a
// database, a cache or a spec is data, and reaches a generated file only through one of these.
#pragma once
#include <string>
#include <string_view>

namespace tune::header {

// Text safe inside a `//` comment: printable ASCII is kept except the backslash (a backslash at
// the end of a line would continue the comment onto the next) and a '?' after a '?' (no "??/"
// trigraph for a backslash); every other byte, a newline included, becomes <XX> (hex). At most `max` characters of the input are shown ("..." after).
std::string comment(std::string_view text, std::size_t max = 160);

// A C/C++ string literal with its quotes: printable ASCII but `"`, `\` and `?` as they are, every
// other byte as a three-digit octal escape (valid in C, C++ and CUDA, whatever follows it).
std::string c_string(std::string_view text);

// True for [A-Za-z_][A-Za-z0-9_]* that is not a C++ keyword or alternative token.
bool is_identifier(std::string_view name);

// A C identifier made from any name: characters outside [A-Za-z0-9_] become '_', a leading digit
// or an empty name gets a leading '_', a keyword a trailing '_'; at most 64 characters (longer
// names end in 16 hex digits of their hash, so different long names stay different).
// "NVIDIA H100 80GB HBM3" -> "NVIDIA_H100_80GB_HBM3".
std::string identifier(std::string_view name);

// A file-name stem from a kernel name: identifier(name) (no '/', no "..", no leading '.').
std::string file_stem(std::string_view name);

}  // namespace tune::header
