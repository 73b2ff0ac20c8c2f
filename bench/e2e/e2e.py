"""End-to-end LLM benchmark: prefill and greedy-decode throughput of real models in PyTorch with
and without adaptcore, and llama.cpp on the same GGUF weights, each arm in its own pinned
process (worker.py). Writes results.json and report.html (a plot per model) under --out and
prints a table with each arm's speedup over stock torch fp32 and its accuracy (max logit
difference and greedy-token agreement against stock fp32).

    python3 bench/e2e/e2e.py                       # SmolLM2-135M + Qwen2.5-0.5B, 1 and 2 threads
    python3 bench/e2e/e2e.py --models all --threads 2
"""

from __future__ import annotations

import argparse
import datetime
import html
import json
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import models  # noqa: E402
from worker import ARMS  # noqa: E402

DEFAULT_ARMS = [a for a in ARMS if a != "torch_compile_max"]
STOCK = ("torch_fp32", "torch_bf16", "torch_int8_dynamic", "torch_compile", "torch_compile_max")
# What each arm computes in, for "the best arm of the same or lower accuracy" comparisons.
ACCURACY_CLASS = {"torch_fp32": "fp32", "torch_compile": "fp32", "torch_compile_max": "fp32",
                  "adaptcore_fp32_preload": "fp32", "adaptcore_fp32": "fp32",
                  "torch_bf16": "bf16", "adaptcore_bf16": "bf16", "adaptcore_w8a16": "w8a16",
                  "torch_int8_dynamic": "w8a8 per tensor",
                  "adaptcore_w4a16": "w4a16", "adaptcore_w8a8": "w8a8", "llamacpp": "q4_1"}


def run_worker(model, arm, threads, args, logits_path):
    cpus = ",".join(str(c) for c in range(threads))
    cmd = ["taskset", "-c", cpus, sys.executable, os.path.join(HERE, "worker.py"),
           "--model", model, "--arm", arm, "--threads", str(threads),
           "--batches", args.batches, "--prefill", str(args.prefill), "--decode",
           str(args.decode), "--repeats", str(args.repeats), "--budget", str(args.budget),
           "--logits-out", logits_path] + (["--profile"] if args.profile else [])
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), TOKENIZERS_PARALLELISM="false")
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=args.timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {args.timeout} s"}
    if p.returncode != 0:
        tail = p.stderr.strip().splitlines()[-3:]
        return {"error": " | ".join(tail) or f"exit {p.returncode}"}
    return json.loads(p.stdout.strip().splitlines()[-1])


def accuracy(result, ref, logits_path, ref_logits_path):
    out = {}
    if os.path.exists(logits_path) and os.path.exists(ref_logits_path):
        a, b = np.load(logits_path), np.load(ref_logits_path)
        out["max_logit_diff"] = float(np.abs(a - b).max())
        out["max_logit_diff_rel"] = float(np.abs(a - b).max() / max(np.abs(b).max(), 1e-30))
    if "greedy_tokens" in result and "greedy_tokens" in ref:
        t, r = result["greedy_tokens"], ref["greedy_tokens"]
        same = 0
        while same < min(len(t), len(r)) and t[same] == r[same]:
            same += 1
        out["greedy_prefix_agree"] = same
        out["greedy_tokens"] = len(r)
    return out


def svg_bars(title, rows):
    """A horizontal bar chart: rows of (label, value, is_adaptcore)."""
    if not rows:
        return ""
    w, bar, gap, left = 720, 16, 6, 260
    h = 30 + len(rows) * (bar + gap)
    vmax = max(v for _, v, _ in rows) or 1.0
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
             f'font-family="sans-serif" font-size="12">',
             f'<text x="4" y="16" font-weight="bold">{html.escape(title)}</text>']
    for i, (label, v, ours) in enumerate(rows):
        y = 26 + i * (bar + gap)
        bw = (w - left - 90) * v / vmax
        color = "#2b7bba" if ours else "#999999"
        parts.append(f'<text x="{left - 6}" y="{y + 12}" text-anchor="end">'
                     f'{html.escape(label)}</text>')
        parts.append(f'<rect x="{left}" y="{y}" width="{bw:.1f}" height="{bar}" fill="{color}"/>')
        parts.append(f'<text x="{left + bw + 4:.1f}" y="{y + 12}">{v:.1f}</text>')
    parts.append("</svg>")
    return "".join(parts)


def write_report(path, run):
    sections = []
    for model in run["models"]:
        for threads in run["threads"]:
            for mode in ("prefill", "decode"):
                for batch in run["batches"]:
                    rows = []
                    for r in run["results"]:
                        if (r["model"], r["threads"]) != (model, threads) or "error" in r:
                            continue
                        cell = r.get(mode, {}).get(str(batch))
                        if cell:
                            rows.append((r["arm"], cell["tokens_per_s"],
                                         r["arm"].startswith("adaptcore")))
                    sections.append(svg_bars(
                        f"{model}, {mode}, batch {batch}, {threads} thread(s): tokens/s", rows))
    table = html.escape(run["table"])
    doc = ("<!doctype html><meta charset='utf-8'><title>adaptcore end-to-end</title>"
           "<h1>adaptcore end to end</h1>"
           f"<p>{html.escape(run['started'])}, {html.escape(run['host'])}; command: "
           f"<code>{html.escape(run['command'])}</code></p>"
           + "".join(f"<div>{s}</div>" for s in sections if s)
           + f"<h2>Table</h2><pre>{table}</pre>")
    with open(path, "w") as f:
        f.write(doc)


