#include "run/library.h"

#include <dlfcn.h>

namespace tune::run {

Library Library::open(const std::string& path, Unload unload) {
  Library out;
  out.handle_.reset(dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | (unload == Unload::never ? RTLD_NODELETE : 0)));
  if (!out.handle_) {
    const char* e = dlerror();
    out.error_ = e != nullptr ? std::string(e) : path + ": not loaded";
  }
  return out;
}

void* Library::symbol(const char* name) const { return handle_ ? dlsym(handle_.get(), name) : nullptr; }

void Library::Close::operator()(void* handle) const { dlclose(handle); }

}  // namespace tune::run
