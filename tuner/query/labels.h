// Tables that fit 100 columns: each distinct configuration gets a short label (c1, c2, ... in
// order of first appearance) in the table and is spelled out once in a legend below it; `--wide`
// prints the configurations inline instead. Notes longer than the width are wrapped.
#pragma once
#include <map>
#include <string>
#include <vector>

namespace tune::query {

inline constexpr std::size_t kTableWidth = 100;  // the width budget where no terminal says (output::width)

class ConfigLabels {
 public:
  // The label of a configuration (canonical JSON); "-" for "" (no configuration).
  const std::string& label(const std::string& config);
  // "c1 = {...}" lines, in label order.
  std::vector<std::string> legend() const;

 private:
  std::map<std::string, std::string> labels_;
  std::vector<const std::string*> order_;  // configurations, by label number
};

// `text` broken at spaces into lines of at most `width` columns (output::wrap), each continuation
// line indented by `indent` spaces.
std::vector<std::string> wrap(const std::string& text, std::size_t width = kTableWidth, std::size_t indent = 2);

}  // namespace tune::query
