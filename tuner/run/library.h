// A shared library loaded at run time with dlopen, for what the binary must not link: the driver's
// NVML (nvml.h: absent where there is no driver) and cuBLAS (blas.h: its start costs every process).
// RAII: the handle is closed with the object.
#pragma once
#include <memory>
#include <string>

namespace tune::run {

class Library {
 public:
  // When the code leaves the process: with the last close, or never (RTLD_NODELETE: for function
  // pointers that outlive the object, as static objects' may at exit).
  enum class Unload { on_close, never };

  // dlopen(path) with RTLD_NOW | RTLD_LOCAL. An empty Library when it cannot be loaded; error()
  // says why (dlerror()'s words).
  static Library open(const std::string& path, Unload unload = Unload::on_close);

  explicit operator bool() const { return handle_ != nullptr; }
  const std::string& error() const { return error_; }

  // The function `name` as a `Fn` (a function pointer type); nullptr when absent or not loaded.
  template <typename Fn>
  Fn function(const char* name) const {
    return reinterpret_cast<Fn>(symbol(name));
  }

 private:
  void* symbol(const char* name) const;
  struct Close {
    void operator()(void* handle) const;
  };
  std::unique_ptr<void, Close> handle_;
  std::string error_;
};

}  // namespace tune::run
