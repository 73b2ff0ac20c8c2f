// The numbers of the analytical models (cpu_model.cpp, blocked_terms.cpp, wq_model.cpp) that are
// not in the hardware profile: a few facts of the x86 cores the library targets, and the
// constants fitted to measurements. Each fitted one names its experiment in docs/MODEL.md
// ("Fitted constants"), which records what was measured, the command and the host.
#pragma once

namespace adaptcore::model_constants {

// --- Micro-architecture, the same on every x86 core this library targets.

// Vector loads (broadcasts included) a core issues per cycle.
inline constexpr double kLoadsPerCycle = 2.0;
// Vector integer / conversion ops per cycle beside the dot unit (the quantized flush and
// unpack; taken as not overlapping it, as they share the vector pipes).
inline constexpr double kVectorOpsPerCycle = 2.0;
// First-level data TLB entries: a sliver whose rows are a page or more apart touches one page
// per depth step.
inline constexpr double kDtlbEntries = 64.0;

// A matrix-engine (AMX) tile: rows and columns of one tile product, and the cycles of one tile
// store (its 16 rows of 64 bytes, one a cycle).
inline constexpr double kEngineTileRows = 16.0;
inline constexpr double kEngineTileStoreCycles = 16.0;
// A tile product in vpdpbusd's multiply-adds (16 x 16 outputs x 64 bytes: 256 instructions of
// 16 lanes x 4), and the weight-quantized kernels' sub-block: 8 quads (activation groups of 32
// values), a product over half a tile's depth.
inline constexpr double kEngineDotsPerTile = 256.0;
inline constexpr double kEngineWqQuads = 8.0;

// --- Fitted (docs/MODEL.md, "Fitted constants").

// Share of the kernels' issue bound they reach: loop overhead, front end, C-tile stalls. F1.
inline constexpr double kKernelEfficiency = 0.94;
// Share of a cache's conflict-free capacity a block may use and still count as resident: the
// other operands and C stream through the same sets. F2.
inline constexpr double kResidentShare = 0.5;
// Concurrent row streams from DRAM the hardware prefetchers follow at full bandwidth; past it a
// core gets (kStreamsTracked / rows)^(1/4) of the bandwidth. F3.
inline constexpr double kStreamsTracked = 8.0;
// Rows of in-place B a block's read-ahead through the tile's depth steps (reads_ahead_in_tile)
// keeps at the full DRAM rate: the software requests replace the hardware streams, up to the
// rows whose pages and lines the core still holds from one block to the next; beyond, the share
// falls as kReadAheadRows / kc (one Zen 4 core, 8 x 4096 x 4096: kc 32-128 within 10% of each
// other, kc 256 1.6x slower). F29.
inline constexpr double kReadAheadRows = 128.0;
// Rows of C a core needs for F29: fewer leave too few FMAs per request (docs/MODEL.md, *Column
// blocks for the read-ahead*: at two threads 4 and 5 rows lost up to 1.4x at `kc` 128, 6 and 7
// rows gained up to 1.6x).
inline constexpr double kReadAheadMinRows = 6.0;
// Cycles of a first-level TLB miss that hits the second level, not covered by the FMAs. F4.
inline constexpr double kDtlbMissCycles = 7.0;
// Bytes of bandwidth a read from DRAM loses at the start of every contiguous run: the
// prefetchers restart on each run and its first lines arrive at memory latency. F5.
inline constexpr double kDramRunRampBytes = 800.0;
// Rows of a row-major A read in place whose runs share one such ramp: a register tile reads its
// rows' runs at once, so their restarts overlap. Held the same for every tile height, as the
// 6- and 8-row tiles measured alike. F30.
inline constexpr double kInPlaceARunRows = 6.0;
// Column tiles up to which an in-place A block beyond L2 is re-read as streams the FMAs hide but
// for the starts of its runs (M32: 2-7 column tiles 1.04-1.48x faster packed in deep blocks than
// in place in shallow ones on Zen 3; 17-225 column tiles 0.84-0.97x). F35.
inline constexpr double kStreamedReReadTiles = 8.0;
// A line written to DRAM by a non-temporal store costs as much of the DRAM rate as a plain
// store's read for ownership and write-back together: one core streamed a 16.7 MB C at 16 GB/s
// through them, where the register tiles' plain stores moved 34 GB/s (reads and writes). F31.
inline constexpr double kStreamingStoreCost = 2.0;
// The same for a register tile streaming prepacked panels, run by run (kc x nr values): its
// loads wait for the stream to start again. F6.
inline constexpr double kPanelRunRampBytes = 24.0 * 1024;
// A core's pack out of DRAM of at most its L2: this share of the stream rate, whatever the
// profile measured on blocks far past L2 (HardwareProfile::dram_pack_share's default, F7; M27).
inline constexpr double kSmallPackDramShare = 0.5;
// A cache line written by two cores in turn: the transfer and the store waiting for it. F8.
inline constexpr double kFalseSharingCycles = 80.0;
// Rows of an operand closer than this are one prefetch stream, not one per row. F9.
inline constexpr double kSeparateRowBytes = 1024.0;
// Rows of a core up to which a warm B read in place from L3 is bound by its row streams: the
// compute of more rows covers them. F10.
inline constexpr double kWarmStreamingRows = 2.0;
// Rows of a core whose FMAs HardwareProfile::dram_in_place_loss multiplies: all of a decode
// core's (M 4-16, where it was measured, docs/MODEL.md M23), this many of a taller one's (M28).
inline constexpr double kDramInPlaceMaxRows = 16.0;
// The shortest rows of B over which a core taller than kDramInPlaceMaxRows pays that loss: on
// Zen 3 the packed plans ran 1.02-1.14x faster than the read-ahead from 1.7 KiB rows on, and
// 0.72-0.80x at 1.2-1.3 KiB (M28).
inline constexpr double kTallInPlaceLossRowBytes = 1536.0;
// Row tiles of an A block from which an in-place B sliver of short rows (closer than
// kSeparateRowBytes) that holds more lines than L1 keeps is re-read from L2 at
// HardwareProfile::l2_row_share_paged (CpuModel::paged_reread_us). On Zen 3 the plans this
// moved for blocks of 8-800 row tiles ran 1.03-1.31x faster (one core) and for 2-7 tiles
// 0.85-0.94x (7 x 41 x 3299, 22 x 23 x 742, 40 x 26 x 276): a few row tiles find the sliver's
// lines still in L1. F34 (M29).
inline constexpr double kShortRowRereadTiles = 8.0;
// Row tiles of an A block that read an in-place sliver of long rows without the L2 re-read
// loss (l2_row_share_long): the first, and the next ones, which find its lines still close
// (Zen 3, warm, 4x24 at kc 256: 2 row tiles lost nothing, 4 about a quarter of the loss per
// tile that 8-32 lost). F35.
inline constexpr double kLongRowFreeTiles = 3.0;
// Rows of a call from which the loss applies: smaller calls (20 x 326 x 138 and 21 x 628 x 201
// on Zen 3, five row tiles; 32-40 rows at K 57-2048) ran their in-place slivers faster than the
// shallower, split or packed plans that would avoid it. F35.
inline constexpr double kLongRowRereadRows = 48.0;
// Issue cost of one software prefetch instruction, in cycles. F11.
inline constexpr double kPrefetchCycles = 0.5;
// The executor's set-up (core grid, scratch, task dispatch), which the small-problem executor
// does without. F12.
inline constexpr double kExecutorSetupUs = 0.05;
// A register-tile kernel call's fixed cycles (arguments, loop set-up) where the profile has no
// measured HardwareProfile::kernel_call_cycles (its default) and for the matrix engine's tiles,
// and its row store's cycles per row and live vector (C tile load and store), once per depth
// block. F13, M31.
inline constexpr double kCallCycles = 12.0;
inline constexpr double kStoreCyclesPerVector = 1.5;
// The padded tail strategy's copy-out of a scratch tile, cycles per vector of the full tile.
// F14.
inline constexpr double kCopyOutCyclesPerVector = 2.0;
// The transposed store (Plan::transpose_c) per live vector, for a tile of r rows (columns of
// C): a fixed part and r * ceil(r / 2) two-source permutes and masked moves. F15.
inline constexpr double kTransposedStoreFixedCycles = 4.0;
inline constexpr double kTransposedStorePermuteCycles = 2.0;
// Past this many columns of C the transposed store is the 16 x 16 register transpose and 16
// masked row stores per vector, whatever the count, plus a little per column. F16.
inline constexpr int kTransposedStoreWideRows = 8;
inline constexpr double kTransposedStoreWideFixedCycles = 44.0;
inline constexpr double kTransposedStoreWideRowCycles = 2.8;
// A dot-product tile's horizontal sums: cycles per output (the sums of a tile overlap) and per
// tile. F17.
inline constexpr double kDotSumCycles = 4.0;
inline constexpr double kDotTileCycles = 8.0;
// The dot-product loop's set-up per core and call (operand views, output target). F18.
inline constexpr double kDotLoopCycles = 40.0;
// A row of the rank-k row kernel beyond its lines: its set-up and the two partial lines at its
// ends, whose reads for ownership come from memory. F19.
inline constexpr double kRowsRowCycles = 250.0;
// Weight-quantized plans. The activation split, elements per cycle and core: vectorised (a few
// passes of 16 lanes) and portable (scalar). F20.
inline constexpr double kSplitPerCycleNative = 2.0;
inline constexpr double kSplitPerCycleGeneric = 0.15;
// The portable int32 kernel's vpdpbusd-equivalents per cycle (a quarter of a 4-lane vector's
// multiply-adds; used only where nothing else exists, and it ranks only its own candidates).
// F21.
inline constexpr double kGenericDotsPerCycle = 1.0 / 64.0;
// A quantized tile's fixed cycles per row and output vector, beside its steps and flushes. F22.
inline constexpr double kWqEpilogueCyclesPerVector = 6.0;
// Loading the tile configuration (LDTILECFG) once per task of an AMX plan, microseconds:
// measured on an Emerald Rapids core (about 68 ns even when unchanged). F25.
inline constexpr double kEngineConfigureUs = 0.07;
// The cost of a tile product over half a tile's depth (the weight-quantized kernels' 8 quads),
// as a share of a whole one's: assumed half, not measured (no AMX host since the kernels were
// written). F26.
inline constexpr double kEngineWqProductShare = 0.5;
// Rows of a core up to which B read in place with Plan::prefetch_b, over cores that split N,
// counts its read-ahead depth blocks as overlapped with the FMAs (in_place_b_traffic). F27.
inline constexpr double kAheadCoverRows = 64.0;
// The share of its L3 rate a core keeps over rows a stride apart (the lower of
// HardwareProfile::l3_row_share_paged and l3_row_share) from which that credit is given: Zen 4
// keeps 0.57 at 16 KiB, where it was measured; Emerald Rapids 0.19, where in-place rows lost. F28.
inline constexpr double kAheadCoverRowShare = 0.5;

}  // namespace adaptcore::model_constants
