// A kernel whose `fault` configurations write far out of bounds: the tuner must store them
// as runtime errors and go on with the others (bench/gpu_check.sh).
#ifndef fault
#define fault 0
#endif
extern "C" __global__ void scale(float* out, const float* in, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  // An address far outside any allocation, computed from a run-time value so that the compiler
  // cannot prove the store undefined and drop it (a literal nullptr store was elided).
  float* target = fault ? out + static_cast<size_t>(n) * 4096 * 1024 : out;
  if (i < n) target[i] = 2.0f * in[i];
}
extern "C" __global__ void scale_reference(float* out, const float* in, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * in[i];
}
