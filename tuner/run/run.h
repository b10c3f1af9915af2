// tune_run: the GPU runner over the CUDA runtime API (cudart, static) and cuBLAS (loaded with dlopen
// by the first ceiling that needs it: blas.h). It loads
// NVRTC-produced cubins (cudaLibraryLoadData / cudaLibraryGetKernel), launches them
// (cudaLaunchKernel), times them with CUDA events, verifies outputs and measures ceilings; it
// never calls the driver API, so a binary starts on a machine without libcuda.so.1 and reports
// "no CUDA GPU available" (UnavailableError) only when a GPU is asked for.
//
// Pieces:
//   device.h    DeviceInfo, open_device(), gpu_available()
//   session.h   Session (owns the device; recover() after a fault), Recoverable
//   buffer.h    DeviceBuffer;  dtype.h  element types, seeded fills, poison pattern
//   args.h      ArgSpec, ArgSet (device buffers + the void* args[] array)
//   kernel.h    LoadedKernel, Dim3, KernelAttributes, launch -> LaunchStatus (cuda.h)
//   timing.h    measure(), TimingOptions, Summary
//   ceilings.h  d2d_copy, cublas_sgeam_transpose, cublas_sgemm, cublas_gemm (TF32, emulated FP32)
//   blas.h      cuBLAS's functions, from libcublas.so.<major> loaded at run time
//   nvml.h      the SM clock and the throttle reasons, from the driver's NVML loaded at run time
//   library.h   Library: a shared library loaded with dlopen (RAII), for blas.h and nvml.h
//   verify.h    compare(), count_unwritten()
//   isolate.h   DeviceLostError, supervise(): a fresh worker process when recover() cannot work
//
// Stream: everything runs on the legacy default stream, in order.
//
// Timing policy (kernels and ceilings alike, so that a kernel and its ceiling are comparable):
// timing.h states it (batches of launches between CUDA events behind a stream-holding kernel, an
// adaptive stop, clocks watched through NVML), and its L2 policy: warm by default (back to back, as
// in an application loop that reuses the data), cold with TimingOptions::flush_l2 (a 2 x L2
// cudaMemsetAsync before every timed launch, outside its events). The statistic that ranks
// configurations is the spec's objective (decision.h), the mean by default.
//
// Faults: a LaunchStatus (or Timing::status, or CudaError) with sticky() means the CUDA context is
// lost. Record the configuration as a runtime error, call Session::recover(), and go on: the
// session resets the device and re-creates every ArgSet and LoadedKernel in place. Where the
// driver refuses the device to the faulted process (driver 580 on the GPU machines does: after a
// fault, cudaErrorDevicesUnavailable for good), recover() throws DeviceLostError; the worker then
// exits with kDeviceLostExitCode and supervise() starts a fresh worker that resumes the run.
#pragma once

#include "run/args.h"
#include "run/buffer.h"
#include "run/ceilings.h"
#include "run/cuda.h"
#include "run/device.h"
#include "run/dtype.h"
#include "run/isolate.h"
#include "run/kernel.h"
#include "run/session.h"
#include "run/timing.h"
#include "run/verify.h"
