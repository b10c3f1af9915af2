// Captured launches (capture/capture.h) as the sweep's inputs: `tune --space S --capture FILE...`
// tunes at the captured sizes with the application's own argument data, and verifies every
// configuration against the outputs the application's launch produced (in place of the spec's
// Tune.reference kernel).
#pragma once
#include <string>
#include <vector>

#include "capture/capture.h"
#include "run/args.h"
#include "sizes/sizes.h"
#include "spec/spec.h"

namespace tune::tuning {

// Reads every file and checks it against the spec: the same kernel, the spec's arguments in order
// (name, scalar or buffer, element type, element count at the captured size, output), and no two
// files of one size. Throws InputError naming the file and the cause.
std::vector<capture::Capture> load_captures(const spec::Spec& spec, const std::vector<std::string>& paths);

// The captured size as the spec's ProblemSize.
sizes::Size capture_size(const spec::Spec& spec, const capture::Capture& capture);

// The captured data in place of the fills: each argument's `data` is its captured input.
void use_captured_inputs(const capture::Capture& capture, std::vector<run::ArgSpec>& args);

// The captured outputs uploaded into the output buffers of `args` (the reference to keep).
void upload_captured_outputs(const capture::Capture& capture, run::ArgSet& args,
                             const std::vector<std::size_t>& outputs);

}  // namespace tune::tuning
