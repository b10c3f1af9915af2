// use_shared = 3 of kernels_src/transpose.cu (included inside its namespace tp, after the
// parameters): the lean scalar tile, vector = 1. Each thread loads tile_size_y x tile_size_x floats
// (rows ty, ty + block_size_y, ...; columns tx, tx + block_size_x, ...) into registers, all before
// any is stored (that many loads in flight), then into a padded shared tile; the transposed tile
// goes out as whole TY-float runs of the output rows by consecutive threads. Plain 4-byte accesses
// at every size: no row needs to start on a vector boundary. With tile_size_x = 1 it differs from
// use_shared = 1 with vector = 1 only in the code: no realignment helpers, no `tiles` loop, one
// bounds test per element, so it needs fewer registers (32 at most on sm_90 for the space's
// shapes, against 37 to 40) and full occupancy at 256 and 512 threads. tile_size_x = 2 with
// 32 x 8 threads is cuBLAS's shape (a 64 x 64 tile, 16 elements per thread). Measured on the H200
// (bench/journal.md, 2026-11-29 night): with column-major tile order (group 1024) it passes
// cublasSgeam at large odd sizes, and a 64 x 64 tile with row-major order at L2-sized ones.
#pragma once

#if use_shared == 3
__device__ __forceinline__ void scalar_tile(float* __restrict__ out, const float* __restrict__ in, int rows,
                                            int cols, int bx, int by) {
  __shared__ float tile[TP_TY][TP_TX + padding];
  const int tx = threadIdx.x, ty = threadIdx.y, t = ty * block_size_x + tx;
  const int c0 = bx * TP_TX, r0 = by * TP_TY;
  float v[tile_size_y][tile_size_x];
#pragma unroll
  for (int j = 0; j < tile_size_y; ++j) {
    const int r = r0 + ty + j * block_size_y;
#pragma unroll
    for (int k = 0; k < tile_size_x; ++k) {
      const int c = c0 + tx + k * block_size_x;
      v[j][k] = (r < rows && c < cols) ? load1(in + static_cast<size_t>(r) * cols + c) : 0.0f;
    }
  }
#pragma unroll
  for (int j = 0; j < tile_size_y; ++j)
#pragma unroll
    for (int k = 0; k < tile_size_x; ++k) tile[ty + j * block_size_y][tx + k * block_size_x] = v[j][k];
  __syncthreads();
#pragma unroll
  for (int j = 0; j < tile_size_y * tile_size_x; ++j) {
    const int q = t + j * TP_NT, x = q / TP_TY, y = q % TP_TY;
    if (c0 + x < cols && r0 + y < rows) store1(out + static_cast<size_t>(c0 + x) * rows + r0 + y, tile[y][x]);
  }
}
#endif
