// use_shared = 3 of kernels_src/transpose.cu (included inside its namespace tp, after the
// parameters): the lean scalar tile, vector = 1. Each thread loads tile_size_y floats of a column
// (rows ty, ty + block_size_y, ...) into registers, all before any is stored (tile_size_y loads in
// flight), then into a padded shared tile; the transposed tile goes out as whole TY-float runs of
// the output rows by consecutive threads. Plain 4-byte accesses at every size: no row needs to
// start on a vector boundary. It differs from use_shared = 1 with vector = 1 only in the code: no
// realignment helpers, no `tiles` loop, one bounds test per element, so it needs fewer registers
// (32 at most on sm_90 for the space's shapes, against 37 to 40) and full occupancy at 256 and
// 512 threads. Measured on the H200 (kernel-odd2): with column-major tile order (group 1024) it
// passes cublasSgeam at large odd sizes, and a 64 x 64 tile with row-major order at L2-sized ones.
#pragma once

#if use_shared == 3
__device__ __forceinline__ void scalar_tile(float* __restrict__ out, const float* __restrict__ in, int rows,
                                            int cols, int bx, int by) {
  __shared__ float tile[TP_TY][block_size_x + padding];
  const int tx = threadIdx.x, ty = threadIdx.y, t = ty * block_size_x + tx;
  const int c0 = bx * block_size_x, r0 = by * TP_TY, c = c0 + tx;
  float v[tile_size_y];
#pragma unroll
  for (int j = 0; j < tile_size_y; ++j) {
    const int r = r0 + ty + j * block_size_y;
    v[j] = (r < rows && c < cols) ? load1(in + static_cast<size_t>(r) * cols + c) : 0.0f;
  }
#pragma unroll
  for (int j = 0; j < tile_size_y; ++j) tile[ty + j * block_size_y][tx] = v[j];
  __syncthreads();
#pragma unroll
  for (int j = 0; j < tile_size_y; ++j) {
    const int q = t + j * TP_NT, x = q / TP_TY, y = q % TP_TY;
    if (c0 + x < cols && r0 + y < rows) store1(out + static_cast<size_t>(c0 + x) * rows + r0 + y, tile[y][x]);
  }
}
#endif
