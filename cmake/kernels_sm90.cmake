# THE sm90 kernel table: one row per compiled kernel (fields: cmake/kernel_table.cmake). Each row
# costs one CUTLASS instantiation (~75 s and ~3.5 GB of compiler memory on a 2-core machine).
# Dispatch (src/dispatch/sm90/) chooses among the rows; docs/heuristics.md has the measurements
# behind them, and CONTRIBUTING.md walks through adding one.
epifuse_kernel_table(sm90)

# GEMM, bf16 -> bf16, the tuned path. Large M: cooperative 128x256, cluster 2x1, with C (calls with
# a residual), without C, and the two narrow epilogues without C (docs/heuristics.md).
epifuse_kernel(OP gemm A bf16 SCHEDULE cooperative TILE 128 256 64 CLUSTER 2 1 HAS_C)
epifuse_kernel(OP gemm A bf16 SCHEDULE cooperative TILE 128 256 64 CLUSTER 2 1)
epifuse_kernel(OP gemm A bf16 SCHEDULE cooperative TILE 128 256 64 CLUSTER 2 1 EPILOGUE bias_activation)
epifuse_kernel(OP gemm A bf16 SCHEDULE cooperative TILE 128 256 64 CLUSTER 2 1 EPILOGUE cast)
# 64 < M <= 256: the cluster pair shares one A tile.
epifuse_kernel(OP gemm A bf16 SCHEDULE cooperative TILE 128 256 64 CLUSTER 1 2 HAS_C)
# Up to 192 tokens: the weight on wgmma's 64-row side, the few tokens on its N side (the full tree
# with C; calls of bias + activation at most up to 64 tokens take the 128x32 rows below).
epifuse_kernel(OP gemm A bf16 SCHEDULE cooperative TILE 128 64 128 SWAP_AB HAS_C)
# Too few tiles to fill the GPU (narrow N at few or mid tokens): stream-K shares K loops over idle SMs.
# The 128x128 one also without C and with the bias + activation tree (the calls without a residual:
# 1.06x the full tree's speed on bias+GELU at 193-1023 tokens, bench/results/tuning/issue9/
# pingpong-bias-act/).
epifuse_kernel(OP gemm A bf16 SCHEDULE cooperative TILE 128 64 128 SWAP_AB HAS_C DECOMPOSITION stream_k)
# Up to 64 tokens with bias + activation at most (the fp32-bias calls cuBLASLt cannot fuse): a
# 32-token tile without C, more K stages in flight; past the warp-mma kernels' waves at 1-16 tokens
# (docs/heuristics.md, nineteenth session).
epifuse_kernel(OP gemm A bf16 SCHEDULE cooperative TILE 128 32 128 SWAP_AB EPILOGUE bias_activation)
epifuse_kernel(OP gemm A bf16 SCHEDULE cooperative TILE 128 32 128 SWAP_AB EPILOGUE bias_activation DECOMPOSITION stream_k)
epifuse_kernel(OP gemm A bf16 SCHEDULE cooperative TILE 128 128 64 HAS_C DECOMPOSITION stream_k)
epifuse_kernel(OP gemm A bf16 SCHEDULE cooperative TILE 128 128 64 EPILOGUE bias_activation DECOMPOSITION stream_k)
# bias + activation over many tiles: a pingpong 128x128 pair (one warp group's epilogue runs under
# the other's K loop). Swept and dropped: its 2x1 and swapped 1x2 twins, within 1 % of it where
# dispatch runs it and slower wherever their clustered side has an odd tile count (the swapped
# pair: 0.88x it on geomean, down to 0.65x; bench/results/tuning/issue9/pingpong-bias-act/).
epifuse_kernel(OP gemm A bf16 SCHEDULE pingpong TILE 128 128 64 CLUSTER 1 2 EPILOGUE bias_activation)
# Column reductions keep a running value per tile column in registers: a 128-column tile.
epifuse_kernel(OP gemm A bf16 SCHEDULE cooperative TILE 128 128 64 EPILOGUE full_with_column_reductions HAS_C)

