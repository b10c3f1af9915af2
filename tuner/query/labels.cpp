#include "query/labels.h"

namespace tune::query {

const std::string& ConfigLabels::label(const std::string& config) {
  static const std::string none = "-";
  if (config.empty()) return none;
  auto [it, fresh] = labels_.try_emplace(config, "c" + std::to_string(labels_.size() + 1));
  if (fresh) order_.push_back(&it->first);
  return it->second;
}

std::vector<std::string> ConfigLabels::legend() const {
  std::vector<std::string> out;
  for (const std::string* config : order_) out.push_back(labels_.at(*config) + " = " + *config);
  return out;
}

std::vector<std::string> wrap(const std::string& text, std::size_t width, std::size_t indent) {
  std::vector<std::string> lines;
  std::string line;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find(' ', pos);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(pos, end - pos);
    pos = end + 1;
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      lines.push_back(line);
      line = std::string(indent, ' ') + word;
    } else {
      line += (line.empty() ? "" : " ") + word;
    }
  }
  if (!line.empty() || lines.empty()) lines.push_back(line);
  return lines;
}

}  // namespace tune::query
