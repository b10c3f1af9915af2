// Test kernels of Tune.check (tuning/check_gpu_test.cpp): the position of a row's maximum key,
// where key(x) = floor(4x) has many ties, so that correct configurations may disagree with the
// reference. variant 0: lowest index among ties (the reference's choice); 1: highest index among
// ties (another correct answer); 2: the minimum (wrong); 3: leaves the last row unwritten.
__device__ __forceinline__ float key(float x) { return floorf(4.0f * x); }

extern "C" __global__ void rowmax(int* index, const float* in, int rows, int cols) {
  const int r = blockIdx.x * block_size_x + threadIdx.x;
  if (r >= rows) return;
#if variant == 3
  if (r == rows - 1) return;
#endif
  const float* p = in + (size_t)r * cols;
  int best = 0;
  for (int j = 1; j < cols; ++j) {
#if variant == 0 || variant == 3
    if (key(p[j]) > key(p[best])) best = j;
#elif variant == 1
    if (key(p[j]) >= key(p[best])) best = j;
#else
    if (key(p[j]) < key(p[best])) best = j;
#endif
  }
  index[r] = best;
}

extern "C" __global__ void rowmax_reference(int* index, const float* in, int rows, int cols) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float best = -1.0f;
  int at = -1;
  for (int j = 0; j < cols; ++j)
    if (key(in[(size_t)r * cols + j]) > best) best = key(in[(size_t)r * cols + j]), at = j;
  index[r] = at;
}

// Accepts any index in range whose key equals the key at the reference's index.
extern "C" __global__ void rowmax_check(int* index, const float* in, int rows, int cols, const int* ref,
                                        unsigned long long* result) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const int at = index[r];
  const bool ok = at >= 0 && at < cols && key(in[(size_t)r * cols + at]) == key(in[(size_t)r * cols + ref[r]]);
  if (!ok) {
    atomicAdd(result, 1ull);
    atomicMin(result + 1, (unsigned long long)r);
  }
}

// A check kernel that rejects everything, the reference's outputs included.
extern "C" __global__ void rowmax_reject(int* index, const float* in, int rows, int cols, const int* ref,
                                         unsigned long long* result) {
  if (blockIdx.x == 0 && threadIdx.x == 0) atomicAdd(result, 1ull);
}
