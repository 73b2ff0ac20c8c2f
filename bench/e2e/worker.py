"""One arm of the end-to-end benchmark on one model at one thread count, in its own process
(e2e.py starts it pinned with taskset): prefill and greedy-decode throughput for each batch, and
the logits and greedy tokens the accuracy comparison reads. Prints one JSON object.

Arms: torch_fp32 (stock), torch_bf16 (the model in bf16), torch_compile (inductor, dynamic
shapes), torch_compile_max (max-autotune with freezing), adaptcore_fp32_preload
(libadaptcore_blas.so loaded before torch takes over its sgemm_ calls),
adaptcore_{fp32,w8a16,w4a16} (adaptcore.torch.patch_model on the fp32 model; W4A16 with a scale
per 32 depth values), adaptcore_w8a8 (int8 weights, activations as one int8 part per 32 depth
values: the int8 dot-product rate, twice bf16's), adaptcore_bf16 (the model in bf16 as
torch_bf16, its linear layers adaptcore's bf16 GEMMs), llamacpp (llama.cpp through
llama-cpp-python, the GGUF model, batch 1)."""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import statistics
import sys
import time

ARMS = ("torch_fp32", "torch_bf16", "torch_int8_dynamic", "torch_compile", "torch_compile_max",
        "adaptcore_fp32_preload", "adaptcore_fp32", "adaptcore_bf16", "adaptcore_w8a16",
        "adaptcore_w4a16", "adaptcore_w8a8", "llamacpp")


def timed_runs(run, min_runs: int, max_runs: int, budget_s: float) -> list:
    """The seconds each call of run() returns (the part of its work it times): at least
    min_runs calls, then more while under budget_s, at most max_runs (the medians of long runs
    rest on fewer repeats; the JSON says how many)."""
    times = []
    start = time.perf_counter()
    while len(times) < max_runs:
        times.append(run())
        if len(times) >= min_runs and time.perf_counter() - start > budget_s:
            break
    return times


