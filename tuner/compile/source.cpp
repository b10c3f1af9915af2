#include "compile/source.h"

#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "common/error.h"

namespace tune::compile {

namespace fs = std::filesystem;

namespace {

// A file name as a C string literal's contents (a #line directive's).
std::string line_name(const std::string& name) {
  std::string out;
  for (char c : name) {
    if (c == '\\' || c == '"')
      out += '\\', out += c;
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

class Reader {
 public:
  Reader(std::string what, const SourceOptions& options, fs::path root)
      : what_(std::move(what)), options_(options), root_(std::move(root)) {}

  // Appends `file` (named `name` in #line directives) with its headers written in.
  void add(const fs::path& file, const std::string& name, int depth, const std::string& via) {
    std::error_code ec;
    seen_.insert(key_of(file));
    if (out_.files.size() >= options_.max_files)
      fail(via, "more than " + std::to_string(options_.max_files) + " files are included");
    if (depth > options_.max_depth)
      fail(via, "includes are nested more than " + std::to_string(options_.max_depth) + " deep");
    out_.files.push_back(file);
    const std::string text = read(file, via);
    const bool header = depth > 0;
    static const std::regex include(R"(^\s*#\s*include\s*"([^"]+)\".*$)");
    static const std::regex once(R"(^\s*#\s*pragma\s+once\b.*$)");
    std::size_t start = 0;
    int line_no = 0;
    while (start < text.size()) {
      std::size_t end = text.find('\n', start);
      const bool last = end == std::string::npos;
      if (last) end = text.size();
      std::string line = text.substr(start, end - start);
      start = end + 1;
      ++line_no;
      std::string bare = line;
      if (!bare.empty() && bare.back() == '\r') bare.pop_back();
      std::smatch m;
      if (header && std::regex_match(bare, once)) {
        out_.text += '\n';  // keeps the line count
        continue;
      }
      if (std::regex_match(bare, m, include)) {
        const std::string included = m[1];
        const fs::path target = file.parent_path() / included;
        if (fs::is_regular_file(target, ec)) {
          if (seen_.count(key_of(target)) != 0) {  // written in already: once per program
            out_.text += '\n';                     // keeps the line count
            continue;
          }
          const std::string where = file.string() + ":" + std::to_string(line_no) + ": #include \"" + included + "\"";
          std::string header_name = target.lexically_normal().lexically_relative(root_).generic_string();
          if (header_name.empty()) header_name = target.generic_string();
          if (options_.line_markers) out_.text += "#line 1 \"" + line_name(header_name) + "\"\n";
          add(target, header_name, depth + 1, where);
          if (!out_.text.empty() && out_.text.back() != '\n') out_.text += '\n';
          if (options_.line_markers)
            out_.text += "#line " + std::to_string(line_no + 1) + " \"" + line_name(name) + "\"\n";
          continue;
        }
      }
      out_.text += line;
      if (!last) out_.text += '\n';
      if (out_.text.size() > options_.max_bytes)
        fail(via, "the program is larger than " + std::to_string(options_.max_bytes >> 20) + " MiB with its includes");
    }
  }

  KernelSource take() { return std::move(out_); }

 private:
  static fs::path key_of(const fs::path& file) {
    std::error_code ec;
    fs::path key = fs::weakly_canonical(file, ec);
    return ec ? file.lexically_normal() : key;
  }

  [[noreturn]] void fail(const std::string& where, const std::string& why) const {
    throw InputError(what_ + " " + (where.empty() ? std::string() : where + ": ") + why);
  }

  std::string read(const fs::path& file, const std::string& via) const {
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) fail(via, file.string() + " is not a readable file");
    if (fs::file_size(file, ec) > options_.max_bytes)
      fail(via, file.string() + " is larger than " + std::to_string(options_.max_bytes >> 20) + " MiB");
    std::ifstream f(file, std::ios::binary);
    std::stringstream text;
    text << f.rdbuf();
    if (!f) fail(via, "cannot read " + file.string());
    return text.str();
  }

  std::string what_;
  const SourceOptions& options_;
  fs::path root_;  // the kernel file's folder: headers are named relative to it
  std::set<fs::path> seen_;
  KernelSource out_;
};

}  // namespace

KernelSource read_kernel_source(const fs::path& file, const std::string& what, const SourceOptions& options) {
  Reader r(what, options, file.lexically_normal().parent_path());
  r.add(file, options.name.empty() ? file.generic_string() : options.name, 0, "");
  return r.take();
}

std::vector<std::filesystem::path> kernel_files(const std::filesystem::path& file) {
  try {
    return read_kernel_source(file, file.string()).files;
  } catch (const InputError&) {
    return {file};
  }
}

}  // namespace tune::compile
