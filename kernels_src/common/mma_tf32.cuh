// 3xTF32 on tensor cores, shared by gemm.cu, matching.cu and pairwise.cu (mma = 1): each FP32
// operand x is split into big = tf32(x) and small = x - big, and big*big + big*small + small*big
// is accumulated in FP32 by mma.sync m16n8k8 (the dropped small*small is below 2^-22 relative).
// tune writes this file into each kernel's program (tuner/compile/source.h).
#pragma once

// x = big + small: big rounded to TF32, small the rest (the tensor core reads its top 19 bits).
__device__ __forceinline__ void split(float x, unsigned& big, unsigned& small) {
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(big) : "f"(x));
  small = __float_as_uint(x - __uint_as_float(big));
}

// c += a * b for one m16n8k8 tile (PTX ISA fragment layouts: a0 (g, t), a1 (g+8, t), a2 (g, t+4),
// a3 (g+8, t+4); b0 (k t, n g), b1 (k t+4, n g); c (g + 8 (r / 2), 2 t + r % 2)).
__device__ __forceinline__ void mma_tf32(float (&c)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
  asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