# Other dtype pairs: one large-M, one small-M and one column-reduction kernel each.
epifuse_kernel(OP gemm A fp16 SCHEDULE cooperative TILE 128 256 64 CLUSTER 1 2 HAS_C)
epifuse_kernel(OP gemm A fp16 SCHEDULE cooperative TILE 128 64 128 SWAP_AB HAS_C)
epifuse_kernel(OP gemm A fp16 SCHEDULE cooperative TILE 128 128 64 EPILOGUE full_with_column_reductions HAS_C)
epifuse_kernel(OP gemm A bf16 D fp32 SCHEDULE cooperative TILE 128 256 64 CLUSTER 1 2 HAS_C)
epifuse_kernel(OP gemm A bf16 D fp32 SCHEDULE cooperative TILE 128 64 128 SWAP_AB HAS_C)
epifuse_kernel(OP gemm A bf16 D fp32 SCHEDULE cooperative TILE 128 128 64 EPILOGUE full_with_column_reductions HAS_C)
epifuse_kernel(OP gemm A fp16 D fp32 SCHEDULE cooperative TILE 128 256 64 CLUSTER 1 2 HAS_C)
epifuse_kernel(OP gemm A fp16 D fp32 SCHEDULE cooperative TILE 128 64 128 SWAP_AB HAS_C)
epifuse_kernel(OP gemm A fp16 D fp32 SCHEDULE cooperative TILE 128 128 64 EPILOGUE full_with_column_reductions HAS_C)

