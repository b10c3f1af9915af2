// "Did you mean": the known name closest to a misspelt one, for error messages.
#pragma once
#include <span>
#include <string>
#include <string_view>

namespace tune {

// The known name within a few edits of `given` (edit distance counting a swap of neighbours as one <= max(1, |given| / 3),
// ties to the first listed), or "" when none is that close.
std::string closest_name(std::string_view given, std::span<const std::string_view> known);

// " (did you mean 'X'?)" for the closest known name, else "".
std::string did_you_mean(std::string_view given, std::span<const std::string_view> known);

}  // namespace tune
