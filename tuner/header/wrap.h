// Generated C++ within a width: the lines tune writes itself and the sources it pastes (the
// selection rule, the kernel of a --dispatch header) are read in an editor, at the project's width.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace tune::header {

// The width of every generated line: the 100 columns the command outputs keep without a terminal.
inline constexpr std::size_t kCodeWidth = 100;

// `code` (C++ or CUDA) with every line longer than `width` broken without changing what it means:
// at a space outside string and character literals, continued 4 columns further in; a `//` comment
// goes on as a `//` comment (a backslash there would continue the comment); a preprocessor
// directive, or a line a backslash continues, gets a ` \` before each break. A line with no such
// space is spliced (backslash-newline) at the width. A line holding a raw string literal is kept.
std::string wrap_code(std::string_view code, std::size_t width = kCodeWidth);

}  // namespace tune::header
