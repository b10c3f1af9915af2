#include "query/labels.h"

#include "output/output.h"

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
  return output::wrap(text, width, indent);
}

}  // namespace tune::query
