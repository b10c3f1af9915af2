// The `tune` command line: parses the command and its options (Boost.Program_options), sets up
// logging, and turns every tune::Error into one line on stderr and a non-zero exit.
#pragma once

namespace tune::cli {

// Returns the process exit code: 0 ok, 1 internal error, 2 bad input, 3 GPU/driver unavailable.
int main(int argc, char** argv);

}  // namespace tune::cli