def seconds(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def prefilled(forward, ids):
    """The KV cache and the greedy next tokens after a prompt."""
    o = forward(ids)
    return o.past_key_values, o.logits[:, -1].argmax(-1)


def greedy_steps(forward, state, steps: int, tokens: list = None):
    """`steps` greedy decode steps from state (cache, next tokens); the tokens fed, of the first
    sequence, appended to `tokens` when given. Returns the state after them."""
    cache, nxt = state
    for _ in range(steps):
        if tokens is not None:
            tokens.append(int(nxt[0]))
        o = forward(nxt[:, None], cache)
        cache, nxt = o.past_key_values, o.logits[:, -1].argmax(-1)
    return cache, nxt


def summary(times: list, tokens: int) -> dict:
    med = statistics.median(times)
    return {"tokens": tokens, "runs": len(times), "median_s": med, "tokens_per_s": tokens / med,
            "times_s": times}


def apply_arm(model, arm: str):
    import torch

    if arm == "torch_bf16":
        return model.to(torch.bfloat16)
    if arm == "torch_int8_dynamic":
        # torch's own int8 GEMMs (fbgemm / oneDNN by torch.backends.quantized.engine): linear
        # weights int8 per tensor, activations quantized per call per tensor; the stock arm
        # to set beside adaptcore_w8a8 (int8 weights per column, activations per 32 values).
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the torch.ao eager API is deprecated, still shipped
            return torch.ao.quantization.quantize_dynamic(model, {torch.nn.Linear},
                                                          dtype=torch.qint8)
    if arm in ("torch_compile", "torch_compile_max"):
        if arm == "torch_compile_max":
            import torch._inductor.config as cfg

            cfg.freezing = True
            model.forward = torch.compile(model.forward, mode="max-autotune", dynamic=True)
        else:
            model.forward = torch.compile(model.forward, dynamic=True)
        return model
    if arm.startswith("adaptcore_") and arm != "adaptcore_fp32_preload":
        import adaptcore.torch as act

        if arm == "adaptcore_bf16":  # the whole model in bf16, as torch_bf16, its GEMMs ours
            model = model.to(torch.bfloat16)
        dtype = {"adaptcore_fp32": "float32", "adaptcore_bf16": "bfloat16",
                 "adaptcore_w8a16": "w8a16", "adaptcore_w4a16": "w4a16",
                 "adaptcore_w8a8": "w8a16"}[arm]
        # int4 with a scale per 32 depth values, the block of the GGUF Q4 formats (llama.cpp's).
        act.patch_model(model, dtype=dtype, m_values=[1, 8, 512, 4096],
                        group_size=32 if dtype == "w4a16" else None,
                        parts=1 if arm == "adaptcore_w8a8" else 2)
    return model


def run_torch(args) -> dict:
    import torch

    import models

    torch.set_num_threads(args.threads)
    t0 = time.perf_counter()
    model, tok = models.build(args.model)
    model = apply_arm(model, args.arm)
    out = {"setup_s": time.perf_counter() - t0, "prefill": {}, "decode": {}}
    logits_dtype = torch.float32

    def forward(ids, cache=None):
        return model(input_ids=ids, past_key_values=cache, use_cache=True)

    with torch.inference_mode():
        # Accuracy: the logits of a fixed prompt, and greedy tokens after it (batch 1).
        ids = models.prompt_ids(args.model, tok, 1, args.accuracy_prompt)
        o = forward(ids)
        logits = o.logits[0].to(logits_dtype).numpy()
        greedy = []
        greedy_steps(forward, (o.past_key_values, o.logits[:, -1].argmax(-1)),
                     args.accuracy_tokens, greedy)
        if args.logits_out:
            import numpy as np

            np.save(args.logits_out, logits)
        out["greedy_tokens"] = greedy

        for batch in args.batches:
            ids = models.prompt_ids(args.model, tok, batch, args.prefill)
            forward(ids)  # warm-up: compiles, plans, first touch of the pages
            runs = timed_runs(lambda: seconds(lambda: forward(ids)), 1, args.repeats, args.budget)
            out["prefill"][str(batch)] = summary(runs, batch * args.prefill)

            prompt = models.prompt_ids(args.model, tok, batch, args.decode_prompt)

            def decode():  # the prompt untimed, then the steps
                state = prefilled(forward, prompt)
                return seconds(lambda: greedy_steps(forward, state, args.decode))

            greedy_steps(forward, prefilled(forward, prompt), 4)  # warm-up: the decode shapes
            times = timed_runs(decode, 1, args.repeats, args.budget)
            out["decode"][str(batch)] = summary(times, batch * args.decode)
            if args.profile:
                out["decode"][str(batch)]["profile"] = decode_profile(forward, prompt, args)
    return out


# The operators that run the linear layers' GEMMs (attention's batched products excluded);
# quantized::linear_dynamic is torch_int8_dynamic's (its activation quantization included).
GEMM_OPS = ("aten::addmm", "aten::mm", "aten::_addmm_activation", "quantized::linear_dynamic")


def decode_profile(forward, prompt, args) -> dict:
    """Where a decode step's time goes: the self time of the GEMM operators (stock torch's
    aten::addmm / mm, or adaptcore's operators) per step, measured with torch.profiler over
    `steps` steps; the rest of a step (Python, attention, norms, the framework) is what an
    unprofiled step's time leaves."""
    import torch
    from torch.profiler import ProfilerActivity, profile

    steps = 16
    state = prefilled(forward, prompt)
    t0 = time.perf_counter()
    state = greedy_steps(forward, state, steps)
    step_s = (time.perf_counter() - t0) / steps
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        greedy_steps(forward, state, steps)
    gemm_us = sum(e.self_cpu_time_total for e in prof.key_averages()
                  if e.key in GEMM_OPS or e.key.startswith("adaptcore::"))
    gemm_s = gemm_us * 1e-6 / steps
    del torch
    return {"step_ms": step_s * 1e3, "gemm_ms": gemm_s * 1e3,
            "gemm_share": min(1.0, gemm_s / step_s)}


def run_llamacpp(args) -> dict:
    import llama_cpp
    import numpy as np

    import models

    t0 = time.perf_counter()
    llm = llama_cpp.Llama(model_path=models.gguf_path(), n_ctx=2048, n_threads=args.threads,
                          n_threads_batch=args.threads, n_batch=512, n_ubatch=512,
                          verbose=False)
    import transformers

    tok = transformers.AutoTokenizer.from_pretrained(models.gguf_dir(), gguf_file=models.GGUF_FILE)
    out = {"setup_s": time.perf_counter() - t0, "prefill": {}, "decode": {}}

    def last_logits():
        ptr = llama_cpp.llama_get_logits_ith(llm.ctx, -1)
        return np.ctypeslib.as_array(ptr, shape=(llm.n_vocab(),))

    ids = models.prompt_ids(args.model, tok, 1, args.accuracy_prompt)[0].tolist()
    llm.reset()
    llm.eval(ids)
    greedy = []
    nxt = int(np.argmax(last_logits()))
    for _ in range(args.accuracy_tokens):
        greedy.append(nxt)
        llm.eval([nxt])
        nxt = int(np.argmax(last_logits()))
    out["greedy_tokens"] = greedy
    # Batch 1 only: llama-cpp-python's Llama runs one sequence.
    ids = models.prompt_ids(args.model, tok, 1, args.prefill)[0].tolist()

    def prefill():
        llm.reset()
        llm.eval(ids)

    prefill()
    runs = timed_runs(lambda: seconds(prefill), 1, args.repeats, args.budget)
    out["prefill"]["1"] = summary(runs, args.prefill)
    prompt = models.prompt_ids(args.model, tok, 1, args.decode_prompt)[0].tolist()

    def decode():
        llm.reset()
        llm.eval(prompt)
        nxt = int(np.argmax(last_logits()))
        t0 = time.perf_counter()
        for _ in range(args.decode):
            llm.eval([nxt])
            nxt = int(np.argmax(last_logits()))
        return time.perf_counter() - t0

    decode()
    out["decode"]["1"] = summary(timed_runs(decode, 1, args.repeats, args.budget), args.decode)
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", required=True)
    p.add_argument("--arm", required=True, choices=ARMS)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--batches", default="1,8")
    p.add_argument("--prefill", type=int, default=512)
    p.add_argument("--decode", type=int, default=128)
    p.add_argument("--decode-prompt", type=int, default=16)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--budget", type=float, default=30.0,
                   help="seconds after which no further repeat of a measurement starts")
    p.add_argument("--accuracy-prompt", type=int, default=64)
    p.add_argument("--accuracy-tokens", type=int, default=32)
    p.add_argument("--logits-out", default="")
    p.add_argument("--profile", action="store_true",
                   help="also measure the GEMM share of a decode step (torch.profiler)")
    args = p.parse_args()
    args.batches = [int(b) for b in args.batches.split(",") if b]
    if args.arm == "adaptcore_fp32_preload":
        # Before torch: its sgemm_ calls bind to the first definition loaded globally.
        import adaptcore

        ctypes.CDLL(adaptcore.blas_library(), mode=ctypes.RTLD_GLOBAL)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    result = run_llamacpp(args) if args.arm == "llamacpp" else run_torch(args)
    result.update(model=args.model, arm=args.arm, threads=args.threads)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
