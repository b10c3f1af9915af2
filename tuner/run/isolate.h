// Process isolation for GPU faults. Measured on the H200 machine (driver 580, CUDA 13): after a
// sticky fault (illegal address) cudaDeviceReset succeeds but every later attempt of the same
// process to use the device fails with cudaErrorDevicesUnavailable, with or without cuBLAS and
// after waiting — as the CUDA documentation says, the process must be restarted. So
// Session::recover() tries the in-process reset (it works where the driver allows it) and throws
// DeviceLostError otherwise; the run then continues in a new process:
//
//   int main(int argc, char** argv) {
//     if (tune::run::worker_generation() < 0)            // the supervisor: never touches CUDA
//       return tune::run::supervise({argv, argv + argc}).exit_code;
//     ...                                                 // the worker: the real program
//     catch (const tune::run::DeviceLostError&) {         // faulty configuration recorded
//       return tune::run::kDeviceLostExitCode;            // ask for a fresh process
//     }
//   }
//
// The worker resumes from what it committed (the store keeps every measurement as it goes).
#pragma once
#include <string>
#include <vector>

#include "run/cuda.h"

namespace tune::run {

// Session::recover() could not get the device back in this process (see above).
class DeviceLostError : public CudaError {
 public:
  using CudaError::CudaError;
};

// The exit status with which a worker asks its supervisor for a fresh process (EX_TEMPFAIL).
inline constexpr int kDeviceLostExitCode = 75;

// Environment variable that marks a worker process; its value is the worker's generation.
inline constexpr const char* kWorkerEnv = "TUNE_RUN_WORKER";

// -1 in a process that is not a supervised worker; else how many workers ran before this one.
int worker_generation();

// A worker process calls it first: when its supervisor dies (killed, say, or an MPI rank that its
// job ends), the kernel ends the worker too (PR_SET_PDEATHSIG), so that no orphan goes on using
// the GPU; a worker whose supervisor is gone already exits at once. Does nothing elsewhere.
void die_with_supervisor();

struct Supervised {
  int exit_code = 0;  // of the last worker; 128 + signal number when a signal ended it
  int workers = 0;    // processes started
};

// Runs argv[0] (a path; "/proc/self/exe" for this program) with argv as its arguments, the
// environment of this process plus TUNE_RUN_WORKER=<generation>, and starts it again each time
// it exits with kDeviceLostExitCode, at most max_workers times in all. Other exits (and signals)
// end the supervision. Throws Error when the program cannot be started. Call it before this
// process touches CUDA: the supervisor needs no GPU.
Supervised supervise(const std::vector<std::string>& argv, int max_workers = 1000);

// The same, with the workers' standard output appended to `stdout_path` (when not empty) and
// `env` ("NAME=value") added to their environment: an MPI rank runs its items so (tuner/mpi).
struct WorkerSetup {
  std::string stdout_path;
  std::vector<std::string> env;
};
Supervised supervise(const std::vector<std::string>& argv, const WorkerSetup& setup, int max_workers = 1000);

}  // namespace tune::run
