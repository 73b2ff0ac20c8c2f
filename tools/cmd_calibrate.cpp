// `adaptcore calibrate [--out FILE] [--threads T] [--quick]`: measures the analytical model's
// constants on this machine (tools/calibrate/calibrate.cpp), prints them against the profile a
// context starts from (detection and the shipped profile) and writes them as a JSON hardware
// profile, which ADAPTCORE_HW_PROFILE=FILE or
// `--profile FILE` then loads.
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <string>

#include "calibrate/calibrate.hpp"
#include "cli_common.hpp"
#include "commands.hpp"
#include "measure/read_loops.hpp"

namespace adaptcore::cli {
namespace {

struct CalibrateArgs {
  std::string out;
  int threads = 0;
  bool quick = false;
};

// The self-streaming probe's runs: heights over 32 KiB rows (in place plain, read ahead, packed)
// for the rows, or shorter rows (plain, read ahead) for the row bytes.
std::string self_streaming_how(const CalibrationReport& rep, bool lengths) {
  std::string how;
  for (const auto& h : rep.self_streaming) {
    if ((h.packed_us > 0) == lengths) continue;
    how += " " + std::to_string(h.rows) + (lengths ? " x " + std::to_string(h.n * 4) + " B" : "") +
           " (" + std::to_string(h.mr) + "x" + std::to_string(h.nr) + ") " +
           format_fixed(h.plain_us, 0) + " / " + format_fixed(h.read_ahead_us, 0) +
           (lengths ? "" : " / " + format_fixed(h.packed_us, 0)) + " us;";
  }
  if (how.empty()) return "not measured: default kept";
  how.pop_back();
  const auto& first = rep.self_streaming.front();
  return lengths ? "B from DRAM, rows x row bytes, in place / read ahead:" + how
                 : "B " + std::to_string(first.k) + " x " + std::to_string(first.n) +
                       " from DRAM, rows, in place / read ahead / packed:" + how;
}

void run_calibrate(const CalibrateArgs& args) {
  // Against the profile a context starts from (detection and the shipped profile).
  const HardwareProfile& start = default_hardware();
  CalibrationOptions opt;
  opt.threads = args.threads;
  opt.quick = args.quick;
  std::cout << "calibrating " << start.name << (args.quick ? " (quick)" : "")
            << "; run on an idle machine, other load lowers every figure\n"
            << std::flush;
  CalibrationReport rep;
  const HardwareProfile hw = calibrate(opt, start, &rep);

  struct Row {
    const char* key;
    double def, measured;
    const char* unit;
    std::string how;
  };
  const Row rows[] = {
      {"freq_ghz", start.freq_ghz, hw.freq_ghz, "GHz", "dependent-add chain"},
      {"fma_per_cycle_512", start.fma_per_cycle_512, hw.fma_per_cycle_512, "/cycle",
       rep.fma_gflops_512 > 0 ? format_fixed(rep.fma_gflops_512, 1) + " GFLOP/s, 1 thread"
                              : std::string("path not supported: default kept")},
      {"fma_per_cycle_256", start.fma_per_cycle_256, hw.fma_per_cycle_256, "/cycle",
       rep.fma_gflops_256 > 0 ? format_fixed(rep.fma_gflops_256, 1) + " GFLOP/s, 1 thread"
                              : std::string("path not supported: default kept")},
      {"dot_bf16_per_cycle", start.dot_bf16_per_cycle, hw.dot_bf16_per_cycle, "/cycle",
       rep.dot_bf16_measured ? std::string("vdpbf16ps loop, 1 thread")
                             : std::string("no AVX512-BF16: default kept")},
      {"dot_int8_per_cycle", start.dot_int8_per_cycle, hw.dot_int8_per_cycle, "/cycle",
       rep.dot_int8_measured ? std::string("vpdpbusd loop, 1 thread")
                             : std::string("no AVX512-VNNI: default kept")},
      {"amx_tiles_per_cycle", start.amx_tiles_per_cycle, hw.amx_tiles_per_cycle, "/cycle",
       rep.amx_tiles_measured ? std::string("tdpbf16ps loop, 4 tiles, 1 thread")
                              : std::string("no AMX tile state here: default kept")},
      {"bw_l1_gbs", start.bw_l1_gbs, hw.bw_l1_gbs, "GB/s",
       format_bytes(rep.l1_buffer) + " buffer, 1 thread"},
      {"bw_l2_gbs", start.bw_l2_gbs, hw.bw_l2_gbs, "GB/s",
       format_bytes(rep.l2_buffer) + " buffer, 1 thread"},
      {"bw_l3_gbs", start.bw_l3_gbs, hw.bw_l3_gbs, "GB/s",
       format_bytes(rep.l3_buffer) + " buffer, 1 thread"},
      {"bw_dram_core_gbs", start.bw_dram_core_gbs, hw.bw_dram_core_gbs, "GB/s",
       format_bytes(rep.dram_buffer) +
           " buffer, 1 thread: " + format_fixed(rep.dram_core_plain_gbs, 1) + " plain, " +
           format_fixed(rep.dram_core_prefetch_gbs, 1) + " prefetching, " +
           format_fixed(rep.dram_core_streams_gbs, 1) + " in " +
           std::to_string(measure::loops::kReadStreams) + " streams (reported, not used)"},
      {"bw_dram_total_gbs", start.bw_dram_total_gbs, hw.bw_dram_total_gbs, "GB/s",
       format_bytes(rep.dram_buffer) + " buffer, " + std::to_string(rep.threads) +
           " threads, on CPU " + format_fixed(100.0 * rep.dram_total_cpu_share, 0) +
           "% of the time"},
      {"l3_warm_bytes", static_cast<double>(start.l3_warm_bytes) / (1 << 20),
       static_cast<double>(hw.l3_warm_bytes) / (1 << 20), "MiB",
       rep.l3_seen_bytes > 0
           ? "L3 sweep: " + format_bytes(rep.l3_seen_bytes) + " read at L3 speed by one thread"
           : std::string("L3 sweep found no L3: default kept")},
      {"pack_gbs", start.pack_gbs, hw.pack_gbs, "GB/s",
       std::string(to_string(rep.isa)) + " pack_b, source in L2"},
      {"fork_join_us", start.fork_join_us, hw.fork_join_us, "us",
       rep.fork_join_busy ? "measured " + format_fixed(rep.fork_join_measured_us, 0) +
                                " us: CPUs busy, default kept"
                          : "least of 4 batch medians, empty ThreadPool::run, " +
                                std::to_string(std::max(2, rep.threads)) + " threads"},
      {"l3_row_streams", start.l3_row_streams, hw.l3_row_streams, "rows",
       "most rows at once at 85% of one row's " + format_fixed(rep.row_gbs_one, 1) +
           " GB/s, from L3"},
      {"l3_row_share_paged", start.l3_row_share_paged, hw.l3_row_share_paged, "share",
       "256 rows 16 KiB apart: " + format_fixed(rep.row_gbs_paged_256, 1) + " GB/s"},
      {"l3_row_share", start.l3_row_share, hw.l3_row_share, "share",
       "256 rows 19 KiB apart: " + format_fixed(rep.row_gbs_256, 1) + " GB/s"},
      {"l2_row_share_paged", start.l2_row_share_paged, hw.l2_row_share_paged, "share",
       rep.paged_mr > 0
           ? "lowest tile " + std::to_string(rep.paged_mr) + "x" + std::to_string(rep.paged_nr) +
                 ", in place on " + std::to_string(rep.paged_m) + "x" +
                 std::to_string(rep.paged_n) + "x" + std::to_string(rep.paged_k) +
                 ": B rows 16 KiB apart " + format_fixed(rep.paged_us, 0) + " us, 16 KiB + 64 B " +
                 format_fixed(rep.paged_odd_us, 0) + " us, re-reads " +
                 format_fixed(rep.paged_rereads_us, 0) + " us"
           : std::string("no fp32 tile measured: default kept")},
      {"l2_row_share_long", start.l2_row_share_long, hw.l2_row_share_long, "share",
       rep.long_mr > 0
           ? "lowest tile " + std::to_string(rep.long_mr) + "x" + std::to_string(rep.long_nr) +
                 ", in place on 1 and 8 row tiles x 4096 x 256, B rows 16 KiB + 64 B apart, " +
                 "in L3: " + format_fixed(rep.long_one_us, 0) + " / " +
                 format_fixed(rep.long_many_us, 0) + " us, re-reads " +
                 format_fixed(rep.long_rereads_us, 0) + " us"
           : std::string("no fp32 tile measured: default kept")},
      {"dram_in_place_loss", start.dram_in_place_loss, hw.dram_in_place_loss, "x",
       rep.in_place_mr > 0
           ? "largest tile " + std::to_string(rep.in_place_mr) + "x" +
                 std::to_string(rep.in_place_nr) + ", in place on " +
                 std::to_string(rep.in_place_mr) + "x" + std::to_string(rep.in_place_n) + "x" +
                 std::to_string(rep.in_place_k) +
                 " from DRAM: " + format_fixed(rep.in_place_us, 0) + " us, its compute " +
                 format_fixed(rep.in_place_compute_us, 0) + " us"
           : std::string("no fp32 tile measured: default kept")},
      {"dram_in_place_share", start.dram_in_place_share, hw.dram_in_place_share, "share",
       rep.in_place_mr > 0 ? "the same run: B at the stream rate over its time less the compute"
                           : std::string("no fp32 tile measured: default kept")},
      {"dram_pack_share", start.dram_pack_share, hw.dram_pack_share, "share",
       rep.dram_pack_gbs > 0
           ? std::string(to_string(rep.isa)) +
                 " pack_b of 256 x 2048 blocks of a B beyond L3 (rows " +
                 "16 KiB apart): " + format_fixed(rep.dram_pack_gbs, 1) +
                 " GB/s, reads beside it " + format_fixed(rep.dram_pack_stream_gbs, 1) + " GB/s"
           : std::string("not measured: default kept")},
      {"dram_self_streaming_rows", static_cast<double>(start.dram_self_streaming_rows),
       static_cast<double>(hw.dram_self_streaming_rows), "rows", self_streaming_how(rep, false)},
      {"dram_self_streaming_row_bytes", static_cast<double>(start.dram_self_streaming_row_bytes),
       static_cast<double>(hw.dram_self_streaming_row_bytes), "bytes",
       self_streaming_how(rep, true)},
      {"few_row_stream_exponent", start.few_row_stream_exponent, hw.few_row_stream_exponent, "",
       rep.few_row_mr > 0
           ? "one row (" + std::to_string(rep.few_row_mr) + "x" + std::to_string(rep.few_row_nr) +
                 ") in place on B " + std::to_string(rep.few_row_k) + " x " +
                 std::to_string(rep.few_row_n) + " from DRAM, depth blocks of 8 / 32 rows: " +
                 format_fixed(rep.few_row_shallow_us, 0) + " / " +
                 format_fixed(rep.few_row_deep_us, 0) + " us; " + std::to_string(rep.few_row_l3_k) +
                 " x " + std::to_string(rep.few_row_l3_n) +
                 " in L3: " + format_fixed(rep.few_row_l3_shallow_us, 0) + " / " +
                 format_fixed(rep.few_row_l3_deep_us, 0) + " us; the steeper kept"
           : std::string("not measured: default kept")},
      {"kernel_call_cycles", start.kernel_call_cycles, hw.kernel_call_cycles, "cycles",
       rep.call_mr > 0
           ? "largest tile " + std::to_string(rep.call_mr) + "x" + std::to_string(rep.call_nr) +
                 ", 32 row tiles x 256 deep in blocks of 32: " +
                 format_fixed(rep.call_shallow_us, 1) +
                 " us, of 256: " + format_fixed(rep.call_deep_us, 1) + " us"
           : std::string("no fp32 tile measured: default kept")},
  };
  std::cout << "\n"
            << std::left << std::setw(22) << "constant" << std::right << std::setw(10) << "default"
            << std::setw(10) << "measured"
            << "  " << std::left << std::setw(7) << "unit"
            << "how\n";
  // Two decimals, or four for a figure below 0.1 (the tile unit's products a cycle).
  auto shown = [](double v) { return format_fixed(v, v != 0.0 && v < 0.1 ? 4 : 2); };
  for (const Row& r : rows)
    std::cout << std::left << std::setw(22) << r.key << std::right << std::setw(10) << shown(r.def)
              << std::setw(10) << shown(r.measured) << "  " << std::left << std::setw(7) << r.unit
              << r.how << '\n';
  std::cout << "\n(" << to_string(rep.isa) << " loads; " << format_fixed(rep.seconds, 1) << " s)\n";
  if (rep.dram_total_cpu_share > 0 && rep.dram_total_cpu_share < 0.8)
    std::cout << "warning: other processes held the CPUs during the all-thread DRAM test; "
                 "bw_dram_total_gbs is not the machine's (kept at least bw_dram_core_gbs)\n";

  const std::string text = calibrated_profile_json(hw, rep);
  if (args.out.empty()) {
    std::cout << '\n' << text << '\n';
    return;
  }
  std::ofstream f(args.out, std::ios::binary | std::ios::trunc);
  f << text << '\n';
  f.close();
  if (!f) {
    std::cerr << "error: cannot write " << args.out << '\n';
    throw CLI::RuntimeError(1);
  }
  std::cout << "profile written to " << args.out
            << "; use it with ADAPTCORE_HW_PROFILE=" << args.out << " or --profile " << args.out
            << '\n';
}

}  // namespace

void register_calibrate(CLI::App& app) {
  auto args = std::make_shared<CalibrateArgs>();
  CLI::App* cmd = app.add_subcommand(
      "calibrate", "measure the model's constants and write them as a hardware profile");
  cmd->add_option("-o,--out", args->out, "JSON profile to write (default: print it)");
  cmd->add_option("-t,--threads", args->threads,
                  "threads for all-core DRAM bandwidth and fork/join (default: all cores)")
      ->check(CLI::Range(1, 1024));
  cmd->add_flag("--quick", args->quick, "fewer, shorter samples (under 10 s)");
  cmd->callback([args] { run_calibrate(*args); });
}

}  // namespace adaptcore::cli