def table_text(run):
    lines = [f"{'model':18} {'thr':>3} {'arm':24} {'batch':>5} {'prefill t/s':>12} "
             f"{'x fp32':>7} {'decode t/s':>11} {'x fp32':>7} {'gemm%':>6} {'logit diff':>10} "
             f"{'greedy':>7}"]
    base = {}
    for r in run["results"]:
        if r.get("arm") == "torch_fp32" and "error" not in r:
            base[(r["model"], r["threads"])] = r
    for r in run["results"]:
        key = (r["model"], r["threads"])
        if "error" in r:
            lines.append(f"{r['model']:18} {r['threads']:>3} {r['arm']:24} error: {r['error']}")
            continue
        acc = r.get("accuracy", {})
        diff = acc.get("max_logit_diff")
        greedy = (f"{acc['greedy_prefix_agree']}/{acc['greedy_tokens']}"
                  if "greedy_prefix_agree" in acc else "-")
        for batch in run["batches"]:
            p = r["prefill"].get(str(batch))
            d = r["decode"].get(str(batch))
            if not p and not d:
                continue
            b = base.get(key, {})
            bp = b.get("prefill", {}).get(str(batch)) if b else None
            bd = b.get("decode", {}).get(str(batch)) if b else None

            def fmt(x):
                return f"{x['tokens_per_s']:12.1f}" if x else f"{'-':>12}"

            def ratio(x, y):
                return f"{x['tokens_per_s'] / y['tokens_per_s']:7.2f}" if x and y else f"{'-':>7}"

            dtext = f"{diff:10.3g}" if diff is not None else f"{'-':>10}"
            prof = (d or {}).get("profile")
            share = f"{100 * prof['gemm_share']:6.0f}" if prof else f"{'-':>6}"
            lines.append(f"{r['model']:18} {r['threads']:>3} {r['arm']:24} {batch:>5} {fmt(p)} "
                         f"{ratio(p, bp)} {fmt(d)[1:]} {ratio(d, bd)} {share} {dtext} "
                         f"{greedy:>7}")
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--models", default="smollm2-135m,qwen2.5-0.5b",
                   help="comma-separated, or 'all': " + ", ".join(models.MODELS))
    p.add_argument("--arms", default=",".join(DEFAULT_ARMS),
                   help="comma-separated: " + ", ".join(ARMS))
    p.add_argument("--threads", default="1,2")
    p.add_argument("--batches", default="1,8")
    p.add_argument("--prefill", type=int, default=512)
    p.add_argument("--decode", type=int, default=128)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--budget", type=float, default=30.0,
                   help="no further repeat of a measurement starts after this many seconds")
    p.add_argument("--timeout", type=float, default=3600.0, help="seconds per worker")
    p.add_argument("--out", default="")
    p.add_argument("--no-profile", dest="profile", action="store_false",
                   help="skip the GEMM share of decode steps (torch.profiler)")
    args = p.parse_args()
    names = list(models.MODELS) if args.models == "all" else args.models.split(",")
    arms = args.arms.split(",")
    for a in arms:
        if a not in ARMS:
            p.error(f"unknown arm {a}")
    threads = [int(t) for t in args.threads.split(",")]
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    out_dir = args.out or os.path.join("out", f"e2e-{stamp}")
    os.makedirs(out_dir, exist_ok=True)
    run = {"started": stamp, "host": os.uname().nodename + f", {os.cpu_count()} CPUs",
           "command": " ".join([os.path.basename(sys.executable)] + sys.argv),
           "models": names, "threads": threads,
           "batches": [int(b) for b in args.batches.split(",")],
           "prefill_tokens": args.prefill, "decode_tokens": args.decode, "results": []}
    # Stock fp32 first: the reference of every accuracy figure.
    order = ["torch_fp32"] + [a for a in arms if a != "torch_fp32"]
    for model in names:
        for t in threads:
            ref = None
            for arm in order:
                if arm == "llamacpp" and models.MODELS[model][0] != "gguf":
                    continue
                logits = os.path.join(out_dir, f"logits-{model}-{arm}-{t}.npy")
                print(f"e2e: {model} {arm} threads={t}", flush=True)
                r = run_worker(model, arm, t, args, logits)
                r.update(model=model, arm=arm, threads=t)
                if arm == "torch_fp32":
                    ref = r
                if ref is not None and "error" not in r and "error" not in ref:
                    ref_logits = os.path.join(out_dir, f"logits-{model}-torch_fp32-{t}.npy")
                    r["accuracy"] = accuracy(r, ref, logits, ref_logits)
                if arm != "torch_fp32":
                    r.pop("greedy_tokens", None)
                run["results"].append(r)
                run["table"] = table_text(run)
                with open(os.path.join(out_dir, "results.json"), "w") as f:
                    json.dump(run, f, indent=1)
    run["table"] = table_text(run)
    with open(os.path.join(out_dir, "results.json"), "w") as f:
        json.dump(run, f, indent=1)
    write_report(os.path.join(out_dir, "report.html"), run)
    print(run["table"])
    print(f"e2e: {out_dir}/results.json, {out_dir}/report.html")


if __name__ == "__main__":
    main()
