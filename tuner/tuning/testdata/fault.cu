// A kernel whose `fault` configurations write through a null pointer: the tuner must store them
// as runtime errors and go on with the others (scripts/gpu_check.sh).
#ifndef fault
#define fault 0
#endif
extern "C" __global__ void scale(float* out, const float* in, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float* target = fault ? nullptr : out;
  if (i < n) target[i] = 2.0f * in[i];
}
extern "C" __global__ void scale_reference(float* out, const float* in, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * in[i];
}
