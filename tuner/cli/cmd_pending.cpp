// Commands whose implementation has not landed yet: they say so and fail, never pretend.
#include "cli/commands.h"
#include "common/error.h"

namespace tune::cli {

namespace {
int pending(const char* command, const char* issue) {
  throw Error(std::string("tune ") + command + " is not implemented in this build yet (" + issue + ")");
}
}  // namespace

int cmd_import(const Args&) { return pending("import", "planned with Kernel Tuner interoperability"); }
int cmd_export(const Args&) { return pending("export", "planned with Kernel Tuner interoperability"); }

}  // namespace tune::cli
