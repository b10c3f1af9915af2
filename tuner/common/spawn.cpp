#include "common/spawn.h"

#include <algorithm>
#include <string_view>

extern char** environ;

namespace tune {

Spawned spawn(const std::vector<std::string>& argv, const std::vector<std::string>& set, const SpawnActions& actions) {
  const auto replaced = [&set](std::string_view entry) {
    return std::any_of(set.begin(), set.end(), [entry](const std::string& s) {
      const auto eq = s.find('=');
      if (eq == std::string::npos) return false;
      return entry.substr(0, eq + 1) == std::string_view(s).substr(0, eq + 1);
    });
  };
  std::vector<std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e)
    if (!replaced(*e)) env.emplace_back(*e);
  env.insert(env.end(), set.begin(), set.end());
  std::vector<char*> args, envp;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  Spawned s;
  s.error = posix_spawn(&s.pid, argv.at(0).c_str(), actions.get(), nullptr, args.data(), envp.data());
  return s;
}

}  // namespace tune
