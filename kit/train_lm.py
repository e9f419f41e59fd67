"""Train chapter 12's character model and store its checkpoints in lessons/lm_weights/.

    python -m kit weights            # what `make weights` runs: the shipped schedule
    python -m kit weights --help     # every setting

The model is `lessons.lm.model.CharLM` (two attention-only layers, d_model 128, 4 heads
of 32, context 128, learned positions). The text is the running interpreter's
standard library (`lessons.lm.text.stdlib_corpus`: its top-level `Lib/*.py` files
written entirely in the model's 96 characters; every tenth held out): no download,
real code and English. For the first `--plain-steps` steps every row of a batch is
plain text; from then on the first `--repeat-rows` rows of every batch hold an
inserted repeat (a real span of the row, 20-60 characters, copied later in the same
row), the data that lets an induction head pay off. The manifest records all of it.

At each checkpoint step the weights are rounded to float16 and stored as
`step_NNNNN.npz`; the losses in the manifest are computed from those rounded weights,
so a reader who loads a checkpoint gets the manifest's numbers. Deterministic from
`--seed` on one thread (the default).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import platform
import sys
import time
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parent.parent

from lessons.lm.model import CharLM, LMConfig  # noqa: E402
from lessons.lm.run import text_loss  # noqa: E402
from lessons.lm.text import VOCAB, encode, eval_passages, stdlib_corpus  # noqa: E402
from lessons.lm.train import lm_loss, make_optimizer, sample_batch, train_step  # noqa: E402

# The shipped checkpoints: step 0, denser where the heads form.
CHECKPOINTS = (0, 300, 700, 1500, 2000, 2500, 3000, 3500, 4000, 5000, 6000, 8000)
FIRST_LOSSES = 10  # how many of the first steps' losses the manifest keeps
EVAL_BATCHES = 8  # fixed plain batches for the train and held-out losses


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--out", type=Path, default=ROOT / "lessons" / "lm_weights")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--steps", type=int, default=max(CHECKPOINTS))
    p.add_argument("--checkpoints", type=int, nargs="+", default=list(CHECKPOINTS))
    p.add_argument("--plain-steps", type=int, default=1500)
    p.add_argument("--repeat-rows", type=int, default=16)
    p.add_argument("--span", type=int, nargs=2, default=[20, 60])
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--n-ctx", type=int, default=128)
    p.add_argument("--lr", type=float, default=2e-3)
    p.add_argument("--threads", type=int, default=1)
    return p.parse_args(argv)


def rounded(model: CharLM) -> tuple[CharLM, dict[str, np.ndarray]]:
    """A float32 copy of ``model`` with every weight rounded to float16, and those weights."""
    weights = {k: v.detach().to(torch.float16).numpy() for k, v in model.state_dict().items()}
    copy = CharLM(model.config)
    copy.load_state_dict({k: torch.from_numpy(v).float() for k, v in weights.items()})
    return copy, weights


def evaluate(model: CharLM, eval_sets: dict, passages: dict[str, str]) -> dict:
    """Train, held-out and validation (the course's passages) losses of ``model``."""
    out = {}
    with torch.no_grad():
        for name, batches in eval_sets.items():
            losses = [float(lm_loss(model, x, y)) for x, y in batches]
            out[f"{name}_loss"] = round(float(np.mean(losses)), 6)
    by_passage = {k: text_loss(v, model) for k, v in passages.items()}
    counts = {k: len(v) - 1 for k, v in passages.items()}  # characters predicted
    pooled = sum(by_passage[k] * counts[k] for k in counts) / sum(counts.values())
    out["val_loss"] = round(pooled, 6)
    out["val_loss_by_passage"] = {k: round(v, 6) for k, v in by_passage.items()}
    return out


def progress(step: int, total: int, loss: float, started: float) -> None:
    """A plain-text progress bar on stderr (a new line every 100 steps when not a terminal)."""
    tty = sys.stderr.isatty()
    if not tty and step % 100 and step != total:
        return
    done = int(30 * step / total)
    elapsed = time.perf_counter() - started
    eta = elapsed / max(step, 1) * (total - step)
    line = (
        f"[{'#' * done}{'.' * (30 - done)}] {step}/{total} loss {loss:.4f} eta {eta / 60:.1f} min"
    )
    print(("\r" if tty else "") + line, end="" if tty else "\n", file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    torch.set_num_threads(args.threads)
    args.out.mkdir(parents=True, exist_ok=True)
    corpus = stdlib_corpus()
    train_ids, heldout_ids = encode(corpus.train), encode(corpus.heldout)
    config = LMConfig(vocab=len(VOCAB), n_ctx=args.n_ctx)
    model = CharLM(config, seed=args.seed)
    optimizer = make_optimizer(model, lr=args.lr)
    rng = np.random.default_rng(args.seed)
    eval_rng = np.random.default_rng(args.seed + 1)
    eval_sets = {
        name: [sample_batch(ids, args.batch, args.n_ctx, eval_rng) for _ in range(EVAL_BATCHES)]
        for name, ids in (("train", train_ids), ("heldout", heldout_ids))
    }
    passages = eval_passages()
    manifest = {
        "model": "lessons.lm.model.CharLM: two attention-only pre-norm layers, no MLP, no biases in attention",
        "config": config.as_dict(),
        "parameters": sum(p.numel() for p in model.parameters()),
        "vocab": VOCAB,
        "seed": args.seed,
        "optimizer": {
            "name": "AdamW",
            "lr": args.lr,
            "betas": [0.9, 0.999],
            "weight_decay": 0.01,
            "grad_clip": 1.0,
            "schedule": "constant",
        },
        "batch": args.batch,
        "steps": args.steps,
        "corpus": {
            "description": "top-level Lib/*.py files of the Python standard library that ran the "
            "tool, sorted by name, keeping only files written entirely in the vocabulary (no tab, "
            "no non-ASCII); every tenth kept file is held out",
            "python": platform.python_version(),
            "sha256": corpus.sha256,
            "train_chars": len(corpus.train),
            "heldout_chars": len(corpus.heldout),
            "train_files": list(corpus.train_files),
            "heldout_files": list(corpus.heldout_files),
            "skipped_files": list(corpus.skipped_files),
        },
        "augmentation": {
            "plain_steps": args.plain_steps,
            "description": f"from step {args.plain_steps} on, the first {args.repeat_rows} of the "
            f"{args.batch} rows of every batch hold a repeat: a span of {args.span[0]}-{args.span[1]} "
            "characters of the row (real text) is copied over a later stretch of the same row",
            "repeat_rows": args.repeat_rows,
            "span": list(args.span),
        },
        "evaluation": {
            "train_loss": f"{EVAL_BATCHES} fixed plain batches of the training text (seed + 1)",
            "heldout_loss": f"{EVAL_BATCHES} fixed plain batches of the held-out files (seed + 1)",
            "val_loss": "the course's own passages (lessons/lm_weights/eval.txt), read in "
            "windows of n_ctx; mean over every predicted character",
        },
        "versions": {"torch": torch.__version__, "numpy": np.__version__},
        "weights": "float16 .npz, one per checkpoint, keys as CharLM.state_dict()",
        "first_losses": [],
        "checkpoints": [],
    }
    started = time.perf_counter()
    wanted = sorted(set(args.checkpoints))
    for step in range(args.steps + 1):
        if step in wanted:
            copy, weights = rounded(model)
            name = f"step_{step:05d}.npz"
            np.savez_compressed(args.out / name, **weights)
            entry = {"step": step, "file": name, **evaluate(copy, eval_sets, passages)}
            manifest["checkpoints"].append(entry)
            manifest["seconds_per_step"] = round((time.perf_counter() - started) / max(step, 1), 3)
            (args.out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
            print(f"\ncheckpoint {entry}", file=sys.stderr, flush=True)
        if step == args.steps:
            break
        repeat_rows = args.repeat_rows if step >= args.plain_steps else 0
        x, y = sample_batch(train_ids, args.batch, args.n_ctx, rng, repeat_rows, tuple(args.span))
        loss = train_step(model, optimizer, x, y)
        if step < FIRST_LOSSES:
            manifest["first_losses"].append(round(loss, 6))
        progress(step + 1, args.steps, loss, started)
    digest = hashlib.sha256()
    for entry in manifest["checkpoints"]:
        digest.update((args.out / entry["file"]).read_bytes())
    print(
        f"done: {len(manifest['checkpoints'])} checkpoints, weights sha256 {digest.hexdigest()[:16]}"
    )


if __name__ == "__main__":
    main()