# Fused gated MLP. Tiles are in the GEMM actually run: unswapped, N spans the packed gate/up
# rows (twice the outputs); swapped, M does and the tokens are N. bf16 is what dispatch is tuned
# for. Swept and dropped: a cooperative 2x1 and a swapped 128x64 (bench/results/tuning/
# gated-sweep-*.json); a pingpong 2x1, swapped cooperative 128x256 (1x1, 1x2) and a pingpong
# 64x256; a swapped cooperative 128x208 and a swapped pingpong 128x112 1x2 (0.24-0.58x cuBLASLt +
# act·mul, bench/results/tuning/issue9/), built without CuTe's extended wgmma shapes
# (cmake/kernel_table.cmake): their tiles then ran as 64x16 wgmmas. Not swept since. Cooperative
# 256x128 (unswapped 2x1, swapped 1x2) at 1024-8192 tokens on five MLPs: 0.60-1.01x and
# 0.85-1.02x cuBLASLt + act·mul where the pingpong 128x128 pair ran 0.96-1.24x
# (bench/results/tuning/issue9/tiles-256/). The swapped 128x32 in 1x2 pairs along the tokens (the
# weight multicast) at 33-256 tokens: 1.048x the 1x1 kernel's time on geometric mean over 59 shapes
# (bench/results/tuning/issue9/tiles-80-96/pairs-128x32/).
epifuse_kernel(OP gated_mlp A bf16 SCHEDULE cooperative TILE 128 256 64 CLUSTER 1 2)
epifuse_kernel(OP gated_mlp A bf16 SCHEDULE pingpong TILE 128 128 64 CLUSTER 1 2)
epifuse_kernel(OP gated_mlp A bf16 SCHEDULE cooperative TILE 128 32 128 SWAP_AB)
# Up to 16 tokens where the 128x32 runs whole, a 16-token tile (sixteen_token_tile_pays). Swept at
# decode and dropped (bench/results/tuning/issue9/decode-16-token-tile/): swapped pingpongs
# 128x32x128 and 64x32x128 (0.97-1.05x and 0.93-1.11x the cooperative 128x32's time, 27 calls), a
# cooperative 128x32x256 and a pingpong 64x32x256 (1.11-1.37x and 1.01-1.27x, 16 calls).
epifuse_kernel(OP gated_mlp A bf16 SCHEDULE cooperative TILE 128 16 128 SWAP_AB)
# Stream-K twins for narrow N (few weight tiles for the SMs) with a long K loop.
epifuse_kernel(OP gated_mlp A bf16 SCHEDULE cooperative TILE 128 32 128 SWAP_AB DECOMPOSITION stream_k)
epifuse_kernel(OP gated_mlp A bf16 SCHEDULE cooperative TILE 128 128 64 SWAP_AB DECOMPOSITION stream_k)
# Swapped pairs (cluster 1x2 along the tokens): each weight tile is multicast to both CTAs.
epifuse_kernel(OP gated_mlp A bf16 SCHEDULE pingpong TILE 128 128 64 CLUSTER 1 2 SWAP_AB)
# 96-token tiles where they pad less than 128-token ones (129-192 tokens: 192 rows, not 256).
epifuse_kernel(OP gated_mlp A bf16 SCHEDULE pingpong TILE 128 96 64 CLUSTER 1 2 SWAP_AB)
# 160- and 224-token tiles where they compute fewer rows than the pairs (one up to 224 tokens,
# two at 257-320 and 385-448, five at 769-800; the 144/176/208 rows below take some of those
# counts), a 2x1 cluster along the weight multicasting x; stream-K twins where the weight tiles
# leave the last wave short.
epifuse_kernel(OP gated_mlp A bf16 SCHEDULE cooperative TILE 128 160 64 CLUSTER 2 1 SWAP_AB)
# The same 160-token tile as a pingpong (each warp group its own tile, one's epilogue under the
# other's K loop): cuBLASLt's pick at 594x14336x4096 on an H200. It takes 257-4096 tokens where
# 160-token tiles compute no more rows than the 128-row or cooperative 160-token tiles the rules pick
# (pingpong160_pays, src/dispatch/sm90/gated_mlp_heuristics.cpp).
epifuse_kernel(OP gated_mlp A bf16 SCHEDULE pingpong TILE 128 160 64 CLUSTER 2 1 SWAP_AB)
epifuse_kernel(OP gated_mlp A bf16 SCHEDULE cooperative TILE 128 160 64 CLUSTER 2 1 SWAP_AB DECOMPOSITION stream_k)
epifuse_kernel(OP gated_mlp A bf16 SCHEDULE cooperative TILE 128 224 64 CLUSTER 2 1 SWAP_AB)
epifuse_kernel(OP gated_mlp A bf16 SCHEDULE cooperative TILE 128 224 64 CLUSTER 2 1 SWAP_AB DECOMPOSITION stream_k)
# Whole tiles of 144, 176 and 208 tokens where they compute fewer rows, no stream-K is chosen and
# the weight has enough tiles to fill the SMs (one or two of 144, one of 176 or 208); 16-token
# epilogue subtiles (136 does not build: CUTLASS's
# collective takes subtiles of multiples of 16 only).
epifuse_kernel(OP gated_mlp A bf16 SCHEDULE cooperative TILE 128 144 64 CLUSTER 2 1 SWAP_AB)
epifuse_kernel(OP gated_mlp A bf16 SCHEDULE cooperative TILE 128 176 64 CLUSTER 2 1 SWAP_AB)
epifuse_kernel(OP gated_mlp A bf16 SCHEDULE cooperative TILE 128 208 64 CLUSTER 2 1 SWAP_AB)
# One 112-token pingpong tile at 97-112 tokens past one wave of weight tiles, where the pingpong
# 128x128 computes 128 rows (cuBLASLt's pick at 104 tokens on an H200 is a 104-token pingpong tile,
# not a multiple of 16; pingpong112_pays).
epifuse_kernel(OP gated_mlp A bf16 SCHEDULE pingpong TILE 128 112 64 CLUSTER 2 1 SWAP_AB)
# One 80- or 96-token tile at 65-96 tokens, where a 128-token tile computes up to 97 % more rows.
epifuse_kernel(OP gated_mlp A bf16 SCHEDULE cooperative TILE 128 80 64 CLUSTER 2 1 SWAP_AB)
epifuse_kernel(OP gated_mlp A bf16 SCHEDULE cooperative TILE 128 96 64 CLUSTER 2 1 SWAP_AB)
# Grouped (a MoE layer's experts, expert offsets on the device): a call runs the swapped 128x32
# row (the weight on wgmma's 128-row side) over experts of at most 64 rows and each other expert on
# the row whose tiles pad its rows least: the unswapped 128x256 1x2 (the dense family's large-M
# tile, a 1x2 cluster sharing each tile of x), a swapped 128x160 / 128x208 2x1 (one token tile
# of 129-160 or 161-208 rows, where two 128-row tiles ran 1.18-1.43x slower), or, gated only, the
# swapped pingpong 128x128 1x2 (two token tiles per cluster sharing each weight tile) where the
# expert's last pair of tiles is at least 0.85 full (docs/moe.md).
# Dropped: an unswapped 128x128x64 pair, 0.70-0.95x the 128x256 1x2 one at 1024-4096
# tokens (src/dispatch/sm90/grouped_heuristics.cpp); a pingpong 128x128 1x2 (the dense family's
# large-M gated tile), 0.72-0.99x at 1024-4096 tokens, 1.15-1.16x only with 256 rows on each of
# 2-8 hot experts (bench/results/moe/grouped-probe-pingpong-a2dc18a.log).
epifuse_kernel(OP gated_mlp A bf16 SCHEDULE cooperative TILE 128 32 128 SWAP_AB GROUPING grouped)
# The grouped GEMM (a MoE layer's down projection): the same pair of tiles, the cast epilogue.
epifuse_kernel(OP gemm A bf16 SCHEDULE cooperative TILE 128 32 128 SWAP_AB EPILOGUE cast GROUPING grouped)
epifuse_kernel(OP gated_mlp A bf16 SCHEDULE cooperative TILE 128 256 64 CLUSTER 1 2 GROUPING grouped)
epifuse_kernel(OP gemm A bf16 SCHEDULE cooperative TILE 128 256 64 CLUSTER 1 2 EPILOGUE cast GROUPING grouped)
# The wide swapped rows, both ops.
epifuse_kernel(OP gated_mlp A bf16 SCHEDULE cooperative TILE 128 160 64 CLUSTER 2 1 SWAP_AB GROUPING grouped)
epifuse_kernel(OP gated_mlp A bf16 SCHEDULE cooperative TILE 128 208 64 CLUSTER 2 1 SWAP_AB GROUPING grouped)
epifuse_kernel(OP gated_mlp A bf16 SCHEDULE pingpong TILE 128 128 64 CLUSTER 1 2 SWAP_AB GROUPING grouped)
epifuse_kernel(OP gemm A bf16 SCHEDULE cooperative TILE 128 160 64 CLUSTER 2 1 SWAP_AB EPILOGUE cast GROUPING grouped)
epifuse_kernel(OP gemm A bf16 SCHEDULE cooperative TILE 128 208 64 CLUSTER 2 1 SWAP_AB EPILOGUE cast GROUPING grouped)
# Up to 8 tokens (decode): mma.sync warps stream the weight rows; no CUTLASS instantiation. bf16
# dispatched on weights whose CTAs fit one wave (warp_mma_fits_one_wave); fp16 forced only.
epifuse_kernel(OP gated_mlp A bf16 SCHEDULE warp_mma TILE 16 8 64 SWAP_AB)
epifuse_kernel(OP gated_mlp A fp16 SCHEDULE warp_mma TILE 16 8 64 SWAP_AB)
# The same warps for the GEMM at up to 8 tokens (alpha, column bias, activation), and at 9-16 in
# two token tiles: dispatched for the calls cuBLASLt does not compute while their blocks of 16
# weight rows fit in a wave; past it the swapped 128x32 rows (docs/heuristics.md).
epifuse_kernel(OP gemm A bf16 SCHEDULE warp_mma TILE 16 8 64 SWAP_AB EPILOGUE bias_activation)
epifuse_kernel(OP gemm A fp16 SCHEDULE warp_mma TILE 16 8 64 SWAP_AB EPILOGUE bias_activation)
epifuse_kernel(OP gemm A bf16 SCHEDULE warp_mma TILE 16 16 64 SWAP_AB EPILOGUE bias_activation)
epifuse_kernel(OP gemm A fp16 SCHEDULE warp_mma TILE 16 16 64 SWAP_AB EPILOGUE bias_activation)
# The same warps over a MoE layer's experts (both grouped ops), each expert's weight streamed once
# per 8 of its rows: one launch, no setup kernel or TMA descriptors; dispatched at 1-2 rows per
# expert on small experts or where the 128x32 kernel's tiles cannot fill the SMs
# (src/dispatch/sm90/grouped_heuristics.cpp).
epifuse_kernel(OP gated_mlp A bf16 SCHEDULE warp_mma TILE 16 8 64 SWAP_AB GROUPING grouped)
epifuse_kernel(OP gemm A bf16 SCHEDULE warp_mma TILE 16 8 64 SWAP_AB EPILOGUE cast GROUPING grouped)
epifuse_kernel(OP gated_mlp A fp16 SCHEDULE cooperative TILE 128 256 64 CLUSTER 1 2)
epifuse_kernel(OP gated_mlp A fp16 SCHEDULE cooperative TILE 128 64 128 SWAP_AB)
